"""PatternLayouts (presets, auto-detection, custom patterns) and streaming record assembly,
including bad input: binary garbage, invalid UTF-8, a 5 MB line, empty files, truncated lines.
"""

from __future__ import annotations

import io
import random
from datetime import datetime

import pytest

from kafkactl_core.grammars import (
    KAFKA_LAYOUT,
    STRIMZI_LAYOUT,
    CompiledLayout,
    IgnoredRecord,
    LayoutError,
    LogRecord,
    ParsedEvent,
    Quarantined,
    assemble_records,
    compile_layout,
    detect_layout,
    lint_pattern,
    parse_record,
    resolve_layout,
)

KAFKA = resolve_layout("kafka")
STRIMZI = resolve_layout("strimzi")

ELECTED = (
    "[2024-03-05 14:02:11,487] INFO [Controller id=1] 1 successfully elected as the controller. "
    "Epoch incremented to 7 and epoch zk version is now 6 (kafka.controller.KafkaController)"
)
STRIMZI_ELECTED = (
    "2024-03-05 14:02:11,487 INFO [Controller id=1] 1 successfully elected as the controller. "
    "Epoch incremented to 7 and epoch zk version is now 6 (kafka.controller.KafkaController) "
    "[controller-event-thread]"
)


def _records(data: bytes, layout: CompiledLayout = KAFKA, **caps: int) -> list[LogRecord]:
    return list(assemble_records(io.BytesIO(data), layout, **caps))


def _lines_of(data: bytes) -> int:
    return data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)


def test_presets() -> None:
    assert KAFKA.layout == KAFKA_LAYOUT == "[%d] %p %m (%c)%n"
    assert STRIMZI.layout == STRIMZI_LAYOUT == "%d{yyyy-MM-dd HH:mm:ss,SSS} %p %m (%c) [%t]%n"
    for layout in (KAFKA, STRIMZI):
        assert lint_pattern(layout.start_pattern) == []
        assert lint_pattern(layout.tail_pattern) == []
        assert layout.start_roles == ("timestamp", "level")
        assert layout.timestamp is not None
        assert layout.timestamp.date_pattern == "yyyy-MM-dd HH:mm:ss,SSS"
    assert KAFKA.tail_roles == ("message", "logger")
    assert STRIMZI.tail_roles == ("message", "logger", "thread")


@pytest.mark.parametrize(("layout", "line"), [(KAFKA, ELECTED), (STRIMZI, STRIMZI_ELECTED)])
def test_a_record_of_each_preset(layout: CompiledLayout, line: str) -> None:
    (record,) = _records(line.encode() + b"\n", layout)
    assert record.timestamp == datetime(2024, 3, 5, 14, 2, 11, 487000)
    assert record.timestamp_text == "2024-03-05 14:02:11,487"
    assert record.level == "INFO"
    assert record.logger == "kafka.controller.KafkaController"
    assert record.message is not None and record.message.startswith("[Controller id=1] 1 success")
    assert record.message.endswith("zk version is now 6")
    assert record.thread == ("controller-event-thread" if layout is STRIMZI else None)
    outcome = parse_record(record)
    assert isinstance(outcome, ParsedEvent) and outcome.event.controller_epoch == 7


def test_auto_detection() -> None:
    assert detect_layout([ELECTED, ELECTED]) == KAFKA
    assert detect_layout(["\tat x.y(Z.java:1)", STRIMZI_ELECTED, STRIMZI_ELECTED]) == STRIMZI
    assert detect_layout(["garbage", "\x00\x01", ""]) is None
    assert detect_layout([]) is None
    # Majority wins; a Kafka line embedded in a Strimzi file does not flip the choice.
    assert detect_layout([STRIMZI_ELECTED, ELECTED, STRIMZI_ELECTED]) == STRIMZI


def test_custom_layout_with_thread_and_logger_before_the_message() -> None:
    layout = compile_layout("%d{ISO8601} %-5p [%t] %c{1} - %m%n")
    assert layout.start_roles == ("timestamp", "level", "thread", "logger")
    line = (
        b"2024-03-05T14:02:11,487 WARN  [main-SendThread(zk:2181)] KafkaController - "
        b"[Controller id=1] Resigned\n"
    )
    (record,) = _records(line, layout)
    assert record.level == "WARN" and record.thread == "main-SendThread(zk:2181)"
    assert record.logger == "KafkaController"
    assert record.message == "[Controller id=1] Resigned"
    assert record.timestamp == datetime(2024, 3, 5, 14, 2, 11, 487000)


def test_custom_date_formats() -> None:
    layout = compile_layout("%d{dd MMM yyyy HH:mm:ss.SSS} %p %m (%c)%n")
    assert layout.timestamp is not None
    assert layout.timestamp.parse("05 Mar 2024 14:02:11.487") == datetime(
        2024, 3, 5, 14, 2, 11, 487000
    )
    twelve_hour = compile_layout("%d{yyyy/MM/dd hh:mm:ss a} %p %m%n")
    assert twelve_hour.timestamp is not None
    assert twelve_hour.timestamp.parse("2024/03/05 02:02:11 PM") == datetime(2024, 3, 5, 14, 2, 11)
    assert twelve_hour.timestamp.parse("2024/03/05 12:02:11 AM") == datetime(2024, 3, 5, 0, 2, 11)


