"""Builders for the ZooKeeper files the decoding tests write: stats, Kafka's znode JSON, logs;
and what the tests read back from a decoded tree."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable
from typing import Any

from kafkactl_core.model import LeaderAndIsr, TopicPartition
from kafkactl_core.zk import decode_znode
from kafkactl_core.zk.jute import Stat, TxnDigest, TxnHeader
from kafkactl_core.zk.state import ZkTree
from kafkactl_core.zk.znodes import PartitionStateRecord
from kafkactl_lab.zk_encode import TXNLOG_PADDING, NodeSpec, encode_txn_entry, txnlog_file_header

T0 = 1_700_000_000_000
"""The epoch ms the builders' times count from (a stat's ctime and mtime are ``T0 + zxid``)."""


def stat(zxid: int, version: int = 0, owner: int = 0, cversion: int = 0, pzxid: int = 0) -> Stat:
    """A znode's stat as one txn (``zxid``) left it; ``pzxid`` defaults to ``zxid``."""
    return Stat(zxid, zxid, T0 + zxid, T0 + zxid, version, cversion, 0, owner, pzxid or zxid)


def broker_json(broker: int) -> bytes:
    """A ``/brokers/ids/<broker>`` registration (host ``b<broker>``, one PLAINTEXT endpoint)."""
    return json.dumps(
        {
            "version": 5,
            "host": f"b{broker}",
            "port": 9092,
            "endpoints": [f"PLAINTEXT://b{broker}:9092"],
        }
    ).encode()


def partition_state_json(
    leader: int, epoch: int, isr: list[int], controller_epoch: int = 1, *, compact: bool = False
) -> bytes:
    """A partition's ``state`` znode, as ``json.dumps`` writes it (blanks after separators), or
    ``compact`` as Kafka writes it."""
    return json.dumps(
        {
            "controller_epoch": controller_epoch,
            "leader": leader,
            "version": 1,
            "leader_epoch": epoch,
            "isr": isr,
        },
        separators=(",", ":") if compact else None,
    ).encode()


def one_partition_topic(topic: str, assignment: bytes, state: bytes) -> list[NodeSpec]:
    """``/brokers/topics`` with ``topic`` (its ``assignment`` JSON) and partition 0 (``state``),
    created by zxids 3 to 7."""
    path = f"/brokers/topics/{topic}"
    return [
        NodeSpec("/brokers/topics", b"", stat(3, cversion=1)),
        NodeSpec(path, assignment, stat(4)),
        NodeSpec(path + "/partitions", b"", stat(5, cversion=1)),
        NodeSpec(path + "/partitions/0", b"", stat(6, cversion=1)),
        NodeSpec(path + "/partitions/0/state", state, stat(7)),
    ]


def txn_entry(
    session: int, cxid: int, zxid: int, time: int, op: int, record: Any, *, digest: bool = True
) -> bytes:
    """One encoded log entry, with the digest ZooKeeper 3.6+ writes (``TxnDigest(2, zxid)``)
    unless ``digest`` is false."""
    header = TxnHeader(session, cxid, zxid, time, op)
    return encode_txn_entry(header, record, TxnDigest(2, zxid) if digest else None)


def txnlog(entries: Iterable[bytes], padding: bytes = TXNLOG_PADDING) -> bytes:
    """A txn log file: the header, the encoded entries, then ``padding``."""
    return txnlog_file_header() + b"".join(entries) + padding


def partition_states(tree: ZkTree) -> dict[TopicPartition, LeaderAndIsr]:
    """Every partition's leader and ISR in a decoded tree, by topic partition."""
    decoded = {}
    for path in tree.nodes:
        if path.startswith("/brokers/topics/") and path.endswith("/state"):
            node = tree.get(path)
            assert node is not None
            record = decode_znode(path, node.data, zk_version=node.stat.version)
            assert isinstance(record, PartitionStateRecord)
            decoded[record.topic_partition] = record.leader_and_isr
    return decoded


def registered_brokers(tree: ZkTree) -> list[int]:
    """The brokers registered under ``/brokers/ids`` in a decoded tree, sorted."""
    return sorted(int(p.rsplit("/", 1)[1]) for p in tree.nodes if p.startswith("/brokers/ids/"))


def without_null_data(record: Any) -> Any:
    """A txn record with null data as empty data (ZooKeeper's text dumps print them alike)."""
    if not dataclasses.is_dataclass(record) or isinstance(record, type):
        return record
    changes: dict[str, Any] = {}
    for f in dataclasses.fields(record):
        value = getattr(record, f.name)
        if f.name == "data" and value is None:
            changes["data"] = b""
        elif isinstance(value, tuple) and value and dataclasses.is_dataclass(value[0]):
            changes[f.name] = tuple(without_null_data(v) for v in value)
        elif dataclasses.is_dataclass(value):
            changes[f.name] = without_null_data(value)
    return dataclasses.replace(record, **changes)
