"""The metadata log decoder against Kafka's own ``kafka-dump-log --cluster-metadata-decoder``.

Every KRaft capture of ``tests/fixtures/real-kafka`` holds a controller's ``__cluster_metadata-0``
segment, recorded from a real cluster, and the tool's dump of it. The decoder must read the same
batches (every header field the tool prints) and the same records, and every metadata and control
record must decode to the JSON object the tool prints (``tests.core.metadata_log_check``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.core.metadata_log_check import check_segment

CAPTURES = Path(__file__).resolve().parents[1] / "fixtures" / "real-kafka"
KRAFT = sorted(p for p in CAPTURES.glob("*-kraft") if (p / "metadata").is_dir())


@pytest.mark.parametrize("capture", KRAFT, ids=lambda p: p.name)
def test_segment_decodes_as_kafka_dump_log_prints_it(capture: Path) -> None:
    for segment in sorted((capture / "metadata").glob("*.log")):
        check_segment(segment, capture / "truth" / f"dump-{segment.name}.txt.gz")


def test_every_capture_set_is_checked() -> None:
    assert len(KRAFT) >= 6
