"""Every line the simulator writes parses back, with the grammars' Python executor, as intended.

The renderers attach to each line the event type (or ignored family) and field values it must
give; ``check_rendered`` parses the line exactly as ingest would (record assembly in Kafka's
default layout, the release as version hint) and reports any line quarantined or read as
something else. Runs cover a busy random mix on several seeds, the demo scenario, and
per-file time order.
"""

from __future__ import annotations

import io
import re
from collections import Counter, defaultdict

import pytest

from kafkactl_lab.simulate import SimulationSettings, UnsupportedVersionError, load_script
from kafkactl_lab.simulate.output import LogFile, Rendered
from kafkactl_lab.simulate.run import build_simulator, effective_settings, operations
from kafkactl_lab.simulate.selfcheck import check_rendered
from tests.core.test_simulate_engine import DEMO_SCENARIO, EVERY_OP, NullSink
from tests.core.test_simulate_engine import busy as engine_busy


def collected(settings: SimulationSettings, script=None) -> tuple[list[Rendered], str]:
    effective = effective_settings(settings, script)
    sim = build_simulator(effective, NullSink(), None, None, collect=True)
    sim.run(operations(effective, script))
    assert sim.out.collected is not None
    return sim.out.collected, sim.r.release


def busy(version: str, seed: int, brokers: int = 5) -> SimulationSettings:
    """The engine tests' busy mix on five topics, 40% of them unclean."""
    return engine_busy(seed, version, brokers=brokers, topics=5, unclean_topic_fraction=0.4)


COMMON_KINDS = (
    "controller_elected",
    "broker_change",
    "partition_state_change",
    "replica_removed_from_isr",
    "leader_and_isr_sent",
    "update_metadata_sent",
    "leader_and_isr_received",
    "update_metadata_received",
    "partition_leader_started",
    "isr_shrink",
    "isr_expand",
    "leader_imbalance_ratio",
    "controlled_shutdown",
    "reassignment",
    "topics_changed",
    "topic_deletion",
    "controller_resigned",
)
VERSION_KINDS = {
    "2.8": ("partition_follower_started", "isr_update_committed", "alter_isr_applied"),
    "1.0": (
        "replica_state_change",
        "leader_selected",
        "leader_elected",
        "isr_change_notification",
        "isr_removal_skipped",
        "become_transition",
        "request_not_sent",
    ),
}


@pytest.mark.parametrize(
    ("version", "seed"), [("2.8", 1), ("2.8", 2), ("2.8", 3), ("1.0", 1), ("1.0", 3)]
)
def test_every_line_parses_as_intended(version: str, seed: int) -> None:
    lines, release = collected(busy(version, seed))
    assert len(lines) > 3000
    problems = check_rendered(lines, release)
    assert problems == [], "\n".join(
        f"{p.got} <- {p.expected}: {p.line.text}" for p in problems[:10]
    )
    kinds = Counter(line.expect.kind for line in lines if line.expect is not None)
    # the busy mix exercises the families the audit needs
    for kind in COMMON_KINDS + VERSION_KINDS[version]:
        assert kinds[kind] > 0, kind


def demo_in(version: str):
    script = load_script(DEMO_SCENARIO)
    settings = {**script.settings, "kafka_version": version}
    return script.model_copy(update={"settings": settings})


def test_only_releases_before_1_1_name_the_unclean_election() -> None:
    lines, release = collected(SimulationSettings(), demo_in("1.0"))
    assert release == "1.0.2"
    assert check_rendered(lines, release) == []
    unclean = [
        line for line in lines if line.expect and line.expect.kind == "unclean_leader_election"
    ]
    assert len(unclean) == 1
    assert (
        "No broker in ISR is alive for audit-0. Elect leader 4 from live brokers 4. "
        "There's potential data loss." in unclean[0].text
    )
    lines28, _ = collected(SimulationSettings(), demo_in("2.8"))
    assert not any("data loss" in line.text for line in lines28)


def test_demo_scenario_lines_parse_as_intended() -> None:
    lines, release = collected(SimulationSettings(), load_script(DEMO_SCENARIO))
    assert release == "2.8.2"
    assert check_rendered(lines, release) == []


@pytest.mark.parametrize("version", ["2.8", "1.0"])
def test_every_operation_renders_parsable_lines(version: str) -> None:
    script = EVERY_OP.model_copy(
        update={"settings": {**EVERY_OP.settings, "kafka_version": version}}
    )
    lines, release = collected(SimulationSettings(), script)
    assert check_rendered(lines, release) == []


@pytest.mark.parametrize("version", ["2.8", "1.0"])
def test_failed_transitions_carry_their_stack_trace_in_the_record(version: str) -> None:
    # broker crashes with ISRs shrunk to the dead leader leave partitions without a leader
    lines, release = collected(busy(version, 4, brokers=3))
    kinds = ("partition_state_change_failed", "replica_state_change_failed")
    failed = [line for line in lines if line.expect and line.expect.kind in kinds]
    assert failed, "the busy mix produces failed elections"
    for line in failed:
        first, *rest = line.text.rstrip("\n").split("\n")
        assert first.endswith("(state.change.logger)")
        assert rest[0].startswith(("kafka.common.", "java.lang."))
        assert all(r.startswith("\tat ") for r in rest[1:])
    assert check_rendered(failed, release) == []


_STAMP = re.compile(r"^\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3})\] ")


@pytest.mark.parametrize("version", ["2.8", "1.0"])
def test_each_file_is_in_time_order(version: str) -> None:
    lines, _ = collected(busy(version, 5))
    last: dict[tuple[int, LogFile], str] = defaultdict(str)
    for line in lines:
        match = _STAMP.match(line.text)
        assert match, line.text
        key = (line.broker, line.file)
        assert match.group(1) >= last[key], line.text
        last[key] = match.group(1)


def test_controller_decisions_are_only_in_the_active_controllers_files() -> None:
    lines, _ = collected(SimulationSettings(), load_script(DEMO_SCENARIO))
    writers: dict[str, set[int]] = defaultdict(set)
    for line in lines:
        if line.expect is not None:
            writers[line.expect.kind].add(line.broker)
    # brokers 1 then 3 were controllers; 2 and 4 never decided anything
    for kind in (
        "partition_state_change",
        "leader_and_isr_sent",
        "broker_change",
        "leader_imbalance_ratio",
    ):
        assert writers[kind] == {1, 3}, kind
    controller_log_kinds = {
        line.expect.kind
        for line in lines
        if line.broker in (2, 4) and line.file is LogFile.controller and line.expect is not None
    }
    assert controller_log_kinds == {"thread_lifecycle", "controller_moved"}


def test_unsupported_releases_are_refused() -> None:
    for version in ("3.5", "2.4", "0.11", "1.1", "2.8.0", "1.0.3", "banana"):
        with pytest.raises(UnsupportedVersionError):
            effective = effective_settings(SimulationSettings(kafka_version=version), None)
            build_simulator(effective, NullSink(), None, None)


def test_rendered_text_is_one_record_per_line_except_stack_traces() -> None:
    lines, _ = collected(busy("2.8", 6))
    for line in lines:
        body = io.StringIO(line.text).read()
        assert body.endswith("\n")
        if line.expect is None or not line.expect.kind.endswith("state_change_failed"):
            assert body.count("\n") == 1, body
