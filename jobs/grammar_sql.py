"""The JVM grammar executor: every ``GrammarEntry`` as Spark SQL, with the Python executor's rules.

``kafkactl_core.grammars.executor.parse_record`` is the reference; this module gives the same
outcome for every record, as Spark expressions (no Python UDF):

* **Trial order** (``TrialOrder``): the entries in registry order; with a version hint, those
  whose range contains it first, then the others (a match among those is a version conflict).
* **Literal pre-filter, then ONE regex per entry**: an entry is tried only when its literal is in
  the message (``contains``), with ONE ``regexp_replace`` of its ``strict_anchored_pattern``
  (Java ``\\z`` anchoring, equal to Python's ``fullmatch``) on ``GUARD + message``. Its
  replacement template writes ``MATCHED``, the entry's trial position, then the 55 canonical
  field slots of ``EVENT_FIELDS`` separated by ``SEP``: each captured group ``$k`` at its field's
  slot, constants as text, copies as the source's group, empty elsewhere. A message the pattern
  does not match comes back unchanged, starting with ``GUARD``, so a match is recognised by its
  first character. One ``split`` then gives every field at a fixed position.
* **Dispatch**: trying 415 literals on every record costs more than the regexes (a measured
  ~60 us per record for a JVM multi-literal regex, ~30 us per hundred ``contains``). The reader
  therefore passes, per record, the trial position of its first candidate entry and a bitmask of
  the others (``log_reader.CandidateIndex``: a superset of the entries whose literal the record
  contains, memoised per record shape). The first candidate's regex is selected by a binary tree
  of ``if`` on its position, so the common record runs one regex; when it does not match, the
  remaining candidates are tried in trial order.
* **Conversion** (``field_value``): one expression per field implementing ``fields.py``'s rules
  with ``try_cast`` (ANSI mode is on): empty capture = null scalar / empty list, integers must be
  ``-?[0-9]+`` within 64 bits, floats Scala's forms, booleans ``true``/``false``, ``int_list``
  after flattening ``BrokerState(brokerId=N, ...)``. List slots carry a ``LIST_MARK`` when the
  entry declares the field, so "declared but empty" (empty list) differs from "not declared"
  (null). A capture that does not convert quarantines the record ``field_conversion: <field>``
  for the first such field in the entry's group order.
* **Outcome**: orphan, layout error, bad timestamp, invalid UTF-8, match, foreign logger: the
  order of ``parse_record``.

Known difference: ``SEP`` (U+001F) is the field delimiter, so a record whose text contains it is
quarantined ``unsupported_control_character`` instead of being parsed (text logs never have it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Any

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F

from jobs.layout_sql import head_replaced, layout_columns, layout_replaced, timestamp_column
from kafkactl_core.grammars import (
    AUDITED_LOGGER_PREFIXES,
    EVENT_FIELDS,
    CompiledLayout,
    FieldType,
    GrammarEntry,
    convert_field,
    grammar_entries,
    grammars_for_version,
)
from kafkactl_core.grammars.fields import (
    INT_LIST_BROKER_STATE_PATTERN,
    STR_LIST_SPLIT_PATTERN,
    FieldValue,
)
from kafkactl_core.versions import KafkaRelease

__all__ = [
    "FIELD_NAMES",
    "GUARD",
    "LIST_MARK",
    "MATCHED",
    "OUTCOME_COLUMNS",
    "SEP",
    "ExecutorSettings",
    "TrialOrder",
    "entry_regex",
    "entry_template",
    "execute_grammars",
    "field_value",
]

MATCHED = "\x01"
GUARD = "\x02"
LIST_MARK = "\x1e"
SEP = "\x1f"
FIELD_NAMES: tuple[str, ...] = tuple(EVENT_FIELDS)
_LISTS = (FieldType.INT_LIST, FieldType.STR_LIST)
_FLOAT_JAVA = "^-?(?:[0-9]+(?:\\.[0-9]+)?(?:[eE][-+]?[0-9]+)?|NaN|Infinity)\\z"
_INT_LIST_JAVA = "^-?[0-9]+(?:[ ]*,[ ]*-?[0-9]+)*\\z"


@dataclass(frozen=True)
class TrialOrder:
    """The order the executors try entries in, for a version hint.

    Attributes:
        entries: every entry, in trial order.
        in_range: how many leading entries contain the hint (all of them without a hint).
        hint: the configured release, ``None`` for ``auto``.
    """

    entries: tuple[GrammarEntry, ...]
    in_range: int
    hint: KafkaRelease | None

    @classmethod
    def for_hint(cls, hint: KafkaRelease | None) -> TrialOrder:
        """The trial order of ``executor.parse_record`` for ``hint``.

        Args:
            hint: the cluster's configured release, or ``None``.

        Returns:
            The order.
        """
        if hint is None:
            entries = grammar_entries()
            return cls(entries, len(entries), None)
        inside = grammars_for_version(hint)
        chosen = {entry.name for entry in inside}
        rest = tuple(entry for entry in grammar_entries() if entry.name not in chosen)
        return cls(inside + rest, len(inside), hint)

    @cached_property
    def positions(self) -> Mapping[str, int]:
        """Entry name -> trial position."""
        return {entry.name: position for position, entry in enumerate(self.entries)}


def _escape_replacement(text: str) -> str:
    """A literal text inside a Java ``Matcher`` replacement string."""
    return text.replace("\\", "\\\\").replace("$", "\\$")


def _render_constant(field_type: FieldType, value: FieldValue) -> str:
    """Text that converts back to ``value`` under the field rules (checked)."""
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, tuple):
        text = ",".join(str(item) for item in value)
    else:
        text = (
            str(value) if not isinstance(value, float) else repr(value).replace("inf", "Infinity")
        )
    if convert_field(field_type, text) != value:
        raise ValueError(f"constant {value!r} of type {field_type.value} has no text form")
    return text


def entry_template(entry: GrammarEntry, position: int) -> str:
    """The ``regexp_replace`` template of an entry: position then the canonical field slots.

    Args:
        entry: the grammar entry.
        position: its trial position.

    Returns:
        The Java replacement string.
    """
    groups = {name: index + 1 for index, (name, _) in enumerate(entry.fields)}
    constants = dict(entry.constants)
    copies = dict(entry.copies)
    slots: list[str] = []
    for name, field_type in EVENT_FIELDS.items():
        mark = LIST_MARK if field_type in _LISTS else ""
        if name in groups:
            slots.append(f"{mark}${groups[name]}")
        elif name in copies:
            slots.append(f"{mark}${groups[copies[name]]}")
        elif name in constants:
            slots.append(mark + _escape_replacement(_render_constant(field_type, constants[name])))
        else:
            slots.append("")
    return MATCHED + str(position) + SEP + SEP.join(slots)


def entry_regex(entry: GrammarEntry) -> str:
    """The Java regex of an entry as this executor runs it: ``^GUARD(?:PATTERN)\\z``."""
    anchored = entry.strict_anchored_pattern
    return "^" + GUARD + anchored[1:]


def _repr(text: Column) -> Column:
    """Python's ``repr`` of a short string, for the common characters (error details only)."""
    escaped = F.replace(
        F.replace(F.replace(F.replace(text, F.lit("\\"), F.lit("\\\\")), F.lit("\n"), F.lit("\\n")),
                  F.lit("\r"), F.lit("\\r")),
        F.lit("\t"),
        F.lit("\\t"),
    )  # fmt: skip
    has_single = F.contains(text, F.lit("'"))
    has_double = F.contains(text, F.lit('"'))
    return F.when(
        has_single & ~has_double, F.concat(F.lit('"'), escaped, F.lit('"'))
    ).otherwise(
        F.concat(F.lit("'"), F.replace(escaped, F.lit("'"), F.lit("\\'")), F.lit("'"))
    )  # fmt: skip


