"""KRaft metadata log tables: raw records (bronze), decoded changes and per-file stats (silver)."""

from __future__ import annotations

from pyspark.sql.types import (
    ArrayType,
    BinaryType,
    BooleanType,
    IntegerType,
    LongType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)

from schemas.catalog import TableSpec, column

_CLUSTER = column("cluster", StringType(), "Cluster.", nullable=False)
_FILE = column("file", StringType(), "Metadata log file the record was read from.", nullable=False)
_FILE_KIND = column(
    "file_kind",
    StringType(),
    "segment (<base offset>.log) or snapshot (<end offset>-<epoch>.checkpoint).",
)
_OFFSET = column("offset", LongType(), "The record's offset in the metadata log.", nullable=False)
_TIMESTAMP = column("timestamp", TimestampType(), "The record's timestamp (UTC).")
_EPOCH = column(
    "partition_leader_epoch",
    IntegerType(),
    "The batch's partition leader epoch: the raft epoch of the controller that wrote it.",
)
_RECORD_TYPE = column(
    "record_type",
    StringType(),
    "Record type as kafka-dump-log names it (PARTITION_CHANGE_RECORD, LeaderChange), or what "
    "could be read of an unknown one (api_key=N, control_type=N).",
)
_RECORD_VERSION = column("record_version", IntegerType(), "The record's version.")
_IDS = ArrayType(IntegerType())
_RUN = column("run_id", StringType(), "Run that ingested it.", nullable=False)

KRAFT_RECORDS = TableSpec(
    layer="bronze",
    name="kraft_records",
    description="Every record of every KRaft metadata log segment and snapshot, undecoded.",
    schema=StructType(
        [
            _CLUSTER,
            _FILE,
            _FILE_KIND,
            column("batch_position", LongType(), "Byte offset of the record's batch in the file."),
            column(
                "position",
                LongType(),
                "Byte offset of the record in the file (its batch's, when the batch is "
                "compressed).",
            ),
            column("base_offset", LongType(), "The batch's base offset."),
            _OFFSET,
            _EPOCH,
            column("is_control", BooleanType(), "Whether the batch is a control batch."),
            column("is_transactional", BooleanType(), "Whether the batch is transactional."),
            column("crc_valid", BooleanType(), "Whether the batch's CRC-32C matches its bytes."),
            _TIMESTAMP,
            _RECORD_TYPE,
            _RECORD_VERSION,
            column("key", BinaryType(), "The record's key, as stored."),
            column("value", BinaryType(), "The record's value, as stored."),
            column(
                "headers",
                ArrayType(
                    StructType(
                        [StructField("key", StringType()), StructField("value", BinaryType())]
                    )
                ),
                "The record's headers (metadata records have none).",
            ),
            _RUN,
        ]
    ),
)

