"""ZooKeeper and KRaft decoders on arbitrary bytes and on mutated real files.

``tests/core/test_zk_fuzz.py`` damages a small encoded snapshot and log,
``tests/core/test_metadata_log_damage.py`` scans up to 400 random bytes: here the inputs are
arbitrary bytes of any size and the repository's real files (ZooKeeper 3.8, Kafka's metadata
logs under every codec, real captures) mutated, every decoded znode and metadata record
decoded further, with memory bounded by the input's size (``decoder_checks.bounded``).
"""

from __future__ import annotations

import gzip

from hypothesis import given
from hypothesis import strategies as st

from tests.fuzz.budget import FUZZ, scaled
from tests.fuzz.corpus import binary_seeds, mutated
from tests.fuzz.decoder_checks import (
    ZNODE_PATHS,
    check_kraft,
    check_text_dumps,
    check_zk_snapshot,
    check_zk_txnlog,
    check_znode,
)

ZK_SNAPSHOTS = binary_seeds("zk/real-3.8/snapshot.[0-9a-f]*[0-9a-f]")
ZK_LOGS = binary_seeds("zk/real-3.8/log.[0-9a-f]*[0-9a-f]")
ZK_DUMPS = binary_seeds("zk/**/*.txt")
KRAFT_SEGMENTS = binary_seeds("kraft-codecs/*/*.log") + binary_seeds("real-kafka/*/metadata/*.log")
JSONISH = st.from_regex(
    rb'\A\{"version":[0-9],"(leader|isr|partitions|brokers|epoch)":[-0-9\[\],{}"a-z:]*\}?\Z'
)
"""Bytes that start like a Kafka znode's JSON and go wrong in its values."""


def _hostile(seeds: tuple[bytes, ...]) -> st.SearchStrategy[bytes]:
    assert seeds, "fixture files missing"
    return st.one_of(
        st.binary(max_size=4096),
        st.sampled_from(seeds).flatmap(lambda seed: mutated(seed, 8)),
        st.sampled_from(seeds).map(lambda seed: seed[: len(seed) // 2] * 2),
    )


compressed_snapshots = st.tuples(
    st.sampled_from(ZK_SNAPSHOTS).flatmap(lambda seed: mutated(seed, 4)).map(gzip.compress),
    st.integers(0, 1 << 16),
).map(lambda pair: pair[0][: pair[1]])
"""A mutated snapshot gzip-compressed (as ``snapshot.<zxid>.gz``), possibly cut short."""


@FUZZ
@given(st.one_of(_hostile(ZK_SNAPSHOTS), compressed_snapshots))
def test_any_bytes_as_a_zookeeper_snapshot(data: bytes) -> None:
    check_zk_snapshot(data)


@FUZZ
@given(_hostile(ZK_LOGS))
def test_any_bytes_as_a_zookeeper_transaction_log(data: bytes) -> None:
    check_zk_txnlog(data)


@FUZZ
@given(path=st.sampled_from(ZNODE_PATHS), data=st.one_of(st.binary(max_size=512), JSONISH))
def test_any_bytes_as_a_kafka_znode(path: str, data: bytes) -> None:
    check_znode(path, data)


@FUZZ
@given(_hostile(ZK_DUMPS))
def test_any_text_as_a_zookeeper_dump(data: bytes) -> None:
    check_text_dumps(data)


@scaled(0.5)
@given(_hostile(KRAFT_SEGMENTS))
def test_any_bytes_as_a_metadata_log_segment(data: bytes) -> None:
    check_kraft(data)
