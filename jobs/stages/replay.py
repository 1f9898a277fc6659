"""``kafkactl-audit replay``: every partition's evidence through Kafka's rules into gold tables.

For one cluster:

1. **Read** its silver rows (``silver.controller_events``, ``silver.zk_changes``,
   ``silver.zk_state``, ``silver.broker_configs``, ``silver.kraft_changes``; whichever exist),
   ``select``ed to the columns the core's normalizers read, times as epoch milliseconds.
2. **Normalize** in tasks (``mapInArrow``, ``replay_tasks.normalize_batches``; a KRaft
   metadata log in one group per cluster, ``applyInArrow``, since each record applies to the
   state the records before it left): one union frame of partition evidence and cluster facts,
   persisted once.
3. **Timelines**: only the cluster facts (small) are collected; ``build_timelines`` makes the
   cluster's liveness, controller, config and assignment timelines, broadcast to the tasks.
4. **Replay**: the evidence is repartitioned by (cluster, topic, partition), sorted within
   partitions by ``EVIDENCE_SORT_COLUMNS`` and folded by ``mapInArrow``
   (``replay_tasks.replay_batches``): one ``ReplayDriver`` per scenario carries each
   partition's state across Arrow batches; nothing per partition comes back to the driver.
5. **Write** ``gold.elections``, ``gold.partition_timeline``, ``gold.anomalies`` (plus the
   cluster-level anomalies found while building the timelines), ``gold.what_if`` and
   ``gold.cluster_facts`` (the facts of step 3, which the report reads back), each replacing the
   cluster's rows in one commit: a re-run replaces, never duplicates.

Incremental (``--incremental``, and ``run --incremental|--since``): only the partitions that new
silver rows (or new cluster facts near their evidence) can change are folded again, over all
their evidence, and only their gold rows (plus the cluster-level anomalies) are replaced, with
``Lakehouse.replace_keys``; the rules and the fallbacks to a full replay are in
``jobs.stages.incremental``. Every replay records the silver rows it folded in its ``meta.runs``
notes.

Settings: the Kafka release is the cluster's ``kafka_version``, or with ``auto`` the release its
KRaft controllers registered in the metadata log (``metadata_release``), else the release
range ingest-logs inferred from the log formats (``silver.ingest_stats``), its newest feature
release replayed (``VersionInference.replay_release``; a note says when the rules differ inside
the range); without either the replay is
skipped with a note. The brokers' static ``unclean.leader.election.enable`` is the one their
``KafkaConfig values`` block printed (``silver.broker_configs``, the controller's), else the
configuration's ``kafka_defaults`` (``version-default``: the release's default).

What-if (``--what-if KEY=VALUE ...``): the same evidence is folded again under the changed
settings (rows tagged ``scenario = 'what-if:KEY=VALUE,...'`` beside the ``actual`` ones) and each
actual election whose outcome changes gets a ``gold.what_if`` row. An unknown key or a bad
value stops the command with one line before any work.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import fields as dataclass_fields
from functools import partial, reduce
from typing import Any, Generic, TypeVar

import pyarrow as pa
from pyspark import StorageLevel
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import (
    ArrayType,
    BooleanType,
    DataType,
    IntegerType,
    LongType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)

from jobs.cli import UsageError
from jobs.lakehouse.arrow_types import arrow_schema
from jobs.lakehouse.port import WriteMode
from jobs.runtime.config import ClusterConfig
from jobs.runtime.context import JobContext
from jobs.runtime.local_frame import local_frame
from jobs.stages.facts_table import collect_facts, write_facts
from jobs.stages.incremental import ReplayScope, evidence_note, plan_scope, settings_digest
from jobs.stages.registry import StageReport
from jobs.tasks.list_transport import joined_lists
from jobs.tasks.replay_tasks import (
    NORMALIZED_COLUMNS,
    OUTPUT_COLUMNS,
    ROW_LAYOUTS,
    ROW_TYPE,
    RowLayout,
    normalize_batches,
    normalize_kraft_table,
    replay_batches,
)
from jobs.tasks.sql_text import cast, literal, quoted
from kafkactl_core.grammars import VersionInference, infer_version
from kafkactl_core.grammars.entry import VersionRange
from kafkactl_core.profiles import KafkaVersion
from kafkactl_core.replay import (
    BROKER_CONFIG_COLUMNS,
    EVIDENCE_COLUMNS,
    EVIDENCE_SORT_COLUMNS,
    LOG_COLUMNS,
    LOG_EVENT_TYPES,
    ZK_CHANGE_COLUMNS,
    ZK_STATE_COLUMNS,
    AnomalyRow,
    ClusterTimelines,
    ReplaySettings,
    build_timelines,
    with_what_if,
)
from kafkactl_core.replay.from_kraft import (
    KRAFT_CHANGE_COLUMNS,
    MetadataEntry,
    order_entries,
    running_release,
)
from kafkactl_core.replay.settings import IBP_KEY, PRINTED_KEYS, with_printed
from kafkactl_core.versions import KafkaRelease
from schemas.catalog import TableSpec
from schemas.gold import ANOMALIES, CLUSTER_FACTS, ELECTIONS, PARTITION_TIMELINE, WHAT_IF
from schemas.kraft import KRAFT_CHANGES
from schemas.logs import BROKER_CONFIGS, CONTROLLER_EVENTS, INGEST_STATS
from schemas.zk import ZK_CHANGES, ZK_STATE

STAGE = "replay"
log = logging.getLogger("kafkactl_audit.replay")
_SCOPE_KEYS = StructType(
    [StructField("topic", StringType(), True), StructField("partition", IntegerType(), True)]
)
"""The partitions an incremental replay redoes, and the rows of the gold tables it replaces."""

_CORE_TYPES: Mapping[str, DataType] = {
    "str": StringType(),
    "int": LongType(),
    "ints": ArrayType(LongType()),
    "bool": BooleanType(),
}


def _struct(columns: Mapping[str, str]) -> StructType:
    return StructType(
        [StructField(name, _CORE_TYPES[kind], True) for name, kind in columns.items()]
    )


EVIDENCE_SCHEMA = _struct(EVIDENCE_COLUMNS)
"""Evidence rows as the replay reads them (``PartitionEvidence.to_row``)."""

NORMALIZED_SCHEMA = StructType(
    [*_struct(NORMALIZED_COLUMNS).fields, StructField(ROW_TYPE, StringType(), False)]
)
"""The normalize step's output: evidence and fact rows in one frame."""

