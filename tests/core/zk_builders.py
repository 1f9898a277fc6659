"""Builders for the ZooKeeper files the decoding tests write: stats, Kafka's znode JSON, logs."""

from __future__ import annotations

import json
from collections.abc import Iterable

from kafkactl_core.zk.jute import Stat
from kafkactl_lab.zk_encode import TXNLOG_PADDING, txnlog_file_header

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
    leader: int, epoch: int, isr: list[int], controller_epoch: int = 1
) -> bytes:
    """A partition's ``state`` znode, as ``json.dumps`` writes it (blanks after separators)."""
    return json.dumps(
        {
            "controller_epoch": controller_epoch,
            "leader": leader,
            "version": 1,
            "leader_epoch": epoch,
            "isr": isr,
        }
    ).encode()


def txnlog(entries: Iterable[bytes], padding: bytes = TXNLOG_PADDING) -> bytes:
    """A txn log file: the header, the encoded entries, then ``padding``."""
    return txnlog_file_header() + b"".join(entries) + padding
