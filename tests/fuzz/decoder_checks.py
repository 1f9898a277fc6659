"""The checks run on each fuzzed binary input: ZooKeeper files, znodes, text dumps and KRaft
metadata log segments decode to values (never an exception), in memory bounded by the input.
"""

from __future__ import annotations

import io
import tracemalloc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

from kafkactl_core.metadata_log.payloads import decode
from kafkactl_core.metadata_log.segments import scan
from kafkactl_core.zk import decode_znode, parse_snapshot_dump, parse_txnlog_dump
from kafkactl_core.zk.snapshot import read_snapshot
from kafkactl_core.zk.txnlog import read_txnlog

T = TypeVar("T")

MEMORY_PER_BYTE = 64
"""Peak Python allocation allowed per input byte, beyond ``MEMORY_BASE``: decoded values are
objects (a four-byte int in a file is a 28-byte ``int``, a record several of them)."""
MEMORY_BASE = 8 << 20
"""The constant part of the bound: read chunks (1 MiB, held by the file, the gzip or snappy
stream and the decoder at once), compiled decoders, caches."""
KRAFT_MEMORY_PER_BYTE = 1024
"""A compressed batch may inflate to ``batches.MAX_EXPANSION`` (256) times its size, held twice
while it grows: the metadata log's bound per input byte."""

ZNODE_PATHS = (
    "/brokers/ids/1", "/brokers/topics/t", "/brokers/topics/t/partitions/0/state",
    "/controller", "/controller_epoch", "/config/topics/t", "/config/brokers/1",
    "/config/changes/config_change_0000000001", "/admin/reassign_partitions",
    "/admin/preferred_replica_election", "/admin/delete_topics/t",
    "/isr_change_notification/isr_change_0000000001",
    "/log_dir_event_notification/log_dir_event_0000000001", "/cluster/id", "/feature",
    "/brokers/seqid", "/kafka/brokers/ids/2",
)  # fmt: skip
"""A path of every Kafka znode kind (and one under a chroot)."""


@contextmanager
def _traced() -> Iterator[list[int]]:
    peak: list[int] = []
    tracemalloc.start()
    try:
        yield peak
        peak.append(tracemalloc.get_traced_memory()[1])
    finally:
        tracemalloc.stop()


def bounded(size: int, work: Callable[[], T], per_byte: int = MEMORY_PER_BYTE) -> T:
    """Run ``work`` on an input of ``size`` bytes; assert its peak allocation is bounded.

    Args:
        size: the input's size.
        work: decodes it (and drops nothing the caller will not keep).
        per_byte: the allocation allowed per input byte beyond ``MEMORY_BASE``.

    Returns:
        What ``work`` returned.
    """
    with _traced() as peak:
        result = work()
    limit = MEMORY_BASE + per_byte * size
    assert peak[0] < limit, f"peak allocation {peak[0]} bytes for {size} input bytes"
    return result


def _zk_snapshot(data: bytes) -> int:
    reader = read_snapshot(io.BytesIO(data), "snapshot.1c")
    nodes = 0
    for node in reader:
        decode_znode(node.path, node.data, zk_version=node.stat.version)
        nodes += 1
    summary = reader.summary
    assert summary.nodes == nodes
    assert all(issue.file == "snapshot.1c" and "\n" not in str(issue) for issue in summary.issues)
    return nodes


def check_zk_snapshot(data: bytes) -> None:
    """Any bytes as a snapshot: nodes and issues, each node's Kafka znode decoded too."""
    bounded(len(data), lambda: _zk_snapshot(data))


def _zk_txnlog(data: bytes) -> int:
    reader = read_txnlog(io.BytesIO(data), "log.1")
    entries = sum(1 for _ in reader)
    summary = reader.summary
    assert summary.entries == entries
    assert all(issue.file == "log.1" and "\n" not in str(issue) for issue in summary.issues)
    return entries


def check_zk_txnlog(data: bytes) -> None:
    """Any bytes as a transaction log: entries and issues."""
    bounded(len(data), lambda: _zk_txnlog(data))


def check_znode(path: str, data: bytes) -> None:
    """Any bytes as the payload of a Kafka znode: a record, a malformed one, or None."""
    bounded(len(data), lambda: decode_znode(path, data, zk_version=0, czxid=1))


def check_text_dumps(data: bytes) -> None:
    """Any text as ``SnapshotFormatter`` and ``TxnLogToolkit`` output: values, never raising."""
    text = data.decode("utf-8", errors="replace")
    bounded(len(data), lambda: (parse_snapshot_dump(text), parse_txnlog_dump(text)))


def _kraft(data: bytes) -> int:
    result = scan(data)
    records = 0
    for batch in result.batches:
        for record in batch.records:
            decode(record, control=batch.is_control)
            records += 1
    assert result.end <= len(data)
    positions = [problem.position for problem in result.problems]
    assert positions == sorted(positions) and all(0 <= p <= len(data) for p in positions)
    return records


def check_kraft(data: bytes) -> None:
    """Any bytes as a metadata log segment: batches, each record decoded, and problems."""
    bounded(len(data), lambda: _kraft(data), KRAFT_MEMORY_PER_BYTE)
