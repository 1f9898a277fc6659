"""Incremental runs: which inputs to consider, what evidence is new, which partitions to fold again.

``kafkactl-audit run --incremental`` (and ``replay --incremental``) re-replays only what new
evidence can change; ``run --since TIME`` also limits the inputs to files modified at or after
TIME (and is incremental too). Ingestion is incremental in every run: ``meta.ingested_files``
makes known bytes a no-op, grown files resume where the last run stopped.

**What was replayed.** Every replay records in its ``meta.runs`` notes the silver rows it folded
per table and a digest of its settings (``evidence_note``). The last successful replay of the
cluster folded every silver row whose ``run_id`` is of a run (any stage, as ``meta.runs`` records
it) that started no later than that replay: those runs' rows are *old*, every other row is *new*.
The recorded counts check that claim (old rows counted again must give the same numbers): a
silver row that changed or vanished since (a rebuild, a deleted ZooKeeper file) fails it and
the replay is a full one.

**Which partitions.** The fold of a partition reads its own evidence and the cluster's
timelines (liveness, controller, configs, assignments, deletions, KRaft contexts). The timelines
are a forward sweep over the facts in time order, so the timelines built from all facts answer
every query about a time before the earliest *new* fact exactly as the old ones did; the fold
asks about its evidence's times and at most the replay's windows (``*_ms`` settings) after them.
So the partitions to fold again, over ALL their evidence, are those with new evidence, plus,
when new facts arrived, every partition with evidence at or after the earliest new fact minus
the sum of the windows. A new fact without a time, changed settings, a scenario other than the
ones replayed, a gold table not written yet (``gold.cluster_facts`` on a lakehouse replayed by
an older version), or no earlier replay make it a full replay. The cluster-level anomalies
(from the timelines) and ``gold.cluster_facts`` are rebuilt whenever there are new facts, even
when no partition has evidence after them.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from jobs.lakehouse.port import Lakehouse
from jobs.logparse.inputs import discover
from jobs.runtime.config import ClusterConfig
from jobs.stages.facts_table import collect_facts
from jobs.stages.ingest_kraft import find_metadata_files
from jobs.tasks.replay_tasks import ROW_TYPE
from kafkactl_core.replay import ClusterFact, ReplaySettings
from kafkactl_core.report.scope import parse_time
from kafkactl_core.zk import find_data_files
from schemas.catalog import TableSpec
from schemas.meta import RUNS

EVIDENCE_NOTE = "evidence folded:"
"""Prefix of the replay note that records what it folded (parsed by ``replayed_state``)."""
_NOTE = re.compile(r"^evidence folded: (?P<counts>.*); settings (?P<digest>[0-9a-f]+)$")
_COUNT = re.compile(r"^(?P<table>[\w.]+)=(?P<rows>\d+)$")


# ----------------------------------------------------------------------------- --since


def parse_since(text: str) -> datetime:
    """A ``--since`` value as an aware UTC time.

    Args:
        text: ISO 8601: ``2024-03-05``, ``2024-03-05T10:00``, ``2024-03-05 10:00:00+01:00``,
            ``...Z``; without an offset the time is UTC.

    Returns:
        The time, in UTC.

    Raises:
        ValueError: text that is not such a time.
    """
    return parse_time(text, "--since")


def _modified_since(path: str, since: datetime) -> bool:
    try:
        return os.path.getmtime(path) >= since.timestamp()
    except OSError:
        return True  # let the stage report what it cannot read


def inputs_since(cluster: ClusterConfig, since: datetime) -> tuple[ClusterConfig, list[str]]:
    """The cluster with its inputs narrowed to the files modified at or after ``since``.

    Directories and globs are expanded the way the stages expand them (Kafka log names;
    every ZooKeeper data file; KRaft segments and snapshots), then filtered by modification
    time; the stages' bookkeeping still applies (a file modified but holding known bytes is
    skipped or resumed).

    Args:
        cluster: the cluster.
        since: the earliest modification time to consider.

    Returns:
        The narrowed cluster, and one note per input kind saying how many files were kept.
    """
    logs = [f.path for f in discover(cluster.inputs.logs)] if cluster.inputs.logs else []
    zk_files, zk_other = (
        find_data_files(cluster.inputs.zookeeper) if cluster.inputs.zookeeper else ([], [])
    )
    zookeeper = [f.path for f in zk_files] + list(zk_other)
    kept_logs = [p for p in logs if _modified_since(p, since)]
    kept_zk = [p for p in zookeeper if _modified_since(p, since)]
    stamp = since.strftime("%Y-%m-%d %H:%M:%S UTC")
    notes = [
        f"--since {stamp}: {len(kept_logs)} of {len(logs)} log file(s), "
        f"{len(kept_zk)} of {len(zookeeper)} ZooKeeper file(s) modified since"
    ]
    update = {"logs": kept_logs, "zookeeper": kept_zk}
    if cluster.inputs.kraft_metadata:
        kraft = [path for path, _kind in find_metadata_files(cluster.inputs.kraft_metadata).files]
        update["kraft_metadata"] = [p for p in kraft if _modified_since(p, since)]
        notes.append(
            f"--since {stamp}: {len(update['kraft_metadata'])} of {len(kraft)} KRaft metadata "
            "file(s) modified since"
        )
    inputs = cluster.inputs.model_copy(update=update)
    return cluster.model_copy(update={"inputs": inputs}), notes


# ----------------------------------------------------------------------------- replayed state


def settings_digest(scenarios: Sequence[ReplaySettings]) -> str:
    """A short digest of the replay settings (every scenario, in order)."""
    return hashlib.sha256(repr(tuple(scenarios)).encode()).hexdigest()[:16]


def evidence_note(counts: Mapping[str, int], digest: str) -> str:
    """The replay note recording the silver rows folded per table and the settings digest."""
    listed = ", ".join(f"{table}={rows}" for table, rows in sorted(counts.items()))
    return f"{EVIDENCE_NOTE} {listed}; settings {digest}"


def parse_evidence_note(notes: Iterable[str]) -> tuple[dict[str, int], str] | None:
    """The counts and digest of the first ``evidence_note`` in ``notes`` (None: there is none)."""
    for note in notes:
        match = _NOTE.match(note)
        if match is None:
            continue
        counts: dict[str, int] = {}
        for item in match.group("counts").split(", "):
            found = _COUNT.match(item.strip())
            if found is None:
                return None
            counts[found.group("table")] = int(found.group("rows"))
        return counts, match.group("digest")
    return None


@dataclass(frozen=True)
class ReplayedState:
    """What the last successful replay of a cluster folded.

    Attributes:
        run_id: that replay's run.
        run_ids: the runs whose silver rows it folded (every run of the cluster started no
            later than it).
        counts: silver rows it folded, per table (``layer.name``).
        digest: its settings digest.
    """

    run_id: str
    run_ids: frozenset[str]
    counts: Mapping[str, int]
    digest: str


def replayed_state(lakehouse: Lakehouse, cluster: str) -> ReplayedState | None:
    """The last successful replay of ``cluster`` that recorded what it folded, if any."""
    if not lakehouse.exists(RUNS):
        return None
    runs = lakehouse.read(RUNS).filter(F.col("cluster") == cluster)
    rows = (
        runs.filter((F.col("stage") == "replay") & (F.col("status") == "succeeded"))
        .orderBy(F.col("started_at").desc())
        .select("run_id", "started_at", "notes")
        .limit(1)
        .collect()
    )
    if not rows:
        return None
    last = rows[0]
    recorded = parse_evidence_note(last.notes or ())
    if recorded is None:
        return None
    earlier = runs.filter(F.col("started_at") <= F.lit(last.started_at)).select("run_id")
    run_ids = frozenset({r.run_id for r in earlier.distinct().collect()} | {last.run_id})
    return ReplayedState(last.run_id, run_ids, recorded[0], recorded[1])


def split_counts(
    by_run: Mapping[str, Mapping[str, int]], old_runs: frozenset[str]
) -> tuple[dict[str, int], dict[str, int]]:
    """Per table: rows of the old runs, and rows of the others (new).

    Args:
        by_run: table -> run id -> rows.
        old_runs: the runs already replayed.

    Returns:
        ``(old, new)`` rows per table.
    """
    old = {t: sum(n for r, n in runs.items() if r in old_runs) for t, runs in by_run.items()}
    new = {t: sum(n for r, n in runs.items() if r not in old_runs) for t, runs in by_run.items()}
    return old, new


# ----------------------------------------------------------------------------- the scope


def window_ms(scenarios: Sequence[ReplaySettings]) -> int:
    """How far after its evidence a fold may look into the timelines: the sum of every
    ``*_ms`` window of the settings (the largest over the scenarios), a safe upper bound."""
    widest = 0
    for settings in scenarios:
        total = sum(
            int(getattr(settings, f.name))
            for f in fields(settings)
            if f.name.endswith("_ms") and isinstance(getattr(settings, f.name), int)
        )
        widest = max(widest, total)
    return widest


def earliest_new_fact(facts: Iterable[ClusterFact]) -> tuple[bool, int | None]:
    """Whether there are new facts, and the earliest time among them.

    Returns:
        ``(False, None)`` without facts; ``(True, None)`` when one has no time (it applies
        from the start of the timelines: everything is affected); else ``(True, earliest)``.
    """
    earliest: int | None = None
    seen = False
    for fact in facts:
        seen = True
        if fact.time_ms is None:
            return True, None
        earliest = fact.time_ms if earliest is None else min(earliest, fact.time_ms)
    return seen, earliest


@dataclass
class ReplayScope:
    """What an incremental replay folds.

    Attributes:
        full: fold every partition (``reason`` says why).
        reason: why full, or a one-line summary of the partial replay.
        keys: the (topic, partition) keys to fold again (when not full).
        with_new_evidence: how many of them received new evidence.
        near_new_facts: how many more were folded again because of new cluster facts.
        facts_from_ms: the earliest new fact's time minus the windows (None: no new facts).
    """

    full: bool
    reason: str
    keys: list[tuple[str, int]] = field(default_factory=list)
    with_new_evidence: int = 0
    near_new_facts: int = 0
    facts_from_ms: int | None = None

    @classmethod
    def everything(cls, reason: str) -> ReplayScope:
        """A full replay, for ``reason``."""
        return cls(True, reason)


def format_ms(ms: int) -> str:
    """Epoch milliseconds as ``YYYY-MM-DD HH:MM:SS.mmm UTC``."""
    moment = datetime.fromtimestamp(ms / 1000, UTC)
    return moment.strftime("%Y-%m-%d %H:%M:%S.") + f"{ms % 1000:03d} UTC"


def gold_scenarios(lakehouse: Lakehouse, cluster: str, specs: Iterable[TableSpec]) -> set[str]:
    """Every ``scenario`` value of the cluster's rows in the gold tables ``specs``."""
    found: set[str] = set()
    for spec in specs:
        if not lakehouse.exists(spec) or "scenario" not in spec.schema.fieldNames():
            continue
        rows = (
            lakehouse.read(spec)
            .filter(F.col("cluster") == cluster)
            .select("scenario")
            .distinct()
            .collect()
        )
        found.update(r.scenario for r in rows if r.scenario is not None)
    return found


