"""Kafka version inference from which grammar variants matched a file or a cluster's files.

Every grammar entry carries the release range its wording appears in. Given how many records each
entry matched, ``infer_version`` cuts the release line at every range bound and scores each
elementary interval by the number of distinct informative entries (those with a bounded range)
that cover it, records matched breaking ties. The best-scoring contiguous intervals form the
inferred range; the entries that do not reach it are reported as conflicts (an upgrade inside the
files, or an imprecise range). ``[t,p]`` renderings thus point below 1.0, ``LeaderAndIsr(...,
zkVersion=...)`` to 1.1 - 3.1, ``partitionEpoch=`` to 3.3+, ``isrWithBrokerEpoch=`` to 3.5+, and
``QuorumController`` lines to KRaft.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from kafkactl_core.grammars.entry import Mode, VersionRange
from kafkactl_core.grammars.registry import entry_by_name
from kafkactl_core.versions import FEATURE_RELEASES, LAST_ZOOKEEPER_RELEASE, KafkaRelease

__all__ = ["VersionEvidence", "VersionInference", "infer_version"]


@dataclass(frozen=True, slots=True)
class VersionEvidence:
    """One grammar entry that matched, with its range and how many records it matched.

    Attributes:
        grammar: the entry name.
        versions: the entry's release range.
        records: records it matched.
    """

    grammar: str
    versions: VersionRange
    records: int


@dataclass(frozen=True, slots=True)
class VersionInference:
    """The inferred release range, cluster mode and the evidence behind them.

    Attributes:
        versions: the inferred range (open bounds when nothing narrows it).
        mode: ``Mode.KRAFT`` when KRaft controller/raft lines matched, ``Mode.ZK`` when ZooKeeper
            controller lines did, ``Mode.ANY`` when neither (or both, e.g. a migration).
        evidence: informative entries whose range contains the inferred range.
        conflicts: informative entries whose range misses it.
    """

    versions: VersionRange
    mode: Mode
    evidence: tuple[VersionEvidence, ...]
    conflicts: tuple[VersionEvidence, ...]

    def contains(self, release: KafkaRelease) -> bool:
        """Whether ``release`` is inside the inferred range."""
        return self.versions.contains(release)

    def replay_release(self) -> KafkaRelease:
        """The release whose rules a replay uses: the newest feature release in the range.

        A wording's range ends where a newer release changed it, so a range open above only
        says no newer wording was seen: the newest release of the cluster's mode (3.9 for a
        ZooKeeper cluster or an unknown one, the newest KRaft release otherwise) is as likely
        as any, and its rules include every switch the older releases lack (a 3.9 KRaft cluster
        replayed with 3.6 rules would ignore its unclean setting).

        Returns:
            The release; the range's lower bound when no feature release lies inside it.
        """
        newest = FEATURE_RELEASES[-1] if self.mode is Mode.KRAFT else LAST_ZOOKEEPER_RELEASE
        inside = [r for r in FEATURE_RELEASES if self.versions.contains(r) and r <= newest]
        if inside:
            return inside[-1]
        return self.versions.since or FEATURE_RELEASES[0]


def _covers(versions: VersionRange, low: KafkaRelease | None, high: KafkaRelease | None) -> bool:
    """Whether ``versions`` contains the whole elementary interval [low, high)."""
    if versions.since is not None and (low is None or low < versions.since):
        return False
    return versions.before is None or (high is not None and high <= versions.before)


def infer_version(matched: Mapping[str, int] | Iterable[str]) -> VersionInference:
    """Infer the Kafka release range and cluster mode from matched grammar entries.

    Args:
        matched: entry name -> records matched (or just the names of the entries that matched).
            Names of ignored entries may be included; they carry no mode evidence.

    Returns:
        The inferred range with its evidence and conflicts.

    Raises:
        KeyError: for a name that is not a grammar entry.
    """
    counts = dict(matched) if isinstance(matched, Mapping) else dict.fromkeys(matched, 1)
    informative: list[VersionEvidence] = []
    modes: set[Mode] = set()
    for name, records in sorted(counts.items()):
        entry = entry_by_name(name)
        if records <= 0:
            continue
        if entry.event_type is not None and entry.mode is not Mode.ANY:
            modes.add(entry.mode)
        if not entry.versions.is_open:
            informative.append(VersionEvidence(name, entry.versions, records))
    mode = modes.pop() if len(modes) == 1 else Mode.ANY
    bounds = sorted(
        {b for e in informative for b in (e.versions.since, e.versions.before) if b is not None}
    )
    edges: list[KafkaRelease | None] = [None, *bounds, None]
    scored: list[tuple[int, int, KafkaRelease | None, KafkaRelease | None]] = []
    for low, high in itertools.pairwise(edges):
        covering = [e for e in informative if _covers(e.versions, low, high)]
        scored.append((len(covering), sum(e.records for e in covering), low, high))
    best = max(scored, key=lambda item: (item[0], item[1]))
    # Merge the best interval with its contiguous neighbours of equal support.
    start = stop = scored.index(best)
    while start > 0 and scored[start - 1][:2] == best[:2]:
        start -= 1
    while stop + 1 < len(scored) and scored[stop + 1][:2] == best[:2]:
        stop += 1
    inferred = VersionRange(scored[start][2], scored[stop][3])
    evidence = tuple(e for e in informative if _covers(e.versions, inferred.since, inferred.before))
    conflicts = tuple(e for e in informative if e not in evidence)
    return VersionInference(inferred, mode, evidence, conflicts)
