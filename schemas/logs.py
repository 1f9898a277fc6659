"""Tables of the log ingestion (``ingest-logs``): raw records, typed events, quarantine, statistics.

* ``bronze.log_records``: every record read from a Kafka log file, raw, with where it came from;
* ``silver.controller_events``: one typed row per record a grammar entry recognised as an event;
  its event columns are derived from ``kafkactl_core.grammars.EVENT_FIELDS`` (``event_columns``);
* ``silver.quarantine``: every record no grammar recognised or that failed validation, with why;
* ``silver.broker_configs``: one row per configuration key a broker printed (its ``KafkaConfig
  values`` at start, a topic's properties when it created a partition's log);
* ``silver.ingest_stats``: one row per file and run, the accounting of what happened to its lines.

Records recognised as carrying nothing the audit uses (thread lifecycle, server.log noise, ...) are
counted in ``ingest_stats`` and kept in bronze; they are neither events nor quarantined.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from pyspark.sql.types import (
    ArrayType,
    BooleanType,
    DataType,
    DoubleType,
    LongType,
    MapType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)

from kafkactl_core.grammars import EVENT_FIELDS, FieldType
from schemas.catalog import TableSpec, column

__all__ = [
    "BROKER_CONFIGS",
    "CONTROLLER_EVENTS",
    "EVENT_FIELD_COMMENTS",
    "INGEST_STATS",
    "LOG_RECORDS",
    "QUARANTINE",
    "TABLES",
    "event_columns",
    "spark_type",
]

EVENT_FIELD_COMMENTS: Mapping[str, str] = MappingProxyType(
    {
        "origin_broker": "Node id that wrote the line (its prefix: [Controller id=1], ...).",
        "controller_id": "Controller that acted.",
        "controller_epoch": "ZooKeeper controller epoch (KRaft: raft epoch).",
        "controller_epoch_zk_version": "Version of the /controller_epoch znode.",
        "previous_controller_epoch": "Epoch a KRaft controller was leader at before renouncing.",
        "topic": "Topic the event is about.",
        "partition": "Partition number the event is about.",
        "topic_id": "Topic id (2.8+, KRaft).",
        "replica": "Replica (broker id) the event is about.",
        "broker": "Broker the event is about (shut down, fenced, request target, ...).",
        "partitions": "Partitions as rendered (t-p or [t,p]).",
        "topics": "Topic names the line lists.",
        "deleted_topics": "Deleted topic names the line lists.",
        "from_state": "State machine state before the transition.",
        "to_state": "State machine state after the transition.",
        "leader": "Partition leader (-1: none).",
        "previous_leader": "Leader before the change.",
        "leader_epoch": "Leader epoch.",
        "previous_leader_epoch": "Leader epoch before the change.",
        "isr": "In-sync replicas, in the order logged.",
        "previous_isr": "ISR before the change.",
        "zk_version": "LeaderAndIsr zkVersion (znode version of the partition state).",
        "partition_epoch": "Partition epoch (3.3+, KRaft).",
        "state_controller_epoch": "ControllerEpoch inside a (Leader:..,ControllerEpoch:N) state.",
        "leader_recovery_state": "RECOVERED or RECOVERING (3.2+).",
        "replicas": "Assigned replicas.",
        "adding_replicas": "Replicas being added by a reassignment.",
        "removing_replicas": "Replicas being removed by a reassignment.",
        "brokers": "Broker ids the line lists.",
        "added_brokers": "Brokers added.",
        "deleted_brokers": "Brokers removed.",
        "bounced_brokers": "Brokers that restarted.",
        "live_brokers": "Live brokers.",
        "ratio": "Leader imbalance ratio.",
        "election_type": "PREFERRED or UNCLEAN.",
        "trigger": "What triggered the election or rebalance.",
        "strategy": "Leader election strategy as rendered.",
        "correlation_id": "Request correlation id.",
        "api": "Request API the line names (LEADER_AND_ISR, UPDATE_METADATA, ...).",
        "role": "become-leader / become-follower / leader / follower.",
        "phase": "Step of a multi-line procedure (start, completed, ...).",
        "delete_partitions": "StopReplica delete flag.",
        "count": "Number of partitions, replicas or records an aggregate line reports.",
        "become_leader_count": "Partitions a LeaderAndIsr summary makes leaders.",
        "become_follower_count": "Partitions a LeaderAndIsr summary makes followers.",
        "deleted_count": "Partitions deleted (UpdateMetadata summary).",
        "elapsed_ms": "Elapsed milliseconds the line reports.",
        "duration_us": "Duration in microseconds the line reports.",
        "start_offset": "Leader epoch start offset, or follower end offset.",
        "high_watermark": "High watermark.",
        "end_offset": "Leader log end offset (Shrinking ISR).",
        "offset": "KRaft log offset.",
        "broker_epoch": "Broker epoch.",
        "error": "Error code or exception class the line names.",
        "detail": "Remainder kept as rendered (event name, reason, KRaft diff, ...).",
    }
)
"""One comment per event field (a test checks there is one for every ``EVENT_FIELDS`` name)."""


def spark_type(field_type: FieldType) -> DataType:
    """The Spark type of a grammar field type (64-bit integers, doubles, arrays for lists).

    Args:
        field_type: the field's type in ``EVENT_FIELDS``.

    Returns:
        The Spark type its column has.
    """
    return {
        FieldType.STR: StringType(),
        FieldType.INT: LongType(),
        FieldType.FLOAT: DoubleType(),
        FieldType.BOOL: BooleanType(),
        FieldType.INT_LIST: ArrayType(LongType()),
        FieldType.STR_LIST: ArrayType(StringType()),
    }[field_type]


def event_columns() -> list[StructField]:
    """The event columns of ``silver.controller_events``: one per ``EVENT_FIELDS`` entry, in order.

    Returns:
        The columns, typed by ``spark_type``.
    """
    return [
        column(name, spark_type(kind), EVENT_FIELD_COMMENTS[name])
        for name, kind in EVENT_FIELDS.items()
    ]


_CLUSTER = column("cluster", StringType(), "Cluster the record belongs to.", nullable=False)
_RUN = column("run_id", StringType(), "Run that ingested it.", nullable=False)
_FILE = column("file", StringType(), "Path the record was read from.", nullable=False)
_SHA = column(
    "content_sha256",
    StringType(),
    "SHA-256 of the file's bytes when it was read (decompressed bytes for .gz).",
    nullable=False,
)
_FIRST_LINE = column(
    "first_line", LongType(), "1-based number of the record's first physical line.", nullable=False
)
_BYTE_OFFSET = column(
    "byte_offset",
    LongType(),
    "Offset of the record's first byte in the (decompressed) file.",
    nullable=False,
)
_LINE_COUNT = column("line_count", LongType(), "Physical lines the record spans.", nullable=False)
_INVALID_UTF8 = column(
    "invalid_utf8",
    BooleanType(),
    "Some line was not valid UTF-8 (decoded with U+FFFD replacement characters).",
    nullable=False,
)
_TRUNCATED = column(
    "truncated",
    BooleanType(),
    "The record's last line had no line terminator (a file cut while being written).",
    nullable=False,
)
_TEXT = column(
    "text",
    StringType(),
    "The record's physical lines, terminators removed, joined with a newline.",
    nullable=False,
)

LOG_RECORDS = TableSpec(
    layer="bronze",
    name="log_records",
    description="Every record read from a Kafka log file, raw, with its file, lines and bytes.",
    schema=StructType(
        [
            _CLUSTER,
            _FILE,
            _SHA,
            column(
                "file_kind",
                StringType(),
                "controller, state-change, server or other (from the file name).",
                nullable=False,
            ),
            _FIRST_LINE,
            _LINE_COUNT,
            _BYTE_OFFSET,
            column(
                "byte_length",
                LongType(),
                "Bytes the record spans, line terminators included.",
                nullable=False,
            ),
            column(
                "origin_broker",
                LongType(),
                "Node that wrote the record, when its text says (the id in its prefix).",
            ),
            column(
                "status",
                StringType(),
                "What silver made of it: parsed, ignored or quarantined.",
                nullable=False,
            ),
            _TEXT,
            _INVALID_UTF8,
            _TRUNCATED,
            column(
                "orphan_reason",
                StringType(),
                "Why the lines belong to no record (before_first_record, continuation_overflow).",
            ),
            _RUN,
        ]
    ),
)

CONTROLLER_EVENTS = TableSpec(
    layer="silver",
    name="controller_events",
    description="One typed row per log record a grammar recognised as a controller event.",
    schema=StructType(
        [
            _CLUSTER,
            column("event_type", StringType(), "What the record says happened.", nullable=False),
            column(
                "grammar",
                StringType(),
                "Grammar entry (family/variant) that recognised it.",
                nullable=False,
            ),
            column(
                "log_time",
                TimestampType(),
                "The record's timestamp, read in the cluster's time zone, stored as UTC.",
            ),
            column("log_time_text", StringType(), "The timestamp as written in the log."),
            column("level", StringType(), "Log level (INFO, TRACE, ...)."),
            column("logger", StringType(), "Logger name (kafka.controller.KafkaController, ...)."),
            column("thread", StringType(), "Thread name, when the layout has one."),
            _FILE,
            _FIRST_LINE,
            _LINE_COUNT,
            column(
                "evidence", StringType(), "Where to read it: <file>:<first line>.", nullable=False
            ),
            *event_columns(),
            column(
                "version_conflict",
                BooleanType(),
                "The grammar's Kafka release range misses the cluster's configured release (or, "
                "with kafka_version auto, the range inferred for its file).",
                nullable=False,
            ),
            _RUN,
        ]
    ),
)

QUARANTINE = TableSpec(
    layer="silver",
    name="quarantine",
    description="Every log record no grammar recognised or that failed validation, with why.",
    schema=StructType(
        [
            _CLUSTER,
            _FILE,
            _SHA,
            _FIRST_LINE,
            _LINE_COUNT,
            _BYTE_OFFSET,
            column(
                "reason",
                StringType(),
                "no_grammar, orphan_continuation, invalid_utf8, bad_timestamp, missing_tail, "
                "truncated_record, field_conversion: <field>.",
                nullable=False,
            ),
            column(
                "detail",
                StringType(),
                "More context: the logger, orphan reason, grammar and value that failed, ...",
            ),
            column(
                "grammar", StringType(), "The grammar entry that matched but failed to convert."
            ),
            column("level", StringType(), "Log level, when the record has a readable head."),
            column("logger", StringType(), "Logger name, when the record has a readable tail."),
            column("log_time_text", StringType(), "The timestamp as written, when readable."),
            _TEXT,
            _INVALID_UTF8,
            _TRUNCATED,
            _RUN,
        ]
    ),
)

BROKER_CONFIGS = TableSpec(
    layer="silver",
    name="broker_configs",
    description="One row per configuration key a broker printed in its log (static config at "
    "start, a topic's properties when it created a partition's log).",
    schema=StructType(
        [
            _CLUSTER,
            column(
                "broker",
                LongType(),
                "Node that printed it: the block's broker.id (node.id in KRaft); null for a "
                "Created-log line (the file's kafka_config rows name its broker).",
            ),
            column(
                "scope",
                StringType(),
                "broker (a KafkaConfig block: the node's static config) or topic (a Created-log "
                "line: the topic's properties).",
                nullable=False,
            ),
            column("name", StringType(), "The broker id as text, or the topic."),
            column("key", StringType(), "Config key.", nullable=False),
            column(
                "value",
                StringType(),
                "Value as printed (null, [], [hidden] for the secrets Kafka hides).",
                nullable=False,
            ),
            column(
                "logged_at",
                TimestampType(),
                "The record's timestamp, read in the cluster's time zone, stored as UTC.",
            ),
            column(
                "source_kind",
                StringType(),
                "kafka_config (KafkaConfig values:), log_created (Created log for partition: the "
                "topic's overrides) or log_created_effective (older releases: the topic's whole "
                "effective config, broker defaults included).",
                nullable=False,
            ),
            _FILE,
            column(
                "line",
                LongType(),
                "1-based number of the key's own line in the file.",
                nullable=False,
            ),
            _RUN,
        ]
    ),
)

_COUNTS = MapType(StringType(), LongType())

INGEST_STATS = TableSpec(
    layer="silver",
    name="ingest_stats",
    description="Per log file and run: lines and records in, and what became of them.",
    schema=StructType(
        [
            _CLUSTER,
            _RUN,
            _FILE,
            _SHA,
            column("file_kind", StringType(), "controller, state-change, server or other."),
            column("compressed", BooleanType(), "Read through gzip.", nullable=False),
            column(
                "size_bytes",
                LongType(),
                "The file's (decompressed) size when read; for a damaged file, the bytes read.",
                nullable=False,
            ),
            column(
                "bytes_read", LongType(), "Bytes ingested by this run (new bytes).", nullable=False
            ),
            column(
                "resumed_from_byte",
                LongType(),
                "Byte where this run resumed a file ingested before (it grew), else null.",
            ),
            column(
                "resumed_from_line", LongType(), "First line number ingested when resuming, else 1."
            ),
            column(
                "physical_lines",
                LongType(),
                "Physical lines ingested by this run (equals the sum of line_count in bronze).",
                nullable=False,
            ),
            column("records", LongType(), "Records cut from those lines.", nullable=False),
            column("parsed", LongType(), "Records that became events.", nullable=False),
            column(
                "ignored", LongType(), "Records recognised as carrying nothing.", nullable=False
            ),
            column("quarantined", LongType(), "Records quarantined.", nullable=False),
            column("events_by_type", _COUNTS, "Parsed records per event type.", nullable=False),
            column(
                "ignored_by_family", _COUNTS, "Ignored records per ignored family.", nullable=False
            ),
            column(
                "quarantined_by_reason", _COUNTS, "Quarantined records per reason.", nullable=False
            ),
            column(
                "layout",
                StringType(),
                "log4j PatternLayout the file was read with (how it was chosen in layout_source).",
            ),
            column(
                "layout_source",
                StringType(),
                "config, detected (auto, from the file's first lines) or fallback (auto found no "
                "known layout: the Kafka default was used, so most lines are quarantined).",
            ),
            column(
                "version_hint",
                StringType(),
                "The configured kafka_version the grammars were tried with, null for auto.",
            ),
            column(
                "inferred_versions",
                StringType(),
                "Kafka release range inferred from the grammar variants the file matched.",
            ),
            column("inferred_mode", StringType(), "zk, kraft or any, inferred alike."),
            column(
                "version_evidence",
                ArrayType(StringType()),
                "Grammar variants that narrow the inferred range: 'name [since, before) xN'.",
            ),
            column(
                "version_conflicts",
                ArrayType(StringType()),
                "Matched variants whose range misses the inferred one (upgrade, mixed files).",
            ),
            column(
                "error",
                StringType(),
                "A problem reading the file (gz cut short, read error); the bytes before it are "
                "ingested.",
            ),
            column(
                "ingested_at", TimestampType(), "When this run read the file (UTC).", nullable=False
            ),
        ]
    ),
)

TABLES: tuple[TableSpec, ...] = (
    LOG_RECORDS,
    CONTROLLER_EVENTS,
    QUARANTINE,
    BROKER_CONFIGS,
    INGEST_STATS,
)
