"""The ordered list of every grammar entry, and the lookups executors need.

``grammar_entries()`` is what the executors iterate: for each entry, its literal pre-filter
then a full match of its pattern on the message. The recognised entries of the
reference logs never overlap (a test checks that no record matches two entries), so an executor
may try them in any order; the order here (events before ignored entries, specific before
general) is the one the Python executor uses.

``AUDITED_LOGGER_PREFIXES`` names the loggers whose every record must be recognised: a record of
another logger (server.log noise) that no entry matches is ignored as ``foreign_logger`` instead
of quarantined.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from types import MappingProxyType

from kafkactl_core.grammars.entry import GrammarEntry
from kafkactl_core.grammars.families import (
    broker_side,
    brokers,
    configs,
    controller,
    isr,
    kraft,
    noise,
    partitions,
    reassignment,
    rebalance,
    replicas,
    requests_received,
    requests_sent,
    topics,
)
from kafkactl_core.versions import KafkaRelease

__all__ = [
    "AUDITED_LOGGER_PREFIXES",
    "entry_by_name",
    "grammar_entries",
    "grammars_for_version",
    "is_audited_logger",
]

AUDITED_LOGGER_PREFIXES: tuple[str, ...] = (
    "kafka.controller",
    "state.change.logger",
    "org.apache.kafka.controller",
    "kafka.cluster.Partition",
)
"""Loggers whose records must all be recognised (else they are quarantined)."""

_ENTRIES: tuple[GrammarEntry, ...] = (
    *controller.ENTRIES,
    *brokers.ENTRIES,
    *partitions.ENTRIES,
    *replicas.ENTRIES,
    *isr.ENTRIES,
    *rebalance.ENTRIES,
    *reassignment.ENTRIES,
    *topics.ENTRIES,
    *requests_sent.ENTRIES,
    *requests_received.ENTRIES,
    *broker_side.ENTRIES,
    *kraft.ENTRIES,
    *configs.ENTRIES,
    *controller.IGNORED,
    *rebalance.IGNORED,
    *topics.IGNORED,
    *kraft.IGNORED,
    *noise.IGNORED,
)

_BY_NAME: Mapping[str, GrammarEntry] = MappingProxyType({e.name: e for e in _ENTRIES})
if len(_BY_NAME) != len(_ENTRIES):
    _DUPLICATES = sorted(n for n, c in Counter(e.name for e in _ENTRIES).items() if c > 1)
    raise RuntimeError(f"duplicate grammar entry names: {_DUPLICATES}")  # a programming error


_VERSION_CACHE: dict[KafkaRelease | None, tuple[GrammarEntry, ...]] = {}


def grammar_entries() -> tuple[GrammarEntry, ...]:
    """Every grammar entry, events first, in the executors' order.

    Returns:
        All entries.
    """
    return _ENTRIES


def entry_by_name(name: str) -> GrammarEntry:
    """Look an entry up by its unique name.

    Args:
        name: the entry name.

    Returns:
        The entry.

    Raises:
        KeyError: when no entry has that name.
    """
    return _BY_NAME[name]


def grammars_for_version(release: KafkaRelease | None) -> tuple[GrammarEntry, ...]:
    """The entries whose version range contains ``release`` (all entries for ``None``).

    Args:
        release: the cluster's Kafka release, or ``None`` when unknown.

    Returns:
        The entries, in the executors' order.
    """
    cached = _VERSION_CACHE.get(release)
    if cached is None:
        if release is None:
            cached = _ENTRIES
        else:
            cached = tuple(e for e in _ENTRIES if e.versions.contains(release))
        _VERSION_CACHE[release] = cached
    return cached


def is_audited_logger(logger: str | None) -> bool:
    """Whether unrecognised records of ``logger`` are quarantined (``None``: layout without %c).

    Args:
        logger: the record's logger name.

    Returns:
        True for the audited loggers and for records that name none.
    """
    return logger is None or logger.startswith(AUDITED_LOGGER_PREFIXES)
