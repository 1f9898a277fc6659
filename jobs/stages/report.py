"""``kafkactl-audit report``: leader imbalance, unclean elections, offline intervals and the
controller history as gold tables, and a report people read (HTML, Markdown, CSV, console).

For one cluster (``scenario = 'actual'`` rows of the replay's gold tables):

1. **Facts** (small): the cluster facts the replay gathered, read back from
   ``gold.cluster_facts`` (``jobs.stages.facts_table``): controller terms, broker failures,
   topic deletions.
2. **Logged checks**: ``Leader imbalance ratio``, check-start and ``Topics not in preferred
   replica`` lines of ``silver.controller_events``, placed in their checks per controller
   (``applyInArrow``).
3. **Imbalance**: each partition's timeline becomes counter deltas (``applyInArrow`` per
   bucket of partitions); deltas are summed per broker and moment; those sums and the logged
   ratios, sorted by time (checks before the changes of their millisecond) into one task, go
   through the core's sweep (``imbalance_sweep``: running counters per broker, cluster totals,
   each row by the core's formula), streamed out in batches. The daily rollup runs per broker.
4. **Per partition** (``cogroup`` of timeline and elections per bucket of partitions, each
   partition of the bucket in turn): offline intervals, unclean elections with their exposure,
   under-replicated and under-min-ISR intervals (with the ``min.insync.replicas`` in force from
   the configuration facts), the daily ISR churn and the reassignments.
5. **Small aggregates** on the driver: unclean rollups, controller history, each broker's
   history (from the facts), the report's anomalies (logged ratios that differ), and the
   report's data.
6. **Write** every table, replacing the cluster's rows in one commit each, then the report
   files under ``<lakehouse>/reports/<cluster>/<UTC date>/`` (or ``--out DIR``), and print a
   short summary (text, or JSON with ``--format json``).

``--from``/``--to``/``--topic``/``--broker`` narrow the report files, the summary and
``--fail-on`` to a scope (``jobs.stages.report_scope``); the tables are written whole.

Settings: the release as the replay resolves it (``jobs.stages.replay.replay_settings``), the mode
(KRaft when the evidence comes from KRaft controllers), and
``leader.imbalance.per.broker.percentage`` from ``kafka_defaults``.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from functools import partial, reduce
from typing import Any

import pyarrow as pa
from pyspark import StorageLevel
from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import LongType, StringType, StructField, StructType

from jobs.lakehouse.arrow_types import arrow_schema
from jobs.lakehouse.port import WriteMode
from jobs.runtime.config import ClusterConfig
from jobs.runtime.context import JobContext
from jobs.runtime.spark_session import parallelism
from jobs.stages.facts_table import read_facts
from jobs.stages.registry import StageReport
from jobs.stages.replay import (
    printed_configs,
    replay_settings,
)
from jobs.stages.report_data import (
    collect_ms,
    election_outlines,
    replication_highlights,
    report_data,
    with_ms,
)
from jobs.stages.report_scope import (
    scoped_churn,
    scoped_daily,
    scoped_elections,
    scoped_imbalance,
    scoped_offline,
    scoped_reassignments,
    scoped_under_replicated,
)
from jobs.tasks.report_tasks import (
    CHECKS_SCHEMA,
    DELTA_SCHEMA,
    ORD_CHANGE,
    ORD_CHECK,
    bind,
    checks_task,
    daily_task,
    deltas_task,
    partition_tables_task,
    sweep_task,
)
from jobs.tasks.wire import task_schema, with_run_id
from kafkactl_core.replay import ClusterFact, ClusterFactKind, ClusterTimelines
from kafkactl_core.replay.settings import printed_percentage, printed_roles
from kafkactl_core.replay.values import as_ms
from kafkactl_core.report import (
    CHECK_EVENT_TYPES,
    COUNTERS,
    ImbalanceSettings,
    LoggedRatio,
    broker_events,
    console_summary,
    controller_history,
    deletion_steps,
    preferred_elections_by_day,
    ratio_anomalies,
    report_files,
    unclean_daily,
)
from kafkactl_core.report.alerts import FailOn, alert_findings
from kafkactl_core.report.brokers import broker_timeline
from kafkactl_core.report.document import (
    HISTORY_SHOWN,
    downtime,
    topic_changes,
)
from kafkactl_core.report.replication import MinIsr, MinIsrInForce
from kafkactl_core.report.rows import (
    ImbalanceRow,
    PartitionSpan,
    Reassignment,
    UncleanRow,
)
from kafkactl_core.report.scope import ReportScope
from kafkactl_core.report.summary import json_summary
from kafkactl_core.report.topics import topic_lifecycle
from kafkactl_core.versions import KafkaRelease
from schemas.catalog import TableSpec
from schemas.gold import ANOMALIES, ELECTIONS, PARTITION_TIMELINE
from schemas.logs import CONTROLLER_EVENTS
from schemas.report import (
    BROKER_TIMELINE,
    CONTROLLER_HISTORY,
    ISR_CHURN_DAILY,
    LEADER_IMBALANCE,
    LEADER_IMBALANCE_DAILY,
    OFFLINE_INTERVALS,
    PARTITION_SPANS,
    REASSIGNMENTS,
    REPORT_ANOMALIES,
    TOPIC_LIFECYCLE,
    UNCLEAN_ELECTIONS,
    UNCLEAN_ELECTIONS_DAILY,
    UNDER_REPLICATED,
)

STAGE = "report"
log = logging.getLogger("kafkactl_audit.report")


# ----------------------------------------------------------------------------- inputs


def _gold(ctx: JobContext, spec: TableSpec, cluster: str) -> DataFrame | None:
    if not ctx.lakehouse.exists(spec):
        return None
    frame = ctx.lakehouse.read(spec).filter(F.col("cluster") == cluster)
    if "scenario" in frame.columns:
        frame = frame.filter(F.col("scenario") == "actual")
    return frame


def _is_kraft(facts: Sequence[ClusterFact], elections: DataFrame | None) -> bool:
    if any(f.kind is ClusterFactKind.kraft_context for f in facts):
        return True
    if elections is None:
        return False
    return bool(elections.filter(F.col("source").contains("kraft")).limit(1).count())


def imbalance_settings(
    ctx: JobContext,
    cluster: ClusterConfig,
    facts: Sequence[ClusterFact],
    elections: DataFrame | None,
) -> tuple[ImbalanceSettings, str]:
    """The cluster's imbalance settings and a note on where the release came from.

    Args:
        ctx: the job context.
        cluster: the cluster.
        facts: its facts.
        elections: its ``gold.elections`` rows.

    Returns:
        The settings and the note.
    """
    printed = printed_configs(ctx, cluster.name)
    replay, note = replay_settings(ctx, cluster, printed)
    release: KafkaRelease | None = None if replay is None else replay.release
    percentage = printed_percentage(printed)
    if percentage is None:
        percentage = ctx.config.defaults_for(cluster).leader_imbalance_per_broker_percentage
    mode = "kraft" if printed_roles(printed) or _is_kraft(facts, elections) else "zk"
    settings = ImbalanceSettings(percentage, mode, release)
    if release is None:
        note = "Kafka release unknown: PreferredReplicaImbalanceCount uses the 2.7+ definition"
    else:
        note = f"Kafka {release} ({mode}); " + note.split(";")[0]
    return settings, note


def logged_frame(ctx: JobContext, cluster: str) -> DataFrame | None:
    """The logged ratios of the cluster, placed in their checks (``CHECKS_SCHEMA``).

    Args:
        ctx: the job context.
        cluster: the cluster.

    Returns:
        The frame, ``None`` when ``silver.controller_events`` does not exist.
    """
    if not ctx.lakehouse.exists(CONTROLLER_EVENTS):
        return None
    events = ctx.lakehouse.read(CONTROLLER_EVENTS).filter(
        (F.col("cluster") == cluster) & F.col("event_type").isin(*CHECK_EVENT_TYPES)
    )
    controller = F.coalesce(F.col("controller_id"), F.col("origin_broker")).cast("int")
    kind = (
        F.when(F.col("event_type") == "leader_imbalance_ratio", F.lit("ratio"))
        .when(
            (F.col("event_type") == "auto_rebalance_check") & (F.col("phase") == "check"),
            F.lit("start"),
        )
        .when(F.col("event_type") == "preferred_replica_imbalance", F.lit("listing"))
    )
    lines = events.select(
        kind.alias("kind"),
        F.unix_millis(F.col("log_time")).alias("time_ms"),
        controller.alias("controller_id"),
        F.col("broker").cast("int").alias("broker"),
        F.col("ratio").cast("double").alias("ratio"),
        F.col("evidence"),
        F.col("detail"),
    ).filter(F.col("kind").isNotNull())
    return lines.groupBy("controller_id").applyInArrow(checks_task, CHECKS_SCHEMA)


# ----------------------------------------------------------------------------- imbalance


_BUCKET = "_bucket"
_BUCKETS = 64
"""The per-partition tasks run per bucket of partitions (a hash of topic and partition), each
walking its partitions: one task call per partition cost more than the work on most (on a
simulated day of 3,000 partitions, 76 s of a 149 s report)."""


def _bucketed(frame: DataFrame) -> DataFrame:
    """``frame`` with its partition's bucket."""
    bucket = F.pmod(F.hash("topic", "partition"), F.lit(_BUCKETS))
    return frame.withColumn(_BUCKET, bucket)


