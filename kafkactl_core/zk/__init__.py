"""ZooKeeper dataDir decoding for kafkactl-audit: jute on-disk formats and Kafka's znodes.

Submodules: ``jute`` (records, op codes, bounded reader), ``snapshot`` and ``txnlog``
(streaming decoders of ``snapshot.<zxid>`` and ``log.<zxid>``), ``snappy`` (snappy-java
streams), ``files`` (dataDir names and sniffing), ``znodes`` (Kafka znode payloads as typed
records), ``state`` (Kafka state as of a snapshot, change stream from the logs, broker
liveness), ``records`` (raw bronze rows), ``datadir`` (a whole dataDir), ``textdump``
(ZooKeeper's ``SnapshotFormatter``/``TxnLogToolkit`` text output). The encoder that writes
valid files for fixtures and benchmarks is ``kafkactl_lab.zk_encode``. Pure Python: stdlib only.
The names below are the public API.
"""

from __future__ import annotations

from kafkactl_core.zk.datadir import DataDirReplay, DataDirResult, decode_datadir, find_data_files
from kafkactl_core.zk.jute import FileIssue, IssueKind, Limits, OpCode, Stat, TxnHeader, op_name
from kafkactl_core.zk.records import ZkRecord, snapshot_records, txn_records
from kafkactl_core.zk.snapshot import (
    Snapshot,
    SnapshotNode,
    SnapshotReader,
    SnapshotSummary,
    load_snapshot,
    read_snapshot,
)
from kafkactl_core.zk.state import (
    BrokerInterval,
    ChangeCause,
    KafkaReplay,
    ZkChange,
    ZkStateRow,
    ZkTree,
    broker_liveness,
    state_rows,
)
from kafkactl_core.zk.textdump import parse_snapshot_dump, parse_txnlog_dump
from kafkactl_core.zk.txnlog import (
    TxnEntry,
    TxnLogReader,
    TxnLogSummary,
    decode_txnlog,
    read_txnlog,
)
from kafkactl_core.zk.znodes import (
    KafkaZNode,
    MalformedZNode,
    ZNodeKind,
    classify_path,
    decode_znode,
    detect_chroot,
)

__all__ = [
    "BrokerInterval",
    "ChangeCause",
    "DataDirReplay",
    "DataDirResult",
    "FileIssue",
    "IssueKind",
    "KafkaReplay",
    "KafkaZNode",
    "Limits",
    "MalformedZNode",
    "OpCode",
    "Snapshot",
    "SnapshotNode",
    "SnapshotReader",
    "SnapshotSummary",
    "Stat",
    "TxnEntry",
    "TxnHeader",
    "TxnLogReader",
    "TxnLogSummary",
    "ZNodeKind",
    "ZkChange",
    "ZkRecord",
    "ZkStateRow",
    "ZkTree",
    "broker_liveness",
    "classify_path",
    "decode_datadir",
    "decode_txnlog",
    "decode_znode",
    "detect_chroot",
    "find_data_files",
    "load_snapshot",
    "op_name",
    "parse_snapshot_dump",
    "parse_txnlog_dump",
    "read_snapshot",
    "read_txnlog",
    "snapshot_records",
    "state_rows",
    "txn_records",
]
