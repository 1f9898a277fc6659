"""The simulator's engine: ground truth, ZooKeeper history, determinism, streaming, scripts, CLI.

* The ground truth is what the scenario engine decided: the elections of every ``OpResult`` in
  order, and the same calls replayed on a plain ``ZkController`` decide the same (the traced
  subclass changes nothing).
* The history is a consistent ZooKeeper transaction log: zxids 1..N, versions as ZooKeeper
  numbers them, and applying it gives the simulator's final partition states and live brokers.
* Same seed, same bytes (also across interpreters with different hash seeds); memory stays flat
  as the simulated time grows.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tracemalloc
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from jobs.cli import main as cli_main
from kafkactl_core.model import TopicPartition
from kafkactl_core.zkcontroller.cluster import ClusterSpec
from kafkactl_core.zkcontroller.controller import ZkController
from kafkactl_lab.simulate import SimulationSettings, load_script, simulate
from kafkactl_lab.simulate.run import build_simulator, effective_settings, operations
from kafkactl_lab.simulate.settings import Script

ROOT = Path(__file__).resolve().parents[2]
DEMO_SCENARIO = ROOT / "samples" / "demo" / "scenario.json"
BUSY = {
    "crash_broker": 2.0,
    "stop_broker": 2.0,
    "rolling_restart": 0.5,
    "shrink_isr_per_1000_partitions": 1500.0,
    "expire_controller_session": 1.0,
    "reassign": 4.0,
    "create_topic": 2.0,
    "delete_topic": 2.0,
    "isolate_leader": 1.0,
}


class NullSink:
    """Discards lines (the tests look at the collected ones)."""

    def write(self, broker, file, text) -> None:
        del broker, file, text

    def close(self) -> None:
        return None


def run(settings: SimulationSettings, script: Script | None = None, collect: bool = True):
    effective = effective_settings(settings, script)
    history, truth = io.StringIO(), io.StringIO()
    sim = build_simulator(effective, NullSink(), history, truth, collect=collect)
    sim.run(operations(effective, script))
    return sim, history.getvalue(), truth.getvalue()


EVERY_OP = Script.model_validate(
    {
        "settings": {"brokers": 4, "hours": 3, "seed": 9},
        "steps": [
            {
                "at": 10,
                "op": "create_topic",
                "topic": "a",
                "partitions": 4,
                "replication_factor": 3,
            },
            {
                "at": 12,
                "op": "create_topic",
                "topic": "b",
                "assignment": {"0": [1, 2], "1": [2, 3]},
                "config": {"unclean.leader.election.enable": "False"},
            },
            {
                "at": 14,
                "op": "create_topic",
                "topic": "c",
                "partitions": 2,
                "replication_factor": 2,
            },
            {"at": "00:02:00", "op": "shrink_isr", "topic": "b", "partition": 0, "replica": 2},
            {"at": "00:03:00", "op": "crash_broker", "broker": 1},
            {
                "at": "00:04:00",
                "op": "set_topic_config",
                "topic": "b",
                "key": "unclean.leader.election.enable",
                "value": "True",
            },
            {"at": "00:05:00", "op": "start_broker", "broker": 1},
            {"at": "00:06:00", "op": "expand_isr", "topic": "b", "partition": 0, "replica": 2},
            {"at": "00:10:00", "op": "auto_rebalance"},
            {
                "at": "00:20:00",
                "op": "rolling_restart",
                "brokers": [2, 3],
                "interval_s": 60,
                "down_s": 20,
            },
            {
                "at": "00:40:00",
                "op": "isolate_leader",
                "topic": "c",
                "partition": 0,
                "crash_after_s": 10,
                "restart_after_s": 120,
            },
            {"at": "01:00:00", "op": "crash_broker", "broker": 4},
            {"at": "01:00:30", "op": "delete_topic", "topic": "a"},
            {"at": "01:05:00", "op": "start_broker", "broker": 4},
            {
                "at": "01:20:00",
                "op": "reassign",
                "topic": "b",
                "partition": 1,
                "replicas": [3, 4],
                "complete_after_s": None,
            },
            {"at": "01:22:00", "op": "complete_reassignment", "topic": "b", "partition": 1},
            {"at": "01:30:00", "op": "reassign", "topic": "c", "partition": 1, "replicas": [4, 1]},
            {"at": "01:40:00", "op": "expire_controller_session", "successor": 2},
            {"at": "02:00:00", "op": "stop_broker", "broker": 2, "restart_after_s": 60},
            {"at": "02:30:00", "op": "delete_topic", "topic": "c"},
        ],
    }
)
"""A script using every operation, a halted topic deletion and a dynamic unclean enable included."""


def busy(
    seed: int,
    version: str = "2.8",
    *,
    brokers: int = 5,
    topics: int = 4,
    unclean_topic_fraction: float = 0.5,
) -> SimulationSettings:
    """Three hours of the BUSY mix on topics of four partitions."""
    return SimulationSettings(
        kafka_version=version,
        brokers=brokers,
        topics=topics,
        partitions_per_topic=4,
        hours=3,
        seed=seed,
        unclean_topic_fraction=unclean_topic_fraction,
        rates=BUSY,
    )


def _election_row(record) -> dict[str, Any]:
    return {
        "topic": record.partition.topic,
        "partition": record.partition.partition,
        "trigger": record.trigger.value,
        "previous_leader": record.previous_leader,
        "new_leader": record.new_leader,
        "leader_epoch": record.leader_epoch,
        "isr_before": list(record.isr_before),
        "isr_after": list(record.isr_after),
        "unclean": record.unclean,
    }


@pytest.mark.parametrize(("version", "seed"), [("2.8", 11), ("2.8", 12), ("1.0", 11)])
def test_ground_truth_is_the_engines_elections_in_order(version: str, seed: int) -> None:
    sim, _, truth = run(busy(seed, version))
    assert sim.calls is not None
    from_results = [_election_row(r) for call in sim.calls for r in call.result.elections]
    records = [json.loads(line) for line in truth.splitlines()]
    written = [row for row in records if row["new_leader"] != -1]
    failed = [row for row in records if row["new_leader"] == -1]
    assert len(written) == len(from_results) == sim.stats.elections
    assert len(failed) == sim.stats.failed_elections > 0

    def per_partition(rows: list[dict[str, Any]]) -> dict[tuple[str, int], list[dict[str, Any]]]:
        # within one operation the lines (and the truth) follow Kafka's order of the preferred
        # brokers, the engine its own; per partition the order is the same
        out: dict[tuple[str, int], list[dict[str, Any]]] = {}
        for row in rows:
            key = (row["topic"], row["partition"])
            out.setdefault(key, []).append({k: row[k] for k in from_results[0]})
        return out

    assert per_partition(written) == per_partition(from_results)
    assert sum(row["unclean"] for row in written) == sim.stats.unclean_elections
    # timestamps never go back and name the controller that decided
    for rows in (written, failed):
        times = [row["t"] for row in rows]
        assert times == sorted(times)
        assert all(row["controller"] is not None for row in rows)


@pytest.mark.parametrize(("version", "seed"), [("2.8", 11), ("2.8", 13), ("1.0", 13)])
def test_recording_changes_no_decision(version: str, seed: int) -> None:
    sim, _, _ = run(busy(seed, version))
    assert sim.calls is not None
    plain = ZkController(ClusterSpec(sim.profile, config=sim.config))
    for call in sim.calls:
        again = getattr(plain, call.method)(*call.args, **dict(call.kwargs))
        assert [_election_row(r) for r in again.elections] == [
            _election_row(r) for r in call.result.elections
        ], call.method
        assert again.errors == call.result.errors
    assert plain.store.data == sim.zk.store.data


def apply_history(text: str) -> tuple[dict[str, tuple[str | None, int]], dict[str, str | None]]:
    """A minimal ZooKeeper: the tree (path -> data, version) and each ephemeral's owner."""
    tree: dict[str, tuple[str | None, int]] = {"/": (None, 0)}
    owner: dict[str, str | None] = {}
    sessions: set[str] = set()

    def one(op: dict[str, Any], session: str | None) -> None:
        path = op["path"]
        if op["op"] == "check":
            assert tree[path][1] == op["version"], op
        elif op["op"] == "create":
            assert path not in tree and (path.rsplit("/", 1)[0] or "/") in tree, op
            tree[path] = (op.get("data"), 0)
            owner[path] = session if op.get("ephemeral") else None
        elif op["op"] == "setData":
            version = tree[path][1]
            assert op["version"] in (-1, version), op
            tree[path] = (op["data"], version + 1)
            assert op["new_version"] == version + 1
        else:
            assert not any(p.startswith(path + "/") for p in tree), op
            del tree[path]
            owner.pop(path, None)

    for expected_zxid, line in enumerate(text.splitlines(), start=1):
        record = json.loads(line)
        assert record["zxid"] == expected_zxid
        session = record.get("session")
        if record["op"] == "createSession":
            sessions.add(session)
        elif record["op"] == "closeSession":
            sessions.remove(session)
            gone = [p for p, o in owner.items() if o == session]
            assert sorted(gone) == sorted(record["removed"])
            for p in gone:
                del tree[p]
                del owner[p]
        elif record["op"] == "multi":
            assert session in sessions
            for op in record["ops"]:
                one(op, session)
        else:
            assert session in sessions
            one(record, session)
    return tree, owner


