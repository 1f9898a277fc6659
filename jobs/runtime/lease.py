"""One writer per cluster and lakehouse: the lease a writing command holds while it writes.

A run takes the cluster's row of ``meta.leases`` before its first write, renews it from a
daemon thread every ``renew_seconds`` and releases it at the end, failed or not. Another run of
the same cluster refuses at once with one line naming the holder (exit code 5), or with
``--wait SECONDS`` polls until the lease is free. A holder that died is taken over: at once when
it ran on this host and its process is gone, otherwise when its heartbeat is older than
``ttl_seconds``. Every change of the row is a compare-and-swap on Delta's own commit
(``jobs.lakehouse.lease_table``), so of two runs taking a free or dead lease one wins. Leases
of different clusters are different rows: their runs go on in parallel.
"""

from __future__ import annotations

import logging
import os
import random
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from types import TracebackType
from typing import Any

from jobs.lakehouse.lease_table import LeaseRow, LeaseTable, lease_table, utc
from jobs.runtime.context import JobContext

log = logging.getLogger("kafkactl_audit.lease")

EXIT_LEASE_HELD = 5
"""Exit code of a command refused because another run holds the cluster's lease."""
_MAX_CONFLICTS = 50


class LeaseHeld(RuntimeError):
    """Another live run holds the lease (one line naming it)."""


class LeaseLost(RuntimeError):
    """The lease was taken over while this run held it."""


@dataclass(frozen=True)
class LeaseSettings:
    """How often a lease is renewed, when a silent holder counts as dead, how often to poll.

    Attributes:
        renew_seconds: heartbeat interval.
        ttl_seconds: a holder whose heartbeat is older is taken over (from any host).
        poll_seconds: how often a waiting run looks again.
    """

    renew_seconds: float = 30.0
    ttl_seconds: float = 90.0
    poll_seconds: float = 5.0


@dataclass(frozen=True)
class Holder:
    """Who holds a lease: a run of one process on one host."""

    run_id: str
    host: str
    pid: int

    @classmethod
    def this_process(cls, run_id: str) -> Holder:
        """The holder for ``run_id`` in this process."""
        return cls(run_id=run_id, host=socket.gethostname(), pid=os.getpid())


def pid_alive(pid: int) -> bool:
    """Whether a process ``pid`` exists on this host (signal 0 checks without sending)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # it exists, as another user
        return True
    return True


def takeover_reason(
    row: LeaseRow | None,
    me: Holder,
    now: datetime,
    ttl: timedelta,
    alive: Callable[[int], bool],
) -> str | None:
    """Why ``me`` may take the lease ``row``, or None when its holder is alive and well.

    Args:
        row: the cluster's lease row (None: never leased).
        me: the run asking.
        now: the current time (UTC).
        ttl: heartbeat age after which a holder counts as dead.
        alive: whether a pid is alive on this host.

    Returns:
        A short reason ("free", "ours", "its process is gone", "its heartbeat is N s old"),
        or None.
    """
    if row is None or row["released_at"] is not None:
        return "free"
    if row["run_id"] == me.run_id:
        return "ours"
    if row["host"] == me.host and not alive(int(row["pid"])):
        return "its process is gone"
    age = now - utc(row["heartbeat_at"])
    if age > ttl:
        return f"its heartbeat is {age.total_seconds():.0f} s old"
    return None


def holder_line(cluster: str, row: LeaseRow, now: datetime) -> str:
    """The one line naming a lease's holder, as a refused run prints it."""
    since = utc(row["started_at"]).strftime("%Y-%m-%dT%H:%M:%SZ")
    renewed = (now - utc(row["heartbeat_at"])).total_seconds()
    return (
        f"cluster {cluster} is being written by run {row['run_id']} on host {row['host']} "
        f"pid {row['pid']} since {since} (lease renewed {renewed:.0f} s ago)"
    )


