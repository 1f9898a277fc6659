"""``tests.real_kafka.truth`` on hand-made writes: which writes are elections, which unclean."""

from __future__ import annotations

from tests.real_kafka.truth import StateWrite, Truth


def _write(zxid: int, leader: int, epoch: int, isr: tuple[int, ...]) -> StateWrite:
    return StateWrite(zxid, zxid * 1000, "t", 0, leader, epoch, isr, 1)


def test_elections_and_verdicts() -> None:
    truth = Truth(
        [
            _write(1, 1, 0, (1, 2)),  # creation: an election
            _write(2, 1, 1, (1,)),  # ISR shrink, same leader: no election
            _write(3, -1, 2, (1,)),  # offline
            _write(4, 2, 3, (2,)),  # 2 was not in the ISR (1,): unclean
            _write(5, 1, 4, (1, 2)),  # 1 in the ISR (2,)? no: unclean
            _write(6, 2, 5, (2,)),  # 2 in (1, 2): clean
        ],
        [],
        [],
    )
    found = [(e.write.zxid, e.write.leader, e.unclean) for e in truth.elections()]
    assert found == [(1, 1, False), (4, 2, True), (5, 1, True), (6, 2, False)]
    assert [w.zxid for w in truth.offline_writes()] == [3]


def test_a_deletion_takes_no_partition_offline() -> None:
    writes = [_write(1, 1, 0, (1, 2)), _write(3, -1, 1, (2,))]
    assert [w.zxid for w in Truth(writes, [], []).offline_writes()] == [3]
    assert Truth(writes, [], [], {"t": 2}).offline_writes() == []