@pytest.mark.parametrize(("version", "seed"), [("2.8", 21), ("2.8", 22), ("1.0", 21), ("1.0", 23)])
def test_history_replays_to_the_simulators_final_state(version: str, seed: int) -> None:
    sim, history, _ = run(busy(seed, version), collect=False)
    tree, _ = apply_history(history)
    assert sim.history.zxid == len(history.splitlines())
    states = {
        p: (json.loads(d), v)
        for p, (d, v) in tree.items()
        if p.startswith("/brokers/topics/") and p.endswith("/state")
    }
    engine = sim.zk.store.data
    assert len(states) == len(engine)
    for tp, lai in engine.items():
        data, version = states[f"/brokers/topics/{tp.topic}/partitions/{tp.partition}/state"]
        assert (data["leader"], data["leader_epoch"], tuple(data["isr"]), version) == (
            lai.leader,
            lai.leader_epoch,
            lai.isr,
            lai.partition_epoch,
        ), tp
    registered = sorted(int(p.rsplit("/", 1)[1]) for p in tree if p.startswith("/brokers/ids/"))
    assert registered == sim.live
    controller = json.loads(tree["/controller"][0] or "{}")
    assert controller["brokerid"] == sim.controller
    assert int(tree["/controller_epoch"][0] or 0) == sim.epoch
    # every topic's assignment znode matches the engine's
    for tp, assignment in sim.zk.zk_assignments.items():
        topic = json.loads(tree[f"/brokers/topics/{tp.topic}"][0] or "{}")
        assert tuple(topic["partitions"][str(tp.partition)]) == assignment.replicas


