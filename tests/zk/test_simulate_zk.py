"""A simulated history replayed into a real ZooKeeper decodes to the simulator's final state.

``scripts/zk_from_history.py`` feeds Debian's ZooKeeper 3.8 the history of a busy simulated
run (crashes, clean stops, controller failovers, reassignments, deletions), one client process
per session; ``kafkactl_core.zk`` then decodes the dataDir. The final partition states, the
registered brokers, the controller, the zxids and how each broker session ended must be what
the simulator wrote. A script using every operation (topic deletions, config changes,
reassignments) is replayed as well. ZooKeeper runs under libfaketime (Debian's ``faketime``):
every transaction, session expiries included, carries its history time (the tests skip
when libfaketime is missing).
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

from kafkactl_core.zk import ChangeCause, decode_datadir, read_txnlog
from kafkactl_lab.simulate import HISTORY_FILE, SimulationSettings
from kafkactl_lab.simulate.output import LogDirectory
from kafkactl_lab.simulate.run import build_simulator, effective_settings, operations
from tests.core.test_simulate_engine import EVERY_OP
from tests.core.zk_builders import partition_states, registered_brokers
from tests.zk.harness import ZkInstall

pytestmark = pytest.mark.zookeeper

ROOT = Path(__file__).resolve().parents[2]
RATES = {
    "crash_broker": 2.0,
    "stop_broker": 1.5,
    "rolling_restart": 0.0,
    "shrink_isr_per_1000_partitions": 800.0,
    "expire_controller_session": 1.0,
    "reassign": 3.0,
    "create_topic": 1.5,
    "delete_topic": 1.5,
    "isolate_leader": 1.0,
}


def zk_from_history() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "zk_from_history", ROOT / "scripts" / "zk_from_history.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def faketime() -> str:
    found: str | None = zk_from_history().find_faketime()
    if found is None:
        pytest.skip(
            "libfaketime (Debian's faketime package) is not installed: ZooKeeper cannot stamp "
            "the history's times"
        )
    return found


def txn_times(version2: Path) -> dict[int, int]:
    """zxid -> time of every transaction in the logs."""
    times = {}
    for path in sorted(version2.glob("log.*")):
        for entry in read_txnlog(path):
            times[entry.zxid] = entry.time
    return times


@pytest.mark.parametrize(("version", "scripted"), [("2.8", False), ("1.0", False), ("2.8", True)])
def test_replayed_history_decodes_to_the_simulators_state(
    version: str, scripted: bool, zk_install: ZkInstall, faketime: str, tmp_path: Path
) -> None:
    settings = SimulationSettings(
        kafka_version=version,
        brokers=4,
        topics=3,
        partitions_per_topic=3,
        hours=2,
        seed=17,
        unclean_topic_fraction=0.34,
        rates=RATES,
    )
    script = EVERY_OP if scripted else None
    effective = effective_settings(settings, script)
    logs = LogDirectory(tmp_path / "logs")
    with (tmp_path / HISTORY_FILE).open("w") as history:
        sim = build_simulator(effective, logs, history, None)
        sim.run(operations(effective, script))
    logs.close()
    assert (
        sim.stats.operations.get("crash_broker", 0)
        + sim.stats.operations.get("expire_controller_session", 0)
        >= 2
    )

    replay = zk_from_history()
    install = replay.ZooKeeperInstall(zk_install.java, zk_install.classpath)
    report = replay.replay_history(
        tmp_path / HISTORY_FILE,
        tmp_path / "zk",
        snap_count=40,
        prealloc_kb=16,
        install=install,
        faketime=faketime,
    )
    assert report.mismatches == 0
    records = [json.loads(line) for line in (tmp_path / HISTORY_FILE).open()]
    assert report.transactions == len(records) == sim.history.zxid
    # ZooKeeper stamped every txn, expiries included, with its history time
    times = txn_times(tmp_path / "zk" / "version-2")
    assert [times.get(r["zxid"]) for r in records] == [r["t"] for r in records]
    assert report.max_skew_ms == 0
    mapping = json.loads((tmp_path / "zk" / "zxid-map.json").read_text())
    assert mapping["entries"] == [[r["zxid"], r["zxid"], r["t"], r["t"]] for r in records]
    files = sorted(p.name for p in (tmp_path / "zk" / "version-2").iterdir())
    assert sum(name.startswith("snapshot.") for name in files) >= 2
    assert sum(name.startswith("log.") for name in files) >= 2

    result = decode_datadir([tmp_path / "zk" / "version-2"])
    assert result.issues == [] and result.tree is not None
    tree = result.tree
    assert partition_states(tree) == sim.zk.store.data
    assert registered_brokers(tree) == sim.live
    controller = tree.get("/controller")
    assert controller is not None and controller.data is not None
    assert json.loads(controller.data)["brokerid"] == sim.controller
    epoch = tree.get("/controller_epoch")
    assert epoch is not None and int(epoch.data or b"0") == sim.epoch

    # every broker session ended the way the history says: expired (crash) or closed (stop)
    expected = {
        report.sessions[r["session"]]: (
            ChangeCause.session_expired if r["expired"] else ChangeCause.session_closed
        )
        for r in records
        if r["op"] == "closeSession"
    }
    got = {c.session_id: c.cause for c in result.changes if c.op == "closeSession"}
    assert got == expected
    assert ChangeCause.session_expired in got.values()
    # broker epochs in the logs are the registrations' zxids ZooKeeper assigned
    starts = {(i.broker_id, i.start_zxid) for i in result.liveness}
    assert starts == {
        (int(r["path"].rsplit("/", 1)[1]), r["zxid"])
        for r in records
        if r["op"] == "create" and r["path"].startswith("/brokers/ids/")
    }
