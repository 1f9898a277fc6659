"""``ArrowExecutor`` (``jobs.logparse.arrow_executor``) against the reference executor (Python).

Every record of every reference log, read by ``reader.read_split`` (C-level and core-assembler
paths) and classified by ``ArrowExecutor``, equals ``parse_record`` on ``assemble_records``'s
record: record cut, status, reason, detail, grammar, event type, family, version conflict, head
(UTC timestamp from the cluster's zone, level, logger, thread) and every event field. Unusual
records are checked the same way, each with the path (vectorised or reference) it must take.
"""

from __future__ import annotations

import gzip
import math
import random
from datetime import UTC, datetime
from operator import itemgetter
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pyarrow as pa
import pytest

from jobs.logparse.arrow_executor import ArrowExecutor, rebuild_record
from jobs.logparse.candidates import CandidateIndex
from jobs.logparse.config_rows import arrow_config_rows
from jobs.logparse.entry_plans import named_groups
from jobs.logparse.parse_contract import (
    FIELD_NAMES,
    KEEP_COLUMNS,
    OUTCOME_COLUMNS,
    PARSED_ARROW_SCHEMA,
    PARSED_SCHEMA,
    ExecutorSettings,
    TrialOrder,
)
from jobs.logparse.reader import READER_SCHEMA, ReaderSettings, SplitTask, read_split
from jobs.logparse.table_rows import RunFiles
from kafkactl_core.grammars import (
    CompiledLayout,
    EventType,
    LogRecord,
    Outcome,
    assemble_records,
    compile_layout,
    convert_field,
    grammar_entries,
    parse_record,
    resolve_layout,
)
from kafkactl_core.grammars.entry import event
from kafkactl_core.grammars.fields import ConversionError
from kafkactl_core.replay import broker_config_rows
from kafkactl_core.versions import KafkaRelease
from tests.conftest import reference_dir
from tests.grammar_rows import reference_row

FILES = sorted((reference_dir() / "examples").glob("*.log.*")) + sorted(
    (reference_dir() / "real-logs").glob("*.log")
)
EXAMPLES = sorted((reference_dir() / "examples").glob("*.log.*"))
KAFKA = resolve_layout("kafka")
STRIMZI = resolve_layout("strimzi")
COMPARED = [n for n in PARSED_ARROW_SCHEMA.names if n not in ("byte_offset", "byte_length")]


def _order(hint: str | None) -> TrialOrder:
    return TrialOrder.for_hint(KafkaRelease.parse(hint) if hint else None)


def _executor(
    hint: str | None, layout: CompiledLayout = KAFKA, zone: str = "UTC", vectorised: bool = True
) -> ArrowExecutor:
    settings = ExecutorSettings(order=_order(hint), layouts=(layout,), time_zone=zone)
    return ArrowExecutor(settings, vectorised=vectorised)


def _read(
    path: Path, layout: CompiledLayout, hint: str | None, exact: bool, file_index: int = 0
) -> list[pa.RecordBatch]:
    """The reader's batches of a whole file (small regions: many batches, both cut paths)."""
    size = path.stat().st_size
    task = SplitTask(file_index, str(path), False, 0, size, 1, True, size, layout.layout)
    index = CandidateIndex([entry.name for entry in _order(hint).entries], hint)
    settings = ReaderSettings(version_hint=hint, exact_only=exact, region_bytes=4096)
    return list(read_split(task, settings, index))