@pytest.mark.parametrize("version", ["2.8", "1.0"])
def test_every_operation_keeps_the_history_consistent(version: str) -> None:
    script = EVERY_OP.model_copy(
        update={"settings": {**EVERY_OP.settings, "kafka_version": version}}
    )
    sim, history, truth = run(SimulationSettings(), script)
    assert sim.stats.skipped.get("set_topic_config", 0) == 0
    # the explicit expansion of b-0 finds replica 2 already back (it became the leader)
    assert sim.stats.skipped == {**sim.stats.skipped, "expand_isr": 1}
    assert {step.op for step in EVERY_OP.steps} - {"expand_isr"} <= set(sim.stats.operations)
    tree, _ = apply_history(history)
    for tp, lai in sim.zk.store.data.items():
        data, version_ = tree[f"/brokers/topics/{tp.topic}/partitions/{tp.partition}/state"]
        assert json.loads(data or "{}")["leader"] == lai.leader
        assert version_ == lai.partition_epoch
    # both deletions completed: no trace of the topics is left in ZooKeeper
    assert not any(p.startswith(("/brokers/topics/a", "/brokers/topics/c")) for p in tree)
    assert not any(p.startswith(("/config/topics/a", "/admin/delete_topics/")) for p in tree)
    rows = [json.loads(line) for line in truth.splitlines()]
    assert any(r["trigger"] == "reassign" for r in rows)
    # the dynamic unclean enable elects at once from 2.4, at the next broker change before;
    # in 2.8 the rolling restart then stops broker 3 before broker 2, just back, has caught up
    # on b-1 (its only ISR member is going): b allows it, an unclean election
    unclean = [r for r in rows if r["unclean"]]
    assert [(r["topic"], r["partition"], r["operation"]) for r in unclean] == (
        [("b", 0, "set_topic_config"), ("b", 1, "stop_broker")] if version == "2.8" else []
    )


