"""The ISR-removal rule applied when a replica goes to OfflineReplica, by release.

1.1+ ``doRemoveReplicasFromIsr`` keeps an ISR of size one; 0.8.2-1.0 ``removeReplicaFromIsr``
keeps the last member only when unclean election is disabled for the topic; 0.8.0/0.8.1 always
filter. In every version a removed leader becomes ``NO_LEADER`` and the leader epoch is bumped,
even when only a follower left the ISR; a replica that is not in the ISR causes no write.
"""

from __future__ import annotations

from kafkactl_core.model import NO_LEADER, LeaderAndIsr
from kafkactl_core.profiles import LastIsrMemberRule


def remove_replica_from_isr(
    rule: LastIsrMemberRule, current: LeaderAndIsr, replica: int, unclean_enabled: bool
) -> LeaderAndIsr | None:
    """The leadership to write when ``replica`` goes offline.

    Args:
        rule: the release's last-ISR-member rule.
        current: the leadership read from ZooKeeper.
        replica: the replica going offline.
        unclean_enabled: the topic's effective unclean setting (read only by 0.8.2-1.0).

    Returns:
        The new leadership (leaderEpoch + 1), or ``None`` when ``replica`` is not in the ISR and
        nothing is written.
    """
    if replica not in current.isr:
        return None
    new_leader = NO_LEADER if replica == current.leader else current.leader
    filtered = tuple(r for r in current.isr if r != replica)
    if rule is LastIsrMemberRule.keep_size_one:
        new_isr = current.isr if len(current.isr) == 1 else filtered
    elif rule is LastIsrMemberRule.keep_if_unclean_disabled:
        new_isr = current.isr if not filtered and not unclean_enabled else filtered
    else:
        new_isr = filtered
    return current.new_leader_and_isr(new_leader, new_isr)
