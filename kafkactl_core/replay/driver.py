"""Replay many partitions: route evidence to one ``PartitionReplay`` per partition.

``ReplayDriver`` is what a ``mapInArrow`` task runs: it receives evidence of many partitions
(sorted by cluster, topic, partition, then ``order_key``, as the Spark job sorts them), keeps one
fold per partition and, when the input is sorted, finishes a partition as soon as the next one
starts, so memory holds one partition at a time. ``replay`` is the one-call convenience for
tests and small inputs: normalize nothing, just sort, fold and collect.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from kafkactl_core.replay.evidence import PartitionEvidence
from kafkactl_core.replay.fold import PartitionReplay
from kafkactl_core.replay.rows import AnomalyRow, ReplayOutput
from kafkactl_core.replay.settings import ReplaySettings
from kafkactl_core.replay.timelines import ClusterTimelines

__all__ = ["ReplayDriver", "partition_key", "replay"]

PartitionKey = tuple[str, str, int]


def partition_key(ev: PartitionEvidence) -> PartitionKey:
    """``(cluster, topic, partition)``: the Spark repartitioning key."""
    return (ev.cluster, ev.topic, ev.partition)


class ReplayDriver:
    """Folds for many partitions of one or more clusters."""

    def __init__(
        self,
        timelines: Mapping[str, ClusterTimelines],
        settings: ReplaySettings | Mapping[str, ReplaySettings],
        sorted_input: bool = True,
    ) -> None:
        """Prepare the driver.

        Args:
            timelines: cluster -> its timelines (a cluster without any gets empty ones).
            settings: the settings of every cluster, or cluster -> settings.
            sorted_input: the evidence arrives grouped by partition (each partition's records
                contiguous, in order): a partition is finished when the next one begins.
        """
        self._timelines = timelines
        self._settings = settings
        self._sorted = sorted_input
        self._folds: dict[PartitionKey, PartitionReplay] = {}
        self._last: PartitionKey | None = None
        self._unknown: set[str] = set()

    def _settings_of(self, cluster: str) -> ReplaySettings | None:
        settings = self._settings
        if isinstance(settings, ReplaySettings):
            return settings
        return settings.get(cluster)

    def _fold(self, key: PartitionKey, out: ReplayOutput) -> PartitionReplay | None:
        fold = self._folds.get(key)
        if fold is None:
            cluster, topic, partition = key
            settings = self._settings_of(cluster)
            if settings is None:
                if cluster not in self._unknown:
                    self._unknown.add(cluster)
                    out.anomalies.append(
                        AnomalyRow.of_cluster(
                            cluster,
                            None,
                            "unusable_evidence",
                            "error",
                            f"no replay settings (Kafka release) for cluster {cluster!r}: its "
                            "evidence was not replayed",
                            source="",
                        )
                    )
                return None
            fold = PartitionReplay(
                cluster, topic, partition, self._timelines.get(cluster), settings
            )
            self._folds[key] = fold
        return fold

    def _feed(self, key: PartitionKey, run: list[PartitionEvidence], out: ReplayOutput) -> None:
        fold = self._fold(key, out)
        if fold is not None:
            out.extend(fold.feed(run))

    @property
    def open_partitions(self) -> int:
        """How many partitions' folds are held (one at most for sorted input)."""
        return len(self._folds)

    def feed(self, evidence: Iterable[PartitionEvidence]) -> ReplayOutput:
        """Fold a batch of evidence of any partitions.

        Args:
            evidence: records, grouped by partition and ordered within each when
                ``sorted_input``.

        Returns:
            The rows that became final (including all rows of partitions that ended). Evidence
            of a cluster without settings is not replayed; one ``unusable_evidence`` anomaly
            says so.
        """
        out = ReplayOutput()
        run: list[PartitionEvidence] = []
        run_key: PartitionKey | None = None
        for ev in evidence:
            key = (ev.cluster, ev.topic, ev.partition)
            if key != run_key:
                if run_key is not None:
                    self._feed(run_key, run, out)
                    run = []
                if self._sorted and self._last is not None and key != self._last:
                    finished = self._folds.pop(self._last, None)
                    if finished is not None:
                        out.extend(finished.finish())
                run_key = key
                self._last = key
            run.append(ev)
        if run_key is not None:
            self._feed(run_key, run, out)
        return out

    def finish(self) -> ReplayOutput:
        """Finish every partition still open and return its remaining rows."""
        out = ReplayOutput()
        for key in sorted(self._folds):
            out.extend(self._folds[key].finish())
        self._folds.clear()
        self._last = None
        return out


def replay(
    evidence: Iterable[PartitionEvidence],
    timelines: Mapping[str, ClusterTimelines],
    settings: ReplaySettings | Mapping[str, ReplaySettings],
) -> ReplayOutput:
    """Sort, fold and collect everything (tests and small inputs).

    Args:
        evidence: records of any partitions, in any order.
        timelines: cluster -> timelines.
        settings: settings for every cluster, or cluster -> settings.

    Returns:
        All rows, grouped by partition.
    """
    ordered = sorted(evidence, key=lambda ev: (partition_key(ev), ev.order_key()))
    driver = ReplayDriver(timelines, settings, sorted_input=True)
    out = driver.feed(ordered)
    out.extend(driver.finish())
    return out
