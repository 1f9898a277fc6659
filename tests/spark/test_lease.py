"""The cluster lease (``jobs.runtime.lease``) on ``meta.leases``, on both engines (issue 21).

Each test runs on delta-rs and on delta-spark (Delta's ``MERGE`` in the session). Holders are
``Lease`` objects of made-up runs, hosts and pids in this process; the commit races are real
threads committing at the same moment. Two real processes racing are in
``tests/live/test_concurrent_runs.py``.
"""

from __future__ import annotations

import re
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from jobs.lakehouse.lease_table import (
    DeltaRsLeaseTable,
    DeltaSparkLeaseTable,
    LeaseRow,
    LeaseTable,
)
from jobs.runtime.lease import Holder, Lease, LeaseHeld, LeaseLost, LeaseSettings
from tests.conftest import REPO
from tests.helpers import ENGINES, require_delta_spark

HERE = Holder.this_process("run-here")
FAST = LeaseSettings(renew_seconds=0.2, ttl_seconds=60.0, poll_seconds=0.2)


@pytest.fixture(params=ENGINES)
def table(request: pytest.FixtureRequest, spark: SparkSession, lakehouse_dir: Path) -> LeaseTable:
    location = str(lakehouse_dir / "meta" / "leases")
    if request.param == "delta-spark":
        require_delta_spark(spark)
        return DeltaSparkLeaseTable(spark, location, catalog=False)
    return DeltaRsLeaseTable(location)


@pytest.fixture
def rs_table(lakehouse_dir: Path) -> LeaseTable:
    """The delta-rs lease table, for tests of the lease's own logic rather than the table's
    compare-and-swap (each delta-spark MERGE costs seconds)."""
    return DeltaRsLeaseTable(str(lakehouse_dir / "meta" / "leases"))


def _other(run_id: str, host: str | None = None, pid: int = 4242) -> Holder:
    """A run on another host (its own, unless ``host`` is given)."""
    return Holder(run_id=run_id, host=host or f"host-of-{run_id}", pid=pid)


def _dead_pid() -> int:
    process = subprocess.Popen(["true"])
    process.wait()
    return process.pid


READ_AND_EXIT = """
import sys
from jobs.lakehouse.lease_table import DeltaRsLeaseTable
row = DeltaRsLeaseTable(sys.argv[1]).read("demo")
print(row["run_id"])
"""
"""What a refused run does with the lease table before it exits: read the row, then exit."""