class Lease:
    """The lease of one cluster for one run: acquire, renew in the background, release.

    Args:
        table: where the leases live.
        cluster: the cluster leased.
        holder: this run.
        settings: renewal, TTL and polling.
        alive: whether a pid is alive on this host.
        sleep: how to wait (between polls, and after a lost commit race).
        clock: the current time (UTC).
    """

    def __init__(
        self,
        table: LeaseTable,
        cluster: str,
        holder: Holder,
        settings: LeaseSettings | None = None,
        *,
        alive: Callable[[int], bool] = pid_alive,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self._table = table
        self.cluster = cluster
        self.holder = holder
        self.settings = settings or LeaseSettings()
        self._alive = alive
        self._sleep = sleep
        self._clock = clock
        self._token: str | None = None
        self._started_at: datetime | None = None
        self._lost: str | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def _row(self, now: datetime, released: bool = False) -> dict[str, Any]:
        assert self._started_at is not None
        return {
            "cluster": self.cluster,
            "run_id": self.holder.run_id,
            "host": self.holder.host,
            "pid": self.holder.pid,
            "started_at": self._started_at,
            "heartbeat_at": now,
            "released_at": now if released else None,
            "token": uuid.uuid4().hex,
        }

    def _conflict(self, attempt: int) -> None:
        if attempt >= _MAX_CONFLICTS:
            raise RuntimeError(
                f"lease of cluster {self.cluster}: {attempt} concurrent commits in a row to "
                f"{type(self._table).__name__}, giving up"
            )
        self._sleep(random.uniform(0.05, 0.5))

    def acquire(self, wait_seconds: float = 0.0) -> None:
        """Take the lease, waiting up to ``wait_seconds`` for a live holder to release it.

        Raises:
            LeaseHeld: another live run still holds it after the wait.
        """
        deadline = time.monotonic() + max(0.0, wait_seconds)
        conflicts = 0
        while True:
            now = self._clock()
            row = self._table.read(self.cluster)
            ttl = timedelta(seconds=self.settings.ttl_seconds)
            reason = takeover_reason(row, self.holder, now, ttl, self._alive)
            if reason is None:
                assert row is not None
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    waited = f"; waited {wait_seconds:.0f} s" if wait_seconds > 0 else ""
                    raise LeaseHeld(
                        f"{holder_line(self.cluster, row, now)}{waited}; "
                        "wait with --wait SECONDS or stop that run"
                    )
                log.info("[%s] waiting: %s", self.cluster, holder_line(self.cluster, row, now))
                self._sleep(min(self.settings.poll_seconds, remaining))
                continue
            self._started_at = now
            new = self._row(now)
            if self._table.swap(self.cluster, row["token"] if row else None, new):
                self._token = new["token"]
                if row is not None and reason not in ("free", "ours"):
                    log.warning(
                        "[%s] took over the lease of run %s on host %s pid %s: %s",
                        self.cluster,
                        row["run_id"],
                        row["host"],
                        row["pid"],
                        reason,
                    )
                return
            conflicts += 1
            self._conflict(conflicts)

    def _change(self, released: bool) -> None:
        """Renew or release the lease, as long as it is still this run's.

        The swap itself checks the token; the row is read only when it did not commit, to tell
        a takeover from a concurrent commit (a heartbeat on delta-spark is one ``MERGE``, not a
        query and a ``MERGE``).

        Raises:
            LeaseLost: another run took it over.
        """
        conflicts = 0
        while True:
            new = self._row(self._clock(), released=released)
            if self._table.swap(self.cluster, self._token, new):
                self._token = None if released else new["token"]
                return
            row = self._table.read(self.cluster)
            if row is None or row["token"] != self._token:
                taker = (
                    f"run {row['run_id']} on host {row['host']} pid {row['pid']}"
                    if row is not None
                    else "nobody"
                )
                self._lost = (
                    f"the lease of cluster {self.cluster} was taken over by {taker} while this "
                    "run held it (its heartbeat was late): that run's writes and this one's "
                    "may be mixed"
                )
                raise LeaseLost(self._lost)
            conflicts += 1
            self._conflict(conflicts)

    def renew(self) -> None:
        """Write a new heartbeat.

        Raises:
            LeaseLost: another run took the lease over.
        """
        self._change(released=False)

    def release(self) -> None:
        """Give the lease up (nothing to do when it was lost)."""
        if self._token is not None and self._lost is None:
            self._change(released=True)

    def check(self) -> None:
        """Raise ``LeaseLost`` when the heartbeat found the lease taken over."""
        if self._lost is not None:
            raise LeaseLost(self._lost)

    def _heartbeat(self) -> None:
        while not self._stop.wait(self.settings.renew_seconds):
            try:
                self.renew()
            except LeaseLost:
                log.error("[%s] %s", self.cluster, self._lost)
                return
            except Exception:  # a storage hiccup: the next beat tries again, the TTL is 3 beats
                log.warning("[%s] lease heartbeat failed", self.cluster, exc_info=True)

    def __enter__(self) -> Lease:
        """Start renewing the (acquired) lease in a daemon thread."""
        self._stop.clear()
        self._thread = threading.Thread(
            target=self._heartbeat, name=f"lease-{self.cluster}", daemon=True
        )
        self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        """Stop renewing and release; a lease lost during a clean run fails the run."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        try:
            self.release()
        except Exception:
            if error is None:
                raise
            log.warning("[%s] lease release failed", self.cluster, exc_info=True)
        if error is None:
            self.check()


@contextmanager
def cluster_lease(
    ctx: JobContext, cluster: str, wait_seconds: float = 0.0, settings: LeaseSettings | None = None
) -> Iterator[Lease]:
    """Hold the lease of ``cluster`` in ``ctx``'s lakehouse while the block runs.

    Args:
        ctx: the job context (its run id names the holder).
        cluster: the cluster written.
        wait_seconds: how long to wait for another run's lease (0: refuse at once).
        settings: renewal, TTL and polling (defaults: 30 s, 90 s, 5 s).

    Yields:
        The held lease (``check`` it between steps).

    Raises:
        LeaseHeld: another live run holds it after the wait.
        LeaseLost: it was taken over while the block ran.
    """
    table = lease_table(ctx.lakehouse, ctx.spark, ctx.config.lakehouse.catalog is not None)
    lease = Lease(table, cluster, Holder.this_process(ctx.run_id), settings)
    lease.acquire(wait_seconds)
    with lease:
        yield lease
