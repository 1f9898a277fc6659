"""The Python executor's classification rules and version inference."""

from __future__ import annotations

import io
from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from kafkactl_core.grammars import (
    EventType,
    IgnoredRecord,
    LogRecord,
    Mode,
    ParsedEvent,
    Quarantined,
    VersionRange,
    assemble_records,
    infer_version,
    match_message,
    parse_record,
    parse_records,
    resolve_layout,
)
from kafkactl_core.versions import KafkaRelease

KAFKA = resolve_layout("kafka")
STAMP = "[2017-11-05 14:20:45,012] "


def _record(line: str) -> LogRecord:
    (record,) = assemble_records([line.encode() + b"\n"], KAFKA)
    return record


def test_an_event_of_0_11_and_the_version_hint() -> None:
    record = _record(
        STAMP + "TRACE Controller 1 epoch 7 changed partition [orders,1] from OfflinePartition to "
        "OnlinePartition with leader 3 (state.change.logger)"
    )
    plain = parse_record(record)
    assert isinstance(plain, ParsedEvent) and not plain.version_conflict
    assert plain.event.event_type is EventType.PARTITION_STATE_CHANGE
    in_range = parse_record(record, KafkaRelease.parse("0.11.0.2"))
    assert isinstance(in_range, ParsedEvent) and not in_range.version_conflict
    out_of_range = parse_record(record, KafkaRelease.parse("3.5.2"))
    assert isinstance(out_of_range, ParsedEvent) and out_of_range.version_conflict
    assert out_of_range.event == plain.event


def test_unknown_lines_of_audited_loggers_are_quarantined_others_ignored() -> None:
    audited = parse_record(
        _record(STAMP + "INFO [Controller id=1] Something new (kafka.controller.KafkaController)")
    )
    assert isinstance(audited, Quarantined)
    assert (audited.reason, audited.detail) == ("no_grammar", "kafka.controller.KafkaController")
    kraft = parse_record(
        _record(
            STAMP
            + "INFO [QuorumController id=1] New thing "
            + "(org.apache.kafka.controller.QuorumController)"
        )
    )
    assert isinstance(kraft, Quarantined) and kraft.reason == "no_grammar"
    partition = parse_record(
        _record(STAMP + "INFO [Partition t-0 broker=1] Something (kafka.cluster.Partition)")
    )
    assert isinstance(partition, Quarantined) and partition.reason == "no_grammar"
    foreign = parse_record(_record(STAMP + "INFO Truncating log t-0 to offset 5. (kafka.log.Log)"))
    assert isinstance(foreign, IgnoredRecord)
    assert (foreign.family, foreign.grammar) == ("foreign_logger", None)


def test_a_recognised_line_of_a_foreign_logger_is_an_event() -> None:
    outcome = parse_record(
        _record(
            STAMP
            + "INFO [KafkaServer id=1] Controlled shutdown succeeded (kafka.server.KafkaServer)"
        )
    )
    assert isinstance(outcome, ParsedEvent)
    assert outcome.event.event_type is EventType.CONTROLLED_SHUTDOWN
    assert (outcome.event.broker, outcome.event.phase) == (1, "succeeded")


def test_a_capture_that_does_not_convert_is_quarantined_with_the_field() -> None:
    line = (
        STAMP
        + "INFO [Controller id=1] Broker failure callback for 99999999999999999999 "
        + "(kafka.controller.KafkaController)"
    )
    outcome = parse_record(_record(line))
    assert isinstance(outcome, Quarantined)
    assert outcome.reason == "field_conversion: brokers"
    assert outcome.detail is not None and outcome.detail.startswith("broker_failure_callback:")


def test_match_message() -> None:
    assert match_message("nothing any grammar knows") is None
    result = match_message("[Controller id=2] Leader imbalance ratio for broker 3 is 0.25")
    assert result is not None and result.entry.name == "leader_imbalance_ratio"
    assert result.values["ratio"] == 0.25 and result.values["controller_id"] == 2