def imbalance_frame(
    timeline: DataFrame,
    logged: DataFrame | None,
    cluster: str,
    settings: ImbalanceSettings,
    deletion: Mapping[str, Sequence[tuple[int, bool]]],
) -> DataFrame:
    """``gold.leader_imbalance`` as task rows (see the module docstring, step 3).

    Args:
        timeline: the cluster's ``gold.partition_timeline`` rows.
        logged: the placed logged ratios (``logged_frame``), if any.
        cluster: the cluster.
        settings: its settings.
        deletion: topic -> deletion steps.

    Returns:
        The lazy frame in ``task_schema(LEADER_IMBALANCE)``.
    """
    task = bind(deltas_task, settings=settings, deletion=dict(deletion))
    deltas = (
        _bucketed(with_ms(timeline, "valid_from", "valid_to"))
        .groupBy(_BUCKET)
        .applyInArrow(task, DELTA_SCHEMA)
    )
    unlogged = [
        F.lit(None).cast("double").alias("logged_ratio"),
        F.lit(None).cast("long").alias("logged_ms"),
        F.lit(None).cast("int").alias("logged_controller"),
        F.lit(None).cast("string").alias("logged_evidence"),
    ]
    stream = (
        deltas.groupBy("t_ms", "broker")
        .agg(*[F.sum(name).alias(name) for name in COUNTERS])
        .select("t_ms", F.lit(ORD_CHANGE).alias("ord"), "broker", *COUNTERS, *unlogged)
    )
    if logged is not None:
        checks = logged.select(
            F.col("check_ms").alias("t_ms"),
            F.lit(ORD_CHECK).alias("ord"),
            F.col("broker"),
            *[F.lit(None).cast("long").alias(name) for name in COUNTERS],
            F.col("ratio").alias("logged_ratio"),
            F.col("time_ms").alias("logged_ms"),
            F.col("controller_id").alias("logged_controller"),
            F.col("evidence").alias("logged_evidence"),
        )
        stream = stream.unionByName(checks)
    # The sweep is one pass in time order (running counters of every broker): one task, fed
    # sorted, streaming its rows out.
    ordered = stream.repartition(1).sortWithinPartitions("t_ms", "ord", "broker", "logged_ms")
    schema = task_schema(LEADER_IMBALANCE)
    sweep = partial(sweep_task, cluster=cluster, settings=settings, schema=arrow_schema(schema))
    return ordered.mapInArrow(sweep, schema)


