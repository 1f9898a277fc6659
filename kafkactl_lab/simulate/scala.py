"""How Scala and Java print the values Kafka interpolates into its log lines.

Kafka's messages are Scala string interpolations, so a list prints as ``List(1, 2)``, a set as
``Set(1, 2)`` or ``HashSet(1, 2)``, a double as Java's ``Double.toString`` does. The element
order of hashed collections is reproduced for integers (broker ids): Scala 2.13's immutable
``HashSet`` (CHAMP trie, low hash bits first, a node's own elements before its sub-nodes) and
its mutable ``HashSet`` (open hash table of power-of-two size); Scala 2.11/2.12 immutable sets
use ``kafkactl_core.assignment.scala_set_order``. Collections of other elements (partitions,
topics) keep the order they are given in: parsers never depend on it.
"""

from __future__ import annotations

import decimal
import enum
import math
from collections.abc import Iterable, Sequence

from kafkactl_core.assignment import scala_set_order

_MASK = 0xFFFFFFFF


class ScalaVersion(enum.Enum):
    """The Scala major version a Kafka build was compiled with (its collections' toString)."""

    v2_11 = "2.11"
    v2_13 = "2.13"


def mk(items: Iterable[object], sep: str = ",") -> str:
    """``mkString(sep)``: the elements joined, empty for no elements."""
    return sep.join(str(i) for i in items)


def seq(items: Iterable[object], name: str = "List") -> str:
    """A Scala sequence's ``toString``: ``List(1, 2)``, ``ArrayBuffer()``..."""
    return f"{name}({', '.join(str(i) for i in items)})"


def _improve(hcode: int) -> int:
    # scala.util.hashing / collection.Hashing.improve, 32-bit two's complement
    h = (hcode + (~(hcode << 9) & _MASK)) & _MASK
    h ^= h >> 14
    h = (h + (h << 4)) & _MASK
    return h ^ (h >> 10)


def champ_order(items: Sequence[int], shift: int = 0) -> list[int]:
    """Iteration order of a Scala 2.13 CHAMP node (``immutable.HashSet``/``HashMap``) of ints.

    Args:
        items: the elements (distinct).
        shift: the trie level's bit offset (0 for the root).

    Returns:
        The elements in iteration order: the node's own elements by 5-bit chunk, then its
        sub-nodes'.
    """
    buckets: dict[int, list[int]] = {}
    for item in items:
        buckets.setdefault((_improve(item & _MASK) >> shift) & 0x1F, []).append(item)
    payload = [b[0] for _, b in sorted(buckets.items()) if len(b) == 1]
    nodes: list[int] = []
    for _, bucket in sorted(buckets.items()):
        if len(bucket) > 1:
            nodes.extend(champ_order(bucket, shift + 5) if shift < 30 else sorted(bucket))
    return payload + nodes


def immutable_set_order(items: Iterable[int], scala: ScalaVersion) -> tuple[int, ...]:
    """Iteration order of an immutable ``Set[Int]`` built by inserting ``items`` in order.

    Args:
        items: the elements in insertion order (duplicates ignored).
        scala: the Scala version of the build.

    Returns:
        The elements as the set iterates them.
    """
    distinct = tuple(dict.fromkeys(items))
    if len(distinct) <= 4:
        return distinct
    if scala is ScalaVersion.v2_11:
        return scala_set_order(distinct)
    return tuple(champ_order(distinct))


def mutable_set_order(items: Iterable[int]) -> tuple[int, ...]:
    """Iteration order of a Scala 2.13 ``mutable.HashSet[Int]`` holding ``items``.

    The table has a power-of-two size of at least 16 kept under a 0.75 load factor; an int's
    slot is ``(h ^ (h >>> 16)) & (size - 1)`` and a bucket keeps its nodes sorted by hash.

    Args:
        items: the elements (any order, duplicates ignored).

    Returns:
        The elements as the set iterates them.
    """
    distinct = set(items)
    size = 16
    while len(distinct) > size * 0.75:
        size *= 2

    def key(item: int) -> tuple[int, int]:
        h = item & _MASK
        h ^= h >> 16
        return (h & (size - 1), h)

    return tuple(sorted(distinct, key=key))


def int_set(
    items: Iterable[int], scala: ScalaVersion, *, mutable: bool = False, sort: bool = False
) -> str:
    """A ``Set[Int]``'s ``toString`` as the build prints it.

    Args:
        items: the elements in insertion order.
        scala: the Scala version of the build.
        mutable: a ``mutable.HashSet`` (Scala 2.13 prints ``HashSet(...)`` whatever the size).
        sort: insert in ascending order (sets built from a sorted source).

    Returns:
        E.g. ``Set(1, 2, 3)``, ``HashSet(1, 2, 3, 4, 5)``.
    """
    values = sorted(set(items)) if sort else list(dict.fromkeys(items))
    if scala is ScalaVersion.v2_11:
        order = sorted(values) if mutable else immutable_set_order(values, scala)
        return seq(order, "Set")
    if mutable:
        return seq(mutable_set_order(values), "HashSet")
    order = immutable_set_order(values, scala)
    return seq(order, "Set" if len(order) <= 4 else "HashSet")


def any_set(items: Sequence[object], scala: ScalaVersion, *, mutable: bool = False) -> str:
    """A set of non-integer elements (partitions, topics), in the given order.

    Args:
        items: the elements.
        scala: the Scala version of the build.
        mutable: a ``mutable.HashSet``.

    Returns:
        ``Set(...)`` or ``HashSet(...)`` as the build's class names go.
    """
    if scala is ScalaVersion.v2_11:
        return seq(items, "Set")
    return seq(items, "HashSet" if mutable or len(items) > 4 else "Set")


def scala_map(
    pairs: Sequence[tuple[object, object]], scala: ScalaVersion, *, mutable: bool = False
) -> str:
    """A map's ``toString``: ``Map(k -> v, ...)`` (``HashMap`` past four entries in 2.13)."""
    body = ", ".join(f"{k} -> {v}" for k, v in pairs)
    if scala is ScalaVersion.v2_11:
        return f"Map({body})"
    name = "HashMap" if mutable or len(pairs) > 4 else "Map"
    return f"{name}({body})"


def int_map(pairs: Iterable[tuple[int, object]], scala: ScalaVersion) -> str:
    """An immutable ``Map[Int, _]`` in the iteration order of its keys."""
    table = dict(pairs)
    order = immutable_set_order(table, scala)
    return scala_map([(k, table[k]) for k in order], scala)


def java_double(value: float) -> str:
    """``Double.toString``: the shortest repr, scientific below 1e-3 and from 1e7.

    Args:
        value: the number.

    Returns:
        Java's rendering, e.g. ``0.0``, ``1.0``, ``0.3333333333333333``, ``1.0E-4``.
    """
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "-0.0" if math.copysign(1.0, value) < 0 else "0.0"
    if 1e-3 <= abs(value) < 1e7:
        text = repr(float(value))
        return text if "." in text else text + ".0"
    sign, digits, exponent = decimal.Decimal(repr(float(value))).normalize().as_tuple()
    assert isinstance(exponent, int)  # finite: NaN and infinities returned above
    text = "".join(str(d) for d in digits)
    scientific = exponent + len(text) - 1
    mantissa = text[0] + "." + (text[1:] or "0")
    return f"{'-' if sign else ''}{mantissa}E{scientific}"