def _head40(text: Column) -> Column:
    return _repr(F.substring(text, 1, 40))


def _is_integer_text(text: Column) -> Column:
    """``text`` (non-empty) is ``-?[0-9]+`` given that ``try_cast`` accepts it as a BIGINT.

    ``try_cast`` also accepts blanks around the number and a ``+`` sign; requiring the first
    character to be ``-`` or a digit and the last to be a digit excludes exactly those.
    """
    first = F.ascii(text)
    last = F.ascii(F.right(text, F.lit(1)))
    return ((first == 45) | first.between(48, 57)) & last.between(48, 57)


@dataclass(frozen=True)
class _Converted:
    value: Column
    failed: Column
    failure: Column  # the Python ConversionError message, when failed


def field_value(field_type: FieldType, slot: Column) -> _Converted:
    """One field's typed value from its slot text, by the rules of ``fields.py``.

    Args:
        field_type: the field's type.
        slot: the slot text (lists: ``LIST_MARK`` + capture when declared, empty otherwise).

    Returns:
        The typed value (null when empty or not converting), whether the conversion failed and
        the failure message ``convert_field`` raises.
    """
    present = slot != ""
    if field_type is FieldType.STR:
        return _Converted(F.when(present, slot), F.lit(False), F.lit(None))
    if field_type is FieldType.INT:
        cast = slot.try_cast("bigint")
        value = F.when(present & _is_integer_text(slot), cast)
        failure = F.when(
            F.regexp_like(slot, F.lit("^-?[0-9]+\\z")),
            F.concat(F.lit("integer out of 64-bit range: "), _head40(slot)),
        ).otherwise(F.concat(F.lit("not an integer: "), _head40(slot)))
        return _Converted(value, present & value.isNull(), failure)
    if field_type is FieldType.FLOAT:
        shaped = F.regexp_like(slot, F.lit(_FLOAT_JAVA))
        number = F.when(slot.endswith("NaN"), F.lit(float("nan"))).otherwise(
            slot.try_cast("double")
        )
        value = F.when(present & shaped, number)
        failure = F.concat(F.lit("not a number: "), _head40(slot))
        return _Converted(value, present & ~shaped, failure)
    if field_type is FieldType.BOOL:
        value = F.when(slot == "true", F.lit(True)).when(slot == "false", F.lit(False))
        failure = F.concat(F.lit("not a boolean: "), _head40(slot))
        return _Converted(value, present & value.isNull(), failure)
    raw = F.substring(slot, 2, 1 << 30)
    if field_type is FieldType.STR_LIST:
        simple = ~(
            F.contains(raw, F.lit(" "))
            | F.contains(raw, F.lit("["))
            | F.contains(raw, F.lit("("))
            | F.contains(raw, F.lit("]"))
            | F.contains(raw, F.lit(")"))
        )
        items = F.when(simple, F.split(raw, ",")).otherwise(F.split(raw, STR_LIST_SPLIT_PATTERN))
        value = F.when(~present, F.lit(None)).when(raw == "", F.array().cast("array<string>"))
        return _Converted(value.otherwise(items), F.lit(False), F.lit(None))
    flat = F.when(
        F.contains(raw, F.lit("BrokerState")),
        F.regexp_replace(raw, F.lit(INT_LIST_BROKER_STATE_PATTERN), F.lit("$1")),
    ).otherwise(raw)
    compact = F.replace(flat, F.lit(", "), F.lit(","))
    # Only digits, '-' and ',' once ", " is compacted: Python's split on [ ]*,[ ]* gives the
    # same elements as a split on ','; anything else takes the exact (regex) path.
    clean = F.translate(compact, "0123456789-,", "") == ""
    exact_ok = F.regexp_like(flat, F.lit(_INT_LIST_JAVA))
    numbers = F.when(
        clean, F.split(compact, ",").try_cast("array<bigint>")
    ).otherwise(
        F.when(exact_ok, F.split(flat, "[ ]*,[ ]*").try_cast("array<bigint>"))
    )  # fmt: skip
    empty = flat == ""
    complete = F.when(
        numbers.isNotNull(), ~F.contains(F.array_join(numbers, ",", "\x00"), F.lit("\x00"))
    ).otherwise(F.lit(False))
    failed = present & ~empty & ~complete
    value = (
        F.when(~present, F.lit(None))
        .when(empty, F.array().cast("array<bigint>"))
        .when(complete, numbers)
    )
    elements = F.split(flat, "[ ]*,[ ]*")

    def wrong(item: Column) -> Column:
        return ~F.regexp_like(item, F.lit("^-?[0-9]+\\z")) | item.try_cast("bigint").isNull()

    bad = F.get(F.filter(elements, wrong), 0)
    failure = F.when(
        F.regexp_like(bad, F.lit("^-?[0-9]+\\z")),
        F.concat(F.lit("integer out of 64-bit range: "), _head40(bad)),
    ).otherwise(F.concat(F.lit("not an integer: "), _head40(bad)))
    return _Converted(value, failed, failure)