@pytest.mark.parametrize(
    "layout",
    [
        "[%d] %p (%c)%n",  # no %m
        "[%d{HH:mm:ss,SSS}] %p %m%n",  # no date: a naive timestamp cannot be built
        "[%d{yyyy-MM-dd HH:mm:ss Z}] %p %m%n",  # zone letter
        "[%d] %p %m (%c) %n trailing",  # %n not last
        "%m%n",  # nothing to recognise a record start by
        "[%d] %p %m %q%n",  # unknown conversion
    ],
)
def test_unsupported_layouts_are_refused(layout: str) -> None:
    with pytest.raises(LayoutError):
        compile_layout(layout)


def test_logger_is_matched_at_the_end_not_at_the_first_parenthesis() -> None:
    line = (
        b"[2024-03-05 14:20:44,058] INFO [Controller id=1 epoch=7] Partition orders-0 state "
        b"changed to (Leader:1,ISR:1,3,LeaderEpoch:2,ControllerEpoch:7) after removing replica 2 "
        b"from the ISR as part of transition to OfflineReplica (state.change.logger)\n"
    )
    (record,) = _records(line)
    assert record.logger == "state.change.logger"
    assert (
        record.message is not None
        and "(Leader:1,ISR:1,3,LeaderEpoch:2,ControllerEpoch:7)" in record.message
    )
    assert record.message.endswith("transition to OfflineReplica")
    # A message that itself ends in a parenthesised word keeps it.
    (record,) = _records(b"[2024-03-05 14:20:44,058] INFO note (aside) (kafka.log.Log)\n")
    assert (record.message, record.logger) == ("note (aside)", "kafka.log.Log")


def test_continuation_lines_belong_to_the_record_before() -> None:
    data = (
        b"[2024-03-05 14:20:44,058] ERROR [Controller id=1 epoch=7] Controller 1 epoch 7 failed "
        b"to change state for partition orders-0 from OfflinePartition to OnlinePartition "
        b"(state.change.logger)\n"
        b"kafka.common.StateChangeFailedException: Failed to elect leader for partition orders-0\n"
        b"\tat kafka.controller.ZkPartitionStateMachine.doHandleStateChanges"
        b"(PartitionStateMachine.scala:1)\n"
        b"Caused by: java.lang.IllegalStateException: boom (with parentheses)\n"
        b"\tSuppressed: java.lang.Exception: also\n"
        b"\t\t... 17 more\n"
        b"[2024-03-05 14:20:45,000] INFO [Controller id=1] Resigned "
        b"(kafka.controller.KafkaController)\n"
    )
    first, second = _records(data)
    assert (first.first_line, first.line_count, second.first_line, second.line_count) == (
        1,
        6,
        7,
        1,
    )
    assert first.logger == "state.change.logger"
    assert first.message is not None and first.message.endswith("to OnlinePartition")
    assert (
        first.text.split("\n")[3]
        == "Caused by: java.lang.IllegalStateException: boom (with parentheses)"
    )
    outcome = parse_record(first)
    assert isinstance(outcome, ParsedEvent) and outcome.line_count == 6
    assert outcome.event.from_state == "OfflinePartition"


def test_a_wrapped_message_runs_to_the_line_with_the_logger() -> None:
    data = (
        b"[2024-03-05 14:20:44,058] INFO KafkaConfig values: \n"
        b"\tadvertised.listeners = PLAINTEXT://kafka-1:9092\n"
        b"\tzookeeper.connect = zk:2181\n"
        b" (kafka.server.KafkaConfig)\n"
    )
    (record,) = _records(data)
    assert record.line_count == 4 and record.logger == "kafka.server.KafkaConfig"
    assert record.message == (
        "KafkaConfig values: \n\tadvertised.listeners = PLAINTEXT://kafka-1:9092\n"
        "\tzookeeper.connect = zk:2181\n"
    )
    # the broker's static config: an event (silver.broker_configs cuts it into its keys)
    outcome = parse_record(record)
    assert isinstance(outcome, ParsedEvent)
    assert (outcome.grammar, outcome.line_count) == ("config/kafka_config_values", 4)


def test_lines_before_the_first_record_are_an_orphan_record() -> None:
    data = b" (org.apache.kafka.common.config.AbstractConfig)\n\tmore\n" + ELECTED.encode() + b"\n"
    orphan, record = _records(data)
    assert (orphan.first_line, orphan.line_count, orphan.orphan_reason) == (
        1,
        2,
        "before_first_record",
    )
    outcome = parse_record(orphan)
    assert isinstance(outcome, Quarantined)
    assert (outcome.reason, outcome.detail) == ("orphan_continuation", "before_first_record")
    assert isinstance(parse_record(record), ParsedEvent)