SOURCES: tuple[tuple[str, TableSpec, tuple[str, ...], Mapping[str, str]], ...] = (
    ("controller_events", CONTROLLER_EVENTS, LOG_COLUMNS, {"ts": "log_time"}),
    ("zk_changes", ZK_CHANGES, ZK_CHANGE_COLUMNS, {"time": "time"}),
    ("zk_state", ZK_STATE, ZK_STATE_COLUMNS, {"ctime": "ctime", "mtime": "mtime"}),
    ("broker_configs", BROKER_CONFIGS, BROKER_CONFIG_COLUMNS, {"ts": "logged_at"}),
)
"""(normalizer, silver table, columns it reads, time column -> silver timestamp column)."""

READ_ROWS: Mapping[str, tuple[str, frozenset[str]]] = {
    "controller_events": ("event_type", LOG_EVENT_TYPES),
}
"""Normalizer -> (column, values): the only rows it reads; the others normalize to nothing and
are left in the lakehouse (on a simulated day, 22% of the controller events)."""

GOLD: Mapping[str, TableSpec] = {
    "election": ELECTIONS,
    "timeline": PARTITION_TIMELINE,
    "anomaly": ANOMALIES,
    "what_if": WHAT_IF,
}
"""Replay row type -> the gold table it goes to."""