_DAILY_COLUMNS = (
    "cluster",
    "broker",
    "observed_at",
    "observation",
    "imbalance_ratio",
    "threshold",
    "would_trigger",
    "leaders",
    "logged_ratio",
    "logged_matches",
)
"""The ``gold.leader_imbalance`` columns ``imbalance_daily`` reads."""


# ----------------------------------------------------------------------------- per partition

_UNION_EXTRA = (StructField("row_type", StringType(), False),)


PER_PARTITION: dict[str, TableSpec] = {
    "offline": OFFLINE_INTERVALS,
    "unclean": UNCLEAN_ELECTIONS,
    "under_replicated": UNDER_REPLICATED,
    "isr_churn": ISR_CHURN_DAILY,
    "reassignments": REASSIGNMENTS,
    "spans": PARTITION_SPANS,
}
"""The tables read from one partition at a time, by their ``row_type`` in ``partition_frame``."""


def _union_schema() -> StructType:
    fields: dict[str, StructField] = {}
    for spec in PER_PARTITION.values():
        for field in task_schema(spec).fields:
            fields.setdefault(field.name, field)
    return StructType([*_UNION_EXTRA, *fields.values()])


def partition_frame(
    timeline: DataFrame,
    elections: DataFrame,
    facts: Sequence[ClusterFact],
    until_ms: int | None,
    deletion: Mapping[str, Sequence[tuple[int, bool]]],
    min_isr: MinIsr,
) -> DataFrame:
    """The tables read from one partition at a time (``PER_PARTITION``), one cogrouped task
    per partition.

    Args:
        timeline: the cluster's timeline rows.
        elections: its election rows.
        facts: its facts (broker events).
        until_ms: the end of the evidence.
        deletion: topic -> deletion steps.
        min_isr: ``min.insync.replicas`` in force for a topic at a time.

    Returns:
        Rows of ``_union_schema()`` with their table's ``row_type``.
    """
    schema = _union_schema()
    events, arrow, steps = broker_events(facts), arrow_schema(schema), dict(deletion)

    # applyInArrow reads the task's type hints (a functools.partial has none)
    def task(timeline: pa.Table, elections: pa.Table) -> pa.Table:
        return partition_tables_task(
            timeline,
            elections,
            events=events,
            until_ms=until_ms,
            deletion=steps,
            min_isr=min_isr,
            schema=arrow,
        )

    left = _bucketed(with_ms(timeline, "valid_from", "valid_to")).groupBy(_BUCKET)
    right = _bucketed(with_ms(elections, "elected_at", "new_leader_left_isr_at")).groupBy(_BUCKET)
    return left.cogroup(right).applyInArrow(task, schema)