def test_parse_records_streams_one_outcome_per_record() -> None:
    data = (
        b"junk before\n"
        + (STAMP + "INFO [Controller id=1] Resigned (kafka.controller.KafkaController)\n").encode()
        + b"\tat trace\n"
    )
    outcomes = list(parse_records(assemble_records(io.BytesIO(data), KAFKA)))
    assert [o.status for o in outcomes] == ["quarantined", "parsed"]
    assert [(o.first_line, o.line_count) for o in outcomes] == [(1, 1), (2, 2)]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.binary(max_size=300), max_size=30))
def test_never_raises_and_accounts_for_every_line(chunks: Sequence[bytes]) -> None:
    data = b"\n".join(chunks)
    records = list(assemble_records(io.BytesIO(data), KAFKA))
    expected_lines = data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)
    assert sum(r.line_count for r in records) == expected_lines
    for record in records:
        assert parse_record(record).status in {"parsed", "ignored", "quarantined"}


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=400))
def test_any_message_text_is_classified(text: str) -> None:
    line = STAMP + "INFO " + text.replace("\n", " ").replace("\r", " ") + " (state.change.logger)"
    record = _record(line)
    assert parse_record(record).status in {"parsed", "ignored", "quarantined"}


def test_version_inference_from_variants() -> None:
    inference = infer_version(
        {"partition_state_change/leader_and_isr_3.5": 10, "alter_isr_applied/leader_and_isr_3.5": 2}
    )
    assert inference.versions == VersionRange.of("3.5", None)
    assert inference.mode is Mode.ZK and inference.conflicts == ()
    assert {e.grammar for e in inference.evidence} == {
        "partition_state_change/leader_and_isr_3.5",
        "alter_isr_applied/leader_and_isr_3.5",
    }
    bracket = infer_version(["partition_state_change/0.11_leader", "leader_imbalance_ratio"])
    assert bracket.versions == VersionRange.of("0.11", "1.0")
    assert bracket.contains(KafkaRelease.parse("0.11.0.2"))
    assert not bracket.contains(KafkaRelease.parse("1.0"))


def test_version_inference_reports_conflicts_and_kraft() -> None:
    # An upgrade inside the files: 1.1 - 3.1 LeaderAndIsr lines, and many 3.5+ ones.
    inference = infer_version(
        {
            "partition_state_change/leader_and_isr_1.1": 1,
            "partition_state_change/leader_and_isr_3.5": 5,
            "alter_isr_applied/leader_and_isr_3.5": 5,
        }
    )
    assert inference.versions == VersionRange.of("3.5", None)
    assert [e.grammar for e in inference.conflicts] == ["partition_state_change/leader_and_isr_1.1"]
    kraft = infer_version({"kraft_broker_fenced/with_epoch": 1, "thread_lifecycle/starting": 4})
    assert kraft.mode is Mode.KRAFT and kraft.versions == VersionRange.of("4.0", None)


def test_replay_release_is_the_newest_feature_release_of_the_range() -> None:
    zk = infer_version({"partition_state_change/leader_and_isr_3.5": 10})
    assert zk.replay_release() == KafkaRelease.parse("3.9")  # ZooKeeper mode ends with 3.9
    kraft = infer_version({"kraft_broker_fenced/with_epoch": 1})
    assert kraft.replay_release() == KafkaRelease.parse("4.1")
    bracket = infer_version(["partition_state_change/0.11_leader", "leader_imbalance_ratio"])
    assert bracket.replay_release() == KafkaRelease.parse("0.11.0")
    upgrade = infer_version({"partition_state_change/leader_and_isr_1.1": 3})
    assert upgrade.versions == VersionRange.of("1.1", "3.2")
    assert upgrade.replay_release() == KafkaRelease.parse("3.1")


def test_version_inference_without_evidence_is_open() -> None:
    inference = infer_version({"thread_lifecycle/starting": 3, "controller_resigned/1.0": 0})
    assert inference.versions.is_open and inference.mode is Mode.ANY and inference.evidence == ()