def gold_columns(layout: RowLayout, spec: TableSpec) -> list[tuple[StructField, str]]:
    """Pair each gold column (but ``run_id``) with the union column that carries it.

    The record's fields are in ``to_row()`` order, which is the table's column order (times:
    ``*_ms`` fields into timestamp columns); ``scenario`` comes from the record or, for records
    without one, from the column the adapter adds.

    Args:
        layout: the record's layout in the replay output.
        spec: its gold table.

    Returns:
        (gold column, union column) pairs, in the table's order.

    Raises:
        TypeError: when the table and the record do not line up.
    """
    targets = [f for f in spec.schema.fields if f.name != "run_id"]
    sources = [c.name for c in layout.columns]
    if layout.scenario_column is not None:
        sources.append(layout.scenario_column)
    if len(targets) != len(sources):
        raise TypeError(
            f"{spec.qualified_name} has {len(targets)} columns, "
            f"{layout.record.__name__} gives {len(sources)}"
        )
    return list(zip(targets, sources, strict=True))


def _union_type(target: StructField) -> DataType:
    # Times travel as epoch milliseconds; Spark makes them timestamps when splitting.
    return LongType() if isinstance(target.dataType, TimestampType) else target.dataType


def _output_schema() -> StructType:
    types: dict[str, DataType] = {}
    for row_type, layout in ROW_LAYOUTS.items():
        for target, source in gold_columns(layout, GOLD[row_type]):
            kind = _union_type(target)
            if types.setdefault(source, kind) != kind:
                raise TypeError(
                    f"union column {source}: {types[source].simpleString()} "
                    f"and {kind.simpleString()} ({row_type})"
                )
    missing = [c for c in OUTPUT_COLUMNS if c not in types and c != ROW_TYPE]
    if missing:
        raise TypeError(f"union columns without a gold column: {missing}")
    return StructType(
        [
            *(StructField(name, types[name], True) for name in OUTPUT_COLUMNS if name != ROW_TYPE),
            StructField(ROW_TYPE, StringType(), False),
        ]
    )


OUTPUT_SCHEMA = _output_schema()
"""The replay step's output: every gold row type in one frame, split by ``row_type``."""

OUTPUT_ARROW = arrow_schema(OUTPUT_SCHEMA)
"""``OUTPUT_SCHEMA`` in Arrow: what the fold's batches are built in."""


def split_output(frame: DataFrame, row_type: str, run_id: str) -> DataFrame:
    """The rows of one gold table from the replay output, in the table's schema.

    Args:
        frame: the ``mapInArrow`` output (``OUTPUT_SCHEMA``).
        row_type: ``election``, ``timeline``, ``anomaly`` or ``what_if``.
        run_id: the run writing them.

    Returns:
        The table's columns, in order.
    """
    spec = GOLD[row_type]
    columns: list[str] = []
    for target, source in gold_columns(ROW_LAYOUTS[row_type], spec):
        value = quoted(source)
        if isinstance(target.dataType, TimestampType):
            value = f"timestamp_millis({value})"
        columns.append(f"{cast(value, target.dataType)} AS {quoted(target.name)}")
    columns.append(f"{literal(run_id)} AS run_id")
    return frame.filter(f"{quoted(ROW_TYPE)} = {literal(row_type)}").selectExpr(*columns)


T = TypeVar("T")


class _Shared(Generic[T]):
    """Stands in for a broadcast variable where the session has none (Spark Connect)."""

    def __init__(self, value: T) -> None:
        self.value = value


def _share(spark: SparkSession, value: T) -> Any:
    """A broadcast of ``value``, or a plain holder pickled with the task where broadcasting
    is not available; either has ``.value``."""
    try:
        context = spark.sparkContext
    except Exception:  # Spark Connect sessions have no SparkContext
        return _Shared(value)
    return context.broadcast(value)