def demo_script(version: str) -> Script:
    """The demo scenario, run as another release."""
    script = load_script(DEMO_SCENARIO)
    return script.model_copy(update={"settings": {**script.settings, "kafka_version": version}})


class MarkedHistory(io.StringIO):
    """The history stream, noting how many log lines were written before each record."""

    def __init__(self) -> None:
        super().__init__()
        self.emitter: Any = None
        self.marks: list[tuple[int, dict[str, Any]]] = []

    def write(self, s: str) -> int:
        lines_before = 0 if self.emitter is None else self.emitter.count
        self.marks.extend((lines_before, json.loads(line)) for line in s.splitlines())
        return super().write(s)


STATE_LINE_KINDS = (
    "replica_removed_from_isr",
    "partition_state_change",
    "alter_isr_applied",
    "leader_epoch_updated",
)
"""Controller lines that report a partition's leadership znode (some of its fields)."""
ZNODE_FIELDS = ("leader", "leader_epoch", "isr", "zk_version")


def _state_writes(record: dict[str, Any]) -> list[dict[str, Any]]:
    ops = record["ops"] if record["op"] == "multi" else [record]
    return [
        op
        for op in ops
        if op["op"] in ("create", "setData")
        and op["path"].startswith("/brokers/topics/")
        and op["path"].endswith("/state")
    ]


@pytest.mark.parametrize(
    ("version", "seed"), [("2.8", None), ("2.8", 11), ("2.8", 14), ("1.0", None), ("1.0", 11)]
)
def test_state_lines_show_the_znode_as_it_is_at_their_step(version: str, seed: int | None) -> None:
    """Each line reporting a leadership shows a state its znode had at that line's step.

    Lines and history records are interleaved in the order the simulator wrote them (a batch's
    writes come before its lines). A line may not show a state ZooKeeper does not have yet (the
    leadership after an election that follows it, say), and per partition the lines that name
    a zkVersion never go back to an older one (each shows what its own step left).
    """
    if seed is None:
        script: Script | None = demo_script(version)
        settings = SimulationSettings()
    else:
        script, settings = None, busy(seed, version)
    effective = effective_settings(settings, script)
    history = MarkedHistory()
    sim = build_simulator(effective, NullSink(), history, None, collect=True)
    history.emitter = sim.out
    sim.run(operations(effective, script))
    assert sim.out.collected is not None
    # every state each znode had so far (index = zkVersion), since its last creation
    znodes: dict[tuple[str, int], list[dict[str, Any]]] = {}
    shown_version: dict[tuple[str, int], int] = {}
    marks = iter(history.marks)
    pending = next(marks, None)
    checked: Counter[str] = Counter()
    for index, line in enumerate(sim.out.collected):
        while pending is not None and pending[0] <= index:
            for op in _state_writes(pending[1]):
                _, _, _, topic, _, partition, _ = op["path"].split("/")
                key = (topic, int(partition))
                if op["op"] == "create":
                    znodes[key] = []
                    shown_version.pop(key, None)
                data = json.loads(op["data"])
                states = znodes[key]
                states.append(
                    {
                        "leader": data["leader"],
                        "leader_epoch": data["leader_epoch"],
                        "isr": tuple(data["isr"]),
                        "zk_version": len(states),
                    }
                )
            pending = next(marks, None)
        if line.expect is None or line.expect.kind not in STATE_LINE_KINDS:
            continue
        fields = dict(line.expect.fields)
        shown = {f: fields[f] for f in ZNODE_FIELDS if f in fields}
        if not shown or "partition" not in fields:
            continue  # a NewPartition line, or one naming no partition
        key = (str(fields["topic"]), int(str(fields["partition"])))
        had = [state for state in znodes[key] if shown == {f: state[f] for f in shown}]
        assert had, (line.text, znodes[key][-1])
        if "zk_version" in shown:
            version_ = int(str(shown["zk_version"]))
            assert version_ >= shown_version.get(key, 0), line.text
            shown_version[key] = version_
        checked[line.expect.kind] += 1
    assert checked["partition_state_change"] > 0 and checked["replica_removed_from_isr"] > 0


