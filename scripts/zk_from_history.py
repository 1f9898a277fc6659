"""Replay a simulator's ``zookeeper-history.jsonl`` into a real ZooKeeper and keep its dataDir.

    python scripts/zk_from_history.py HISTORY OUT [--snap-count 60] [--prealloc-kb 16]

Starts Debian's ZooKeeper (``apt-get install -y zookeeper``) standalone on 127.0.0.1 (a free
port) with ``OUT`` as its dataDir, a small ``snapCount`` so snapshots and logs roll, and
``preAllocSize`` in KB so log files stay small. Every session of the history is a separate
client process (kazoo), so the txn log shows each broker's own session: ``createSession`` when
it starts, its writes (a controller's epoch-checked multi-ops included), ``closeSession`` when it
stops cleanly, and a server-side expiry (the process is killed and ZooKeeper expires the
session) when the history says ``expired``. Transactions are replayed one at a time, so
ZooKeeper numbers them 1, 2, 3...: the history's own ``zxid`` column; every zxid ZooKeeper
reports is checked against it. The server is stopped before the clients, so brokers still
registered at the end of the history stay registered in the files.

ZooKeeper stamps each transaction with its wall clock; a real cluster's ZooKeeper shares one
clock with the brokers' logs, so the server runs under libfaketime (Debian's ``faketime``
package; its multi-threaded ``libfaketimeMT.so.1`` through ``LD_PRELOAD``) reading the time
from a file on every clock call (``FAKETIME_TIMESTAMP_FILE``, ``FAKETIME_NO_CACHE=1``). Before
each transaction is sent (before a killed session is left to expire), the file gets the
history's time (``YYYY-MM-DD HH:MM:SS.fff500``, UTC), at which the server's wall clock stands
until the next one. Only the wall clock is faked (``FAKETIME_DONT_FAKE_MONOTONIC=1``):
ZooKeeper times sessions (and their expiry) on the monotonic clock, which runs normally. After
the replay the transaction logs are decoded (``kafkactl_core.zk``) and every txn's time is
checked against its history time.

It leaves ``OUT/version-2/`` and ``OUT/zxid-map.json``: each history record's zxid and time
with the zxid and time ZooKeeper gave it (``entries``: ``[history_zxid, zxid,
history_time_ms, zk_time_ms]``), the largest difference of the times, and the real session
ids. ``replay_history`` is the same as a function (the tests use it).
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
JAVA_FLAGS = ["-Duser.timezone=UTC", "-Xmx256m"]
SESSION_TIMEOUT_S = 3.0
"""Clients' session timeout: long enough for a busy machine's heartbeats, short for expiries."""
MAX_SKEW_MS = 2
"""Largest difference allowed between a txn's ZooKeeper time and its history time."""
FAKETIME_LIBRARY = "libfaketimeMT.so.1"
"""The multi-threaded libfaketime: the JVM reads the clock from many threads at once, and the
single-threaded library's unsynchronised re-read of the timestamp file makes its clock jump
back and forth there."""

