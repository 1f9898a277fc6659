"""Hypothesis properties of the fold on generated partition histories.

A small simulator writes a true history (ISR shrinks and expands, clean and unclean elections,
failed elections that leave the partition offline) and renders each write into evidence from a
random subset of sources (ZooKeeper, state-change log, the new leader's server.log line, copies
sent to brokers), with clock skew on broker lines and duplicated copies. Whatever the rendering:

* leader epochs in the emitted timeline never decrease;
* an election flagged clean has its new leader in ``isr_before``; one flagged unclean does not;
* every leader change of the true history is found once, with its epoch and leader, and with
  every line and write that showed it as its evidence;
* feeding the stream in arbitrary chunks gives exactly the rows of one call.
"""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from kafkactl_core.replay import (
    Fact,
    PartitionEvidence,
    PartitionReplay,
    ReplayOutput,
    ReplaySettings,
    Source,
)

T0 = 1_700_000_000_000
ASSIGNMENT = (1, 2, 3, 4)
SETTINGS = ReplaySettings.of("2.8", settle_ms=5_000)


@st.composite
def histories(draw):
    """(evidence sorted like the Spark job sorts it, true leader changes [(epoch, leader)], the
    refs each change was rendered into)."""
    evidence: list[PartitionEvidence] = []
    changes: list[tuple[int, int]] = []
    rendered: list[set[str]] = []
    seq = 0

    def add(fact, time, source, **values):
        nonlocal seq
        seq += 1
        evidence.append(
            PartitionEvidence(
                "c", "t", 0, time, source, fact, f"{source.name}:{seq}", seq, **values
            )
        )

    leader, epoch, version, isr = 1, 0, 0, ASSIGNMENT
    time = T0
    add(Fact.assignment, time, Source.zk_txn, replicas=ASSIGNMENT)
    add(
        Fact.leadership_written,
        time,
        Source.zk_txn,
        leader=1,
        leader_epoch=0,
        isr=isr,
        partition_epoch=0,
    )
    steps = draw(
        st.lists(
            st.sampled_from(["shrink", "expand", "elect", "unclean", "fail"]),
            min_size=1,
            max_size=25,
        )
    )
    for step in steps:
        time += draw(st.integers(1_000, 20_000))
        skew = draw(st.integers(-300, 300))
        if step in ("shrink", "expand"):
            if leader < 0:
                continue
            if step == "shrink":
                out = [r for r in isr if r != leader]
                if not out:
                    continue
                new_isr = tuple(r for r in isr if r != draw(st.sampled_from(out)))
            else:
                missing = [r for r in ASSIGNMENT if r not in isr]
                if not missing:
                    continue
                back = draw(st.sampled_from(missing))
                new_isr = tuple(r for r in ASSIGNMENT if r in isr or r == back)
            version += 1
            if draw(st.booleans()):
                add(
                    Fact.isr_changed,
                    time + skew,
                    Source.server_log,
                    leader=leader,
                    previous_isr=isr,
                    isr=new_isr,
                    broker=leader,
                )
            add(
                Fact.leadership_written,
                time,
                Source.zk_txn,
                leader=leader,
                leader_epoch=epoch,
                isr=new_isr,
                partition_epoch=version,
            )
            isr = new_isr
            continue
        if step == "fail":
            if leader < 0:
                continue
            epoch += 1
            version += 1
            add(
                Fact.election_failed,
                time,
                Source.state_change_log,
                from_state="OfflinePartition",
                to_state="OnlinePartition",
            )
            add(
                Fact.leadership_written,
                time + 2,
                Source.zk_txn,
                leader=-1,
                leader_epoch=epoch,
                isr=isr,
                partition_epoch=version,
            )
            leader = -1
            continue
        inside = [r for r in isr if r != leader]
        outside = [r for r in ASSIGNMENT if r not in isr]
        pool = outside if step == "unclean" else inside
        if not pool:
            continue
        new_leader = draw(st.sampled_from(pool))
        new_isr = (new_leader,) if step == "unclean" else isr
        origin = "OfflinePartition" if leader < 0 else "OnlinePartition"
        epoch += 1
        version += 1
        changes.append((epoch, new_leader))
        values = dict(leader=new_leader, leader_epoch=epoch, isr=new_isr, partition_epoch=version)
        renderings = draw(st.sets(st.sampled_from(["zk", "sc", "srv", "copy"]), min_size=1))
        first = len(evidence)
        if "zk" in renderings:
            add(Fact.leadership_written, time, Source.zk_txn, **values)
        if "sc" in renderings:
            add(
                Fact.partition_transition,
                time + 1,
                Source.state_change_log,
                from_state=origin,
                to_state="OnlinePartition",
                **values,
            )
        if "srv" in renderings:
            add(
                Fact.leader_started,
                time + skew,
                Source.server_log,
                leader=new_leader,
                leader_epoch=epoch,
                broker=new_leader,
            )
        if "copy" in renderings:
            for _ in range(draw(st.integers(1, 3))):
                add(Fact.leadership_observed, time + abs(skew), Source.state_change_log, **values)
        rendered.append({ev.ref for ev in evidence[first:]})
        leader, isr = new_leader, new_isr
    evidence.sort(key=PartitionEvidence.order_key)
    return evidence, changes, rendered


def fold(evidence, cuts=()):
    replay = PartitionReplay("c", "t", 0, None, SETTINGS)
    out = ReplayOutput()
    bounds = [0, *sorted(cuts), len(evidence)]
    for start, end in itertools.pairwise(bounds):
        out.extend(replay.feed(evidence[start:end]))
    out.extend(replay.finish())
    return out


@settings(max_examples=150, deadline=None)
@given(histories())
def test_timeline_epochs_never_decrease(history):
    evidence, _, _ = history
    epochs = [row.leader_epoch for row in fold(evidence).timeline if row.leader_epoch is not None]
    assert epochs == sorted(epochs)


@settings(max_examples=150, deadline=None)
@given(histories())
def test_clean_means_the_new_leader_was_in_the_isr_before(history):
    evidence, _, _ = history
    for row in fold(evidence).elections:
        if row.isr_before is None or row.new_leader < 0:
            continue
        if row.unclean is False:
            assert row.new_leader in row.isr_before
        if row.unclean is True:
            assert row.new_leader not in row.isr_before


@settings(max_examples=150, deadline=None)
@given(histories())
def test_every_leader_change_is_found_once(history):
    evidence, changes, _ = history
    found = [(r.leader_epoch, r.new_leader) for r in fold(evidence).elections if r.new_leader >= 0]
    assert found == changes


@settings(max_examples=150, deadline=None)
@given(histories(), st.data())
def test_chunked_feeding_is_invariant(history, data):
    evidence, _, _ = history
    cuts = data.draw(st.lists(st.integers(0, len(evidence)), max_size=8))
    whole, chunked = fold(evidence), fold(evidence, cuts)
    assert [r.to_row() for r in chunked.elections] == [r.to_row() for r in whole.elections]
    assert [r.to_row() for r in chunked.timeline] == [r.to_row() for r in whole.timeline]
    assert [r.to_row() for r in chunked.anomalies] == [r.to_row() for r in whole.anomalies]


@settings(max_examples=150, deadline=None)
@given(histories())
def test_every_rendering_of_an_election_is_merged_into_it(history):
    evidence, _, rendered = history
    found = [r for r in fold(evidence).elections if r.new_leader >= 0]
    assert len(found) == len(rendered)
    for row, refs in zip(found, rendered, strict=True):
        assert refs <= set(row.evidence)