# ----------------------------------------------------------------------------- helpers


def _evidence_range(
    timeline: DataFrame | None,
    elections: DataFrame | None,
    logged: DataFrame | None,
    facts: Sequence[ClusterFact],
) -> tuple[int | None, int | None]:
    """The first and last moment the evidence speaks of (UTC ms)."""
    times: list[int] = [f.time_ms for f in facts if f.time_ms is not None]
    sources: list[tuple[DataFrame | None, Sequence[str], bool]] = [
        (timeline, ("valid_from", "valid_to"), True),
        (elections, ("elected_at",), True),
        (logged, ("time_ms",), False),
    ]
    # One aggregate over the union: a single Spark job where one per frame took three.
    parts: list[DataFrame] = []
    for frame, names, timestamps in sources:
        if frame is None:
            continue
        values = [
            (F.unix_millis(F.col(name)) if timestamps else F.col(name)).cast(LongType())
            for name in names
        ]
        # least and greatest skip nulls, as min and max do
        low = F.least(*values) if len(values) > 1 else values[0]
        high = F.greatest(*values) if len(values) > 1 else values[0]
        parts.append(frame.select(low.alias("low"), high.alias("high")))
    if parts:
        row = reduce(DataFrame.unionByName, parts).agg(F.min("low"), F.max("high")).first()
        if row is not None:
            times.extend(int(v) for v in row if v is not None)
    return (min(times), max(times)) if times else (None, None)