def _lookup(values: Sequence[str], index: Column) -> Column:
    """``values[index]`` from a literal array (O(1) per row); an empty string reads as null."""
    return F.nullif(F.try_element_at(_array(values), index + 1), F.lit(""))


def _case(index: Column, values: Sequence[Column]) -> Column:
    result = F.when(index == 0, values[0])
    for position, value in enumerate(values[1:], start=1):
        result = result.when(index == position, value)
    return result


def _array(values: Sequence[str]) -> Column:
    """A literal ``array<string>``: ONE literal node, built by ONE call to the JVM.

    A ``CreateArray`` of hundreds of literals costs seconds of analysis and optimisation per
    query; a single ``Literal`` costs nothing. The values are joined with NUL (in no grammar
    text) and split back into a Java ``String[]`` on the JVM.
    """
    joined = "\x00".join(values)
    if any("\x00" in value for value in values):
        raise ValueError("a literal array value contains NUL")
    spark = SparkSession.getActiveSession()
    if spark is None:
        raise RuntimeError("the JVM executor needs an active SparkSession")
    jvm: Any = spark._jvm
    return F.lit(jvm.java.lang.String(joined).split("\x00", -1))


def grammar_passes(
    order: TrialOrder, message: Column, first_candidate: Column, others: Column
) -> tuple[Column, Column]:
    """The regex passes: the first candidate's, then the other candidates' in trial order.

    The first candidate's pattern and template are taken from literal arrays by its position:
    ONE ``regexp_replace`` expression serves every entry, and Spark compiles a pattern only
    when it differs from the previous row's (the reader sorts each batch by first candidate).

    Args:
        order: the trial order.
        message: the record's message (a materialised column).
        first_candidate: trial position of the first candidate entry (-1: none).
        others: the other candidates' positions, ascending (array<int>).

    Returns:
        ``(first, rest)``: ``first`` is the first candidate's ``regexp_replace`` output (the
        guarded message when it does not match); ``rest`` is the first match among the other
        candidates, null when none (a higher-order function over a few positions: the rare
        path). Materialise ``first`` once; use ``rest`` only when ``first`` did not match.
    """
    guarded = F.concat(F.lit(GUARD), message)
    entries = order.entries
    literals = _array([entry.literal for entry in entries])
    regexes = _array([entry_regex(entry) for entry in entries])
    templates = _array([entry_template(entry, p) for p, entry in enumerate(entries)])

    def attempt(position: Column) -> Column:
        return F.regexp_replace(
            guarded,
            F.element_at(regexes, position + 1),
            F.element_at(templates, position + 1),
        )

    def has_literal(position: Column) -> Column:
        return F.contains(message, F.element_at(literals, position + 1))

    first = F.when(
        (first_candidate >= 0) & has_literal(first_candidate), attempt(first_candidate)
    ).otherwise(guarded)

    def step(found: Column, position: Column) -> Column:
        output = attempt(position)
        return F.when(found.isNotNull(), found).when(
            has_literal(position) & output.startswith(MATCHED), output
        )

    rest = F.when(
        message.isNotNull() & (F.size(others) > 0),
        F.aggregate(others, F.lit(None).cast("string"), step),
    )
    return first, rest