AGENT = textwrap.dedent(
    """
    import json, sys
    from kazoo.client import KazooClient

    hosts, timeout = sys.argv[1], float(sys.argv[2])
    client = KazooClient(hosts=hosts, timeout=timeout)
    # ready to connect: the replayer sets ZooKeeper's clock, then says when
    print(json.dumps({"ready": True}), flush=True)
    sys.stdin.readline()
    client.start(timeout=30)
    sid = client.client_id[0]
    print(json.dumps({"session": sid - (1 << 64) if sid >= 1 << 63 else sid}), flush=True)


    def raw(value):
        return b"" if value is None else value.encode("utf-8")


    def parent(path):
        return path.rsplit("/", 1)[0] or "/"


    def run(cmd):
        op = cmd["op"]
        if op == "create":
            prefix = cmd["prefix"] if cmd.get("sequential") else cmd["path"]
            path, stat = client.create(
                prefix,
                raw(cmd.get("data")),
                ephemeral=cmd.get("ephemeral", False),
                sequence=cmd.get("sequential", False),
                include_data=True,
            )
            return {"path": path, "zxid": stat.czxid}
        if op == "setData":
            stat = client.set(cmd["path"], raw(cmd.get("data")), version=cmd.get("version", -1))
            return {"zxid": stat.mzxid, "version": stat.version}
        if op == "delete":
            client.delete(cmd["path"], version=cmd.get("version", -1))
            found = client.exists(parent(cmd["path"]))
            return {"zxid": None if found is None else found.pzxid}
        if op == "multi":
            tx = client.transaction()
            for sub in cmd["ops"]:
                kind = sub["op"]
                if kind == "check":
                    tx.check(sub["path"], sub["version"])
                elif kind == "create":
                    ephemeral = sub.get("ephemeral", False)
                    tx.create(sub["path"], raw(sub.get("data")), ephemeral=ephemeral)
                elif kind == "setData":
                    tx.set_data(sub["path"], raw(sub.get("data")), sub.get("version", -1))
                else:
                    tx.delete(sub["path"], sub.get("version", -1))
            results = tx.commit()
            errors = [repr(r) for r in results if isinstance(r, Exception)]
            if errors:
                raise RuntimeError("multi failed: " + ", ".join(errors))
            zxid = None
            for sub, result in zip(cmd["ops"], results):
                if sub["op"] == "setData":
                    zxid = result.mzxid
                elif sub["op"] == "create":
                    zxid = client.exists(result).czxid
            return {"zxid": zxid}
        if op == "exists":
            return {"exists": [client.exists(p) is not None for p in cmd["paths"]]}
        if op == "close":
            client.stop()
            client.close()
            return {}
        raise ValueError("unknown op " + op)


    for line in sys.stdin:
        cmd = json.loads(line)
        try:
            reply = {"ok": True, **run(cmd)}
        except Exception as exc:
            reply = {"ok": False, "error": type(exc).__name__ + ": " + str(exc)}
        print(json.dumps(reply), flush=True)
        if cmd["op"] == "close":
            break
    """
)


class ReplayError(RuntimeError):
    """The history could not be replayed as written (ZooKeeper refused or renumbered a txn)."""


@dataclass(frozen=True)
class ZooKeeperInstall:
    """Java and the classpath of Debian's ZooKeeper."""

    java: str
    classpath: str


def find_zookeeper() -> ZooKeeperInstall | None:
    """Debian's ZooKeeper (``dpkg -L zookeeper``) and Java, None when either is missing."""
    java = shutil.which("java")
    try:
        listed = subprocess.run(
            ["dpkg", "-L", "zookeeper", "libzookeeper-java"],
            capture_output=True,
            text=True,
            check=False,
            timeout=30,
        ).stdout.splitlines()
    except (OSError, subprocess.SubprocessError):
        return None
    jar = next((p for p in listed if os.path.basename(p) == "zookeeper.jar"), None)
    if java is None or jar is None or not Path(jar).is_file():
        return None
    parts = [jar]
    nop = Path("/usr/share/java/slf4j-nop.jar")
    if nop.is_file():
        parts.append(str(nop))
    return ZooKeeperInstall(java, ":".join(parts))


def find_faketime() -> str | None:
    """Debian's multi-threaded libfaketime (``faketime`` package), None when it is missing."""
    try:
        listed = subprocess.run(
            ["dpkg", "-L", "libfaketime"], capture_output=True, text=True, check=False, timeout=30
        ).stdout.splitlines()
    except (OSError, subprocess.SubprocessError):
        listed = []
    listed += sorted(glob.glob(f"/usr/lib/*/faketime/{FAKETIME_LIBRARY}"))
    return next(
        (p for p in listed if os.path.basename(p) == FAKETIME_LIBRARY and Path(p).is_file()), None
    )