def test_a_process_that_reads_a_lease_and_exits_at_once_exits_cleanly(
    lakehouse_dir: Path, rs_table: LeaseTable
) -> None:
    """A read through a pyarrow dataset over deltalake's Python file system aborted 13 of 30
    such processes at exit (an Arrow thread dropping the dataset waited for the GIL during
    finalization; exit code -6), so eight clean exits in a row rule that path out."""
    Lease(rs_table, "demo", _other("run-holder"), FAST).acquire()
    location = str(lakehouse_dir / "meta" / "leases")
    for _ in range(8):
        done = subprocess.run(
            [sys.executable, "-c", READ_AND_EXIT, location],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert (done.returncode, done.stdout) == (0, "run-holder\n"), done.stderr[-2000:]


def test_acquire_release_then_another_run_acquires(table: LeaseTable) -> None:
    first = Lease(table, "demo", HERE, FAST)
    first.acquire()
    row = table.read("demo")
    assert row is not None
    assert (row["run_id"], row["host"], row["pid"]) == (HERE.run_id, HERE.host, HERE.pid)
    assert row["released_at"] is None
    first.release()
    released = table.read("demo")
    assert released is not None and released["released_at"] is not None

    second = Lease(table, "demo", _other("run-next"), FAST)
    second.acquire()
    taken = table.read("demo")
    assert taken is not None
    assert taken["run_id"] == "run-next" and taken["released_at"] is None


def test_a_second_run_is_refused_with_one_line_naming_the_holder(table: LeaseTable) -> None:
    holder = _other("run-3f2a", host="h", pid=1234)
    Lease(table, "demo", holder, FAST).acquire()
    with pytest.raises(LeaseHeld) as refused:
        Lease(table, "demo", HERE, FAST).acquire()
    line = str(refused.value)
    assert "\n" not in line
    assert line.startswith("cluster demo is being written by run run-3f2a on host h pid 1234 ")
    assert re.search(r" since \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ \(lease renewed \d+ s ago\); ", line)
    assert line.endswith("wait with --wait SECONDS or stop that run")
    row = table.read("demo")
    assert row is not None and row["run_id"] == "run-3f2a"


def test_a_dead_holder_on_this_host_is_taken_over_at_once(rs_table: LeaseTable) -> None:
    dead = Holder(run_id="run-dead", host=HERE.host, pid=_dead_pid())
    Lease(rs_table, "demo", dead, FAST).acquire()
    Lease(rs_table, "demo", HERE, FAST).acquire()
    row = rs_table.read("demo")
    assert row is not None and row["run_id"] == HERE.run_id


def test_a_live_holder_on_this_host_is_not_taken_over(rs_table: LeaseTable) -> None:
    Lease(rs_table, "demo", Holder("run-live", HERE.host, HERE.pid), FAST).acquire()
    with pytest.raises(LeaseHeld, match="run run-live"):
        Lease(rs_table, "demo", Holder("run-here-2", HERE.host, HERE.pid), FAST).acquire()


def test_a_stale_heartbeat_is_taken_over_and_its_holder_learns_it(table: LeaseTable) -> None:
    silent = Lease(table, "demo", _other("run-silent"), FAST)
    silent.acquire()
    with pytest.raises(LeaseHeld):
        Lease(table, "demo", HERE, FAST).acquire()
    later = datetime.now(UTC) + timedelta(seconds=FAST.ttl_seconds + 5)
    Lease(table, "demo", HERE, FAST, clock=lambda: later).acquire()
    row = table.read("demo")
    assert row is not None and row["run_id"] == HERE.run_id
    with pytest.raises(LeaseLost, match=f"taken over by run {HERE.run_id}"):
        silent.renew()
    silent.release()  # a lost lease is not released over its new holder
    row = table.read("demo")
    assert row is not None and row["run_id"] == HERE.run_id and row["released_at"] is None


class _Counted:
    """A lease table that counts the calls made to it."""

    def __init__(self, table: LeaseTable) -> None:
        self.table = table
        self.calls: list[str] = []

    def read(self, cluster: str) -> LeaseRow | None:
        self.calls.append("read")
        return self.table.read(cluster)

    def swap(self, cluster: str, expected: str | None, row: LeaseRow) -> bool:
        self.calls.append("swap")
        return self.table.swap(cluster, expected, row)


def test_an_uncontested_renewal_or_release_is_one_swap_without_a_read(
    rs_table: LeaseTable,
) -> None:
    counted = _Counted(rs_table)
    lease = Lease(counted, "demo", HERE, FAST)
    lease.acquire()
    counted.calls.clear()
    lease.renew()
    lease.release()
    assert counted.calls == ["swap", "swap"]
    row = rs_table.read("demo")
    assert row is not None and row["released_at"] is not None


def test_different_clusters_are_leased_independently(rs_table: LeaseTable) -> None:
    Lease(rs_table, "demo", _other("run-a"), FAST).acquire()
    Lease(rs_table, "kraft-demo", _other("run-b"), FAST).acquire()
    rows = [rs_table.read("demo"), rs_table.read("kraft-demo")]
    assert [r["run_id"] if r else None for r in rows] == ["run-a", "run-b"]


def _race(table: LeaseTable, cluster: str, runs: int) -> dict[str, str]:
    """``runs`` runs of other hosts acquiring ``cluster`` at the same moment: who won."""
    start = threading.Barrier(runs)
    outcomes: dict[str, str] = {}

    def acquire(run_id: str) -> None:
        start.wait()
        try:
            Lease(table, cluster, _other(run_id), FAST).acquire()
            outcomes[run_id] = "won"
        except LeaseHeld:
            outcomes[run_id] = "refused"

    threads = [threading.Thread(target=acquire, args=(f"run-{i}",)) for i in range(runs)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return outcomes


def test_of_runs_racing_for_a_free_lease_exactly_one_wins(table: LeaseTable) -> None:
    # delta-rs races are cheap: more rounds make a lost race likelier to show
    rounds = 4 if isinstance(table, DeltaRsLeaseTable) else 1
    for cluster in ["new-table", *(f"free-again-{i}" for i in range(rounds))]:
        if cluster != "new-table":
            previous = Lease(table, cluster, _other("run-before"), FAST)
            previous.acquire()
            previous.release()
        outcomes = _race(table, cluster, 3)
        winners = [run_id for run_id, outcome in outcomes.items() if outcome == "won"]
        assert len(outcomes) == 3 and len(winners) == 1, outcomes
        row = table.read(cluster)
        assert row is not None and row["run_id"] == winners[0]


def test_a_table_another_run_is_creating_is_a_lost_race_not_an_error(
    table: LeaseTable, lakehouse_dir: Path
) -> None:
    # What a run sees between another run's first data file and its first commit (the race
    # above found it on delta-spark: "location is not empty and also not a Delta table").
    location = lakehouse_dir / "meta" / "leases"
    (location / "_delta_log").mkdir(parents=True)
    (location / "cluster=demo").mkdir()
    (location / "cluster=demo" / "part-00000-in-flight.parquet").write_bytes(b"PAR1")
    now = datetime.now(UTC)
    row = {
        "cluster": "demo",
        "run_id": HERE.run_id,
        "host": HERE.host,
        "pid": HERE.pid,
        "started_at": now,
        "heartbeat_at": now,
        "released_at": None,
        "token": "t-1",
    }
    # delta-spark will not create a table there: it lost, and reads again; delta-rs writes the
    # first version itself, and the other run's commit is the one that fails.
    assert table.swap("demo", None, row) is isinstance(table, DeltaRsLeaseTable)


def test_concurrent_heartbeats_of_different_clusters_all_commit(table: LeaseTable) -> None:
    leases = [Lease(table, f"c{i}", _other(f"run-{i}"), FAST) for i in range(3)]
    for lease in leases:
        lease.acquire()
    before = {f"c{i}": table.read(f"c{i}") for i in range(3)}
    start = threading.Barrier(3)

    def beat(lease: Lease) -> None:
        start.wait()
        lease.renew()

    threads = [threading.Thread(target=beat, args=(lease,)) for lease in leases]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for name, old in before.items():
        new = table.read(name)
        assert old is not None and new is not None
        assert new["heartbeat_at"] > old["heartbeat_at"], name


def test_the_heartbeat_renews_and_a_waiting_run_gets_the_lease_on_release(
    rs_table: LeaseTable,
) -> None:
    table = rs_table
    holder = Lease(table, "demo", _other("run-holder"), FAST)
    holder.acquire()
    first = table.read("demo")
    got: list[str] = []

    def waiter() -> None:
        Lease(table, "demo", HERE, FAST).acquire(wait_seconds=120)
        got.append("acquired")

    assert first is not None
    with holder:
        thread = threading.Thread(target=waiter)
        thread.start()
        deadline = time.monotonic() + 120
        renewed = table.read("demo")
        while renewed is not None and renewed["heartbeat_at"] == first["heartbeat_at"]:
            assert time.monotonic() < deadline, "no heartbeat in 120 s"
            time.sleep(0.1)
            renewed = table.read("demo")
        assert not got, "the waiter waits while the holder runs"
    assert renewed is not None and renewed["run_id"] == "run-holder"
    assert renewed["heartbeat_at"] > first["heartbeat_at"]
    thread.join(timeout=120)
    assert got == ["acquired"]
    row = table.read("demo")
    assert row is not None and row["run_id"] == HERE.run_id
