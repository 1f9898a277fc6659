"""ZooKeeper tables: raw records (bronze), Kafka state per snapshot and its change stream."""

from __future__ import annotations

from pyspark.sql.types import (
    ArrayType,
    BinaryType,
    BooleanType,
    IntegerType,
    LongType,
    StringType,
    StructType,
    TimestampType,
)

from schemas.catalog import TableSpec, column

_CLUSTER = column("cluster", StringType(), "Cluster.", nullable=False)
_TOPIC = column("topic", StringType(), "Topic, for topic-scoped znodes.")
_PARTITION = column("partition", IntegerType(), "Partition, for partition state.")
_BROKER_ID = column("broker_id", IntegerType(), "Broker, for registrations and broker configs.")
_MALFORMED = column("malformed_reason", StringType(), "Why the value did not decode (else null).")
_RUN = column("run_id", StringType(), "Run that wrote it.", nullable=False)

_PARTITION_STATE = [
    column("leader", IntegerType(), "Partition state: leader broker (-1 none)."),
    column("leader_epoch", IntegerType(), "Partition state: leader epoch."),
    column("isr", ArrayType(IntegerType()), "Partition state: in-sync replicas, in order."),
    column("controller_epoch", IntegerType(), "Partition state: epoch of the writing controller."),
    column(
        "leader_recovery_state",
        IntegerType(),
        "Partition state: 0 RECOVERED, 1 RECOVERING (KIP-704).",
    ),
]

ZK_RECORDS = TableSpec(
    layer="bronze",
    name="zk_records",
    description="Every snapshot node and transaction of every ZooKeeper file, undecoded.",
    schema=StructType(
        [
            _CLUSTER,
            column(
                "file", StringType(), "ZooKeeper file the record was read from.", nullable=False
            ),
            column("content_sha256", StringType(), "SHA-256 of that file.", nullable=False),
            column("offset", LongType(), "Byte offset of the record (line, for text dumps)."),
            column(
                "kind",
                StringType(),
                "znode (snapshot), txn, or sub_txn (an op in a multi).",
            ),
            column("zxid", LongType(), "Transaction id; for a snapshot node, the snapshot's zxid."),
            column("time", TimestampType(), "Transaction time (UTC); a node: its mtime."),
            column("op", StringType(), "Operation: create, setData, delete, multi, closeSession…"),
            column("path", StringType(), "Znode path."),
            column("data", BinaryType(), "Znode data as written."),
            column("version", IntegerType(), "Data version written or expected."),
            column("session", LongType(), "Session id (txn) or ephemeral owner (node)."),
            column("cxid", IntegerType(), "Client transaction id."),
            column("multi_index", IntegerType(), "Position within a multi, for sub-operations."),
            column("detail", StringType(), "The rest of the record (stat, ACL, multi), as JSON."),
            column("run_id", StringType(), "Run that ingested it.", nullable=False),
        ]
    ),
)

ZK_STATE = TableSpec(
    layer="silver",
    name="zk_state",
    description="Kafka's cluster state as of each ZooKeeper snapshot, one row per Kafka znode.",
    schema=StructType(
        [
            _CLUSTER,
            column("file", StringType(), "Snapshot file.", nullable=False),
            column("snapshot_zxid", LongType(), "The snapshot's zxid."),
            column("path", StringType(), "Znode path.", nullable=False),
            column("kind", StringType(), "Kafka znode kind: broker, topic, partition_state…"),
            _TOPIC,
            _PARTITION,
            _BROKER_ID,
            column("czxid", LongType(), "Creation zxid (a broker registration's epoch)."),
            column("mzxid", LongType(), "Last-modification zxid."),
            column("ctime", TimestampType(), "Creation time (UTC)."),
            column("mtime", TimestampType(), "Last-modification time (UTC)."),
            column("data_version", IntegerType(), "Data version (a partition state's zkVersion)."),
            column("ephemeral_owner", LongType(), "Owning session of an ephemeral znode."),
            column("payload", StringType(), "The decoded value, as JSON."),
            _MALFORMED,
            *_PARTITION_STATE,
            _RUN,
        ]
    ),
)

ZK_CHANGES = TableSpec(
    layer="silver",
    name="zk_changes",
    description="Every Kafka-relevant ZooKeeper write, in zxid order, decoded, with time.",
    schema=StructType(
        [
            _CLUSTER,
            column("file", StringType(), "Transaction log file.", nullable=False),
            column("offset", LongType(), "Byte offset of the transaction."),
            column(
                "zxid", LongType(), "Transaction id: the total order of changes.", nullable=False
            ),
            column("time", TimestampType(), "When the leader stamped the transaction (UTC)."),
            column("session_id", LongType(), "Session that wrote it."),
            column("cxid", IntegerType(), "Client transaction id."),
            column("op", StringType(), "create, setData, delete, closeSession…"),
            column("multi_index", IntegerType(), "Position within a multi."),
            column("path", StringType(), "Znode path."),
            column("kind", StringType(), "Kafka znode kind."),
            _TOPIC,
            _PARTITION,
            _BROKER_ID,
            column("data_version", IntegerType(), "Resulting data version (zkVersion)."),
            column("payload", StringType(), "The new value, decoded, as JSON."),
            column("previous_payload", StringType(), "The value before, as JSON, when known."),
            _MALFORMED,
            column("cause", StringType(), "write, session_closed or session_expired."),
            column(
                "session_timeout", IntegerType(), "Negotiated timeout of a created session, ms."
            ),
            *_PARTITION_STATE,
            _RUN,
        ]
    ),
)

ZK_INGEST_STATS = TableSpec(
    layer="silver",
    name="zk_ingest_stats",
    description="Per ZooKeeper input file and run: what it was, records read, problems found.",
    schema=StructType(
        [
            _CLUSTER,
            column("file", StringType(), "Input file.", nullable=False),
            column("content_sha256", StringType(), "SHA-256 of the file."),
            column("kind", StringType(), "snapshot, txnlog, snapshot_dump, txnlog_dump or other."),
            column("size_bytes", LongType(), "File size."),
            column("records", LongType(), "Records read into bronze.zk_records."),
            column("first_zxid", LongType(), "First zxid in the file."),
            column("last_zxid", LongType(), "Last zxid in the file."),
            column("checksum_ok", BooleanType(), "Whether the file's checksums verified."),
            column("issues", ArrayType(StringType()), "Problems: 'offset N: kind: detail'."),
            column(
                "error", StringType(), "Why reading stopped early, or why the file was skipped."
            ),
            column("run_id", StringType(), "Run.", nullable=False),
            column("ingested_at", TimestampType(), "When (UTC).", nullable=False),
        ]
    ),
)

TABLES: tuple[TableSpec, ...] = (ZK_RECORDS, ZK_STATE, ZK_CHANGES, ZK_INGEST_STATS)