def replay_task(
    batches: Iterable[pa.RecordBatch],
    *,
    timelines: Any,
    scenarios: Sequence[ReplaySettings],
    joined: Sequence[str],
    lists: pa.Schema,
) -> Iterator[pa.RecordBatch]:
    """The ``mapInArrow`` function: ``replay_batches`` with the broadcast timelines."""
    return replay_batches(
        batches,
        timelines=timelines.value,
        scenarios=scenarios,
        schema=OUTPUT_ARROW,
        joined=joined,
        lists=lists,
    )


def sorted_evidence(evidence: DataFrame) -> tuple[DataFrame, tuple[str, ...], pa.Schema]:
    """Evidence grouped by partition and in the fold's order: the replay's input.

    Args:
        evidence: rows with ``EVIDENCE_COLUMNS``.

    Returns:
        The frame, repartitioned by (cluster, topic, partition) and sorted within partitions
        by ``EVIDENCE_SORT_COLUMNS`` (unknown times first, as ``order_key`` puts them), with
        its list columns joined into text (``joined_lists``); the joined columns; and the
        Arrow types they go back to in the task.
    """
    key = EVIDENCE_SORT_COLUMNS[:3]
    ordered = (
        evidence.select(*EVIDENCE_COLUMNS)
        .repartition(*key)
        .sortWithinPartitions(*[F.col(c).asc_nulls_first() for c in EVIDENCE_SORT_COLUMNS])
    )
    sent, joined = joined_lists(ordered, ordered.schema.fields)
    return sent, joined, arrow_schema(ordered.schema)


def replay_frame(
    spark: SparkSession,
    evidence: DataFrame,
    timelines: Mapping[str, ClusterTimelines],
    scenarios: Sequence[ReplaySettings],
) -> DataFrame:
    """Fold evidence through the core: the union of every gold row type (``OUTPUT_SCHEMA``).

    Args:
        spark: the session (to broadcast the timelines).
        evidence: evidence rows of any partitions, in any order.
        timelines: cluster -> timelines.
        scenarios: the actual settings, then each what-if scenario's.

    Returns:
        The lazy output frame; split it with ``split_output``.
    """
    sent, joined, lists = sorted_evidence(evidence)
    task = partial(
        replay_task,
        timelines=_share(spark, dict(timelines)),
        scenarios=scenarios,
        joined=joined,
        lists=lists,
    )
    return sent.mapInArrow(task, OUTPUT_SCHEMA)


def _silver_frame(
    ctx: JobContext,
    cluster: str,
    spec: TableSpec,
    columns: Sequence[str],
    times: Mapping[str, str],
    exclude_runs: frozenset[str] = frozenset(),
    read: tuple[str, frozenset[str]] | None = None,
) -> tuple[DataFrame, tuple[str, ...], pa.Schema] | None:
    """The cluster's rows of one silver table, in the normalizer's columns.

    Rows written by a run in ``exclude_runs`` are left out (an incremental replay's new rows),
    and with ``read`` (a column and its values, ``READ_ROWS``) only the rows the normalizer reads
    are kept.

    Returns:
        The frame (times as epoch ms, list columns joined into text by ``joined_lists``), the
        joined columns, and the selected columns' Arrow schema (the lists' item types);
        ``None`` when the table does not exist.
    """
    if not ctx.lakehouse.exists(spec):
        return None
    frame = ctx.lakehouse.read(spec).filter(F.col("cluster") == cluster)
    if exclude_runs:
        frame = frame.filter(~F.col("run_id").isin(sorted(exclude_runs)))
    if read is not None:
        column, values = read
        frame = frame.filter(F.col(column).isin(*sorted(values)))
    present = set(frame.columns)
    selected: list[str] = []
    for name in columns:
        source = times.get(name)
        if source is not None:
            selected.append(f"unix_millis({quoted(source)}) AS {quoted(name)}")
        elif name in present:
            selected.append(quoted(name))
        else:
            # A column the table does not (yet) have reads as null for the normalizer.
            selected.append(f"{cast('NULL', StringType())} AS {quoted(name)}")
    frame = frame.selectExpr(*selected)
    sent, joined = joined_lists(frame, frame.schema.fields)
    return sent, joined, arrow_schema(frame.schema)