def audited_logger(logger: Column) -> Column:
    """``registry.is_audited_logger``: no logger, or one of the audited prefixes."""
    audited = logger.isNull()
    for prefix in AUDITED_LOGGER_PREFIXES:
        audited = audited | logger.startswith(prefix)
    return audited


@dataclass(frozen=True)
class ExecutorSettings:
    """What the JVM executor needs besides the records.

    Attributes:
        order: the grammars' trial order (from the version hint).
        layouts: the run's layouts; each record names its own by ``layout_index``.
        time_zone: the zone the logs were written in (timestamps are stored as UTC).
    """

    order: TrialOrder
    layouts: tuple[CompiledLayout, ...]
    time_zone: str


OUTCOME_COLUMNS: tuple[str, ...] = (
    "status",
    "reason",
    "reason_detail",
    "grammar",
    "event_type",
    "family",
    "version_conflict",
    "log_time",
    "log_time_text",
    "level",
    "logger",
    "thread",
    *FIELD_NAMES,
)
"""Columns ``execute_grammars`` adds (``status``: parsed, ignored or quarantined; ``reason`` and
``reason_detail``: why a record is quarantined; ``family``: the event type, the ignored family, or
null for a quarantined record)."""

_INPUTS = (
    "text",
    "orphan_reason",
    "invalid_utf8",
    "truncated",
    "layout_index",
    "first_candidate",
    "other_candidates",
)


@dataclass(frozen=True)
class _Stage:
    """One projection: internal columns carried from the previous one, and new columns."""

    carry: tuple[str, ...]
    new: tuple[Column, ...]


_CHECKED = tuple(n for n, t in EVENT_FIELDS.items() if t not in (FieldType.STR, FieldType.STR_LIST))
"""Fields whose capture can fail to convert."""


