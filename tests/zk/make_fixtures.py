"""Regenerate ``tests/fixtures/zk/real-3.8``: a small dataDir written by Debian's ZooKeeper 3.8.

Run ``python -m tests.zk.make_fixtures`` (needs the zookeeper package). The server runs with
``snapCount`` 40 (one snapshot rolls) and 4 KiB preallocation so the files stay small; the
history exercises every txn kind Kafka produces and the text-dump corner cases (multi sub-txns
whose lengths and versions the toolkit mangles, raw CR/VT/LF bytes). Beside each file:
ZooKeeper's own ``SnapshotFormatter -d`` / ``TxnLogToolkit -d`` output (``.formatter.txt`` /
``.toolkit.txt``). The core tests compare our binary decoder and text parsers on them without
a JVM.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from kazoo.client import KazooClient

from tests.zk.harness import MISSING, ZkServer, find_install, snapshot_formatter, txnlog_toolkit
from tests.zk.scenario import _CRASHER

TARGET = Path(__file__).resolve().parents[1] / "fixtures" / "zk" / "real-3.8"


def _state(leader: int, epoch: int) -> bytes:
    # over 127 bytes, so the multi sub-txn's data length is printed as a mangled byte
    isr = list(range(1, 31))
    return json.dumps(
        {"controller_epoch": 1, "leader": leader, "version": 1, "leader_epoch": epoch, "isr": isr},
        separators=(",", ":"),
    ).encode()


def write_history(hosts: str) -> None:
    admin = KazooClient(hosts, timeout=10)
    admin.start()
    broker = KazooClient(hosts, timeout=4)
    broker.start()
    crasher = subprocess.Popen(
        [sys.executable, "-c", _CRASHER, hosts, "/brokers/ids/3", '{"version":5}', "1.0"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        admin.create("/brokers/ids", makepath=True)  # makepath logs a NoNode error first
        crasher.stdout.readline()
        broker.create(
            "/brokers/ids/1", b'{"version":5,"host":"kafka-1","port":9092}', ephemeral=True
        )
        admin.create("/controller_epoch", b"1")
        state = "/brokers/topics/t/partitions/0/state"
        admin.create(state, _state(1, 0), makepath=True)
        for i in range(1, 15):  # versions 10 (LF), 11 (VT) and 13 (CR) end up inside a multi
            t = admin.transaction()
            t.check("/controller_epoch", 0)
            t.set_data(state, _state(1 + i % 2, i), i - 1)
            t.commit()
        t = admin.transaction()
        t.check("/controller_epoch", 7)  # stale: the multi fails
        t.set_data(state, b"{}")
        t.commit()
        admin.set("/controller_epoch", b"2", version=0)
        admin.create(
            "/isr_change_notification/isr_change_",
            b'{"version":1,"partitions":[]}',
            sequence=True,
            makepath=True,
        )
        admin.create("/config/topics/t", b'{"version":1,"config":{"a,b":"x}y"}}', makepath=True)
        admin.set_acls("/config/topics/t", admin.get_acls("/config/topics/t")[0])
        admin.delete("/config/topics/t")
        crasher.stdin.write("exit\n")
        crasher.stdin.flush()
        crasher.wait(timeout=10)
        deadline = time.monotonic() + 15
        while admin.exists("/brokers/ids/3") is not None and time.monotonic() < deadline:
            time.sleep(0.05)
        broker.stop()
        broker.close()
    finally:
        if crasher.poll() is None:
            crasher.kill()
            crasher.wait()
        admin.stop()
        admin.close()


def main() -> int:
    install = find_install()
    if install is None:
        print(MISSING, file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        server = ZkServer(install, Path(tmp), snap_count=40, prealloc_kb=4)
        server.start()
        try:
            write_history(server.hosts)
        finally:
            server.stop()
        shutil.rmtree(TARGET, ignore_errors=True)
        TARGET.mkdir(parents=True)
        for path in sorted(server.version2.iterdir()):
            shutil.copy2(path, TARGET / path.name)
            if path.name.startswith("snapshot."):
                text = snapshot_formatter(install, path)
                (TARGET / f"{path.name}.formatter.txt").write_bytes(text.encode())
            else:
                text = txnlog_toolkit(install, path)
                (TARGET / f"{path.name}.toolkit.txt").write_bytes(text.encode())
    print(f"wrote {sorted(p.name for p in TARGET.iterdir())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