def normalized_frame(
    ctx: JobContext, cluster: str, exclude_runs: frozenset[str] = frozenset()
) -> DataFrame | None:
    """Evidence and fact rows of the cluster's silver tables (``NORMALIZED_SCHEMA``).

    Args:
        ctx: the job context.
        cluster: the cluster.
        exclude_runs: leave out the silver rows these runs wrote.

    Returns:
        The lazy union frame, ``None`` when no silver table exists yet.
    """
    schema = arrow_schema(NORMALIZED_SCHEMA)
    parts: list[DataFrame] = []
    for table, spec, columns, times in SOURCES:
        found = _silver_frame(
            ctx, cluster, spec, columns, times, exclude_runs, READ_ROWS.get(table)
        )
        if found is None:
            continue
        frame, joined, lists = found
        task = partial(normalize_batches, table=table, schema=schema, joined=joined, lists=lists)
        parts.append(frame.mapInArrow(task, NORMALIZED_SCHEMA))
    kraft = _kraft_frame(ctx, cluster, schema, exclude_runs)
    if kraft is not None:
        parts.append(kraft)
    if not parts:
        return None
    return reduce(DataFrame.unionByName, parts)


def _kraft_rows(ctx: JobContext, cluster: str) -> DataFrame | None:
    """The cluster's ``silver.kraft_changes`` rows in ``KRAFT_CHANGE_COLUMNS`` (``time`` in
    epoch ms) and ``run_id``; ``None`` when the table does not exist."""
    if not ctx.lakehouse.exists(KRAFT_CHANGES):
        return None
    return (
        ctx.lakehouse.read(KRAFT_CHANGES)
        .filter(F.col("cluster") == cluster)
        .select(
            *(
                F.unix_millis(F.col("timestamp")).alias(name) if name == "time" else F.col(name)
                for name in KRAFT_CHANGE_COLUMNS
            ),
            "run_id",
        )
    )


def _kraft_frame(
    ctx: JobContext, cluster: str, schema: pa.Schema, exclude_runs: frozenset[str]
) -> DataFrame | None:
    """The cluster's metadata records as evidence and fact rows: all of them in one group,
    applied in log order (``replay_tasks.normalize_kraft_table``); NoOps are left out."""
    rows = _kraft_rows(ctx, cluster)
    if rows is None:
        return None

    # applyInArrow tells a table function from a batch-iterator one by its type hints (PySpark
    # 4.2 fails on a functools.partial, which has none)
    def task(table: pa.Table) -> pa.Table:
        return normalize_kraft_table(table, schema=schema, exclude_runs=exclude_runs)

    return (
        rows.filter(F.col("record_type") != "NO_OP_RECORD")
        .groupBy("cluster")
        .applyInArrow(task, NORMALIZED_SCHEMA)
    )


def silver_rows_by_run(ctx: JobContext, cluster: str) -> dict[str, dict[str, int]]:
    """Silver table (``layer.name``) -> run id -> rows of the cluster, for the replay's sources."""
    counts: dict[str, dict[str, int]] = {}
    parts: list[DataFrame] = []
    for spec in (*(source[1] for source in SOURCES), KRAFT_CHANGES):
        if not ctx.lakehouse.exists(spec):
            continue
        counts[spec.qualified_name] = {}
        rows = ctx.lakehouse.read(spec).filter(F.col("cluster") == cluster)
        parts.append(rows.select(F.lit(spec.qualified_name).alias("table"), "run_id"))
    if not parts:
        return counts
    # One Spark job for every table: a run's counts are a few rows per table.
    union = reduce(DataFrame.unionByName, parts)
    for row in union.groupBy("table", "run_id").count().collect():
        counts[row["table"]][row["run_id"]] = int(row["count"])
    return counts


# ----------------------------------------------------------------------------- settings