def _clock_text(ms: int) -> str:
    """A libfaketime absolute time (``YYYY-MM-DD HH:MM:SS.ffffff``, UTC) for ``ms``.

    The time is written half a millisecond into ``ms``: libfaketime turns the fraction into
    nanoseconds through a double (``.033`` comes back as 32.999999 ms) and the JVM truncates
    to the millisecond.
    """
    seconds = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(ms // 1000))
    return f"{seconds}.{ms % 1000:03d}500"


class _Clock:
    """ZooKeeper's wall clock: the timestamp file libfaketime reads on every clock call.

    The file holds an absolute time, so the clock stands at it until the next write: a
    transaction is stamped with exactly the time written before it was sent, whatever the
    server's latency, and so is a session expiry, which ZooKeeper decides seconds after the
    client died. (A start-at time, ``@...``, would let the clock run on from the moment a
    thread first reads it: on the demo's history most txns were stamped 0-4 ms late, the
    expiries 2-3 s late.) The file is replaced whole, never seen half written.
    """

    def __init__(self, path: Path) -> None:
        self.path = path

    def set(self, ms: int) -> None:
        """Set ZooKeeper's clock to ``ms`` (history time, ms since the epoch)."""
        tmp = self.path.with_name(self.path.name + ".tmp")
        tmp.write_text(_clock_text(ms) + "\n", encoding="ascii")
        os.replace(tmp, self.path)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class _Server:
    """A standalone ZooKeeper server on 127.0.0.1 over ``data_dir``."""

    def __init__(
        self,
        install: ZooKeeperInstall,
        data_dir: Path,
        work: Path,
        snap_count: int,
        prealloc_kb: int,
        faketime: str,
        clock: _Clock,
    ) -> None:
        self.install = install
        self.faketime = faketime
        self.clock = clock
        self.port = _free_port()
        self.config = work / "zoo.cfg"
        self.log = work / "zookeeper.out"
        self.config.write_text(
            "\n".join(
                [
                    "tickTime=100",
                    "maxSessionTimeout=30000",
                    f"dataDir={data_dir}",
                    f"clientPort={self.port}",
                    "clientPortAddress=127.0.0.1",
                    f"snapCount={snap_count}",
                    f"preAllocSize={prealloc_kb}",
                    "admin.enableServer=false",
                    "forceSync=no",
                    "maxClientCnxns=0",
                    "",
                ]
            )
        )
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def hosts(self) -> str:
        return f"127.0.0.1:{self.port}"

    def environment(self) -> dict[str, str]:
        """The JVM's environment: libfaketime preloaded, its time read from the clock file."""
        env = {k: v for k, v in os.environ.items() if not k.startswith(("FAKETIME", "LD_PRELOAD"))}
        env.update(
            {
                "LD_PRELOAD": self.faketime,
                "FAKETIME_TIMESTAMP_FILE": str(self.clock.path),
                # re-read the file on every call (a cache duration of 0 s still caches within
                # the second: libfaketime expires it when more than that many seconds passed)
                "FAKETIME_NO_CACHE": "1",
                # session expiry runs on the monotonic clock: it must keep real time
                "FAKETIME_DONT_FAKE_MONOTONIC": "1",
                # and so must the JVM's timed waits on monotonic condition variables: with the
                # "fix" Debian's 0.9.10 applies by default, pthread_cond_timedwait converts
                # their deadline with the faked wall clock even when the monotonic clock is
                # not faked, the waits return at once and the JVM's service threads spin
                # (libfaketime PR #503)
                "FAKETIME_FORCE_MONOTONIC_FIX": "0",
                "NO_FAKE_STAT": "1",  # file times as they are
                "TZ": "UTC",  # how libfaketime reads the timestamp (mktime)
            }
        )
        return env

    def start(self, timeout: float = 30) -> None:
        with self.log.open("wb") as out:
            self.proc = subprocess.Popen(
                [
                    self.install.java,
                    *JAVA_FLAGS,
                    "-cp",
                    self.install.classpath,
                    "org.apache.zookeeper.server.ZooKeeperServerMain",
                    str(self.config),
                ],
                stdout=out,
                stderr=subprocess.STDOUT,
                env=self.environment(),
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise ReplayError(f"ZooKeeper exited: {self.log.read_text()[-2000:]}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise ReplayError("ZooKeeper did not open its client port")

    def stop(self) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=15)
        self.proc = None


class _Agent:
    """One ZooKeeper session, held by a client process."""

    def __init__(self, name: str, hosts: str) -> None:
        """Start the client process; it connects (``connect``) when told."""
        self.name = name
        self.proc = subprocess.Popen(
            [sys.executable, "-c", AGENT, hosts, str(SESSION_TIMEOUT_S)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        self._read()  # imports done: connecting now takes milliseconds
        self.session_id = 0

    def connect(self) -> None:
        """Open the session (ZooKeeper's ``createSession`` txn)."""
        assert self.proc.stdin is not None
        self.proc.stdin.write("connect\n")
        self.proc.stdin.flush()
        self.session_id = int(self._read()["session"])

    def _read(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            raise ReplayError(f"session {self.name}: client process exited")
        reply: dict[str, Any] = json.loads(line)
        return reply

    def call(self, command: dict[str, Any]) -> dict[str, Any]:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(command) + "\n")
        self.proc.stdin.flush()
        reply = self._read()
        if not reply.get("ok"):
            raise ReplayError(f"session {self.name}: {command['op']} failed: {reply.get('error')}")
        return reply

    def close(self) -> None:
        self.call({"op": "close"})
        self.proc.wait(timeout=15)

    def crash(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=15)


@dataclass
class ReplayReport:
    """What a replay did.

    Attributes:
        data_dir: the dataDir (holding ``version-2/``).
        transactions: history records replayed.
        sessions: history session name → ZooKeeper session id.
        entries: ``[history_zxid, zxid, history_time_ms, zk_time_ms]`` per record (zxid None
            when ZooKeeper did not report it and it could not be pinned; zk_time_ms the time
            of that zxid in the transaction logs, None when it is not there).
        mismatches: records whose reported zxid differs from the history's.
        max_skew_ms: the largest ``|zk_time_ms - history_time_ms|`` (None before the check).
    """

    data_dir: str
    transactions: int = 0
    sessions: dict[str, int] = field(default_factory=dict)
    entries: list[list[int | None]] = field(default_factory=list)
    mismatches: int = 0
    max_skew_ms: int | None = None

    def to_json(self) -> dict[str, Any]:
        """The ``zxid-map.json`` document."""
        return {
            "description": (
                "The replayed transactions: history zxid and time -> ZooKeeper zxid and time. "
                "ZooKeeper ran under libfaketime, its clock set to each transaction's history "
                "time; entries are [history_zxid, zxid, history_time_ms, zk_time_ms]."
            ),
            "transactions": self.transactions,
            "zxids_match_history": self.mismatches == 0,
            "max_time_skew_ms": self.max_skew_ms,
            "sessions": dict(sorted(self.sessions.items())),
            "entries": self.entries,
        }


def _wait_gone(agents: dict[str, _Agent], paths: list[str], timeout_s: float) -> None:
    """Wait until ZooKeeper has expired a session (its ephemerals are gone)."""
    deadline = time.monotonic() + timeout_s
    observer = next(iter(agents.values()), None)
    while time.monotonic() < deadline:
        if observer is None or not paths:
            time.sleep(SESSION_TIMEOUT_S * 2)
            return
        if not any(observer.call({"op": "exists", "paths": paths})["exists"]):
            return
        time.sleep(0.05)
    raise ReplayError(f"session did not expire within {timeout_s}s: {paths}")


def _txn_times(version2: Path) -> dict[int, int]:
    """zxid -> time (ms) of every transaction in the logs of ``version2``."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from kafkactl_core.zk import read_txnlog

    times: dict[int, int] = {}
    for path in sorted(version2.glob("log.*")):
        reader = read_txnlog(path)
        for entry in reader:
            times[entry.zxid] = entry.time
        error = reader.summary.error
        if error is not None:
            raise ReplayError(f"{path.name}: {error}")
    return times


def replay_history(
    history: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    snap_count: int = 60,
    prealloc_kb: int = 16,
    install: ZooKeeperInstall | None = None,
    faketime: str | None = None,
) -> ReplayReport:
    """Replay ``history`` into a fresh standalone ZooKeeper whose dataDir is ``out``.

    Args:
        history: a ``zookeeper-history.jsonl``.
        out: the dataDir to create (an existing ``version-2/`` in it is replaced).
        snap_count: ZooKeeper's ``snapCount`` (snapshots roll every ~snapCount/2 to snapCount
            transactions).
        prealloc_kb: ``preAllocSize`` (log files are padded to multiples of it).
        install: ZooKeeper's location (default: ``find_zookeeper()``).
        faketime: the multi-threaded libfaketime (default: ``find_faketime()``).

    Returns:
        The report (also written to ``out/zxid-map.json``).

    Raises:
        ReplayError: ZooKeeper or libfaketime is missing, ZooKeeper refused a write, numbered a
            txn differently or stamped a time more than ``MAX_SKEW_MS`` from the history's.
    """
    install = install or find_zookeeper()
    if install is None:
        raise ReplayError("Debian's zookeeper is not installed (apt-get install -y zookeeper)")
    faketime = faketime or find_faketime()
    if faketime is None:
        raise ReplayError(
            f"libfaketime ({FAKETIME_LIBRARY}) is not installed (apt-get install -y faketime)"
        )
    with open(history, encoding="utf-8") as f:
        records = [json.loads(line) for line in f if line.strip()]
    data_dir = Path(out).resolve()
    data_dir.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(data_dir / "version-2", ignore_errors=True)
    report = ReplayReport(str(data_dir))
    agents: dict[str, _Agent] = {}
    with tempfile.TemporaryDirectory(prefix="zk-replay-") as work:
        clock = _Clock(Path(work) / "faketime.rc")
        clock.set(records[0]["t"] if records else 0)
        server = _Server(install, data_dir, Path(work), snap_count, prealloc_kb, faketime, clock)
        server.start()
        try:
            for record in records:
                _replay_one(record, agents, server.hosts, report, clock)
        finally:
            server.stop()  # before the clients: live sessions stay in the files
            for agent in agents.values():
                agent.crash()
    _check_times(data_dir / "version-2", report)
    with open(data_dir / "zxid-map.json", "w", encoding="utf-8") as f:
        json.dump(report.to_json(), f, separators=(",", ":"))
        f.write("\n")
    if report.max_skew_ms is not None and report.max_skew_ms > MAX_SKEW_MS:
        worst = max(report.entries, key=_skew)
        raise ReplayError(
            f"ZooKeeper stamped zxid {worst[1]} at {worst[3]} ms, its history time is "
            f"{worst[2]} ms (more than {MAX_SKEW_MS} ms apart): is libfaketime intercepting "
            "the JVM's clock?"
        )
    return report


def _skew(entry: list[int | None]) -> int:
    history_ms, zk_ms = entry[2], entry[3]
    return -1 if history_ms is None or zk_ms is None else abs(zk_ms - history_ms)


def _check_times(version2: Path, report: ReplayReport) -> None:
    """Add ZooKeeper's time of each txn to the report's entries, and the largest skew."""
    times = _txn_times(version2)
    for entry in report.entries:
        zxid = entry[1]
        entry.append(None if zxid is None else times.get(zxid))
    missing = [e[1] for e in report.entries if e[3] is None]
    if missing:
        raise ReplayError(f"zxids not in the transaction logs: {missing[:10]}")
    report.max_skew_ms = max((_skew(e) for e in report.entries), default=0)


def _replay_one(
    record: dict[str, Any],
    agents: dict[str, _Agent],
    hosts: str,
    report: ReplayReport,
    clock: _Clock,
) -> None:
    op, name, expected = record["op"], record.get("session", ""), record["zxid"]
    reported: int | None = None
    if op == "createSession":
        agent = agents[name] = _Agent(name, hosts)
        clock.set(record["t"])
        agent.connect()
        report.sessions[name] = agent.session_id
    elif op == "closeSession":
        agent = agents.pop(name)
        clock.set(record["t"])  # an expiry too: it comes when it comes, at this time
        if record.get("expired"):
            agent.crash()
            _wait_gone(agents, list(record.get("removed", [])), 30.0)
        else:
            agent.close()
    else:
        agent = agents[name]
        command = dict(record)
        if op == "create" and record.get("sequential"):
            command["prefix"] = record["path"][:-10]
        clock.set(record["t"])
        reply = agent.call(command)
        if op == "create" and reply.get("path") != record["path"]:
            raise ReplayError(
                f"zxid {expected}: created {reply.get('path')}, expected {record['path']}"
            )
        reported = reply.get("zxid")
    if reported is not None and reported != expected:
        report.mismatches += 1
    zxid = reported if reported is not None else expected
    report.entries.append([expected, zxid, record["t"]])
    report.transactions += 1


def main(argv: list[str] | None = None) -> int:
    """Command line: replay a history into ``OUT`` (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("history", help="zookeeper-history.jsonl")
    parser.add_argument("out", help="dataDir to create (version-2/ and zxid-map.json)")
    parser.add_argument("--snap-count", type=int, default=60)
    parser.add_argument("--prealloc-kb", type=int, default=16)
    args = parser.parse_args(argv)
    try:
        report = replay_history(
            args.history, args.out, snap_count=args.snap_count, prealloc_kb=args.prealloc_kb
        )
    except ReplayError as exc:
        print(f"zk_from_history: {exc}", file=sys.stderr)
        return 1
    files = sorted(os.listdir(Path(args.out) / "version-2"))
    print(
        json.dumps(
            {
                "transactions": report.transactions,
                "zxids_match_history": report.mismatches == 0,
                "max_time_skew_ms": report.max_skew_ms,
                "files": files,
            }
        )
    )
    return 0 if report.mismatches == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