def test_broker_epochs_in_the_logs_are_registration_zxids() -> None:
    sim, history, _ = run(SimulationSettings(), load_script(DEMO_SCENARIO))
    assert sim.out.collected is not None
    created = {}
    for line in history.splitlines():
        record = json.loads(line)
        if record["op"] == "create" and record["path"].startswith("/brokers/ids/"):
            created.setdefault(int(record["path"].rsplit("/", 1)[1]), []).append(record["zxid"])
    cache_lines = [r.text for r in sim.out.collected if "broker epochs cache" in r.text]
    assert cache_lines
    for broker, zxids in created.items():
        assert any(f"{broker} -> {zxid}" in text for text in cache_lines for zxid in zxids)


def test_same_seed_same_bytes(tmp_path: Path) -> None:
    settings = busy(31)
    first = simulate(settings, tmp_path / "a")
    second = simulate(settings, tmp_path / "b")
    assert first.stats == second.stats
    files = sorted(
        p.relative_to(tmp_path / "a") for p in (tmp_path / "a").rglob("*") if p.is_file()
    )
    assert len(files) == 3 * 5 + 3
    for rel in files:
        assert (tmp_path / "a" / rel).read_bytes() == (tmp_path / "b" / rel).read_bytes(), rel
    other = simulate(busy(32), tmp_path / "c")
    assert (tmp_path / "c" / "zookeeper-history.jsonl").read_bytes() != (
        tmp_path / "a" / "zookeeper-history.jsonl"
    ).read_bytes()
    assert other.stats.lines != first.stats.lines


def test_same_seed_same_bytes_across_hash_seeds(tmp_path: Path) -> None:
    outputs = []
    for hash_seed in ("1", "2"):
        out = tmp_path / f"run{hash_seed}"
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        args = ["simulate", "--brokers", "4", "--hours", "1.5", "--seed", "5", "--out", str(out)]
        subprocess.run(
            [
                sys.executable,
                "-c",
                "import sys; from jobs.cli import main; sys.exit(main(sys.argv[1:]))",
                *args,
            ],
            check=True,
            env=env,
            cwd=ROOT,
            capture_output=True,
        )
        outputs.append(
            {
                p.relative_to(out): p.read_bytes()
                for p in sorted(out.rglob("*"))
                if p.is_file() and p.name != "simulation.json"
            }
        )
    assert outputs[0] == outputs[1]


def _peak(settings: SimulationSettings, out: Path) -> tuple[int, int]:
    tracemalloc.start()
    try:
        result = simulate(settings, out)
        return tracemalloc.get_traced_memory()[1], result.stats.lines
    finally:
        tracemalloc.stop()


def test_memory_stays_flat_as_hours_grow(tmp_path: Path) -> None:
    rates = {
        **BUSY,
        "create_topic": 0.0,
        "delete_topic": 0.0,
        "shrink_isr_per_1000_partitions": 300.0,
    }
    base = dict(brokers=6, topics=8, partitions_per_topic=10, seed=41, rates=rates)
    short_peak, short_lines = _peak(SimulationSettings(hours=1, **base), tmp_path / "short")
    long_peak, long_lines = _peak(SimulationSettings(hours=8, **base), tmp_path / "long")
    assert long_lines > 5 * short_lines
    assert long_peak < 1.5 * short_peak + 512 * 1024, (short_peak, long_peak)