def _keys(frame: DataFrame) -> set[tuple[str, int]]:
    rows = frame.select("topic", "partition").distinct().collect()
    return {
        (r.topic, int(r.partition)) for r in rows if r.topic is not None and r.partition is not None
    }


def plan_scope(
    lakehouse: Lakehouse,
    cluster: str,
    scenarios: Sequence[ReplaySettings],
    by_run: Mapping[str, Mapping[str, int]],
    gold: Sequence[TableSpec],
    evidence: DataFrame,
    new_rows: Callable[[frozenset[str]], DataFrame | None],
) -> ReplayScope:
    """Decide what an incremental replay folds (see the module docstring).

    Args:
        lakehouse: the lakehouse.
        cluster: the cluster.
        scenarios: the settings of the scenarios this replay folds.
        by_run: silver table -> run id -> rows of the cluster, now.
        gold: the gold tables the replay writes.
        evidence: the normalized evidence rows of ALL the cluster's silver rows.
        new_rows: normalized rows (evidence and facts) of the silver rows whose run is not in
            the given set, ``None`` when there are none.

    Returns:
        The scope: full (and why), or the keys to fold again (possibly none).
    """
    if any(s.scenario != "actual" for s in scenarios):
        return ReplayScope.everything("a what-if scenario is replayed in full")
    missing = [spec.qualified_name for spec in gold if not lakehouse.exists(spec)]
    if missing:
        return ReplayScope.everything(f"{', '.join(missing)} not written yet")
    state = replayed_state(lakehouse, cluster)
    if state is None:
        return ReplayScope.everything("no earlier replay recorded what it folded")
    if state.digest != settings_digest(scenarios):
        return ReplayScope.everything(f"the replay settings changed since run {state.run_id}")
    old, new = split_counts(by_run, state.run_ids)
    tables = sorted(set(old) | set(state.counts))
    if any(old.get(t, 0) != state.counts.get(t, 0) for t in tables):
        changed = ", ".join(
            f"{t} {state.counts.get(t, 0)} -> {old.get(t, 0)}"
            for t in tables
            if old.get(t, 0) != state.counts.get(t, 0)
        )
        return ReplayScope.everything(
            f"silver rows folded by run {state.run_id} changed since ({changed})"
        )
    others = gold_scenarios(lakehouse, cluster, gold) - {s.scenario for s in scenarios}
    if others:
        return ReplayScope.everything(f"gold holds other scenarios ({', '.join(sorted(others))})")
    if not any(new.values()):
        return ReplayScope(False, f"nothing new since run {state.run_id}")
    fresh = new_rows(state.run_ids)
    if fresh is None:
        return ReplayScope(False, f"nothing new since run {state.run_id}")
    new_keys = _keys(fresh.filter(F.col(ROW_TYPE) == "evidence"))
    has_facts, earliest = earliest_new_fact(collect_facts(fresh))
    if has_facts and earliest is None:
        return ReplayScope.everything("a new cluster fact has no time")
    near: set[tuple[str, int]] = set()
    since: int | None = None
    if earliest is not None:
        since = earliest - window_ms(scenarios)
        near = _keys(evidence.filter(F.col("time_ms") >= since))
    total = evidence.select("topic", "partition").distinct().count()
    affected = new_keys | near
    if len(affected) >= total:
        return ReplayScope.everything(f"every partition ({total}) has new evidence or new facts")
    summary = (
        f"folded again {len(affected)} of {total} partition(s): {len(new_keys)} with new "
        f"evidence, {len(near - new_keys)} more with evidence after "
        + (format_ms(since) if since is not None else "-")
        + " (new cluster facts)"
    )
    return ReplayScope(False, summary, sorted(affected), len(new_keys), len(near - new_keys), since)