_EVIDENCE_TEXT = re.compile(r"^(\S+) \[.*\) x(\d+)$")
_PROFILE_FIELDS = tuple(
    f.name
    for f in dataclass_fields(KafkaVersion)
    if f.name not in ("release", "default_inter_broker_protocol")
)


def _just_below(release: KafkaRelease) -> KafkaRelease:
    """A release that orders after every release before ``release`` (for its profile)."""
    if release.patch:
        return KafkaRelease(release.major, release.minor, release.patch - 1)
    if release.minor:
        return KafkaRelease(release.major, release.minor - 1, 999)
    return KafkaRelease(release.major - 1, 999, 999)


def profile_differences(versions: VersionRange) -> list[str]:
    """Behaviour switches of the replay whose value changes inside a release range.

    Args:
        versions: the range (``since`` inclusive, ``before`` exclusive; open bounds allowed).

    Returns:
        The differing ``KafkaVersion`` fields (empty when one profile covers the range).
    """
    low = versions.since or KafkaRelease(0, 8, 0)
    high = _just_below(versions.before) if versions.before else KafkaRelease(99, 0, 0)
    if high < low:
        return []
    first, last = KafkaVersion.of(low), KafkaVersion.of(high)
    return [name for name in _PROFILE_FIELDS if getattr(first, name) != getattr(last, name)]


def inferred_range(ctx: JobContext, cluster: str) -> VersionInference | None:
    """The release range and mode ingest-logs' version evidence gives for the whole cluster.

    Every file's ``version_evidence`` and ``version_conflicts`` (``'grammar [since, before)
    xN'``) are summed per grammar variant and inferred again, over all files together.

    Args:
        ctx: the job context.
        cluster: the cluster.

    Returns:
        The inference, ``None`` when no ingested log narrowed the range.
    """
    if not ctx.lakehouse.exists(INGEST_STATS):
        return None
    rows = (
        ctx.lakehouse.read(INGEST_STATS)
        .filter(F.col("cluster") == cluster)
        .select("version_evidence", "version_conflicts")
        .collect()
    )
    counts: Counter[str] = Counter()
    for row in rows:
        for text in [*(row.version_evidence or ()), *(row.version_conflicts or ())]:
            match = _EVIDENCE_TEXT.match(text)
            if match:
                counts[match.group(1)] += int(match.group(2))
    if not counts:
        return None
    try:
        inference = infer_version(counts)
    except KeyError:
        return None
    return None if inference.versions.is_open else inference


def metadata_release(ctx: JobContext, cluster: str) -> KafkaRelease | None:
    """The release the cluster's KRaft controllers run, from the registrations in its metadata
    log (``from_kraft.running_release``), None without any."""
    rows = _kraft_rows(ctx, cluster)
    if rows is None:
        return None
    registrations = rows.filter(
        F.col("record_type").isin("REGISTER_CONTROLLER_RECORD", "REGISTER_BROKER_RECORD")
    ).collect()
    return running_release(
        order_entries(MetadataEntry.from_row(row.asDict()) for row in registrations)
    )


def printed_configs(ctx: JobContext, cluster: str) -> dict[str, str]:
    """The static values of ``PRINTED_KEYS`` the cluster's brokers printed at their latest
    start (``silver.broker_configs``), by key; empty without that table."""
    if not ctx.lakehouse.exists(BROKER_CONFIGS):
        return {}
    rows = (
        ctx.lakehouse.read(BROKER_CONFIGS)
        .filter(
            (F.col("cluster") == cluster)
            & (F.col("scope") == "broker")
            & F.col("key").isin(*PRINTED_KEYS)
        )
        .groupBy("key")
        .agg(F.max_by("value", F.struct("logged_at", "line")).alias("value"))
        .collect()
    )
    return {str(r["key"]): str(r["value"]) for r in rows if r["value"] is not None}