def report_dir(ctx: JobContext, cluster: str, options: Mapping[str, Any] | None) -> str:
    """Where the report files go: ``--out DIR``, else ``<lakehouse>/reports/<cluster>/<date>``.

    Args:
        ctx: the job context.
        cluster: the cluster.
        options: the command's options (``out``).

    Returns:
        A directory path or URI (the date is today's, UTC); with a Unity Catalog lakehouse and
        no ``--out``, ``reports/<cluster>/<date>`` under the working directory.
    """
    out = (options or {}).get("out")
    if out:
        return str(out)
    today = datetime.now(UTC).date().isoformat()
    base = ctx.config.lakehouse.path
    root = ctx.lakehouse.root if base is not None else "reports"
    if base is not None:
        root = f"{root.rstrip('/')}/reports"
    return f"{root}/{cluster}/{today}"


def write_files(directory: str, files: Mapping[str, str]) -> None:
    """Write the report files (replacing earlier ones of the same name).

    Args:
        directory: a local path or a URI pyarrow can open (``s3://``, ``abfss://``, ...).
        files: file name -> text.
    """
    if "://" in directory:
        from pyarrow import fs as pafs

        filesystem, base = pafs.FileSystem.from_uri(directory)
        filesystem.create_dir(base, recursive=True)
        for name, text in files.items():
            with filesystem.open_output_stream(f"{base}/{name}") as handle:
                handle.write(text.encode("utf-8"))
        return
    os.makedirs(directory, exist_ok=True)
    for name, text in files.items():
        path = os.path.join(directory, name)
        temporary = f"{path}.tmp"
        with open(temporary, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        os.replace(temporary, path)


# ----------------------------------------------------------------------------- the stage


def run_for_cluster(
    ctx: JobContext, cluster: ClusterConfig, options: Mapping[str, Any] | None = None
) -> StageReport:
    """Compute the report tables and files of one cluster (see the module docstring).

    Args:
        ctx: the job context.
        cluster: the cluster.
        options: ``out``: the report directory (default under the lakehouse); ``scope``: a
            ``ReportScope`` the report files and summary are narrowed to (the tables always
            hold everything); ``fail_on``: ``FailOn`` rules whose findings go to the returned
            report's ``findings``; ``format``: ``json`` prints the summary as JSON.

    Returns:
        Rows written per table, and notes (settings, where the report is).
    """
    report = StageReport(STAGE, cluster.name)
    timeline = _gold(ctx, PARTITION_TIMELINE, cluster.name)
    elections = _gold(ctx, ELECTIONS, cluster.name)
    facts = read_facts(ctx.lakehouse, cluster.name)
    if timeline is None or elections is None or facts is None:
        report.notes.append("no gold tables yet: run replay first")
        return report
    timeline = timeline.persist(StorageLevel.MEMORY_AND_DISK)
    elections = elections.persist(StorageLevel.MEMORY_AND_DISK)
    persisted: list[DataFrame] = [timeline, elections]
    try:
        settings, note = imbalance_settings(ctx, cluster, facts, elections)
        report.notes.append(note)
        logged = logged_frame(ctx, cluster.name)
        if logged is not None:
            logged = logged.persist(StorageLevel.MEMORY_AND_DISK)
            persisted.append(logged)
        start, end = _evidence_range(timeline, elections, logged, facts)
        timelines = ClusterTimelines.from_facts(cluster.name, facts)
        deletion = deletion_steps(facts, timelines)
        lakehouse = ctx.lakehouse

        imbalance_rows = imbalance_frame(timeline, logged, cluster.name, settings, deletion)
        imbalance = with_run_id(imbalance_rows, LEADER_IMBALANCE, ctx.run_id).persist(
            StorageLevel.MEMORY_AND_DISK
        )
        persisted.append(imbalance)
        report.rows_written[LEADER_IMBALANCE.qualified_name] = lakehouse.write(
            imbalance, LEADER_IMBALANCE, WriteMode.replace_cluster, cluster.name
        )
        outlines = election_outlines(elections)
        preferred_counts = preferred_elections_by_day(outlines)
        daily_schema = task_schema(LEADER_IMBALANCE_DAILY)
        task = bind(
            daily_task,
            until_ms=end or 0,
            preferred=preferred_counts,
            schema=arrow_schema(daily_schema),
        )
        # The brokers spread over every core (a grouping of little data gets one task) and
        # carry only the columns the rollup reads: it is most of the rows' Python work.
        daily_rows = (
            with_ms(imbalance.select(*_DAILY_COLUMNS), "observed_at")
            .repartition(parallelism(ctx.spark), "broker")
            .groupBy("broker")
            .applyInArrow(task, daily_schema)
        )
        daily = with_run_id(daily_rows, LEADER_IMBALANCE_DAILY, ctx.run_id).persist(
            StorageLevel.MEMORY_AND_DISK
        )
        persisted.append(daily)
        report.rows_written[LEADER_IMBALANCE_DAILY.qualified_name] = lakehouse.write(
            daily, LEADER_IMBALANCE_DAILY, WriteMode.replace_cluster, cluster.name
        )

        min_isr = MinIsrInForce(timelines, ctx.config.defaults_for(cluster).min_insync_replicas)
        per_partition = partition_frame(timeline, elections, facts, end, deletion, min_isr).persist(
            StorageLevel.MEMORY_AND_DISK
        )
        persisted.append(per_partition)
        tables: dict[str, DataFrame] = {}
        for kind in ("offline", "under_replicated", "isr_churn", "reassignments"):
            spec = PER_PARTITION[kind]
            tables[kind] = with_run_id(
                per_partition.filter(F.col("row_type") == kind), spec, ctx.run_id
            )
            report.rows_written[spec.qualified_name] = lakehouse.write(
                tables[kind], spec, WriteMode.replace_cluster, cluster.name
            )
        unclean_rows = per_partition.filter(F.col("row_type") == "unclean")
        unclean = [
            _unclean_row(r.asDict())
            for r in collect_ms(
                with_run_id(unclean_rows, UNCLEAN_ELECTIONS, ctx.run_id).orderBy(
                    "elected_at", "topic", "partition"
                )
            )
        ]
        unclean_days = unclean_daily(unclean)
        controllers = controller_history(cluster.name, facts, end)
        brokers = broker_timeline(cluster.name, timelines, broker_events(facts), end)
        spans_rows = per_partition.filter(F.col("row_type") == "spans")
        spans = [
            PartitionSpan.from_row(r.asDict())
            for r in collect_ms(with_run_id(spans_rows, PARTITION_SPANS, ctx.run_id))
        ]
        topics = topic_lifecycle(cluster.name, timelines, spans, end)
        mismatching = collect_ms(
            imbalance.filter(
                (F.col("observation") == "check")
                & (
                    (F.col("logged_matches") == F.lit(False))
                    | (F.col("logged_ratio").isNull() & (F.col("preferred_partitions") > 0))
                )
            )
        )
        listings = _listings(logged)
        found = ratio_anomalies([ImbalanceRow.from_row(r.asDict()) for r in mismatching], listings)
        for spec, rows in (
            (UNCLEAN_ELECTIONS, [u.to_row() for u in unclean]),
            (UNCLEAN_ELECTIONS_DAILY, [d.to_row() for d in unclean_days]),
            (CONTROLLER_HISTORY, [c.to_row() for c in controllers]),
            (BROKER_TIMELINE, [b.to_row() for b in brokers]),
            (TOPIC_LIFECYCLE, [t.to_row() for t in topics]),
            (REPORT_ANOMALIES, [{**a.to_row(), "scenario": "actual"} for a in found]),
        ):
            report.rows_written[spec.qualified_name] = lakehouse.write_rows(
                spec,
                [{**r, "run_id": ctx.run_id} for r in rows],
                WriteMode.replace_cluster,
                cluster.name,
            )

        scope: ReportScope = (options or {}).get("scope") or ReportScope()
        in_scope = [u for u in unclean if scope.covers_election(u)]
        data = report_data(
            _gold(ctx, ANOMALIES, cluster.name),
            cluster.name,
            settings,
            scope,
            scope.clip(start, end),
            imbalance=scoped_imbalance(imbalance, scope),
            daily=scoped_daily(daily, scope),
            elections=scoped_elections(elections, scope),
            outlines=[e for e in outlines if scope.covers_election(e)],
            offline=scoped_offline(tables["offline"], scope),
            unclean=in_scope,
            unclean_days=unclean_daily(in_scope),
            controllers=[
                c
                for c in controllers
                if scope.overlaps(c.active_from_ms, c.active_to_ms)
                and scope.involves([c.controller_id])
            ],
            report_anomalies=[
                a for a in found if scope.at(a.observed_at_ms) and scope.covers_topic(a.topic)
            ],
            replication=replication_highlights(
                scoped_under_replicated(tables["under_replicated"], scope),
                scoped_churn(tables["isr_churn"], scope),
            ),
            broker_downtime=downtime(
                b
                for b in brokers
                if scope.overlaps(b.state_from_ms, b.state_to_ms) and scope.involves([b.broker])
            ),
            moves=[
                Reassignment.from_row(r.asDict())
                for r in collect_ms(
                    scoped_reassignments(tables["reassignments"], scope)
                    .orderBy("started", "topic", "partition")
                    .limit(HISTORY_SHOWN)
                )
            ],
            topics=topic_changes(
                t
                for t in topics
                if scope.overlaps(t.first_seen_ms, t.deleted_ms) and scope.covers_topic(t.topic)
            ),
        )
        directory = report_dir(ctx, cluster.name, options)
        write_files(directory, report_files(data))
        report.notes.append(f"report written to {directory}")
        fail_on: FailOn | None = (options or {}).get("fail_on")
        if fail_on is not None:
            report.findings.extend(alert_findings(data, fail_on))
        location = f"{directory}/report.html"
        if (options or {}).get("format") == "json":
            findings = None if fail_on is None else report.findings
            print(json_summary(data, location, findings), flush=True)
        else:
            print(console_summary(data, location), flush=True)
    finally:
        for frame in persisted:
            frame.unpersist()
    return report


def _listings(logged: DataFrame | None) -> list[LoggedRatio]:
    if logged is None:
        return []
    rows = logged.filter(F.size(F.col("not_preferred")) > 0).collect()
    return [
        LoggedRatio(
            int(r["time_ms"]),
            r["controller_id"],
            int(r["broker"]),
            float(r["ratio"]),
            r["evidence"],
            int(r["check_ms"]),
            tuple(r["not_preferred"]),
        )
        for r in rows
    ]


_UNCLEAN_AS_IS = (
    "cluster",
    "topic",
    "day",
    "controller_id",
    "controller_epoch",
    "trigger",
    "prev_leader",
    "leader_epoch",
    "unclean_setting",
    "unclean_setting_source",
    "exposure_seconds",
    "exposure_source",
    "offline_seconds",
    "high_watermark",
    "new_leader_start_offset",
    "offsets_at_risk",
    "expected_leader",
    "agrees",
    "detail",
)
"""``UncleanRow`` fields read as they are from a ``gold.unclean_elections`` row."""
_UNCLEAN_LISTS = ("isr_before", "isr_after", "assignment", "live_brokers")
"""``UncleanRow`` fields read as tuples of ints."""


def _unclean_row(row: Mapping[str, Any]) -> UncleanRow:
    def ints(value: Any) -> tuple[int, ...] | None:
        return None if value is None else tuple(int(v) for v in value)

    as_is: dict[str, Any] = {name: row[name] for name in _UNCLEAN_AS_IS}
    lists: dict[str, Any] = {name: ints(row[name]) for name in _UNCLEAN_LISTS}
    return UncleanRow(
        **as_is,
        **lists,
        partition=int(row["partition"]),
        new_leader=int(row["new_leader"]),
        elected_at_ms=as_ms(row["elected_at"]),
        new_leader_left_isr_ms=as_ms(row["new_leader_left_isr_at"]),
        evidence=tuple(row["evidence"] or ()),
    )
