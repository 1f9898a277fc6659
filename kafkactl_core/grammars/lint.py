"""Syntactic lint keeping grammar patterns inside the common subset of Python ``re`` and RE2.

The reference executor matches with Python ``re``; the Arrow executor runs the same patterns
with RE2 (``pyarrow.compute.extract_regex``). Both must give the same answer for the same
pattern, so patterns avoid every construct whose meaning differs or that only one engine knows:

* named groups and backreferences (``(?P<..>``, ``(?P=..)``, ``(?<name>``, ``\\1``, ``\\k``);
  the Arrow executor names the groups itself;
* anchors (``^``, ``$``, ``\\A``, ``\\Z``, ``\\z``, ``\\G``): the executor anchors;
* shorthand classes (``\\d \\w \\s \\b``, negations): Unicode-aware in Python, ASCII in RE2;
* inline flags, conditionals, atomic groups, comments (any ``(?`` other than ``(?:``, ``(?=``,
  ``(?!``, ``(?<=``, ``(?<!``; RE2 has no lookaround, so the Arrow executor leaves an entry
  with one to the reference);
* possessive quantifiers (``*+ ++ ?+ }+``) and Python's ``{,n}`` (a literal in RE2);
* inside a character class, an unescaped ``[`` (``[[:alpha:]]`` is a POSIX class in RE2);
* escapes of letters or digits other than ``\\t``, ``\\n``, ``\\r``.
"""

from __future__ import annotations

import re
import warnings

__all__ = ["lint_pattern"]

_ALLOWED_LETTER_ESCAPES = frozenset("tnr")
_ALLOWED_GROUP_OPENERS = ("(?:", "(?=", "(?!", "(?<=", "(?<!")


def _lint_class(pattern: str, start: int, problems: list[str]) -> int:
    """Scan a character class opening at ``start``; return the index after its ``]``."""
    i = start + 1
    if i < len(pattern) and pattern[i] == "^":
        i += 1
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            if i + 1 < len(pattern):
                escaped = pattern[i + 1]
                if escaped.isalnum() and escaped not in _ALLOWED_LETTER_ESCAPES:
                    problems.append(f"escape \\{escaped} in character class at {i}")
            i += 2
            continue
        if char == "[":
            problems.append(f"unescaped '[' inside character class at {i}")
        elif char == "]":
            return i + 1
        i += 1
    problems.append(f"unterminated character class at {start}")
    return i


def lint_pattern(pattern: str) -> list[str]:
    """List the constructs of ``pattern`` outside the Python/RE2 common subset.

    Args:
        pattern: an unanchored grammar pattern.

    Returns:
        One human-readable problem per offending construct; empty when the pattern is portable
        and compiles with Python ``re``.
    """
    problems: list[str] = []
    with warnings.catch_warnings(record=True) as caught:
        # Python warns (FutureWarning) about "[[", "&&" and the like in sets: a future Python
        # may give them a meaning.
        warnings.simplefilter("always")
        try:
            re.compile(pattern)
        except re.error as exc:
            return [f"does not compile: {exc}"]
    problems.extend(f"Python warns: {warning.message}" for warning in caught)
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            escaped = pattern[i + 1] if i + 1 < len(pattern) else ""
            if escaped.isalnum() and escaped not in _ALLOWED_LETTER_ESCAPES:
                problems.append(f"escape \\{escaped} at {i}")
            i += 2
            continue
        if char == "[":
            i = _lint_class(pattern, i, problems)
            continue
        if char == "(" and pattern.startswith("(?", i):
            if not pattern.startswith(_ALLOWED_GROUP_OPENERS, i):
                problems.append(f"group construct {pattern[i : i + 4]!r} at {i}")
        elif char in "^$":
            problems.append(f"anchor {char!r} at {i} (the executor anchors)")
        elif char in "*+?}" and i + 1 < len(pattern) and pattern[i + 1] == "+":
            problems.append(f"possessive quantifier at {i}")
        elif char == "{" and pattern.startswith("{,", i):
            problems.append(f"Python-only quantifier '{{,n}}' at {i}")
        i += 1
    return problems
