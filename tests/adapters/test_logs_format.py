"""``--log-format json``: one JSON object per line, tagged with the run, cluster and stage."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import pytest

from jobs import cli
from jobs.runtime.config import ClusterConfig
from jobs.runtime.log_format import JsonFormatter, stage_context, structured
from jobs.stages.registry import Stage
from jobs.stages.runner import run_stage

SUCCEEDS = Stage("succeeds", "tests.fixtures.stages.succeeds", "test stage")
FAILS = Stage("fails", "tests.fixtures.stages.fails", "test stage")


class _Lakehouse:
    def __init__(self) -> None:
        self.rows: list[Mapping[str, Any]] = []

    def write_rows(
        self, spec: object, rows: Sequence[Mapping[str, Any]], mode: object, cluster: object = None
    ) -> int:
        self.rows.extend(rows)
        return len(rows)


class _Context:
    run_id = "run-42"

    def __init__(self) -> None:
        self.lakehouse = _Lakehouse()


@pytest.fixture
def json_lines() -> Iterator[io.StringIO]:
    """The root logger writing JSON into a buffer (as the CLI sets it up), restored after."""
    root = logging.getLogger()
    saved = root.handlers[:], root.level
    cli._setup_logging(False, "json")
    buffer = io.StringIO()
    for handler in root.handlers:
        assert isinstance(handler.formatter, JsonFormatter)
        assert isinstance(handler, logging.StreamHandler)
        handler.setStream(buffer)
    try:
        yield buffer
    finally:
        root.handlers[:], _ = saved
        root.setLevel(saved[1])


def _parsed(buffer: io.StringIO) -> list[dict[str, Any]]:
    return [json.loads(line) for line in buffer.getvalue().splitlines()]


def test_a_stage_logs_json_lines_with_its_context_and_fields(json_lines: io.StringIO) -> None:
    ctx: Any = _Context()
    run_stage(ctx, SUCCEEDS, ClusterConfig(name="c1"))
    with pytest.raises(RuntimeError):
        run_stage(ctx, FAILS, ClusterConfig(name="c1"))
    lines = _parsed(json_lines)
    assert all(line["run_id"] == "run-42" and line["cluster"] == "c1" for line in lines)
    done = [line for line in lines if line.get("status") == "succeeded"]
    assert len(done) == 1
    assert done[0]["stage"] == "succeeds"
    assert done[0]["rows_written"] == {"silver.x": 7}
    assert done[0]["notes"] == ["2 files skipped"]
    assert done[0]["seconds"] >= 0
    failed = [line for line in lines if line.get("status") == "failed"]
    assert len(failed) == 1
    assert failed[0]["stage"] == "fails" and failed[0]["level"] == "ERROR"
    assert failed[0]["error"] == "RuntimeError: disk full"
    assert [row["status"] for row in ctx.lakehouse.rows] == ["succeeded", "failed"]
    assert all(line["time"].endswith("+00:00") for line in lines)


def test_context_ends_with_its_block(json_lines: io.StringIO) -> None:
    log = logging.getLogger("kafkactl_audit.test")
    with stage_context("r", "c", "s"):
        log.info("inside")
    log.info("outside %d", 1)
    inside, outside = _parsed(json_lines)
    assert inside["stage"] == "s" and inside["message"] == "inside"
    assert "stage" not in outside and outside["message"] == "outside 1"


def test_exceptions_travel_in_the_line(json_lines: io.StringIO) -> None:
    try:
        raise ValueError("boom")
    except ValueError:
        logging.getLogger("kafkactl_audit.test").exception("failed")
    (line,) = _parsed(json_lines)
    assert "ValueError: boom" in line["traceback"]


def test_unknown_structured_field_is_refused() -> None:
    with pytest.raises(ValueError, match="rows"):
        structured(rows=1)


def test_the_option_parses_before_or_after_the_command() -> None:
    parser = cli.build_parser()
    assert parser.parse_args(["--log-format", "json", "tables"]).log_format == "json"
    assert parser.parse_args(["tables", "--log-format", "json"]).log_format == "json"
    with pytest.raises(SystemExit):
        parser.parse_args(["--log-format", "xml", "tables"])
