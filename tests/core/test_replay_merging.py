"""The fold merging one election seen in several sources (ZooKeeper, logs, skewed clocks)
into one row."""

from __future__ import annotations

from tests.core.replay_evidence import (
    SC,
    SRV,
    STABLE,
    T0,
    F,
    K,
    ev,
    fact,
    only,
    registered,
    run,
    write,
)

# ---------------------------------------------------------------------------------- merging


def test_same_election_in_several_sources_is_one_row_despite_clock_skew():
    out = run(
        [
            *STABLE,
            # The new leader's own line is stamped 300 ms *before* the controller's.
            ev(
                F.leader_started,
                1700,
                SRV,
                leader=2,
                leader_epoch=4,
                previous_leader_epoch=3,
                start_offset=77,
                broker=2,
            ),
            ev(
                F.partition_transition,
                2000,
                SC,
                from_state="OnlinePartition",
                to_state="OnlinePartition",
                leader=2,
                leader_epoch=4,
                isr=(2, 3),
                partition_epoch=11,
                controller_id=5,
                controller_epoch=9,
            ),
            write(2001, 2, 4, [2, 3], 11),
            ev(
                F.leadership_observed,
                2002,
                SC,
                leader=2,
                leader_epoch=4,
                isr=(2, 3),
                partition_epoch=11,
                replicas=(1, 2, 3),
            ),
        ],
        [registered(-10, 1, 2, 3), fact(K.shutting_down_add, 1500, broker=1)],
    )
    row = only(out.elections)
    assert row.elected_at_ms == T0 + 1700 and row.new_leader_start_offset == 77
    assert row.source == "zk_txn+state_change_log+server_log"
    assert len(row.evidence) == 4
    assert (row.controller_id, row.controller_epoch) == (5, 9)
    assert (row.trigger, row.agrees) == ("controlled_shutdown", True)
    assert out.anomalies == []


def test_zookeeper_and_logs_give_the_same_election():
    base_facts = [registered(-10, 1, 2, 3), fact(K.broker_down, 1000, broker=1)]
    zk_only = run([*STABLE, write(1010, 2, 4, [2, 3], 11)], base_facts)
    logs_only = run(
        [
            ev(
                F.leadership_observed,
                1,
                SC,
                leader=1,
                leader_epoch=3,
                isr=(1, 2, 3),
                replicas=(1, 2, 3),
            ),
            ev(
                F.partition_transition,
                1005,
                SC,
                from_state="OnlinePartition",
                to_state="OfflinePartition",
            ),
            ev(
                F.partition_transition,
                1010,
                SC,
                from_state="OfflinePartition",
                to_state="OnlinePartition",
                leader=2,
                leader_epoch=4,
                isr=(2, 3),
                partition_epoch=11,
            ),
        ],
        base_facts,
    )
    fields = (
        "trigger",
        "prev_leader",
        "new_leader",
        "leader_epoch",
        "isr_before",
        "isr_after",
        "unclean",
        "expected_leader",
        "agrees",
    )
    assert [getattr(only(zk_only.elections), f) for f in fields] == [
        getattr(only(logs_only.elections), f) for f in fields
    ]
