"""The Arrow grammar executor: ``parse_record``'s outcome for the reader's batches, task-side.

``ArrowExecutor.execute`` takes one batch of ``reader.READER_SCHEMA`` rows (one split, so one
layout) and returns the parsed records of ``parse_contract`` (``PARSED_SCHEMA``), row for row, in
the input's order. It has two paths:

* **Vectorised** (RE2 through ``pyarrow.compute``), for the common record: not an orphan, valid
  UTF-8, no read error, one physical line or a first line that ends with the layout's tail (a
  stack trace below it: ``records._build`` then takes head, message and tail from the first line
  alone). Rows are grouped by their first candidate entry (the reader's ``first_candidate``: the
  entries before it have no literal in the text, so cannot match); each group runs ONE
  ``extract_regex`` on the records' messages. For Kafka's layout (``[%d] %p %m (%c)%n``) the
  lines are cut without a regex: the head has a single match (a fixed-width timestamp, then a
  level followed by a blank) and is checked byte by byte (``kafka_head``); the tail
  `` (logger)`` ends the line with a logger without parentheses or blanks, so it can only start
  at one place, found by comparing the line's end with the batch's few distinct tails. That is
  the message ``records._build`` cuts, and an entry fullmatching it captures what Python's
  ``fullmatch`` captures (RE2 and Python pick the same leftmost-first match; an entry repeating a
  capturing group is left to the reference). Other layouts cut the head (with the rest of the
  line), then the tail on that rest, by regexes: the steps of ``_build``. Rows their first
  candidate does not match try their other candidates, in trial order, one round per candidate;
  rows without any (left) candidate need the layout split and the logger test only:
  ``no_grammar`` or ``foreign_logger``. Then, once for the whole batch, timestamps are read
  and each field is converted by the simple form of its rule (integers of at most 18 digits,
  lists of plain comma-separated items, ...); a row stays on this path when its timestamp is a
  valid date and every capture converts so.
* **Reference**, for every other row: the record is rebuilt from the row (its lines cut again by
  ``assemble_records``, flags restored) and classified by ``executor.parse_record`` itself, so
  wrapped messages, orphans, invalid UTF-8, missing tails, bad timestamps, conversion failures,
  the forms the vectorised rules leave out and the entry RE2 cannot run (a lookahead) are exact
  by construction.

``settings.order`` must be the trial order the reader's ``CandidateIndex`` used (the same version
hint): candidate positions refer to it. Timestamps are the reference's naive local time read in
the cluster's time zone with Python's ``fold=0`` (in a DST gap or overlap, the offset before the
transition). A row with ``read_error`` is quarantined ``missing_tail`` (its text is empty).
Fields are null unless the record is parsed.

Its parts are the modules beside it: ``entry_plans`` (an entry's vectorised form),
``layout_cut`` (lines cut into head, message and tail), ``arrow_values`` (timestamps and field
conversions) and ``arrow_arrays`` (Arrow arrays as numpy and back).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from jobs.logparse.arrow_arrays import BoolArray, IntArray, as_mask, flat, from_codes, masked
from jobs.logparse.arrow_values import (
    FIELD_TYPES,
    VALUE_TYPES,
    Zone,
    convert,
    local_times,
    timestamps,
)
from jobs.logparse.entry_plans import EntryPlan, entry_plan
from jobs.logparse.layout_cut import LayoutParts, LayoutPlan, cut_kafka, kafka_head_roles
from jobs.logparse.parse_contract import (
    KEEP_COLUMNS,
    PARSED_ARROW_SCHEMA,
    ExecutorSettings,
)
from kafkactl_core.grammars import (
    AUDITED_LOGGER_PREFIXES,
    EVENT_FIELDS,
    CompiledLayout,
    IgnoredRecord,
    LogRecord,
    Outcome,
    ParsedEvent,
    Quarantined,
    assemble_records,
    parse_record,
)
from kafkactl_core.grammars.fields import FieldValue

__all__ = [
    "ArrowExecutor",
    "rebuild_record",
]

_STATUSES = ("parsed", "ignored", "quarantined")
_PARSED, _IGNORED, _QUARANTINED = 0, 1, 2
_FOREIGN = "foreign_logger"


@dataclass
class _Plan:
    """Everything compiled once per settings."""

    settings: ExecutorSettings
    layouts: tuple[LayoutPlan, ...]
    zone: Zone
    entries: dict[int, EntryPlan | None] = field(default_factory=dict)
    names: pa.Array = field(init=False)
    event_types: pa.Array = field(init=False)
    families: pa.Array = field(init=False)
    positions: dict[str, int] = field(init=False)
    is_event: BoolArray = field(init=False)
    event_fields: list[tuple[str, ...]] = field(init=False)

    def __post_init__(self) -> None:
        entries = self.settings.order.entries
        self.is_event = np.array([e.event_type is not None for e in entries], dtype=bool)
        # The fields an event of each entry can set: captured, constant, copied.
        self.event_fields = [
            (*e.field_names, *(n for n, _ in e.constants), *(t for t, _ in e.copies))
            for e in entries
        ]
        self.names = pa.array([e.name for e in entries], pa.string())
        self.event_types = pa.array(
            [e.event_type.value if e.event_type else None for e in entries], pa.string()
        )
        self.families = pa.array([e.family for e in entries] + [_FOREIGN], pa.string())
        self.positions = {e.name: p for p, e in enumerate(entries)}

    def entry(self, position: int) -> EntryPlan | None:
        if position not in self.entries:
            self.entries[position] = entry_plan(position, self.settings.order.entries[position])
        return self.entries[position]


@lru_cache(maxsize=8)
def _plan(settings: ExecutorSettings) -> _Plan:
    return _Plan(
        settings,
        tuple(LayoutPlan.of(layout) for layout in settings.layouts),
        Zone(settings.time_zone),
    )


@dataclass
class _Claim:
    """One group of one round: the lines its regex matched are its entry's (or foreign).

    Attributes:
        rows: the batch row of each position.
        matched: positions the entry matched (for ``plan`` None: the layout alone).
        roles: layout role -> captured text, per position (fused layouts: the tail's roles;
            ``kafka_head_roles`` reads the head's by position).
        found: the entry's groups per position (None for rows without a candidate left).
        plan: the entry, None for rows without a candidate left.
    """

    rows: IntArray
    matched: BoolArray
    roles: dict[str, pa.Array]
    found: pa.StructArray | None
    plan: EntryPlan | None


@dataclass
class _Outcome:
    """The outcome being assembled for one input batch.

    The vectorised path fills ``space``: value columns over the concatenated positions of its
    claims; the reference path appends its rows after them. ``index`` maps each batch row to
    its position in that concatenation.
    """

    size: int
    status: npt.NDArray[np.int8]
    reason: npt.NDArray[np.int32]
    grammar: npt.NDArray[np.int32]
    event_type: npt.NDArray[np.int32]
    family: npt.NDArray[np.int32]
    conflict: BoolArray
    index: IntArray  # row -> position in the value columns (-1: not classified yet)
    space: int = 0  # positions of the vectorised path
    columns: dict[str, list[pa.Array]] = field(default_factory=dict)
    reasons: dict[str, int] = field(default_factory=dict)

    @classmethod
    def empty(cls, size: int) -> _Outcome:
        return cls(
            size=size,
            status=np.full(size, -1, dtype=np.int8),
            reason=np.full(size, -1, dtype=np.int32),
            grammar=np.full(size, -1, dtype=np.int32),
            event_type=np.full(size, -1, dtype=np.int32),
            family=np.full(size, -1, dtype=np.int32),
            conflict=np.zeros(size, dtype=bool),
            index=np.full(size, -1, dtype=np.int64),
        )

    def reason_code(self, reason: str) -> int:
        code = self.reasons.get(reason)
        if code is None:
            code = self.reasons[reason] = len(self.reasons)
        return code


def _runs(chunks: list[tuple[int, pa.Array | None]], kind: pa.DataType) -> list[pa.Array]:
    """Chunks in order, each run of missing ones (``None``, with its length) one null chunk."""
    out: list[pa.Array] = []
    missing = 0
    for length, chunk in chunks:
        if chunk is None:
            missing += length
            continue
        if missing:
            out.append(pa.nulls(missing, kind))
            missing = 0
        out.append(chunk)
    if missing and out:
        out.append(pa.nulls(missing, kind))
    return out


# --- the executor -------------------------------------------------------------------------------


class ArrowExecutor:
    """``parse_record``'s outcome for the reader's batches (see the module docstring).

    Attributes:
        last_fast_rows: rows the last ``execute`` classified on the vectorised path.
        last_fallback_rows: rows it handed to the reference executor.
    """

    def __init__(self, settings: ExecutorSettings, *, vectorised: bool = True) -> None:
        """Compile the settings' layouts and time zone (entries are compiled when first seen).

        Args:
            settings: trial order, layouts, time zone.
            vectorised: False sends every row to the reference path (tests compare both).
        """
        self._plan = _plan(settings)
        self._vectorised = vectorised
        self._hint = settings.order.hint
        self.last_fast_rows = 0
        self.last_fallback_rows = 0

    def execute(self, batch: pa.RecordBatch, layout_index: int) -> pa.RecordBatch:
        """Classify the records of one batch of one split.

        Args:
            batch: ``reader.READER_SCHEMA`` rows, all cut with ``layouts[layout_index]``.
            layout_index: the batch's layout in ``settings.layouts``.

        Returns:
            ``PARSED_ARROW_SCHEMA`` rows, in the input's order.
        """
        size = batch.num_rows
        layout = self._plan.layouts[layout_index]
        out = _Outcome.empty(size)
        if self._vectorised and size:
            claims = self._claims(batch, layout)
            if claims:
                self._classify(batch, layout, claims, out)
        fallback = np.flatnonzero(out.index < 0)
        self.last_fast_rows = size - len(fallback)
        self.last_fallback_rows = len(fallback)
        if len(fallback):
            self._reference(batch, layout.layout, fallback, out)
        return self._assemble(batch, out)

    # -- vectorised path, phase 1: one regex per group and round ------------------------------

    def _claims(self, batch: pa.RecordBatch, layout: LayoutPlan) -> list[_Claim]:
        """Which entry (or none) matches each simple record (see the module docstring)."""
        first = np.asarray(batch.column("first_candidate").to_numpy(), dtype=np.int64)
        simple = (
            ~as_mask(batch.column("invalid_utf8"))
            & as_mask(pc.is_null(batch.column("orphan_reason")))
            & as_mask(pc.is_null(batch.column("read_error")))
        )
        lines = np.asarray(batch.column("line_count").to_numpy())
        single = simple & (lines == 1)
        multi = simple & (lines > 1)
        text = batch.column("text")
        claims: list[_Claim] = []
        if single.any():
            ordered = len(first) < 2 or not bool((np.diff(first) < 0).any())
            if ordered:
                order = np.arange(len(first), dtype=np.int64)
            else:
                order = np.argsort(first, kind="stable").astype(np.int64)
            if layout.positional:
                parts = cut_kafka(text, order)
            elif ordered:
                # Already in first-candidate order: groups are zero-copy slices.
                parts = LayoutParts.cut(layout, flat(text))
            else:
                parts = LayoutParts.cut(layout, flat(text.take(pa.array(order))))
            self._rounds(batch, order, first[order], parts, single[order], claims)
        if multi.any():
            # A record whose first line ends with the tail (a stack trace below it): its
            # message, head and tail are the first line's, as records._build cuts them.
            rows = np.flatnonzero(multi)
            rows = rows[np.argsort(first[rows], kind="stable")]
            split = pc.split_pattern(text.take(pa.array(rows)), "\n", max_splits=1)
            firsts = flat(pc.list_element(split, 0))
            if layout.positional:
                parts = cut_kafka(firsts, None)
            else:
                parts = LayoutParts.cut(layout, firsts)
            self._rounds(batch, rows, first[rows], parts, np.ones(len(rows), dtype=bool), claims)
        return claims

    def _rounds(
        self,
        batch: pa.RecordBatch,
        rows: IntArray,
        candidate: IntArray,
        parts: LayoutParts,
        wanted: BoolArray,
        claims: list[_Claim],
    ) -> None:
        """First candidates, then the next candidate of the rows not matched, until none.

        Rows the layout does not cut are left to the reference path (no claim).
        """
        wanted = wanted & parts.matched
        pending = self._round(rows, candidate, parts, wanted, claims)
        if not len(pending):
            return
        others = batch.column("other_candidates")
        offsets = np.asarray(others.offsets.to_numpy(), dtype=np.int64)
        values = np.asarray(others.values.to_numpy(), dtype=np.int64)
        counts = np.diff(offsets)
        attempt = 0
        while len(pending):
            tried = rows[pending]
            has = counts[tried] > attempt
            following = np.full(len(pending), -1, dtype=np.int64)
            following[has] = values[offsets[tried[has]] + attempt]
            resort = np.argsort(following, kind="stable")
            pending, following = pending[resort], following[resort]
            back = self._round(
                rows[pending],
                following,
                parts.take(pending),
                np.ones(len(pending), dtype=bool),
                claims,
            )
            pending = pending[back]
            attempt += 1

    def _round(
        self,
        rows: IntArray,
        candidate: IntArray,
        parts: LayoutParts,
        wanted: BoolArray,
        claims: list[_Claim],
    ) -> IntArray:
        """One regex per candidate group (``rows`` sorted by ``candidate``).

        Returns:
            Positions of the wanted rows their candidate did not match (to try the next one).
        """
        bounds = np.flatnonzero(np.diff(candidate)) + 1
        starts = np.concatenate(([0], bounds)).tolist()
        ends = np.concatenate((bounds, [len(candidate)])).tolist()
        retry: list[IntArray] = []
        for start, end in zip(starts, ends, strict=True):
            group_wanted = wanted[start:end]
            if not group_wanted.any():
                continue
            position = int(candidate[start])
            plan = None
            if position >= 0:
                plan = self._plan.entry(position)
                if plan is None:
                    continue  # an entry RE2 cannot run: the reference path tries it
            matched, roles, found = self._match(plan, parts.slice(start, end - start))
            matched &= group_wanted
            claims.append(_Claim(rows[start:end], matched, roles, found, plan))
            if plan is not None:
                retry.append(start + np.flatnonzero(group_wanted & ~matched))
        return np.concatenate(retry) if retry else np.zeros(0, dtype=np.int64)

    def _match(
        self, plan: EntryPlan | None, parts: LayoutParts
    ) -> tuple[BoolArray, dict[str, pa.Array], pa.StructArray | None]:
        """The group's messages against its entry (``plan`` None: the layout alone)."""
        matched, roles, found = parts.matched, parts.roles, None
        if plan is not None:
            found = pc.extract_regex(parts.message, "^(?:" + plan.pattern + ")$")
            matched = matched & as_mask(found.is_valid())
            if plan.check_literal:
                # The reference only tries an entry whose literal is in the message.
                literal = pc.match_substring(flat(found.field("m")), plan.entry.literal)
                matched = matched & as_mask(literal)
        return matched, roles, found

    # -- vectorised path, phase 2: the whole batch at once -------------------------------------

    def _classify(
        self, batch: pa.RecordBatch, layout: LayoutPlan, claims: list[_Claim], out: _Outcome
    ) -> None:
        """Timestamps, conversions and outcome of every claimed row, one pass per column."""
        lengths = [len(claim.rows) for claim in claims]
        starts = np.concatenate(([0], np.cumsum(lengths)))
        space = int(starts[-1])
        rows = np.concatenate([claim.rows for claim in claims])
        done = np.concatenate([claim.matched for claim in claims])
        columns: dict[str, list[pa.Array]] = {}
        head: dict[str, pa.Array] = {}
        if layout.positional:
            head = kafka_head_roles(batch.column("text"), rows, done)
        for role in layout.roles:
            if role in head:
                merged = head[role]
            else:
                merged = flat(pa.concat_arrays([claim.roles[role] for claim in claims]))
            if role == "timestamp":
                local, valid = local_times(layout.layout, merged)
                done &= valid
                columns["log_time_text"] = [merged]
                columns["log_time"] = [timestamps(self._plan.zone.many(local, valid), valid)]
            else:
                columns[role] = [merged]
        entry = np.concatenate(
            [np.full(len(c.rows), c.plan.position if c.plan else -1) for c in claims]
        )
        foreign = entry < 0
        self._fields(claims, lengths, starts, done, columns)
        if foreign.any():
            if "logger" in layout.roles:
                logger = columns["logger"][0]
                audited = np.zeros(space, dtype=bool)
                for prefix in AUDITED_LOGGER_PREFIXES:
                    audited |= as_mask(pc.starts_with(logger, prefix))
                columns["reason_detail"] = [masked(logger, audited & foreign)]
            else:
                audited = np.ones(space, dtype=bool)
        else:
            audited = np.zeros(space, dtype=bool)
        finished = rows[done]
        out.index[finished] = np.flatnonzero(done)
        out.space = space
        out.columns = columns
        position = entry[done]
        is_foreign = foreign[done]
        is_audited = audited[done]
        order = self._plan.settings.order
        events = self._plan.is_event[np.where(is_foreign, 0, position)] & ~is_foreign
        out.status[finished] = np.select(
            [events, is_foreign & is_audited], [_PARSED, _QUARANTINED], _IGNORED
        )
        out.reason[finished] = np.where(is_foreign & is_audited, out.reason_code("no_grammar"), -1)
        out.grammar[finished] = position
        out.event_type[finished] = np.where(events, position, -1)
        out.family[finished] = np.select(
            [~is_foreign, ~is_audited], [position, len(order.entries)], -1
        )
        if self._hint is not None:
            out.conflict[finished] = events & (position >= order.in_range)

    def _fields(
        self,
        claims: list[_Claim],
        lengths: list[int],
        starts: IntArray,
        done: BoolArray,
        columns: dict[str, list[pa.Array]],
    ) -> None:
        """Each field converted once over every claim capturing it; ``done`` less failures."""
        captured: dict[str, list[tuple[int, pa.StructArray, EntryPlan]]] = {}
        events: list[tuple[int, EntryPlan]] = []
        for index, claim in enumerate(claims):
            plan = claim.plan
            if plan is None or plan.entry.event_type is None:
                continue
            assert claim.found is not None  # an entry's claim has its groups
            events.append((index, plan))
            for name in plan.groups:
                captured.setdefault(name, []).append((index, claim.found, plan))
        converted: dict[tuple[str, int], pa.Array] = {}
        for name, sources in captured.items():
            texts = flat(
                pa.concat_arrays([flat(found.field(p.groups[name])) for _, found, p in sources])
            )
            digits = all(name in plan.digits for _, _, plan in sources)
            positions = np.concatenate([starts[i] + np.arange(lengths[i]) for i, _, _ in sources])
            values, ok = convert(EVENT_FIELDS[name], texts, digits)
            done[positions[~ok]] = False
            offset = 0
            for index, _, _ in sources:
                converted[(name, index)] = values.slice(offset, lengths[index])
                offset += lengths[index]
        chunks: dict[str, dict[int, pa.Array]] = {}
        for index, plan in events:
            for name in plan.groups:
                chunks.setdefault(name, {})[index] = converted[(name, index)]
            for name, value in plan.entry.constants:
                chunks.setdefault(name, {})[index] = _constant(name, value, lengths[index])
            for target, source in plan.entry.copies:
                chunks.setdefault(target, {})[index] = converted[(source, index)]
        for name, by_claim in chunks.items():
            runs = [(length, by_claim.get(index)) for index, length in enumerate(lengths)]
            columns[name] = _runs(runs, FIELD_TYPES[name])

    # -- reference path ----------------------------------------------------------------------

    def _reference(
        self, batch: pa.RecordBatch, layout: CompiledLayout, rows: IntArray, out: _Outcome
    ) -> None:
        """Classify ``rows`` with ``parse_record`` on records rebuilt from them."""
        names = ["text", "first_line", "line_count", "orphan_reason", "invalid_utf8", "truncated"]
        taken = batch.select([*names, "read_error"]).take(pa.array(rows)).to_pydict()
        entries = len(self._plan.settings.order.entries)
        positions = self._plan.positions
        zone = self._plan.zone
        results: list[dict[str, Any]] = []
        for k in range(len(rows)):
            row = int(rows[k])
            values: dict[str, Any] = {}
            results.append(values)
            if taken["read_error"][k] is not None:
                # The reader's error row has no text: no tail.
                out.status[row] = _QUARANTINED
                out.reason[row] = out.reason_code("missing_tail")
                continue
            outcome: Outcome
            try:
                record = rebuild_record(
                    layout,
                    taken["text"][k],
                    first_line=taken["first_line"][k],
                    orphan_reason=taken["orphan_reason"][k],
                    invalid_utf8=taken["invalid_utf8"][k],
                    truncated=taken["truncated"][k],
                )
            except Exception as exc:  # not a row the reader makes: say so, never raise
                record = LogRecord(taken["first_line"][k], taken["line_count"][k], "")
                outcome = Quarantined(
                    record.first_line,
                    record.line_count,
                    f"internal_error: {type(exc).__name__}",
                    str(exc),
                )
            else:
                outcome = parse_record(record, self._hint)
            if record.timestamp is not None:
                values["log_time"] = zone.one(record.timestamp)
            values["log_time_text"] = record.timestamp_text
            values["level"] = record.level
            values["logger"] = record.logger
            values["thread"] = record.thread
            if isinstance(outcome, ParsedEvent):
                position = positions[outcome.grammar]
                out.status[row] = _PARSED
                out.grammar[row] = out.event_type[row] = out.family[row] = position
                out.conflict[row] = outcome.version_conflict
                event = outcome.event
                for name in self._plan.event_fields[position]:
                    value = getattr(event, name)
                    values[name] = list(value) if isinstance(value, tuple) else value
            elif isinstance(outcome, IgnoredRecord):
                out.status[row] = _IGNORED
                if outcome.grammar is None:
                    out.family[row] = entries
                else:
                    out.grammar[row] = out.family[row] = positions[outcome.grammar]
            else:
                out.status[row] = _QUARANTINED
                out.reason[row] = out.reason_code(outcome.reason)
                values["reason_detail"] = outcome.detail
                if outcome.reason.startswith("field_conversion"):
                    out.grammar[row] = positions[(outcome.detail or "").split(":")[0]]
        present = {
            name for values in results for name, value in values.items() if value is not None
        }
        for name in present:
            kind = pa.int64() if name == "log_time" else VALUE_TYPES[name]
            array = pa.array([values.get(name) for values in results], kind)
            if name == "log_time":
                array = array.cast(VALUE_TYPES["log_time"])
            chunks = out.columns.setdefault(name, [])
            if out.space and not chunks:
                chunks.append(pa.nulls(out.space, VALUE_TYPES[name]))
            chunks.append(array)
        out.index[rows] = out.space + np.arange(len(rows))

    # -- output ------------------------------------------------------------------------------

    def _assemble(self, batch: pa.RecordBatch, out: _Outcome) -> pa.RecordBatch:
        size = out.size
        index = out.index
        identity = bool(np.array_equal(index, np.arange(size)))
        plan = self._plan
        coded = {
            "status": from_codes(out.status, pa.array(_STATUSES, pa.string())),
            "reason": from_codes(out.reason, pa.array(list(out.reasons), pa.string())),
            "grammar": from_codes(out.grammar, plan.names),
            "event_type": from_codes(out.event_type, plan.event_types),
            "family": from_codes(out.family, plan.families),
            "version_conflict": pa.array(out.conflict),
        }
        take = None if identity else pa.array(index)
        total = out.space + int((index >= out.space).sum())
        arrays: list[pa.Array] = []
        for name in PARSED_ARROW_SCHEMA.names:
            if name in KEEP_COLUMNS:
                arrays.append(batch.column(name))
            elif name in coded:
                arrays.append(coded[name])
            else:
                arrays.append(_gather(out.columns.get(name), VALUE_TYPES[name], total, take, size))
        return pa.RecordBatch.from_arrays(arrays, schema=PARSED_ARROW_SCHEMA)


def _gather(
    chunks: list[pa.Array] | None, kind: pa.DataType, total: int, take: pa.Array | None, size: int
) -> pa.Array:
    """One value column: its chunks (padded with nulls to ``total``) put in row order."""
    if not chunks:
        return pa.nulls(size, kind)
    length = sum(len(chunk) for chunk in chunks)
    if length < total:
        chunks = [*chunks, pa.nulls(total - length, kind)]
    combined = pa.concat_arrays(chunks) if len(chunks) > 1 else chunks[0]
    return combined if take is None else combined.take(take)


def _constant(name: str, value: FieldValue, size: int) -> pa.Array:
    kind = FIELD_TYPES[name]
    scalar = pa.scalar(list(value) if isinstance(value, tuple) else value, kind)
    return pa.repeat(scalar, size)


def rebuild_record(
    layout: CompiledLayout,
    text: str,
    *,
    first_line: int,
    orphan_reason: str | None,
    invalid_utf8: bool,
    truncated: bool,
) -> LogRecord:
    """The ``LogRecord`` ``assemble_records`` made of a reader row.

    The row's lines are cut again without terminators (so ``_decode`` strips nothing, a line
    ending with ``\\r`` included); a record's lines other than its first never start a record,
    so they form that one record again. What cutting alone cannot see is restored from the row:
    its line number, orphan reason, UTF-8 and truncation flags (a missing tail is
    ``truncated_record`` only for a truncated record).

    Args:
        layout: the file's layout.
        text: the record's text (lines joined with ``\\n``).
        first_line: its first line number.
        orphan_reason: the reader's orphan reason.
        invalid_utf8: the reader's flag.
        truncated: the reader's flag.

    Returns:
        The record.
    """
    lines = text.split("\n")
    if orphan_reason is not None:
        return LogRecord(
            first_line=first_line,
            line_count=len(lines),
            text=text,
            orphan_reason=orphan_reason,
            invalid_utf8=invalid_utf8,
            truncated=truncated,
        )
    (record,) = assemble_records(lines, layout)
    error = record.layout_error
    if error is not None:
        error = "truncated_record" if truncated else "missing_tail"
    return replace(
        record,
        first_line=first_line,
        invalid_utf8=invalid_utf8,
        truncated=truncated,
        layout_error=error,
    )
