"""The metadata log decoder against Kafka's own ``kafka-dump-log --cluster-metadata-decoder``.

Every KRaft capture of ``tests/fixtures/real-kafka`` holds a controller's ``__cluster_metadata-0``
segments (``<base offset>.log``) and snapshots (``<end offset>-<epoch>.checkpoint``), recorded
from a real cluster, and the tool's dump of each file. The decoder must read the same batches
(every header field the tool prints) and the same records, and every metadata and control record
(a snapshot's ``SnapshotHeader`` and ``SnapshotFooter`` among them) must decode to the JSON object
the tool prints (``tests.core.metadata_log_check``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kafkactl_core.metadata_log.payloads import decode
from kafkactl_core.metadata_log.segments import SEGMENT, SNAPSHOT, kind_of, scan
from tests.core.metadata_log_check import check_segment
from tests.real_kafka.kraft_dump import dump_lines, snapshot_id

CAPTURES = Path(__file__).resolve().parents[1] / "fixtures" / "real-kafka"
KRAFT = sorted(p for p in CAPTURES.glob("*-kraft") if (p / "metadata").is_dir())
FILES = sorted(f for c in KRAFT for f in (c / "metadata").iterdir() if kind_of(f.name).kind)
"""Every segment and snapshot of every KRaft capture."""


def _dump(path: Path) -> Path:
    return path.parents[1] / "truth" / f"dump-{path.name}.txt.gz"


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parents[1].name}/{p.name}")
def test_file_decodes_as_kafka_dump_log_prints_it(path: Path) -> None:
    batches = check_segment(path, _dump(path))
    kind = kind_of(path.name)
    named = snapshot_id(dump_lines(_dump(path)))
    if kind.kind == SEGMENT:
        assert named is None
        assert batches[0].base_offset == kind.base_offset
        return
    # a snapshot: the id the tool prints is the file's; the state sits between a header and a
    # footer control batch, its records numbered from 0 (not the log's offsets)
    assert kind.kind == SNAPSHOT and named == (kind.base_offset, kind.epoch)
    assert batches[0].base_offset == 0
    assert all(b.partition_leader_epoch == kind.epoch for b in batches)
    first, last = batches[0], batches[-1]
    assert first.is_control and last.is_control
    assert not any(b.is_control for b in batches[1:-1])
    assert [decode(r, control=True).type for r in first.records] == ["SnapshotHeader"]
    assert [decode(r, control=True).type for r in last.records] == ["SnapshotFooter"]


@pytest.mark.parametrize("capture", KRAFT, ids=lambda p: p.name)
def test_segments_chain_and_snapshots_end_at_a_batch(capture: Path) -> None:
    """The segments hold one log from offset 0 without a gap; a snapshot's end offset is the
    end of a log batch, and its header's last contained log timestamp is that batch's time."""
    ends: dict[int, int] = {}  # a batch's end offset (exclusive) -> its time
    next_offset = 0
    for segment in sorted((capture / "metadata").glob("*.log")):
        batches = scan(segment.read_bytes()).batches
        assert batches[0].base_offset == next_offset, segment.name
        for batch in batches:
            assert batch.base_offset == next_offset
            next_offset = batch.last_offset + 1
            ends[next_offset] = batch.max_timestamp
    for snapshot in sorted((capture / "metadata").glob("*.checkpoint")):
        end = kind_of(snapshot.name).base_offset
        assert end in ends, snapshot.name
        header = decode(scan(snapshot.read_bytes()).batches[0].records[0], control=True)
        assert header.data is not None
        assert header.data["lastContainedLogTimestamp"] == ends[end], snapshot.name


def test_every_capture_set_is_checked() -> None:
    assert len(KRAFT) >= 6
    for capture in KRAFT:  # a dump for every file, and no dump without its file
        dumps = {p.name for p in (capture / "truth").glob("dump-*")}
        assert dumps == {_dump(f).name for f in FILES if f.parents[1] == capture}, capture.name
    assert len([f for f in FILES if kind_of(f.name).kind == SNAPSHOT]) >= 1
    assert any(len(list((c / "metadata").glob("*.log"))) > 1 for c in KRAFT)