def replay_settings(
    ctx: JobContext, cluster: ClusterConfig, printed: Mapping[str, str]
) -> tuple[ReplaySettings | None, str]:
    """The actual replay settings of a cluster, and a note saying where they came from.

    Args:
        ctx: the job context.
        cluster: the cluster.
        printed: what its brokers printed (``printed_configs``).

    Returns:
        The settings (``None`` when no Kafka release is known) and the note.
    """
    defaults = ctx.config.defaults_for(cluster)
    unclean = defaults.unclean_leader_election_enable
    broker_unclean = None if unclean == "version-default" else bool(unclean)
    unclean_note = (
        "unclean.leader.election.enable: the release's default unless the evidence says"
        if broker_unclean is None
        else f"unclean.leader.election.enable={str(broker_unclean).lower()} (kafka_defaults)"
    )
    registered = metadata_release(ctx, cluster.name) if cluster.kafka_version == "auto" else None
    if cluster.kafka_version != "auto":
        release = KafkaRelease.parse(cluster.kafka_version)
        note = f"replayed under Kafka {release} rules (configured); {unclean_note}"
    elif registered is not None:
        release = registered
        note = (
            f"replayed under Kafka {release} rules (the newest metadata.version the "
            f"controllers registered in the metadata log supports); {unclean_note}"
        )
    else:
        inference = inferred_range(ctx, cluster.name)
        if inference is None:
            return None, (
                "not replayed: kafka_version is auto and no ingested log narrowed the Kafka "
                f'release; set clusters[{cluster.name}].kafka_version (e.g. "2.8")'
            )
        versions = inference.versions
        release = inference.replay_release()
        note = f"replayed under Kafka {release} rules (inferred from the logs: {versions})"
        differing = profile_differences(versions)
        if differing:
            note += (
                f"; the rules differ inside that range ({', '.join(differing)}): set "
                "kafka_version to be sure"
            )
        note += f"; {unclean_note}"
    settings = ReplaySettings.of(
        release, broker_unclean_enable=broker_unclean, broker_min_isr=defaults.min_insync_replicas
    )
    filled = with_printed(settings, printed)
    if filled.inter_broker_protocol != settings.inter_broker_protocol:
        note += f"; {IBP_KEY}={filled.inter_broker_protocol} (as the brokers printed it)"
    return filled, note


def what_if_settings(actual: ReplaySettings, overrides: Sequence[str]) -> ReplaySettings:
    """The settings of the ``--what-if`` scenario.

    Args:
        actual: the cluster's actual settings.
        overrides: ``KEY=VALUE`` texts.

    Returns:
        The scenario's settings (named ``what-if:KEY=VALUE,...``).

    Raises:
        UsageError: an unknown key or a bad value (one line naming it).
    """
    scenario, problems = with_what_if(actual, overrides)
    if problems:
        raise UsageError(f"--what-if {problems[0]}")
    return scenario


# ----------------------------------------------------------------------------- the stage


def _cluster_anomalies(
    spark: SparkSession,
    timelines: ClusterTimelines | None,
    scenarios: Sequence[ReplaySettings],
    run_id: str,
) -> DataFrame | None:
    """Anomalies found while building the timelines, as gold rows of every scenario."""
    found: list[AnomalyRow] = timelines.anomalies() if timelines is not None else []
    if not found:
        return None
    rows = [
        {**row.to_row(), "scenario": settings.scenario, "run_id": run_id}
        for settings in scenarios
        for row in found
    ]
    return local_frame(spark, rows, ANOMALIES.schema)


