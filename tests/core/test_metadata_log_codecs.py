"""The metadata log decoder on segments Kafka's own classes wrote, one per compression codec.

``tests/fixtures/kraft-codecs/<codec>/`` holds a segment written by Kafka 4.1.1's
``MetadataRecordSerde`` and ``MemoryRecordsBuilder`` with every batch compressed by that codec
(most metadata record types and versions, KRaft control batches, a transactional batch with
headers) and ``kafka-dump-log --cluster-metadata-decoder``'s dump of it; ``python -m
kafkactl_lab.metadata_log_java fixtures`` regenerates them. The decoder must read each as the
tool does (``tests.core.metadata_log_check``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kafkactl_core.metadata_log.batches import Compression
from kafkactl_core.metadata_log.payloads import Payload, decode
from tests.core.metadata_log_check import check_segment

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "kraft-codecs"
SEGMENT = "00000000000000000000.log"


@pytest.mark.parametrize("codec", list(Compression), ids=lambda c: c.name)
def test_segment_of_every_codec_decodes_as_kafka_dump_log_prints_it(codec: Compression) -> None:
    folder = FIXTURES / codec.name
    batches = check_segment(folder / SEGMENT, folder / f"dump-{SEGMENT}.txt.gz")
    assert {b.compression for b in batches} == {codec}
    assert any(b.is_control for b in batches)
    assert any(b.is_transactional for b in batches)


def test_the_codec_segments_hold_the_same_records() -> None:
    def payloads(codec: Compression) -> list[Payload]:
        batches = check_segment(
            FIXTURES / codec.name / SEGMENT, FIXTURES / codec.name / f"dump-{SEGMENT}.txt.gz"
        )
        return [decode(r, control=b.is_control) for b in batches for r in b.records]

    plain = payloads(Compression.none)
    assert len({p.type for p in plain}) >= 20
    for codec in list(Compression)[1:]:
        assert payloads(codec) == plain