def test_empty_file() -> None:
    assert _records(b"") == []


def test_binary_garbage_is_accounted_for_and_quarantined() -> None:
    rng = random.Random(4)
    garbage = bytes(rng.randrange(256) for _ in range(20_000))
    records = _records(garbage)
    assert sum(r.line_count for r in records) == _lines_of(garbage)
    assert all(r.orphan_reason == "before_first_record" for r in records)
    assert all(parse_record(r).status == "quarantined" for r in records)
    assert any(r.invalid_utf8 for r in records)


def test_invalid_utf8_in_the_message_is_quarantined() -> None:
    data = (
        b"[2024-03-05 14:20:44,058] INFO [Controller id=1] Resigned \xff\xfe "
        b"(kafka.controller.KafkaController)\n"
    )
    (record,) = _records(data)
    assert record.invalid_utf8 and record.message is not None and "\ufffd" in record.message
    outcome = parse_record(record)
    assert isinstance(outcome, Quarantined) and outcome.reason == "invalid_utf8"


def test_invalid_utf8_only_in_a_stack_trace_is_flagged_but_parsed() -> None:
    data = ELECTED.encode() + b"\n\tat caf\xe9.Bar(Baz.java:1)\n"
    (record,) = _records(data)
    assert record.invalid_utf8 and record.line_count == 2
    assert isinstance(parse_record(record), ParsedEvent)


def test_a_five_megabyte_line() -> None:
    leaders = ",".join(
        f"t{i}-0 -> (Leader:1,ISR:1,LeaderEpoch:0,ControllerEpoch:7)" for i in range(90_000)
    )
    line = (
        "[2024-03-05 14:20:44,058] TRACE [Controller id=1] All leaders = "
        f"{leaders} (kafka.controller.KafkaController)"
    )
    assert len(line) > 5_000_000
    data = ELECTED.encode() + b"\n" + line.encode() + b"\n" + ELECTED.encode() + b"\n"
    records = _records(data)
    assert [r.line_count for r in records] == [1, 1, 1]
    outcome = parse_record(records[1])
    assert isinstance(outcome, IgnoredRecord) and outcome.family == "leadership_dump"
    # A 5 MB continuation line stays with its record (under the 16 MiB default cap) ...
    blob = b"x" * 5_500_000
    (record,) = _records(ELECTED.encode() + b"\n" + blob + b"\n")
    assert record.line_count == 2 and isinstance(parse_record(record), ParsedEvent)
    # ... and past a smaller cap it becomes an orphan record of its own, never split.
    records = _records(ELECTED.encode() + b"\n" + blob + b"\n", max_record_chars=1_000_000)
    assert [r.line_count for r in records] == [1, 1]
    assert records[1].orphan_reason == "continuation_overflow" and len(records[1].text) == len(blob)


def test_record_size_caps_split_continuations_into_orphans() -> None:
    data = ELECTED.encode() + b"\n" + b"\tat x\n" * 10
    records = _records(data, max_record_lines=4)
    assert [r.line_count for r in records] == [4, 4, 3]
    assert [r.orphan_reason for r in records] == [
        None,
        "continuation_overflow",
        "continuation_overflow",
    ]
    assert sum(r.line_count for r in records) == 11


def test_truncated_last_line() -> None:
    complete = _records(ELECTED.encode())  # no final newline, but the record is whole
    assert complete[0].truncated and isinstance(parse_record(complete[0]), ParsedEvent)
    cut = _records(ELECTED.encode()[:120])
    assert cut[0].truncated and cut[0].layout_error == "truncated_record"
    outcome = parse_record(cut[0])
    assert isinstance(outcome, Quarantined) and outcome.reason == "truncated_record"


def test_a_record_without_the_layout_tail_is_quarantined() -> None:
    (record,) = _records(b"[2024-03-05 14:20:44,058] INFO no logger here\n")
    outcome = parse_record(record)
    assert isinstance(outcome, Quarantined) and outcome.reason == "missing_tail"


def test_crlf_and_text_lines() -> None:
    crlf = _records(ELECTED.encode() + b"\r\n" + ELECTED.encode() + b"\r\n")
    assert [r.logger for r in crlf] == ["kafka.controller.KafkaController"] * 2
    text = list(assemble_records([ELECTED + "\n", "\tat x\n"], KAFKA))
    assert text[0].line_count == 2 and not text[0].truncated


def test_an_impossible_date_is_quarantined() -> None:
    (record,) = _records(ELECTED.replace("2024-03-05", "2024-02-30").encode() + b"\n")
    assert record.timestamp is None and record.timestamp_text == "2024-02-30 14:02:11,487"
    outcome = parse_record(record)
    assert isinstance(outcome, Quarantined) and outcome.reason == "bad_timestamp"


def test_auto_detection_from_raw_bytes() -> None:
    lines = [STRIMZI_ELECTED.encode() + b"\r\n", b"\tat x.y(Z.java:1)\n", b"\xff\xfe\n"]
    assert detect_layout(lines) == STRIMZI
