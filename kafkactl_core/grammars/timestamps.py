"""Log4j ``%d`` date formats: the regex that finds them and the parser that reads them.

A ``TimestampFormat`` is compiled from the option of a PatternLayout ``%d{...}``: a
``SimpleDateFormat`` pattern (``yyyy-MM-dd HH:mm:ss,SSS``) or one of log4j's named formats
(``ISO8601``, ``DEFAULT``, ``DATE``, ``ISO8601_BASIC``, ``COMPACT``). It gives a portable regex
(no groups; the layout captures the whole timestamp text) and a parser to a *naive*
``datetime``: the log's timezone is not in the text, the caller applies it.

Supported pattern letters: ``y`` (``yy``, ``yyyy``), ``M`` (``M``, ``MM``, ``MMM`` English
abbreviation, ``MMMM`` English name), ``d``, ``H``, ``h`` with ``a``, ``m``, ``s``, ``S`` (up to
three letters: milliseconds as ``SimpleDateFormat`` counts them; more letters: a fraction of a
second), ``E`` (day name, checked for shape only) and ``'quoted'`` literals. Zone letters
(``z Z X``) and formats without a date (``ABSOLUTE``) are refused: a naive timestamp cannot carry
them faithfully.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from kafkactl_core.grammars.fragments import escape_literal

__all__ = ["DEFAULT_DATE_PATTERN", "TimestampFormat", "UnsupportedFormatError"]

DEFAULT_DATE_PATTERN = "yyyy-MM-dd HH:mm:ss,SSS"
"""What log4j prints for a bare ``%d`` (log4j 1 ISO8601, log4j 2 DEFAULT)."""

_NAMED = {
    "ISO8601": "yyyy-MM-dd[ T]HH:mm:ss,SSS",
    "DEFAULT": DEFAULT_DATE_PATTERN,
    "DATE": "dd MMM yyyy HH:mm:ss,SSS",
    "ISO8601_BASIC": "yyyyMMdd'T'HHmmss,SSS",
    "COMPACT": "yyyyMMddHHmmssSSS",
}
"""Named formats; ``[ T]`` is ours: log4j 1's ISO8601 has a space, log4j 2's a ``T``."""

SHORT_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
"""English month abbreviations, January first (not ``calendar``'s: those follow the locale)."""

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
_DAYS = "(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*"


class UnsupportedFormatError(ValueError):
    """A ``%d`` option this module cannot turn into a naive timestamp."""


@dataclass(frozen=True, slots=True)
class _Part:
    kind: str  # y, M, d, H, h, m, s, S, a, or "" for parts that only check shape
    inner: str  # regex of the part, without any group
    width: int = 0

    @property
    def capturing(self) -> str:
        return f"({self.inner})" if self.kind else self.inner

    @property
    def plain(self) -> str:
        return f"(?:{self.inner})" if self.kind else self.inner


def _letter_part(letter: str, count: int) -> _Part:
    if letter == "y":
        return _Part("y", "[0-9]{2}" if count == 2 else "[0-9]{4}", count)
    if letter == "M":
        if count >= 4:
            return _Part("MMMM", "|".join(_MONTH_NAMES))
        if count == 3:
            return _Part("MMM", "|".join(SHORT_MONTHS))
        return _Part("M", "[0-9]{2}" if count == 2 else "[0-9]{1,2}")
    if letter in "dHhms":
        return _Part(letter, "[0-9]{2}" if count >= 2 else "[0-9]{1,2}")
    if letter == "S":
        return _Part("S", f"[0-9]{{{count}}}", count)
    if letter == "a":
        return _Part("a", "AM|PM|am|pm")
    if letter == "E":
        return _Part("", _DAYS)
    raise UnsupportedFormatError(f"date pattern letter {letter!r} is not supported")


def _tokenize(pattern: str) -> list[_Part]:
    parts: list[_Part] = []
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "'":
            end = pattern.find("'", i + 1)
            if end < 0:
                raise UnsupportedFormatError(f"unterminated quote in {pattern!r}")
            literal = pattern[i + 1 : end] or "'"
            parts.append(_Part("", escape_literal(literal)))
            i = end + 1
        elif char == "[" and pattern.startswith("[ T]", i):
            parts.append(_Part("", "[ T]"))
            i += 4
        elif char.isalpha():
            count = 1
            while i + count < len(pattern) and pattern[i + count] == char:
                count += 1
            parts.append(_letter_part(char, count))
            i += count
        else:
            parts.append(_Part("", escape_literal(char)))
            i += 1
    kinds = {part.kind for part in parts}
    if not {"y", "d"} <= kinds or not kinds & {"M", "MMM", "MMMM"}:
        raise UnsupportedFormatError(f"date pattern {pattern!r} has no full date")
    return parts


@dataclass(frozen=True, slots=True)
class TimestampFormat:
    """A compiled ``%d`` option.

    Attributes:
        option: the ``%d`` option as written (``None`` for a bare ``%d``).
        date_pattern: the ``SimpleDateFormat`` pattern it stands for (Spark's ``to_timestamp``
            format; the named ``ISO8601`` accepts a space or ``T`` between date and time).
        regex: portable regex without capturing groups matching one timestamp.
    """

    option: str | None
    date_pattern: str
    regex: str
    _parts: tuple[_Part, ...] = field(repr=False, compare=False)
    _parser: re.Pattern[str] = field(repr=False, compare=False)

    @classmethod
    def compile(cls, option: str | None) -> TimestampFormat:
        """Compile a ``%d`` option.

        Args:
            option: what is between the braces of ``%d{...}``, ``None`` for a bare ``%d``.

        Returns:
            The format.

        Raises:
            UnsupportedFormatError: for zone letters, formats without a date, unknown letters.
        """
        date_pattern = DEFAULT_DATE_PATTERN if option is None else _NAMED.get(option, option)
        parts = tuple(_tokenize(date_pattern))
        capturing = "".join(part.capturing for part in parts)
        return cls(
            option=option,
            date_pattern=date_pattern.replace("[ T]", " "),
            regex="".join(part.plain for part in parts),
            _parts=parts,
            _parser=re.compile(capturing),
        )

    def parse(self, text: str) -> datetime | None:
        """Read a timestamp the format printed.

        Args:
            text: the timestamp text.

        Returns:
            The naive datetime, or ``None`` when the text does not fit the format or names an
            impossible date (``2024-02-30``).
        """
        match = self._parser.fullmatch(text)
        if match is None:
            return None
        if self.date_pattern == DEFAULT_DATE_PATTERN:
            # The layout every Kafka release ships: read it by position, no per-part dispatch.
            try:
                return datetime(
                    int(text[0:4]), int(text[5:7]), int(text[8:10]), int(text[11:13]),
                    int(text[14:16]), int(text[17:19]), int(text[20:23]) * 1000,
                )  # fmt: skip
            except ValueError:
                return None
        values: dict[str, int] = {"y": 1970, "M": 1, "d": 1, "H": 0, "m": 0, "s": 0, "us": 0}
        pm: bool | None = None
        groups = iter(match.groups())
        for part in self._parts:
            if not part.kind:
                continue
            raw = next(groups)
            setter = _SETTERS[part.kind]
            pm = setter(values, raw, part.width, pm)
        if pm is not None:
            values["H"] = values["H"] % 12 + (12 if pm else 0)
        try:
            return datetime(
                values["y"],
                values["M"],
                values["d"],
                values["H"],
                values["m"],
                values["s"],
                values["us"],
            )
        except ValueError:
            return None


def _set_year(values: dict[str, int], raw: str, width: int, pm: bool | None) -> bool | None:
    year = int(raw)
    # SimpleDateFormat reads "yy" within 80 years before / 20 after now; logs are recent.
    values["y"] = 2000 + year if width == 2 else year
    return pm


def _set_month_name(values: dict[str, int], raw: str, width: int, pm: bool | None) -> bool | None:
    values["M"] = (SHORT_MONTHS.index(raw) if len(raw) == 3 else _MONTH_NAMES.index(raw)) + 1
    return pm


def _setter(key: str) -> Callable[[dict[str, int], str, int, bool | None], bool | None]:
    def set_value(values: dict[str, int], raw: str, width: int, pm: bool | None) -> bool | None:
        values[key] = int(raw)
        return pm

    return set_value


def _set_fraction(values: dict[str, int], raw: str, width: int, pm: bool | None) -> bool | None:
    if width <= 3:
        values["us"] = int(raw) * 1000  # SimpleDateFormat's S counts milliseconds
    else:
        values["us"] = int((raw + "000000")[:6])
    return pm


def _set_ampm(values: dict[str, int], raw: str, width: int, pm: bool | None) -> bool | None:
    return raw.upper() == "PM"


_SETTERS: dict[str, Callable[[dict[str, int], str, int, bool | None], bool | None]] = {
    "y": _set_year,
    "M": _setter("M"),
    "MMM": _set_month_name,
    "MMMM": _set_month_name,
    "d": _setter("d"),
    "H": _setter("H"),
    "h": _setter("H"),
    "m": _setter("m"),
    "s": _setter("s"),
    "S": _set_fraction,
    "a": _set_ampm,
}