@lru_cache(maxsize=8)
def _stages(settings: ExecutorSettings) -> tuple[_Stage, ...]:
    """The executor's projections (built once per settings: building costs JVM round trips).

    Intermediate results used more than once are materialised by a projection of their own,
    so a regex runs once per record and large expressions are not copied into others.
    """
    order = settings.order
    layouts = settings.layouts
    lay_index = F.col("layout_index")
    stages: list[_Stage] = [
        _Stage((), (layout_replaced(F.col("text"), lay_index, layouts).alias("_lay"),))
    ]
    head = F.when(
        ~F.col("_lay").startswith(MATCHED) & F.col("orphan_reason").isNull(),
        head_replaced(F.col("text"), lay_index, layouts),
    )
    stages.append(_Stage(("_lay",), (head.alias("_head"),)))
    lay = layout_columns(F.col("_lay"), F.col("_head"), lay_index, layouts)
    stages.append(
        _Stage(
            (),
            (
                lay.matched.alias("_layout_ok"),
                lay.timestamp_text.alias("log_time_text"),
                lay.level.alias("level"),
                lay.logger.alias("logger"),
                lay.thread.alias("thread"),
                lay.message.alias("_message"),
            ),
        )
    )
    layout_parts = ("_layout_ok", "log_time_text", "level", "logger", "thread", "_message")
    times = [
        timestamp_column(layout.timestamp, F.col("log_time_text"), settings.time_zone)
        if layout.timestamp is not None
        else F.lit(None).cast("timestamp")
        for layout in layouts
    ]
    message = F.col("_message")
    first, rest = grammar_passes(
        order, message, F.col("first_candidate"), F.col("other_candidates")
    )
    stages.append(
        _Stage(layout_parts, (_case(lay_index, times).alias("log_time"), first.alias("_first")))
    )
    carried = (*layout_parts, "log_time")
    chosen = F.when(F.col("_first").startswith(MATCHED), F.col("_first")).otherwise(rest)
    stages.append(_Stage(carried, (chosen.alias("_replaced"),)))
    matched = F.coalesce(F.col("_replaced").startswith(MATCHED), F.lit(False))
    parts = F.split(F.when(matched, F.substring(F.col("_replaced"), 2, 1 << 30)), SEP)
    stages.append(
        _Stage(
            carried,
            (
                matched.alias("_matched"),
                F.when(matched, F.get(parts, 0).try_cast("int")).alias("_position"),
                *[F.get(parts, i).alias(f"_s_{n}") for i, n in enumerate(FIELD_NAMES, start=1)],
            ),
        )
    )
    converted = {
        name: field_value(EVENT_FIELDS[name], F.coalesce(F.col(f"_s_{name}"), F.lit("")))
        for name in FIELD_NAMES
    }
    carried_all = (*carried, "_matched", "_position")
    slots = tuple(f"_s_{n}" for n in _CHECKED)
    stages.append(
        _Stage(
            (*carried_all, *slots),
            (
                *[converted[n].value.alias(n) for n in FIELD_NAMES],
                *[converted[n].failed.alias(f"_x_{n}") for n in _CHECKED],
            ),
        )
    )
    position = F.col("_position")
    any_failed = F.lit(False)
    for name in _CHECKED:
        any_failed = any_failed | F.col(f"_x_{name}")
    # Rare path (a capture that does not convert): the entry's checked fields in group order,
    # the first whose flag is set. Data, not a CASE per entry: the plan stays small.
    group_order = _array(
        [
            ",".join(n for n, t in entry.fields if t not in (FieldType.STR, FieldType.STR_LIST))
            for entry in order.entries
        ]
    )
    failed_names = F.filter(
        F.array(*[F.when(F.col(f"_x_{n}"), F.lit(n)) for n in _CHECKED]),
        lambda name: name.isNotNull(),
    )
    in_order = F.split(F.element_at(group_order, position + 1), ",")
    failed_field = F.when(
        F.col("_matched") & any_failed,
        F.get(F.filter(in_order, lambda name: F.array_contains(failed_names, name)), 0),
    )
    stages.append(
        _Stage((*carried_all, *slots, *FIELD_NAMES), (failed_field.alias("_failed_field"),))
    )
    stages.append(_Stage((*carried_all, *slots, *FIELD_NAMES), _outcome(order, message)))
    return tuple(stages)


