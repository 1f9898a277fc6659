"""A log4j layout on the JVM: a record's text into its timestamp, level, logger, thread, message.

``kafkactl_core.grammars.records`` cuts a record's head at ``start_pattern`` and looks for the
layout's tail at the end of the first line, then of each following line (a wrapped message). One
Java regex does the same on the whole record text, and ONE ``regexp_replace`` per record turns it
into a delimited string that one ``split`` cuts::

    ^(?>HEAD)((?:[^\\n]*\\n)*?[^\\n]*)TAIL(?:\\n[^\\n]*)*\\z

* ``(?>HEAD)``: the head, atomic, so it keeps the first match Python's ``start_regex.match``
  finds instead of backtracking into another split of the head;
* the lazy ``(?:[^\\n]*\\n)*?`` tries the tail on the first line, then on the second, ...: the
  first line that ends with the tail ends the message, as in ``records._build``; the greedy
  ``[^\\n]*`` before the tail takes the tail at the end of that line;
* the lines after it (stack traces) are the rest of the record.

A record whose text does not match has no tail on any line (``missing_tail`` /
``truncated_record``). Timestamps are read by position (fixed-width ``%d`` formats such as
Kafka's ``yyyy-MM-dd HH:mm:ss,SSS``) or by one more regex (month names, 1-digit fields), with
the rules of ``timestamps.TimestampFormat.parse``, then converted from the cluster's time zone
to UTC by ``try_make_timestamp`` (a time in a DST gap or overlap is read as Python's ``fold=0``
reads it: the offset before the transition).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from pyspark.sql import Column
from pyspark.sql import functions as F

from kafkactl_core.grammars import CompiledLayout
from kafkactl_core.grammars.timestamps import TimestampFormat

__all__ = [
    "LAYOUT_ROLES",
    "LayoutColumns",
    "head_java_regex",
    "head_replaced",
    "layout_columns",
    "layout_java_regex",
    "layout_replaced",
    "timestamp_column",
]

MATCHED = "\x01"
SEP = "\x1f"
_MESSAGE = "([^\\n]*)"
LAYOUT_ROLES = ("timestamp", "level", "logger", "thread", "message")
"""Order of the parts the layout replacement writes (absent roles are written empty)."""

_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_MONTH_NAMES = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)


def layout_java_regex(layout: CompiledLayout) -> tuple[str, str]:
    """The Java regex matching a whole record of ``layout``, and its replacement template.

    Args:
        layout: the compiled layout.

    Returns:
        ``(regex, template)``: the template writes ``MATCHED`` then the ``LAYOUT_ROLES`` parts
        separated by ``SEP``.
    """
    head_groups = len(layout.start_roles)
    if not layout.tail_pattern.startswith(_MESSAGE):
        raise ValueError(f"unexpected tail pattern {layout.tail_pattern!r}")
    # tail_pattern is "([^\n]*)" + TAIL: the message group is reopened to span lines.
    regex = (
        "^(?>"
        + layout.start_pattern
        + ")((?:[^\\n]*\\n)*?[^\\n]*)"
        + layout.tail_pattern[len(_MESSAGE) :]
        + "(?:\\n[^\\n]*)*\\z"
    )
    group_of: dict[str, int] = {}
    for index, role in enumerate(layout.start_roles):
        group_of[role] = index + 1
    for index, role in enumerate(layout.tail_roles):
        group_of[role] = head_groups + index + 1
    parts = [f"${group_of[role]}" if role in group_of else "" for role in LAYOUT_ROLES]
    return regex, MATCHED + SEP.join(parts)


@dataclass(frozen=True)
class LayoutColumns:
    """What the layout step gives for each record (all null when the layout did not match).

    Attributes:
        matched: whether the record's text matched the layout (head and a tail).
        timestamp_text: the ``%d`` text, null without ``%d``.
        level: the ``%p`` text.
        logger: the ``%c`` text.
        thread: the ``%t`` text.
        message: the ``%m`` text.
    """

    matched: Column
    timestamp_text: Column
    level: Column
    logger: Column
    thread: Column
    message: Column


def _case(index: Column, values: Sequence[Column], default: Column | None = None) -> Column:
    """``values[index]`` as a chain of ``when`` (there are only a few layouts per run)."""
    result: Column | None = None
    for position, value in enumerate(values):
        result = (
            F.when(index == position, value)
            if result is None
            else result.when(index == position, value)
        )
    if result is None:
        return default if default is not None else F.lit(None)
    return result.otherwise(default) if default is not None else result


def head_java_regex(layout: CompiledLayout) -> tuple[str, str]:
    """The Java regex of a record's head alone (for records without a tail), and its template.

    Args:
        layout: the compiled layout.

    Returns:
        ``(regex, template)`` writing the head's roles at their ``LAYOUT_ROLES`` positions.
    """
    regex = "^(?>" + layout.start_pattern + ")[\\s\\S]*\\z"
    group_of = {role: index + 1 for index, role in enumerate(layout.start_roles)}
    parts = [f"${group_of[role]}" if role in group_of else "" for role in LAYOUT_ROLES]
    return regex, MATCHED + SEP.join(parts)


def head_replaced(text: Column, layout_index: Column, layouts: Sequence[CompiledLayout]) -> Column:
    """``regexp_replace`` of a record's text through its layout's head regex (rare path).

    Args:
        text: the record text.
        layout_index: position of the record's layout in ``layouts``.
        layouts: the layouts of the run.

    Returns:
        ``MATCHED`` + the head parts, or the text unchanged when no head starts it.
    """
    replaced = []
    for layout in layouts:
        regex, template = head_java_regex(layout)
        replaced.append(F.regexp_replace(text, F.lit(regex), F.lit(template)))
    return _case(layout_index, replaced, text)


def layout_replaced(
    text: Column, layout_index: Column, layouts: Sequence[CompiledLayout]
) -> Column:
    """ONE ``regexp_replace`` per record: its text through its file's layout regex.

    Args:
        text: the record text.
        layout_index: position of the record's layout in ``layouts``.
        layouts: the layouts of the run.

    Returns:
        ``MATCHED`` + the parts, or the text unchanged when it does not match.
    """
    replaced = []
    for layout in layouts:
        regex, template = layout_java_regex(layout)
        replaced.append(F.regexp_replace(text, F.lit(regex), F.lit(template)))
    return _case(layout_index, replaced, text)


def layout_columns(
    replaced: Column, head: Column, layout_index: Column, layouts: Sequence[CompiledLayout]
) -> LayoutColumns:
    """Cut the outputs of ``layout_replaced`` (and ``head_replaced``) into their parts.

    Args:
        replaced: the column ``layout_replaced`` computed (materialised once).
        head: the column ``head_replaced`` computed for records ``replaced`` did not match
            (their head's roles, as ``records._build`` keeps them), null otherwise.
        layout_index: position of the record's layout in ``layouts``.
        layouts: the layouts of the run.

    Returns:
        The parts; a role the layout lacks is null (an empty ``%t`` stays empty).
    """
    matched = replaced.startswith(MATCHED)
    head_matched = F.coalesce(head.startswith(MATCHED), F.lit(False))
    parts = F.split(F.substring(replaced, 2, 1 << 30), SEP)
    head_parts = F.split(F.substring(head, 2, 1 << 30), SEP)

    def part(role: str) -> Column:
        present = _case(
            layout_index, [F.lit(_has_role(layout, role)) for layout in layouts], F.lit(False)
        )
        in_head = _case(
            layout_index, [F.lit(role in layout.start_roles) for layout in layouts], F.lit(False)
        )
        if role == "timestamp":
            in_head = present
        index = LAYOUT_ROLES.index(role)
        return F.when(matched & present, F.get(parts, index)).when(
            head_matched & in_head, F.get(head_parts, index)
        )

    return LayoutColumns(
        matched=matched,
        timestamp_text=part("timestamp"),
        level=part("level"),
        logger=part("logger"),
        thread=part("thread"),
        message=F.when(matched, F.get(parts, LAYOUT_ROLES.index("message"))),
    )


def _has_role(layout: CompiledLayout, role: str) -> bool:
    if role == "timestamp":
        return layout.timestamp is not None
    return role in layout.start_roles or role in layout.tail_roles


# --- timestamps -------------------------------------------------------------------------------

_LETTER_RUN = re.compile(r"'[^']*'|([A-Za-z])\1*|.", re.DOTALL)


@dataclass(frozen=True)
class _Token:
    kind: str  # y, M, MMM, MMMM, d, H, h, m, s, S, a, E, or "" for a literal
    width: int  # letters in the run; for a literal, its length
    regex: str  # capturing for a field, plain for E and literals


def _tokens(date_pattern: str) -> list[_Token]:
    """The fields of a ``SimpleDateFormat`` pattern, with ``timestamps._letter_part``'s regexes."""
    tokens: list[_Token] = []
    for match in _LETTER_RUN.finditer(date_pattern):
        text = match.group(0)
        if text.startswith("'"):
            literal = text[1:-1] or "'"
            tokens.append(_Token("", len(literal), re.escape(literal)))
            continue
        letter, count = text[0], len(text)
        if not letter.isalpha():
            tokens.append(_Token("", 1, re.escape(letter)))
        elif letter == "y":
            tokens.append(_Token("y", count, "([0-9]{2})" if count == 2 else "([0-9]{4})"))
        elif letter == "M" and count >= 4:
            tokens.append(_Token("MMMM", count, "(" + "|".join(_MONTH_NAMES) + ")"))
        elif letter == "M" and count == 3:
            tokens.append(_Token("MMM", count, "(" + "|".join(_MONTHS) + ")"))
        elif letter in "MdHhms":
            digits = "([0-9]{2})" if count >= 2 else "([0-9]{1,2})"
            tokens.append(_Token(letter, count, digits))
        elif letter == "S":
            tokens.append(_Token("S", count, f"([0-9]{{{count}}})"))
        elif letter == "a":
            tokens.append(_Token("a", 2, "(AM|PM|am|pm)"))
        elif letter == "E":
            tokens.append(_Token("E", count, "(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*"))
        else:
            raise ValueError(f"date pattern letter {letter!r} is not supported")
    return tokens


def _fixed_width(token: _Token) -> int | None:
    if token.kind == "":
        return token.width
    if token.kind in ("y", "S"):
        return token.width if token.kind == "S" else (2 if token.width == 2 else 4)
    if token.kind in "MdHhms" and len(token.kind) == 1:
        return 2 if token.width >= 2 else None
    if token.kind == "a":
        return 2
    return None


def timestamp_column(fmt: TimestampFormat, text: Column, time_zone: str) -> Column:
    """The instant a ``%d`` text stands for, read in ``time_zone`` (null when not a valid date).

    Follows ``TimestampFormat.parse``: ``yy`` is 2000+yy, ``S`` up to three letters counts
    milliseconds, more letters are a fraction of a second, ``h`` with ``a`` is a 12-hour clock,
    day names are not checked, and an impossible date (Feb 30, hour 24, second 60) is null.

    Args:
        fmt: the layout's timestamp format.
        text: the timestamp text (it matched ``fmt.regex``).
        time_zone: the zone the log was written in.

    Returns:
        A TIMESTAMP column (UTC instant).
    """
    tokens = _tokens(fmt.date_pattern)
    widths = [_fixed_width(token) for token in tokens]
    # ISO8601 accepts ' ' or 'T' between date and time: by position both read alike.
    values: dict[str, Column] = {}
    if all(width is not None for width in widths):
        position = 1
        for token, width in zip(tokens, widths, strict=True):
            assert width is not None  # checked above
            if token.kind:
                values[token.kind] = F.substring(text, position, width)
            position += width
    else:
        regex = "^" + "".join(token.regex for token in tokens) + "\\z"
        kinds = [token.kind for token in tokens if token.kind and token.kind != "E"]
        template = SEP.join(f"${index + 1}" for index in range(len(kinds)))
        parts = F.split(F.regexp_replace(text, F.lit(regex), F.lit(template)), SEP)
        for index, kind in enumerate(kinds):
            values[kind] = F.get(parts, index)
    by_kind = {token.kind: token for token in tokens if token.kind}

    def number(kind: str, default: int) -> Column:
        if kind not in values:
            return F.lit(default)
        return _int(values[kind])

    year = number("y", 1970)
    if "y" in by_kind and by_kind["y"].width == 2:
        year = year + 2000
    if "MMM" in values:
        month = _name_index(values["MMM"], _MONTHS)
    elif "MMMM" in values:
        month = _name_index(values["MMMM"], _MONTH_NAMES)
    else:
        month = number("M", 1)
    hour = number("H", 0) if "H" in values else number("h", 0)
    if "a" in values:
        pm = F.upper(values["a"]) == "PM"
        hour = F.pmod(hour, F.lit(12)) + F.when(pm, 12).otherwise(0)
    seconds = number("s", 0)
    micros: Column = F.lit(0)
    if "S" in values:
        fraction = values["S"]
        width = by_kind["S"].width
        if width <= 3:
            micros = _int(fraction) * 1000
        else:
            micros = _int(F.substring(F.concat(fraction, F.lit("000000")), 1, 6))
    whole = F.try_make_timestamp(
        year,
        month,
        number("d", 1),
        hour,
        number("m", 0),
        seconds.cast("decimal(8,6)"),
        F.lit(time_zone),
    )
    instant = F.timestamp_micros(F.unix_micros(whole) + micros.cast("bigint"))
    # make_timestamp reads second 60 as the next minute; Python's datetime refuses it.
    return F.when((seconds < 60) & (hour < 24), instant)


def _int(value: Column) -> Column:
    return value.try_cast("int")


def _name_index(value: Column, names: Sequence[str]) -> Column:
    result = F.when(value == names[0], 1)
    for index, name in enumerate(names[1:], start=2):
        result = result.when(value == name, index)
    return result
