"""The log reader, layouts and both grammar executors on hostile bytes (no JVM).

Real, mutated and random lines with NUL bytes, invalid UTF-8, very long lines and CR/LF mixes:
the split reader cuts them as the core does under any split and region size, gzip copies cut
anywhere give the records of what inflated, any layout string compiles or is a ``LayoutError``,
and the Arrow executor agrees with the reference executor field for field.
"""

from __future__ import annotations

import gzip
from pathlib import Path

from hypothesis import example, given
from hypothesis import strategies as st

from jobs.logparse.inputs import InputFile, iter_bytes
from kafkactl_core.grammars import (
    KAFKA_LAYOUT,
    STRIMZI_LAYOUT,
    CompiledLayout,
    LayoutError,
    compile_layout,
    detect_layout,
    resolve_layout,
)
from tests.fuzz.budget import FUZZ, scaled
from tests.fuzz.corpus import log_bytes
from tests.fuzz.decoder_checks import bounded
from tests.fuzz.log_checks import ReadPlan, check_executors, check_gzip, check_reader

KAFKA = resolve_layout("kafka")
HINTS = st.sampled_from([None, "0.11.0", "2.8", "3.9", "4.1"])
read_plans = st.builds(
    ReadPlan,
    split_bytes=st.integers(1, 4096),
    region_bytes=st.integers(1, 2048),
    exact_only=st.booleans(),
    hint=HINTS,
)
_CONVERSIONS = ["%d", "%d{ISO8601}", "%d{yyyy-MM-dd HH:mm:ss,SSS}", "%d{dd MMM yyyy HH:mm:ss}",
                "%date", "%p", "%-5p", "%5level", "%t", "%thread", "%c", "%c{1}", "%logger",
                "%m", "%msg", "%n", "%X{k}", "%r", "%L", "%%", "%C", "%x", "%q", "%d{bogus}",
                "%.3c", "%-10.20t"]  # fmt: skip
layout_strings = st.one_of(
    st.lists(
        st.one_of(st.sampled_from(_CONVERSIONS), st.text("[]() -:|,.{}%ab", max_size=4)),
        max_size=8,
    ).map("".join),
    st.text(max_size=40),
)


@FUZZ
@given(data=log_bytes, plan=read_plans)
@example(data=b"\r\n\r\n[2024-03-01 10:00:00,000] INFO a\rb (c)\r\n", plan=ReadPlan(1, 1))
def test_the_reader_cuts_any_bytes_as_the_core_does(data: bytes, plan: ReadPlan) -> None:
    check_reader(data, KAFKA, plan)


@scaled(0.5)
@given(data=log_bytes, cut=st.integers(0, 1 << 16))
def test_a_gzip_copy_cut_anywhere_reads_what_inflated(data: bytes, cut: int) -> None:
    check_gzip(data, cut, KAFKA)


@FUZZ
@given(layout=layout_strings)
@example(layout=KAFKA_LAYOUT)
@example(layout=STRIMZI_LAYOUT)
def test_any_layout_string_compiles_or_is_a_layout_error(layout: str) -> None:
    try:
        compiled = compile_layout(layout)
    except LayoutError as exc:
        assert "\n" not in str(exc)
        return
    assert isinstance(compiled, CompiledLayout) and compiled.layout == layout


@FUZZ
@given(data=log_bytes, layouts=st.lists(layout_strings, max_size=3))
def test_layout_detection_on_any_lines_picks_a_candidate_or_none(
    data: bytes, layouts: list[str]
) -> None:
    candidates = [text for text in layouts if _compiles(text)] + [KAFKA_LAYOUT]
    found = detect_layout(data.splitlines(keepends=True), candidates)
    assert found is None or found.layout in candidates


def _compiles(text: str) -> bool:
    try:
        compile_layout(text)
    except LayoutError:
        return False
    return True


def _layout(text: str) -> CompiledLayout:
    try:
        return compile_layout(text)
    except LayoutError:
        return KAFKA


@scaled(0.5)
@given(data=log_bytes, layout=layout_strings.map(_layout), plan=read_plans)
def test_any_layout_reads_as_the_core_and_executes_as_the_reference(
    data: bytes, layout: CompiledLayout, plan: ReadPlan
) -> None:
    batches = check_reader(data, layout, plan)
    check_executors(data, layout, batches, plan.hint)


@FUZZ
@given(data=log_bytes, plan=read_plans)
def test_the_arrow_executor_agrees_with_the_reference_on_any_bytes(
    data: bytes, plan: ReadPlan
) -> None:
    batches = check_reader(data, KAFKA, plan)
    check_executors(data, KAFKA, batches, plan.hint)


def test_a_gzip_bomb_is_read_in_bounded_memory(tmp_path: Path) -> None:
    path = tmp_path / "server.log.gz"
    path.write_bytes(gzip.compress(b"\0" * (64 << 20), 9))
    size = path.stat().st_size
    read = bounded(size, lambda: sum(len(c) for c in iter_bytes(InputFile(str(path), "other"))))
    assert read == 64 << 20