def test_output_is_written_while_running(tmp_path: Path) -> None:
    settings = SimulationSettings(brokers=3, topics=2, hours=0.5, seed=3)
    effective = effective_settings(settings, None)
    seen: list[int] = []

    class Counting(NullSink):
        def write(self, broker, file, text) -> None:
            seen.append(len(text))

    history = io.StringIO()
    sim = build_simulator(effective, Counting(), history, None)
    ops = iter(operations(effective, None))
    sim.apply(next(ops))  # the first broker starts and becomes controller
    assert seen and history.getvalue().count("\n") > 10


def test_script_steps_are_validated(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"steps": [{"at": 5, "op": "explode"}]}))
    with pytest.raises(ValidationError):
        load_script(bad)
    bad.write_text(json.dumps({"steps": [{"at": 5, "op": "crash_broker", "brokr": 1}]}))
    with pytest.raises(ValidationError):
        load_script(bad)
    script = load_script(DEMO_SCENARIO)
    assert script.settings["kafka_version"] == "2.8"
    assert {s.op for s in script.steps} >= {"create_topic", "crash_broker", "reassign"}


def test_script_times_and_explicit_targets(tmp_path: Path) -> None:
    script = Script.model_validate(
        {
            "settings": {"brokers": 3, "hours": 1},
            "steps": [
                {"at": 10, "op": "create_topic", "topic": "t", "assignment": {"0": [3, 1, 2]}},
                {"at": "00:10:00", "op": "crash_broker", "broker": 3},
                {"at": "2024-03-05T08:20:00Z", "op": "start_broker", "broker": 3},
            ],
        }
    )
    sim, _, truth = run(SimulationSettings(), script)
    rows = [json.loads(line) for line in truth.splitlines()]
    offline = [r for r in rows if r["trigger"] == "offline"]
    assert [(r["time"][:19], r["previous_leader"], r["new_leader"]) for r in offline] == [
        ("2024-03-05T08:10:00", 3, 1)
    ]
    preferred = [r for r in rows if r["trigger"] == "preferred"]
    assert preferred and preferred[0]["new_leader"] == 3 and preferred[0]["t"] > offline[0]["t"]
    assert sim.zk.store.data[TopicPartition("t", 0)].leader == 3


def test_cli_writes_the_layout_and_refuses_unknown_releases(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "sim"
    code = cli_main(
        [
            "simulate",
            "--brokers",
            "3",
            "--topics",
            "2",
            "--partitions-per-topic",
            "2",
            "--hours",
            "0.5",
            "--kafka-version",
            "2.8",
            "--seed",
            "7",
            "--out",
            str(out),
        ]
    )
    assert code == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["lines"] > 0 and summary["zk_transactions"] > 0
    for broker in (1, 2, 3):
        for name in ("controller.log", "state-change.log", "server.log"):
            assert (out / "logs" / f"broker-{broker}" / name).is_file()
    for name in ("zookeeper-history.jsonl", "ground-truth-elections.jsonl", "simulation.json"):
        assert (out / name).is_file()
    assert json.loads((out / "simulation.json").read_text())["rendered_release"] == "2.8.2"
    assert cli_main(["simulate", "--kafka-version", "3.7", "--out", str(out)]) == 2
    assert "cannot be rendered exactly" in capsys.readouterr().err


def test_cli_script_settings_yield_to_the_command_line(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    code = cli_main(
        ["simulate", "--script", str(DEMO_SCENARIO), "--hours", "1.2", "--out", str(out)]
    )
    assert code == 0
    summary = json.loads((out / "simulation.json").read_text())
    assert summary["settings"]["hours"] == 1.2
    assert summary["settings"]["brokers"] == 4  # from the script
    assert summary["settings"]["random_mix"] is False


def test_cli_needs_no_spark(tmp_path: Path) -> None:
    probe = (
        "import sys; from jobs.cli import main; "
        f"main(['simulate', '--hours', '0.2', '--out', {str(tmp_path / 'x')!r}]); "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pyspark', 'py4j', 'delta')))"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert result.stdout.strip().splitlines()[-1] == "[]"