def _comparable(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return "NaN"  # NaN is not equal to itself: compare it as text
    return value


def _row(row: dict[str, Any]) -> dict[str, Any]:
    return {name: _comparable(row[name]) for name in COMPARED}


def _expected_row(index: int, record: LogRecord, outcome: Outcome, zone: str) -> dict[str, Any]:
    """What the executor must give for a record: the reference's row, its time in UTC."""
    timestamp = record.timestamp
    log_time = timestamp.replace(tzinfo=ZoneInfo(zone)).astimezone(UTC) if timestamp else None
    return _row({**reference_row(index, record, outcome, log_time), "read_error": None})


def _expected(
    path: Path, layout: CompiledLayout, hint: str | None, zone: str = "UTC", index: int = 0
) -> list[dict[str, Any]]:
    release = KafkaRelease.parse(hint) if hint else None
    with path.open("rb") as handle:
        return [
            _expected_row(index, record, parse_record(record, release), zone)
            for record in assemble_records(handle, layout)
        ]


def _actual(executor: ArrowExecutor, batches: list[pa.RecordBatch]) -> tuple[list[Any], int, int]:
    """Executed rows in file order, and how many took the vectorised and the reference path."""
    rows: list[dict[str, Any]] = []
    fast = fallback = 0
    for batch in batches:
        result = executor.execute(batch, 0)
        assert result.schema == PARSED_ARROW_SCHEMA
        assert result.column("first_line").equals(batch.column("first_line"))
        fast += executor.last_fast_rows
        fallback += executor.last_fallback_rows
        rows.extend(_row(row) for row in result.to_pylist())
    rows.sort(key=lambda row: row["first_line"])
    return rows, fast, fallback


def _paths(
    executor: ArrowExecutor, batches: list[pa.RecordBatch]
) -> dict[int, tuple[str, dict[str, Any]]]:
    """Per first line: the path its row took (one row at a time) and the row."""
    paths: dict[int, tuple[str, dict[str, Any]]] = {}
    for batch in batches:
        for position in range(batch.num_rows):
            (row,) = executor.execute(batch.slice(position, 1), 0).to_pylist()
            path = "fast" if executor.last_fast_rows else "reference"
            paths[row["first_line"]] = (path, _row(row))
    return paths


@pytest.mark.skipif(not FILES, reason="reference logs not found (set KAFKACTL_REFERENCE)")
@pytest.mark.parametrize("exact", [False, True], ids=["fast-reader", "core-reader"])
@pytest.mark.parametrize("hint", [None, "2.8"], ids=["auto", "2.8"])
def test_the_arrow_executor_agrees_with_the_reference_on_every_reference_record(
    hint: str | None, exact: bool
) -> None:
    executor = _executor(hint)
    total = fast = 0
    statuses: set[str] = set()
    conflicts = 0
    for index, path in enumerate(FILES):
        actual, fast_rows, fallback_rows = _actual(executor, _read(path, KAFKA, hint, exact, index))
        expected = _expected(path, KAFKA, hint, index=index)
        assert len(actual) == len(expected), path.name
        for got, want in zip(actual, expected, strict=True):
            assert got == want, f"{path.name}:{want['first_line']}"
        total += fast_rows + fallback_rows
        fast += fast_rows
        statuses.update(row["status"] for row in actual)
        conflicts += sum(row["version_conflict"] for row in actual)
    assert total > 4500
    assert statuses == {"parsed", "ignored", "quarantined"}
    # Wrapped messages, topics_changed (RE2 has no lookahead), bracketed lists...: under 1%.
    assert fast / total > 0.99
    if hint is not None:
        assert conflicts > 0, "files of other releases match entries outside 2.8's range"


@pytest.mark.skipif(not EXAMPLES, reason="reference logs not found (set KAFKACTL_REFERENCE)")
def test_the_vectorised_path_and_the_reference_path_agree_on_the_examples() -> None:
    fast = _executor("3.5", zone="Europe/Berlin")
    slow = _executor("3.5", zone="Europe/Berlin", vectorised=False)
    for path in EXAMPLES:
        for batch in _read(path, KAFKA, "3.5", False):
            vectorised = fast.execute(batch, 0)
            reference = slow.execute(batch, 0)
            assert slow.last_fast_rows == 0
            assert slow.last_fallback_rows == batch.num_rows
            assert vectorised.column("byte_offset").equals(reference.column("byte_offset"))
            got = [_row(row) for row in vectorised.to_pylist()]
            assert got == [_row(row) for row in reference.to_pylist()], path.name


@pytest.mark.skipif(not EXAMPLES, reason="reference logs not found (set KAFKACTL_REFERENCE)")
def test_rows_come_back_in_the_input_order_whatever_it_is() -> None:
    executor = _executor(None)
    batch = pa.concat_batches(_read(EXAMPLES[0], KAFKA, None, False))
    shuffled = list(range(batch.num_rows))
    random.Random(3).shuffle(shuffled)
    ordered = executor.execute(batch, 0).take(pa.array(shuffled))
    direct = executor.execute(batch.take(pa.array(shuffled)), 0)
    assert [_row(r) for r in direct.to_pylist()] == [_row(r) for r in ordered.to_pylist()]


def _line(
    message: str,
    logger: str = "state.change.logger",
    when: str = "2024-03-01 10:00:00,000",
    level: str = "INFO",
) -> str:
    return f"[{when}] {level} {message} ({logger})\n"


SC = "[Controller id=1 epoch=7] "
KC = "kafka.controller.KafkaController"
LEADER_AND_ISR = (
    SC + "Changed partition orders-0 from NewPartition to OnlinePartition with state "
    "LeaderAndIsr(leader=1, leaderEpoch=0, isr=List({isr}), zkVersion=0)"
)
UNUSUAL: list[tuple[str, str, str]] = [
    # (lines, path, what the reference makes of it: status or reason)
    (_line(LEADER_AND_ISR.format(isr="1, 2, 3")), "fast", "parsed"),
    (_line(LEADER_AND_ISR.format(isr="")), "fast", "parsed"),
    (_line(LEADER_AND_ISR.format(isr="1, 99999999999999999999")), "reference",
     "field_conversion: isr"),
    (_line("[Controller id=99999999999999999999 epoch=7] Changed partition orders-2 state from "
           "NonExistentPartition to NewPartition with assigned replicas 1,2"),
     "reference", "field_conversion: origin_broker"),
    (_line("[Controller id=123456789012345678 epoch=7] Changed partition orders-2 state from "
           "NonExistentPartition to NewPartition with assigned replicas 1,-2"), "fast", "parsed"),
    (_line("[Controller id=2] Leader imbalance ratio for broker 1 is NaN", KC), "fast", "parsed"),
    (_line("[Controller id=2] Leader imbalance ratio for broker 3 is 1.0E-4", KC), "fast",
     "parsed"),
    (_line("[Controller id=2] Leader imbalance ratio for broker 3 is -Infinity", KC), "fast",
     "parsed"),
    (_line("[Controller id=2] Leader imbalance ratio for broker 3 is 0.5", KC), "fast", "parsed"),
    (_line(SC + "Sending StopReplica request (delete = true) for 3 replicas to broker 2"), "fast",
     "parsed"),
    (_line("Broker 1 handling stop replica (delete=false) for partition orders-0"), "fast",
     "parsed"),
    (_line(SC + "Changed partition orders-4 state from NonExistentPartition to NewPartition "
                "with assigned replicas 1,2", when="2024-02-30 10:00:00,000"),
     "reference", "bad_timestamp"),
    (_line(SC + "Changed partition orders-4 state from NonExistentPartition to NewPartition "
                "with assigned replicas 1,2", when="2024-02-29 23:59:59,999"), "fast", "parsed"),
    (_line("Some unknown audited message", KC), "fast", "no_grammar"),
    (_line("Loading logs from /var/kafka", "kafka.log.LogManager"), "fast", "ignored"),
    (_line("", level="WARN"), "fast", "no_grammar"),
    ("[2024-03-01 10:00:00,000] WARN a message without its logger\n", "reference", "missing_tail"),
    ("[2024-03-01 10:00:00,000] INFO [Controller id=1] Newly added brokers: 3, deleted\n"
     "brokers: , bounced brokers: , all live brokers: 1,2,3 (kafka.controller.KafkaController)\n",
     "reference", "no_grammar"),
    (_line(SC + "Changed partition caf\u00e9-0 state from NonExistentPartition to NewPartition "
                "with assigned replicas 1"), "fast", "no_grammar"),
    (_line(SC + "Sending UpdateMetadata request to brokers HashSet(1, 2) for 4 partitions")
     .replace("\n", "\r\n"), "fast", "parsed"),
    (_line(SC + "Sending UpdateMetadata request to brokers HashSet(1, 2) for 4\x1f partitions"),
     "fast", "no_grammar"),
    (_line("[Controller id=1] Updating ISRs for partitions: Set(orders-0, audit-1).", KC), "fast",
     "parsed"),
    (_line("[Controller id=1] New partition creation callback for [orders,0],[audit,0]", KC),
     "reference", "parsed"),
    (_line("[Controller id=1] 1 successfully elected as the controller. Epoch incremented to 7 "
           "and epoch zk version is now 6", KC), "fast", "parsed"),
    (_line("[Controller id=1] 1 successfully elected as the controller, or so it says", KC),
     "fast", "no_grammar"),
    (_line("[Controller id=1] New topics: [Set(orders, audit)], deleted topics: [Set()], new "
           "partition replica assignment [Map(orders-1 -> List(2, 3))]", KC), "reference",
     "parsed"),
    (_line("[Controller id=1] ISR for partition orders-0 updated to LeaderAndIsr(leader=1, "
           "leaderEpoch=0, isrWithBrokerEpoch=List(BrokerState(brokerId=1, brokerEpoch=-1), "
           "BrokerState(brokerId=2, brokerEpoch=-1)), leaderRecoveryState=RECOVERED, "
           "partitionEpoch=1).", KC), "fast", "parsed"),
    ("[2024-03-01 10:00:01,000] ERROR [Controller id=1] Error processing event TopicChange (kafka"
     ".controller.KafkaController)\njava.lang.IllegalStateException: boom\n"
     "\tat kafka.Foo.bar(Foo.scala:1)\n",
     "fast", "parsed"),
    ("[2024-03-01 10:00:02,000] WARN Unexpected error (kafka.server.KafkaApis)\n"
     "java.io.IOException: x (y)\n", "fast", "ignored"),
    # Tails: a logger shorter than a word, a message with its own parentheses, lines ending
    # with a parenthesis that is no tail, more distinct loggers than _cut_kafka guesses.
    (_line("Short logger", "a"), "fast", "ignored"),
    (_line("Error (detail) in (x y) happened", KC), "fast", "no_grammar"),
    ("[2024-03-01 10:00:03,000] INFO (kafka.controller.KafkaController)\n", "reference",
     "missing_tail"),
    ("[2024-03-01 10:00:03,000] INFO ends with (two words)\n", "reference", "missing_tail"),
    ("[2024-03-01 10:00:03,000] INFO ends with (x)(kafka.Log)\n", "reference", "missing_tail"),
    ("[2024-03-01 10:00:03,000] INFO ends with ()\n", "reference", "missing_tail"),
    *[(_line(f"Message {n}", f"kafka.custom.Logger{n}"), "fast", "ignored") for n in range(20)],
]  # fmt: skip


def _unusual_file(tmp_path: Path) -> tuple[Path, dict[int, tuple[str, str]]]:
    """The unusual records in one file (with orphans, bad UTF-8 and a cut last line)."""
    data = b"orphan line before the first record\n"
    wanted: dict[int, tuple[str, str]] = {1: ("reference", "orphan_continuation")}
    line = 2
    for text, path, outcome in UNUSUAL:
        wanted[line] = (path, outcome)
        data += text.encode("utf-8")
        line += text.count("\n")
    wanted[line] = ("reference", "invalid_utf8")
    data += ("[2024-03-01 10:00:01,000] INFO " + SC).encode() + b"Changed \xff x (state.change)\n"
    wanted[line + 1] = ("reference", "truncated_record")
    data += b"[2024-03-01 10:00:02,000] INFO truncated at the end without its"
    path = tmp_path / "controller.log"
    path.write_bytes(data)
    return path, wanted


@pytest.mark.parametrize("exact", [False, True], ids=["fast-reader", "core-reader"])
@pytest.mark.parametrize("hint", [None, "2.8"])
def test_unusual_records_take_the_expected_path_and_agree_with_the_reference(
    tmp_path: Path, hint: str | None, exact: bool
) -> None:
    path, wanted = _unusual_file(tmp_path)
    expected = {row["first_line"]: row for row in _expected(path, KAFKA, hint)}
    got = _paths(_executor(hint), _read(path, KAFKA, hint, exact))
    assert sorted(got) == sorted(expected) == sorted(wanted)
    for line, (route, outcome) in wanted.items():
        taken, row = got[line]
        assert row == expected[line], line
        assert outcome in (row["status"], row["reason"]), line
        assert taken == route, (line, row["text"])
    # The whole file at once gives the same rows.
    rows, _, fallback = _actual(_executor(hint), _read(path, KAFKA, hint, exact))
    assert rows == [expected[line] for line in sorted(expected)]
    assert fallback == sum(route == "reference" for route, _ in wanted.values())


def test_strimzi_records_are_cut_as_the_core_cuts_them(tmp_path: Path) -> None:
    """A layout that is not fused: head, then the tail at the end of the line, then the entry."""

    def strimzi(message: str, logger: str, thread: str) -> str:
        return f"2024-03-01 10:00:00,000 INFO {message} ({logger}) [{thread}]\n"

    lines = [
        (strimzi(LEADER_AND_ISR.format(isr="1,2"), "state.change.logger", "main"), "fast"),
        (strimzi(LEADER_AND_ISR.format(isr="1"), "state.change.logger", ""), "fast"),
        (strimzi(LEADER_AND_ISR.format(isr="1"), "state.change.logger", "a (b) [c"), "fast"),
        (strimzi("Some unknown audited message", KC, "controller-event-thread"), "fast"),
        (strimzi("Loading logs (x) [y]", "kafka.log.LogManager", "main"), "fast"),
        (strimzi(SC + "Sending UpdateMetadata request to brokers HashSet(1) for 4 partitions",
                 "state.change.logger", "kafka-request-handler-1 (x) [y]"), "fast"),
        ("2024-03-01 10:00:00,000 INFO no tail here\n", "reference"),
        ("2024-02-30 10:00:00,000 INFO bad date (kafka.log.LogManager) [main]\n", "reference"),
    ]  # fmt: skip
    path = tmp_path / "server.log"
    path.write_text("".join(text for text, _ in lines))
    expected = {row["first_line"]: row for row in _expected(path, STRIMZI, None)}
    got = _paths(_executor(None, STRIMZI), _read(path, STRIMZI, None, False))
    for line, (_, route) in enumerate(lines, start=1):
        assert got[line] == (route, expected[line]), line
    assert {row["status"] for row in expected.values()} == {"parsed", "ignored", "quarantined"}


@pytest.mark.parametrize(
    ("layout", "lines"),
    [
        (
            "%d{dd MMM yyyy HH:mm:ss,SSS} %-5p [%t] %m (%c)%n",
            [
                ("05 Mar 2024 01:02:03,004 INFO  [main] [Controller id=1] Updating ISRs for "
                 "partitions: Set(orders-0). (kafka.controller.KafkaController)", "fast"),
                ("05 Mar 2024 01:02:03,004 WARNING [a] b] c (kafka.log.LogManager)", "fast"),
                ("31 Feb 2024 01:02:03,004 INFO [main] bad date (kafka.log.LogManager)",
                 "reference"),
            ],
        ),
        (
            "%d{ISO8601} %p %m%n",
            [
                ("2024-03-05T13:02:03,004 INFO [Controller id=1] Updating ISRs for partitions: "
                 "Set(orders-0).", "fast"),
                ("2024-03-05 13:02:03,004 INFO anything (at all)", "fast"),
                ("2024-03-05 24:02:03,004 INFO a bad hour", "reference"),
            ],
        ),
    ],
    ids=["thread-in-head", "no-tail"],
)  # fmt: skip
def test_other_layouts_are_cut_as_the_core_cuts_them(
    tmp_path: Path, layout: str, lines: list[tuple[str, str]]
) -> None:
    compiled = compile_layout(layout)
    path = tmp_path / "server.log"
    path.write_text("".join(text + "\n" for text, _ in lines))
    expected = {row["first_line"]: row for row in _expected(path, compiled, "3.0")}
    got = _paths(_executor("3.0", compiled), _read(path, compiled, "3.0", False))
    for line, (_, route) in enumerate(lines, start=1):
        assert got[line] == (route, expected[line]), line
    assert expected[1]["status"] == "parsed"


@pytest.mark.parametrize(
    ("zone", "local", "utc"),
    [
        ("Europe/Berlin", "2024-03-31 01:59:59,999", "2024-03-31 00:59:59.999"),
        ("Europe/Berlin", "2024-03-31 02:30:00,000", "2024-03-31 01:30:00"),  # in the gap
        ("Europe/Berlin", "2024-03-31 03:00:00,000", "2024-03-31 01:00:00"),
        ("Europe/Berlin", "2024-10-27 02:30:00,000", "2024-10-27 00:30:00"),  # twice: first
        ("Europe/Berlin", "2024-10-27 03:00:00,000", "2024-10-27 02:00:00"),
        ("Europe/Berlin", "2024-07-01 12:00:00,001", "2024-07-01 10:00:00.001"),
        ("Africa/Monrovia", "1972-01-07 00:44:29,000", "1972-01-07 01:28:59"),  # mid-hour change
        ("Africa/Monrovia", "1972-01-07 00:44:30,000", "1972-01-07 00:44:30"),
        ("UTC", "0001-01-01 00:00:00,000", "0001-01-01 00:00:00"),
        ("UTC", "9999-12-31 23:59:59,999", "9999-12-31 23:59:59.999"),
    ],
)
def test_log_time_is_the_utc_instant_of_the_local_time(
    tmp_path: Path, zone: str, local: str, utc: str
) -> None:
    """Python's fold=0 (the offset before a DST transition), on both paths."""
    path = tmp_path / "state-change.log"
    path.write_text(
        _line(
            SC + "Sending UpdateMetadata request to brokers HashSet(1) for 4 partitions", when=local
        )
        + _line("Loading logs", "kafka.log.LogManager", when=local)
    )
    instant = datetime.fromisoformat(utc).replace(tzinfo=UTC)
    expected = _expected(path, KAFKA, None, zone)
    for vectorised in (True, False):
        executor = _executor(None, zone=zone, vectorised=vectorised)
        rows, fast, _ = _actual(executor, _read(path, KAFKA, None, False))
        assert rows == expected
        assert [row["log_time"] for row in rows] == [instant, instant]
        assert fast == (2 if vectorised else 0)


def test_a_read_error_row_is_quarantined_as_a_missing_tail() -> None:
    from jobs.logparse.reader import _error_batch

    task = SplitTask(0, "gone.log", False, 0, 10, 1, True, 10, "[%d] %p %m (%c)%n")
    batch = _error_batch(task, "gone")
    empty = _executor(None).execute(batch.slice(0, 0), 0)
    assert (empty.num_rows, empty.schema) == (0, PARSED_ARROW_SCHEMA)
    (result,) = _executor(None).execute(batch, 0).to_pylist()
    assert (result["status"], result["reason"], result["read_error"]) == (
        "quarantined",
        "missing_tail",
        "gone",
    )
    assert all(result[name] is None for name in ("grammar", "family", "log_time", *FIELD_NAMES))


FORMS = event(
    "test/forms",
    EventType.PARTITION_STATE_CHANGE,
    "FORMS ",
    "FORMS i=([^\\n]*) f=([^\\n]*) b=([^\\n]*) il=([^\\n]*) sl=([^\\n]*) s=([^\\n]*)",
    fields="count ratio delete_partitions isr partitions detail",
)
FORM_VALUES: dict[str, list[str]] = {
    "i": ["5", "-5", "", "+5", " 5", "5 ", "1e5", "-", "007", "9" * 18, "9" * 19, "-" + "9" * 18],
    "f": ["0.5", "NaN", "-NaN", "Infinity", "1e5", "1.0E-4", "", "+1", ".5", "1.", "nan"],
    "b": ["true", "false", "", "True", "yes"],
    "il": ["1,2", "1, 2", "", "1 ,2", "1,,2", "1,", "-1", "1,  2", "a", "BrokerState(brokerId=1, "
           "brokerEpoch=2)", "1," + "9" * 19],
    "sl": ["a,b", "a, b", "", "[a,0],[b,1]", "a ,b", "a,,b", "a,", " a"],
    "s": ["x", "", " x "],
}  # fmt: skip


def test_the_vectorised_conversions_follow_convert_field() -> None:
    """Every form either converts as ``convert_field`` does or goes to the reference path."""
    order = TrialOrder((FORMS,), 1, None)
    executor = ArrowExecutor(ExecutorSettings(order, (KAFKA,), "UTC"))
    base = {"i": "1", "f": "1.5", "b": "true", "il": "1", "sl": "a", "s": "x"}
    kinds = dict(zip(base, (kind for _, kind in FORMS.fields), strict=True))
    names = dict(zip(base, (name for name, _ in FORMS.fields), strict=True))
    fast_forms = {
        "i": {"5", "-5", "", "007", "9" * 18},
        "f": {"0.5", "NaN", "-NaN", "Infinity", "1e5", "1.0E-4", ""},
        "b": {"true", "false", ""},
        "il": {"1,2", "1, 2", "", "-1", "BrokerState(brokerId=1, brokerEpoch=2)"},
        "sl": {"a,b", "a, b", "", "a,,b", "a,"},
        "s": {"x", "", " x "},
    }
    for key, forms in FORM_VALUES.items():
        for form in forms:
            parts = {**base, key: form}
            message = "FORMS " + " ".join(f"{k}={v}" for k, v in parts.items())
            text = f"[2024-03-01 10:00:00,000] INFO {message} (state.change.logger)"
            batch = pa.RecordBatch.from_pydict(
                {
                    "file_index": [0],
                    "first_line": [1],
                    "line_count": [1],
                    "byte_offset": [0],
                    "byte_length": [len(text) + 1],
                    "text": [text],
                    "orphan_reason": [None],
                    "invalid_utf8": [False],
                    "truncated": [False],
                    "first_candidate": [0],
                    "other_candidates": [[]],
                    "read_error": [None],
                },
                schema=READER_SCHEMA,
            )
            (row,) = executor.execute(batch, 0).to_pylist()
            assert FORMS.regex.fullmatch(message) is not None
            assert executor.last_fast_rows == (form in fast_forms[key]), (key, form)
            if executor.last_fast_rows:
                try:
                    value = convert_field(kinds[key], form)
                except ConversionError:
                    pytest.fail(f"{key}={form!r} does not convert but took the fast path")
                got = row[names[key]]
                want = list(value) if isinstance(value, tuple) else value
                assert _comparable(got) == _comparable(want), (key, form)
                assert row["status"] == "parsed"


def test_named_groups_names_exactly_the_capturing_groups() -> None:
    pattern = r"\(x\) [(]([0-9]+)[^)(] (?:a|(b))(?=c)(?!d)\\(e)"
    named = named_groups(pattern, ["one", "two", "three"])
    assert named == r"\(x\) [(](?P<one>[0-9]+)[^)(] (?:a|(?P<two>b))(?=c)(?!d)\\(?P<three>e)"
    with pytest.raises(ValueError, match="could not name"):
        named_groups("(?P<x>a)(b)", ["one", "two"])  # named already: not a group it names
    for entry in grammar_entries():
        names = [f"g{index}" for index in range(len(entry.fields))]
        assert named_groups(entry.pattern, names).count("(?P<") == len(entry.fields)


def test_rebuilding_a_record_gives_what_the_reader_cut(tmp_path: Path) -> None:
    text = "[2024-03-01 10:00:00,000] INFO message with a carriage return\r\nsecond line\r"
    record = rebuild_record(
        KAFKA, text, first_line=7, orphan_reason=None, invalid_utf8=True, truncated=False
    )
    assert (record.first_line, record.line_count, record.text) == (7, 2, text)
    assert (record.layout_error, record.invalid_utf8, record.truncated) == (
        "missing_tail",
        True,
        False,
    )
    path, _ = _unusual_file(tmp_path)
    with path.open("rb") as handle:
        for want in assemble_records(handle, KAFKA):
            got = rebuild_record(
                KAFKA,
                want.text,
                first_line=want.first_line,
                orphan_reason=want.orphan_reason,
                invalid_utf8=want.invalid_utf8,
                truncated=want.truncated,
            )
            assert got == want


def test_the_output_schema_keeps_the_reader_columns_and_adds_the_outcome() -> None:
    candidates = ("first_candidate", "other_candidates")
    assert tuple(n for n in READER_SCHEMA.names if n not in candidates) == KEEP_COLUMNS
    assert tuple(PARSED_SCHEMA.names) == (*KEEP_COLUMNS, *OUTCOME_COLUMNS)
    for name in KEEP_COLUMNS:
        assert PARSED_ARROW_SCHEMA.field(name).type == READER_SCHEMA.field(name).type
    assert PARSED_ARROW_SCHEMA.field("log_time").type == pa.timestamp("us", tz="UTC")
    assert PARSED_ARROW_SCHEMA.field("isr").type.value_type == pa.int64()
    assert PARSED_ARROW_SCHEMA.field("ratio").type == pa.float64()


def test_the_kafka_layout_is_cut_by_position() -> None:
    """``cut_kafka`` checks the Kafka head byte by byte and finds the tail by comparison: if
    the core's head or tail pattern changes, that cut switches off (still exact, slower); this
    makes that visible."""
    from jobs.logparse.layout_cut import LayoutPlan

    assert LayoutPlan.of(resolve_layout("kafka")).positional
    assert not LayoutPlan.of(resolve_layout("strimzi")).positional


CAPTURES = Path(__file__).resolve().parents[1] / "fixtures" / "real-kafka"
CONFIG_LOGS = (
    "unclean-election-2.8.2-zk/brokers/2/server.log.gz",
    "unclean-election-3.9.1-zk/brokers/2/server.log",
    "broker-crash-3.9.1-kraft/brokers/3/server.log.gz",
    "elr-election-4.1.1-kraft/brokers/1/server.log.gz",
    "elr-election-4.1.1-kraft/brokers/101/server.log.gz",
)


@pytest.mark.parametrize("name", CONFIG_LOGS)
def test_configuration_records_of_real_captures_agree_and_give_the_same_rows(
    tmp_path: Path, name: str
) -> None:
    """KafkaConfig blocks (hundreds of wrapped lines) and Created-log lines: the executors
    agree, and ``config_rows`` cuts the same ``silver.broker_configs`` rows as the core."""
    source = CAPTURES / name
    data = source.read_bytes()
    path = tmp_path / "server.log"
    path.write_bytes(gzip.decompress(data) if name.endswith(".gz") else data)
    batches = _read(path, KAFKA, None, exact=False)
    actual, _, _ = _actual(_executor(None), batches)
    assert actual == _expected(path, KAFKA, None)
    assert "config/kafka_config_values" in {row["grammar"] for row in actual}
    run = RunFiles("real", "run-1", (str(path),), ("sha",), ("server",))
    executor = _executor(None)
    rows = [
        row
        for batch in batches
        for row in arrow_config_rows(executor.execute(batch, 0), run).to_pylist()
    ]
    expected = [
        {
            **{k: v for k, v in row.items() if k != "ts"},
            "logged_at": row["ts"].replace(tzinfo=UTC),
            "run_id": "run-1",
        }
        for row in broker_config_rows(path, "real")
    ]
    key = itemgetter("line", "key")
    assert sorted(rows, key=key) == sorted(expected, key=key)
    assert len(rows) > 300