def _outcome(order: TrialOrder, message: Column) -> tuple[Column, ...]:
    """The outcome columns, from the materialised intermediate columns."""
    entries = order.entries
    position = F.col("_position")
    grammar = _lookup([e.name for e in entries], position)
    # The failing field's slot, then the message of its type (one expression per type).
    failed = F.col("_failed_field")
    slot: Column = F.lit("")
    kind: Column = F.lit("")
    for name in _CHECKED:
        slot = F.when(failed == name, F.col(f"_s_{name}")).otherwise(slot)
        kind = F.when(failed == name, F.lit(EVENT_FIELDS[name].value)).otherwise(kind)
    failure_message: Column = F.lit(None).cast("string")
    for field_type in (FieldType.INT, FieldType.FLOAT, FieldType.BOOL, FieldType.INT_LIST):
        failure_message = F.when(
            kind == field_type.value, field_value(field_type, F.coalesce(slot, F.lit(""))).failure
        ).otherwise(failure_message)
    event_type = _lookup([e.event_type.value if e.event_type else "" for e in entries], position)
    family = _lookup([e.family for e in entries], position)
    ignored = event_type.isNull()
    conflict = F.coalesce(
        F.lit(order.hint is not None) & (position >= order.in_range), F.lit(False)
    )
    orphan = F.col("orphan_reason").isNotNull()
    layout_ok = F.col("_layout_ok")
    control = F.contains(F.col("text"), F.lit(SEP))
    bad_time = F.col("log_time_text").isNotNull() & F.col("log_time").isNull()
    bad_utf8 = F.col("invalid_utf8") & F.contains(message, F.lit("\ufffd"))
    matched = F.col("_matched")
    conversion = matched & F.col("_failed_field").isNotNull()
    audited = audited_logger(F.col("logger"))
    quarantined = F.lit("quarantined")
    early = orphan | ~layout_ok | control | bad_time | bad_utf8
    status = (
        F.when(early | conversion, quarantined)
        .when(matched, F.when(ignored, F.lit("ignored")).otherwise(F.lit("parsed")))
        .when(audited, quarantined)
        .otherwise(F.lit("ignored"))
    )
    reason = (
        F.when(orphan, F.lit("orphan_continuation"))
        .when(
            ~layout_ok,
            F.when(F.col("truncated"), F.lit("truncated_record")).otherwise(F.lit("missing_tail")),
        )
        .when(control, F.lit("unsupported_control_character"))
        .when(bad_time, F.lit("bad_timestamp"))
        .when(bad_utf8, F.lit("invalid_utf8"))
        .when(conversion, F.concat(F.lit("field_conversion: "), F.col("_failed_field")))
        .when(matched, F.lit(None))
        .when(audited, F.lit("no_grammar"))
    )
    detail = (
        F.when(orphan, F.col("orphan_reason"))
        .when(~layout_ok, F.lit(None))
        .when(control, F.lit("U+001F (the executor's field separator) in the record"))
        .when(bad_time, F.col("log_time_text"))
        .when(bad_utf8, F.lit(None))
        .when(conversion, F.concat(grammar, F.lit(": "), failure_message))
        .when(matched, F.lit(None))
        .when(audited, F.col("logger"))
    )
    kept = ~early & matched & ~conversion
    family_out = (
        F.when(kept, family)
        .when(early | matched, F.lit(None))
        .when(~audited, F.lit("foreign_logger"))
    )
    return (
        status.alias("status"),
        reason.alias("reason"),
        detail.alias("reason_detail"),
        F.when(~early & matched, grammar).alias("grammar"),
        F.when(kept, event_type).alias("event_type"),
        family_out.alias("family"),
        F.when(kept & ~ignored, conflict).otherwise(F.lit(False)).alias("version_conflict"),
    )


def execute_grammars(
    records: DataFrame, settings: ExecutorSettings, keep: Sequence[str]
) -> DataFrame:
    """Classify every record on the JVM, as ``executor.parse_record`` does.

    Args:
        records: the reader's rows plus ``layout_index``: ``text``, ``orphan_reason``,
            ``invalid_utf8``, ``truncated``, ``first_candidate``, ``other_candidates``.
        settings: trial order, layouts, time zone.
        keep: input columns to carry through.

    Returns:
        ``keep`` + ``OUTCOME_COLUMNS``.
    """
    inputs = list(dict.fromkeys([*keep, *_INPUTS]))
    frame = records
    for stage in _stages(settings):
        frame = frame.select(*inputs, *stage.carry, *stage.new)
    return frame.select(
        *keep,
        "status",
        "reason",
        "reason_detail",
        "grammar",
        "event_type",
        "family",
        "version_conflict",
        "log_time",
        "log_time_text",
        "level",
        "logger",
        "thread",
        *FIELD_NAMES,
    )
