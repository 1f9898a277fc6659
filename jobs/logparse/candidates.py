"""Which grammar entries are worth a regex for a record: a sound, cheap superset, memoised.

The grammar executor (``arrow_executor``) runs an entry's regex only on the records that are its
candidates. Testing every entry's literal on every record would cost more than the regexes
themselves, so the reader computes per record its *candidates*, once per distinct record shape:

* an entry is a candidate when its declared literal and every literal run its pattern requires
  (``required_literals``: text every match must contain, read from the regex's syntax tree) are
  in the record's text with its digits removed. Grammar literals never contain digits, and the
  runs that do are not used, so this never drops an entry whose pattern could match: it only
  skips entries that share a literal with the right one but require text the record lacks
  (``Changed partition ... state from`` against ``Changed partition ... with state``).
* the key, the text without digits, repeats across records (ids, offsets and epochs are what
  vary), so a ``dict`` memo answers most records; Arrow's hash-based ``dictionary_encode`` leaves
  one Python lookup per distinct key of a batch.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from kafkactl_core.grammars import GrammarEntry, entry_by_name
from kafkactl_core.grammars.executor import candidate_entries
from kafkactl_core.versions import KafkaRelease

__all__ = ["CandidateIndex", "compiles_in_re2", "required_literals"]

_PARSER: Any = importlib.import_module("re._parser")
_REPEATS = frozenset({"MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"})
_CACHE_LIMIT = 200_000
_MIN_RUN = 3


def _runs(items: Iterable[tuple[Any, Any]], found: list[str], current: list[str]) -> list[str]:
    """Collect maximal literal runs of a parsed pattern's mandatory concatenation."""
    for op, argument in items:
        name = str(op)
        if name == "LITERAL":
            current.append(chr(argument))
        elif name == "SUBPATTERN":
            # A group without a quantifier is matched exactly once: its text is inline.
            current = _runs(argument[-1], found, current)
        elif name in _REPEATS:
            found.append("".join(current))
            low, _high, body = argument
            if low >= 1:
                found.append("".join(_runs(body, found, [])))
            current = []
        else:
            # Alternation, classes, anchors, lookarounds: nothing certain, and the run breaks.
            found.append("".join(current))
            current = []
    return current


@lru_cache(maxsize=1024)
def compiles_in_re2(pattern: str) -> bool:
    """Whether pyarrow's RE2 accepts ``pattern`` (no lookaround, no backreference, ...)."""
    try:
        # One value: on an empty array pyarrow does not compile the pattern at all.
        pc.match_substring_regex(pa.array([""], pa.string()), pattern)
    except pa.ArrowInvalid:
        return False
    return True


def required_literals(pattern: str) -> tuple[str, ...]:
    """Literal texts every match of ``pattern`` contains (a sound under-approximation).

    Args:
        pattern: a grammar pattern (Python/Java common subset).

    Returns:
        Runs of at least three characters, longest first.
    """
    found: list[str] = []
    found.append("".join(_runs(_PARSER.parse(pattern), found, [])))
    runs = {run for run in found if len(run) >= _MIN_RUN}
    return tuple(sorted(runs, key=lambda run: (-len(run), run)))


def _checks(entry: GrammarEntry) -> tuple[str, ...]:
    """Texts a record's digit-free key must contain for ``entry`` to be a candidate."""
    runs = [run for run in required_literals(entry.pattern) if not any(c.isdigit() for c in run)]
    return tuple(run for run in runs if run not in entry.literal)


class CandidateIndex:
    """Per record text: the first candidate entry (trial position) and the others, in order."""

    def __init__(self, trial_names: Sequence[str], version_hint: str | None) -> None:
        self._positions = {name: position for position, name in enumerate(trial_names)}
        self._checks = {name: _checks(entry_by_name(name)) for name in trial_names}
        self._hint = KafkaRelease.parse(version_hint) if version_hint else None
        self._cache: dict[str, tuple[int, tuple[int, ...]]] = {}

    def lookup(self, key: str) -> tuple[int, tuple[int, ...]]:
        """The candidates of a digit-free text key.

        Args:
            key: a record's text without its digits.

        Returns:
            ``(first, others)``: the first candidate's trial position (-1: none) and the
            positions of the other candidates, ascending.
        """
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        positions = sorted(
            self._positions[entry.name]
            for entry in candidate_entries(key, self._hint)
            if all(run in key for run in self._checks[entry.name])
        )
        result = (positions[0], tuple(positions[1:])) if positions else (-1, ())
        if len(self._cache) >= _CACHE_LIMIT:
            self._cache.clear()
        self._cache[key] = result
        return result

    def columns(self, keys: pa.Array) -> tuple[np.ndarray, pa.ListArray]:
        """Candidates of many keys at once (one lookup per distinct key).

        Args:
            keys: digit-free record texts.

        Returns:
            ``(first, others)``: an int32 array and a list<int32> array.
        """
        encoded = pc.dictionary_encode(keys)
        distinct = encoded.dictionary.to_pylist()
        firsts = np.empty(len(distinct), dtype=np.int32)
        lengths = np.empty(len(distinct), dtype=np.int64)
        flat: list[int] = []
        for index, key in enumerate(distinct):
            first, others = self.lookup(key)
            firsts[index] = first
            lengths[index] = len(others)
            flat.extend(others)
        indices = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)
        table = np.asarray(flat, dtype=np.int32)
        table_start = np.concatenate(([0], np.cumsum(lengths)[:-1])).astype(np.int64)
        counts = lengths[indices]
        offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int32)
        total = int(offsets[-1])
        if total:
            within = np.arange(total, dtype=np.int64) - np.repeat(offsets[:-1], counts)
            values = table[np.repeat(table_start[indices], counts) + within]
        else:
            values = np.empty(0, dtype=np.int32)
        others = pa.ListArray.from_arrays(pa.array(offsets), pa.array(values, pa.int32()))
        return firsts[indices], others