KRAFT_CHANGES = TableSpec(
    layer="silver",
    name="kraft_changes",
    description=(
        "Every record of the KRaft metadata log, decoded, in offset order per file; a record "
        "that did not decode is kept with its problem."
    ),
    schema=StructType(
        [
            _CLUSTER,
            _FILE,
            _OFFSET,
            _TIMESTAMP,
            _EPOCH,
            column(
                "crc_valid",
                BooleanType(),
                "Whether the record's batch matches its CRC-32C (false: the bytes are damaged, "
                "the record decoded all the same).",
            ),
            column("kind", StringType(), "metadata or control."),
            _RECORD_TYPE,
            _RECORD_VERSION,
            column(
                "data_json",
                StringType(),
                "The decoded record, the JSON object kafka-dump-log --cluster-metadata-decoder "
                "prints (null when undecoded).",
            ),
            column("topic_id", StringType(), "Topic id (base64), for topic and partition records."),
            column(
                "topic",
                StringType(),
                "Topic name: a TopicRecord's own, a topic config's resource, else the name of "
                "the TopicRecord with this topic id in this or an earlier ingestion (null when "
                "none was ingested yet).",
            ),
            column("partition", IntegerType(), "Partition, for partition records."),
            column(
                "replicas",
                _IDS,
                "Replicas (PartitionRecord; a PartitionChangeRecord's when it changes them).",
            ),
            column("isr", _IDS, "In-sync replicas (null: a change record leaves them unchanged)."),
            column("eligible_leader_replicas", _IDS, "Eligible leader replicas (KIP-966)."),
            column("last_known_elr", _IDS, "Last known eligible leader replicas (KIP-966)."),
            column(
                "leader",
                IntegerType(),
                "Leader broker, -1 none (null: a change record leaves it unchanged).",
            ),
            column("leader_epoch", IntegerType(), "Leader epoch (PartitionRecord)."),
            column("partition_epoch", IntegerType(), "Partition epoch (PartitionRecord)."),
            column(
                "leader_recovery_state",
                IntegerType(),
                "0 RECOVERED, 1 RECOVERING (KIP-704); a PartitionRecord without it is 0.",
            ),
            column("removing_replicas", _IDS, "Replicas being removed by a reassignment."),
            column("adding_replicas", _IDS, "Replicas being added by a reassignment."),
            column("directories", ArrayType(StringType()), "Log directory id per replica."),
            column(
                "broker_id",
                IntegerType(),
                "Broker of a broker record (registration, fencing, producer ids) or of a "
                "broker config.",
            ),
            column("broker_epoch", LongType(), "Broker epoch of a broker record."),
            column(
                "fenced",
                BooleanType(),
                "Whether the broker is (becomes) fenced; null: the record leaves it unchanged.",
            ),
            column(
                "in_controlled_shutdown",
                BooleanType(),
                "Whether the broker is (becomes) in controlled shutdown; null: unchanged.",
            ),
            column(
                "config_resource_type",
                StringType(),
                "ConfigRecord: TOPIC, BROKER, BROKER_LOGGER, CLIENT_METRICS, GROUP, UNKNOWN.",
            ),
            column(
                "config_resource_name", StringType(), "ConfigRecord: resource ('' the default)."
            ),
            column("config_name", StringType(), "ConfigRecord: configuration name."),
            column("config_value", StringType(), "ConfigRecord: value (null: deleted)."),
            column("feature_name", StringType(), "FeatureLevelRecord: feature name."),
            column("feature_level", IntegerType(), "FeatureLevelRecord: level."),
            column("raft_leader_id", IntegerType(), "LeaderChange: the new raft leader."),
            column("voters", _IDS, "LeaderChange, KRaftVoters: the voter ids."),
            column(
                "problem",
                StringType(),
                "Why the record was not decoded (null when it was).",
            ),
            _RUN,
        ]
    ),
)

_PROBLEM = StructType(
    [
        StructField("position", LongType()),
        StructField("kind", StringType()),
        StructField("reason", StringType()),
        StructField("skipped", LongType()),
    ]
)
"""Nullable fields, as Parquet readers give them back (a cast to NOT NULL fields fails)."""

KRAFT_INGEST_STATS = TableSpec(
    layer="silver",
    name="kraft_ingest_stats",
    description="Per KRaft metadata log file and run: bytes read, batches, records, problems.",
    schema=StructType(
        [
            _CLUSTER,
            column("file", StringType(), "Input file.", nullable=False),
            _FILE_KIND,
            column("content_sha256", StringType(), "SHA-256 of the file as read."),
            column("size_bytes", LongType(), "File size as read."),
            column(
                "read_start",
                LongType(),
                "Where this read started: 0, or the read_end of the file's previous read when "
                "the file grew.",
            ),
            column(
                "read_end",
                LongType(),
                "Where the last whole batch read ends: the next read of a grown file starts there.",
            ),
            column("batches", LongType(), "Batches read."),
            column(
                "batch_bytes",
                LongType(),
                "Bytes of the batches read: size_bytes - read_start = batch_bytes + the "
                "problems' skipped bytes.",
            ),
            column("records", LongType(), "Records read: rows in bronze.kraft_records."),
            column("records_decoded", LongType(), "Records decoded."),
            column(
                "records_undecoded",
                LongType(),
                "Records kept undecoded (their problem in silver.kraft_changes).",
            ),
            column(
                "records_lost",
                LongType(),
                "Records the batch headers count but that could not be read (see problems).",
            ),
            column("crc_mismatches", LongType(), "Batches whose CRC-32C does not match."),
            column("first_offset", LongType(), "First offset read."),
            column("last_offset", LongType(), "Last offset read."),
            column(
                "problems",
                ArrayType(_PROBLEM),
                "Damage found, in file order: byte position, kind (unreadable, truncated, "
                "crc_mismatch, records, read_error), reason, bytes skipped.",
            ),
            column("run_id", StringType(), "Run.", nullable=False),
            column("ingested_at", TimestampType(), "When (UTC).", nullable=False),
        ]
    ),
)

TABLES: tuple[TableSpec, ...] = (KRAFT_RECORDS, KRAFT_CHANGES, KRAFT_INGEST_STATS)