def run_for_cluster(
    ctx: JobContext, cluster: ClusterConfig, options: Mapping[str, Any] | None = None
) -> StageReport:
    """Replay the cluster's silver evidence into the gold tables (see the module docstring).

    Args:
        ctx: the job context.
        cluster: the cluster.
        options: ``what_if``: ``KEY=VALUE`` overrides of one what-if scenario;
            ``incremental``: fold again only the partitions new evidence can change
            (``jobs.stages.incremental``), replacing only their gold rows.

    Returns:
        Rows written per table, and notes (the release and where it came from).

    Raises:
        UsageError: a bad ``--what-if``.
    """
    report = StageReport(STAGE, cluster.name)
    overrides = list((options or {}).get("what_if") or [])
    incremental = bool((options or {}).get("incremental"))
    if overrides:
        # Keys and values do not depend on the release: a typo stops before any work.
        what_if_settings(ReplaySettings.of("2.8"), overrides)
    actual, note = replay_settings(ctx, cluster, printed_configs(ctx, cluster.name))
    scenarios = [actual] if actual is not None else []
    if actual is not None and overrides:
        scenarios.append(what_if_settings(actual, overrides))
    report.notes.append(note)
    if not scenarios:
        return report
    if len(scenarios) > 1:
        report.notes.append(f"what-if scenario {scenarios[1].scenario!r}")
    spark = ctx.spark
    normalized = normalized_frame(ctx, cluster.name)
    if normalized is None:
        report.notes.append("no silver tables yet: run ingest-logs or ingest-zk first")
        return report
    by_run = silver_rows_by_run(ctx, cluster.name)
    folded_note = evidence_note(
        {table: sum(runs.values()) for table, runs in by_run.items()}, settings_digest(scenarios)
    )
    normalized = normalized.persist(StorageLevel.MEMORY_AND_DISK)
    replayed: DataFrame | None = None
    lakehouse = ctx.lakehouse
    try:
        evidence = normalized.filter(F.col(ROW_TYPE) == "evidence")
        scope = ReplayScope.everything("not incremental")
        if incremental:
            scope = plan_scope(
                lakehouse,
                cluster.name,
                scenarios,
                by_run,
                (*GOLD.values(), CLUSTER_FACTS),
                evidence,
                partial(normalized_frame, ctx, cluster.name),
            )
            report.notes.append(f"incremental: {scope.reason}")
            if not scope.full and not scope.keys and scope.facts_from_ms is None:
                log.info("[%s] replay: %s, gold left as it is", cluster.name, scope.reason)
                report.notes.append(folded_note)
                return report
        facts = collect_facts(normalized)
        timelines = build_timelines(facts)
        keys: DataFrame | None = None
        if not scope.full:
            # The cluster-level anomalies (null key) are rebuilt from all facts every time; the
            # null key's row matches no evidence in the join.
            keyed = [{"topic": t, "partition": p} for t, p in scope.keys]
            keys = local_frame(spark, [*keyed, {}], _SCOPE_KEYS)
            evidence = evidence.join(
                F.broadcast(keys.withColumn("partition", F.col("partition").cast(LongType()))),
                ["topic", "partition"],
                "left_semi",
            )
        log.info(
            "[%s] replay: %d cluster facts in the timelines; folding %s (%s)",
            cluster.name,
            len(facts),
            "every partition" if scope.full else f"{len(scope.keys)} partition(s)",
            ", ".join(s.scenario for s in scenarios),
        )
        replayed = replay_frame(spark, evidence, timelines, scenarios).persist(
            StorageLevel.MEMORY_AND_DISK
        )
        for row_type in ("election", "timeline", "anomaly", "what_if"):
            spec = GOLD[row_type]
            frame = split_output(replayed, row_type, ctx.run_id)
            if row_type == "anomaly":
                extra = _cluster_anomalies(
                    spark, timelines.get(cluster.name), scenarios, ctx.run_id
                )
                if extra is not None:
                    frame = frame.unionByName(extra)
            if keys is None:
                written = lakehouse.write(frame, spec, WriteMode.replace_cluster, cluster.name)
            else:
                written = lakehouse.replace_keys(frame, spec, cluster.name, keys)
            report.rows_written[spec.qualified_name] = written
        report.rows_written[CLUSTER_FACTS.qualified_name] = write_facts(
            lakehouse, cluster.name, facts, ctx.run_id
        )
        report.notes.append(folded_note)
    finally:
        if replayed is not None:
            replayed.unpersist()
        normalized.unpersist()
    return report
