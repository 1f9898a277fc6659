"""Behaviour profiles: what a given Kafka release's controller does differently, as plain data.

A ``KafkaVersion`` is one frozen object per release with a named field for every behaviour switch
that ``reference/SEMANTICS.md`` (ZooKeeper controller) and ``reference/KRAFT.md`` (KRaft
controller) list. The election code reads these fields instead of comparing version numbers, so
each rule change lives in exactly one place (``KafkaVersion.of``) and is tested at its boundary.
"""

from __future__ import annotations

import enum
import functools
from dataclasses import dataclass

from kafkactl_core.versions import KafkaRelease, ProtocolVersion


class OfflineLeaderRule(enum.Enum):
    """How the offline (clean) election picks its leader."""

    live_isr_head = "live_isr_head"
    """0.8.0/0.8.1 ``OfflinePartitionLeaderSelector``: the head of the live ISR, in ISR order."""
    assignment_order = "assignment_order"
    """0.8.2+ (KAFKA-1503): the first live assigned replica that is in the live ISR."""


class ControlledShutdownRule(enum.Enum):
    """How a controlled-shutdown election picks its leader and new ISR."""

    isr_minus_leader = "isr_minus_leader"
    """0.8.0: new ISR = ISR minus the current leader; leader = head of the new ISR."""
    isr_head = "isr_head"
    """0.8.1-0.9.x: new ISR = ISR minus shutting-down brokers; leader = head of the new ISR."""
    assignment_order_selector = "assignment_order_selector"
    """0.10-1.0 (KAFKA-3670): first live-or-shutting-down assigned replica in the new ISR."""
    algorithm = "algorithm"
    """1.1+: first assigned replica that is live, in the ISR and not shutting down."""


class LastIsrMemberRule(enum.Enum):
    """What removing the last ISR member (replica going offline) leaves in the ISR."""

    always_remove = "always_remove"
    """0.8.0/0.8.1: the member is always filtered out (the ISR can become empty)."""
    keep_if_unclean_disabled = "keep_if_unclean_disabled"
    """0.8.2-1.0: kept only when unclean election is disabled for the topic."""
    keep_size_one = "keep_size_one"
    """1.1+ (KAFKA-5642): an ISR of size one is never shrunk, whatever the unclean setting."""


class PreferredOnPreferredLeader(enum.Enum):
    """What a ZK-triggered preferred election does for a partition already led by its head."""

    not_needed_exception = "not_needed_exception"
    """0.8-1.0: ``LeaderElectionNotNeededException``, nothing written."""
    rewrite_bump_epoch = "rewrite_bump_epoch"
    """1.1-2.1: the algorithm re-elects the same leader, leaderEpoch + 1 is written."""
    filtered_not_needed = "filtered_not_needed"
    """2.2+: filtered out beforehand with ``ELECTION_NOT_NEEDED``, nothing written."""


class AutoRebalanceFilter(enum.Enum):
    """The candidate filter of ``checkAndTriggerAutoLeaderRebalance``."""

    live_broker_no_reassign_no_preferred = "live_broker_no_reassign_no_preferred"
    """0.8.1-0.10.x: preferred broker live, no reassignment and no preferred election running."""
    online_no_reassign = "online_no_reassign"
    """1.0-2.5: preferred replica online, no reassignment in progress."""
    no_reassign_can_be_leader = "no_reassign_can_be_leader"
    """2.6-3.3 (KAFKA-9866): no reassignment, preferred replica online and in the ISR."""
    can_be_leader = "can_be_leader"
    """3.4+ (KAFKA-10149): preferred replica online and in the ISR; reassignments do not block."""


class OfflineLeaderSelection(enum.Enum):
    """Which partitions a broker failure moves to OfflinePartition."""

    leader_on_dead_broker = "leader_on_dead_broker"
    """0.8-0.11: partitions whose leader is one of the dead brokers."""
    leader_not_online = "leader_not_online"
    """1.0+ (``onReplicasBecomeOffline``): every partition whose leader is not online."""


class ReassignmentLayout(enum.Enum):
    """How the full replica set is laid out while a reassignment is in flight."""

    scala_set = "scala_set"
    """<= 2.3: ``(RAR ++ OAR).toSet.toSeq`` (insertion order for up to four replicas)."""
    kip455 = "kip455"
    """2.4+: ``(target ++ origin).distinct`` with adding/removing replicas stored."""


@dataclass(frozen=True, slots=True)
class KafkaVersion:
    """Every behaviour switch of one Kafka release's controllers.

    Build it with ``KafkaVersion.of("2.8")`` or ``KafkaVersion.of(KafkaRelease(...))``.

    Attributes:
        release: the release this profile describes.
        unclean_config_checked: whether ``unclean.leader.election.enable`` is consulted at all
            (0.8.2+; before, an offline partition always elects uncleanly when it can).
        unclean_default: the broker default of ``unclean.leader.election.enable`` (true < 0.11).
        offline_leader_rule: leader choice of the clean offline election.
        controlled_shutdown_rule: leader/ISR choice of the controlled-shutdown election.
        controlled_shutdown_notifies_shutting_down: LeaderAndIsr of a controlled-shutdown
            election also goes to the shutting-down broker (2.1+, KAFKA-7482).
        controlled_shutdown_skips_deleting_topics: topics queued for deletion are not acted on
            by controlled shutdown (2.2+).
        explicit_strategy_required: Online/Offline -> Online requires an election strategy
            (1.1+); before, the default ``NoOpLeaderSelector`` kept the current leadership.
        liveness_includes_offline_dirs: a replica on an offline log dir is not online (1.0+,
            KIP-112).
        offline_leader_selection: which partitions a broker failure takes offline.
        last_isr_member_rule: the ISR-removal rule for the last ISR member.
        preferred_on_preferred_leader: ZK-triggered preferred election of an already preferred
            leader.
        auto_rebalance_filter: candidate filter of the auto-rebalance task.
        auto_rebalance_batched: auto-rebalance elects all candidates in one batch (2.3+) rather
            than one partition at a time.
        replica_deletion_ineligible_from_offline: OfflineReplica is a valid previous state of
            ReplicaDeletionIneligible (2.3+).
        reassignment_layout: layout of the replica set during a reassignment.
        admin_elect_leaders: the Admin ``ElectLeaders`` API exists (2.2+ preferred; see
            ``admin_unclean_election``).
        admin_unclean_election: Admin ``ElectLeaders`` accepts ``UNCLEAN`` (2.4+, KIP-460).
        broker_unclean_dynamic_trigger: a dynamic broker-default change to true triggers
            offline elections at once (2.0+).
        topic_unclean_dynamic_trigger: a topic-level change to true triggers offline elections
            for that topic at once (2.4+); before it takes effect at the next broker change.
        stale_broker_epoch_rejected: ControlledShutdown with a stale broker epoch is rejected
            (2.2+, KIP-380).
        alter_partition: leader ISR updates go through the AlterPartition API (2.7+) and are
            validated by the controller (shutting-down/dead brokers cannot rejoin).
        leader_recovery_state_exists: the KIP-704 field exists in this release (3.2+).
        default_inter_broker_protocol: the release's default ``inter.broker.protocol.version``.
        kraft_available: KRaft mode exists and is production ready (3.3+).
        kraft_unclean_config_honoured: KRaft reads ``unclean.leader.election.enable`` (3.9+);
            3.3-3.8 never elect uncleanly on their own.
        kraft_periodic_unclean_election: the periodic ``maybeElectUncleanLeaders`` task (3.9+).
        kraft_elr_min_metadata_version: metadata version from which Eligible Leader Replicas
            (KIP-966) may be enabled, ``None`` when the release has no ELR code.
        kraft_isr_shrink_bump_below_metadata_version: an ISR shrink bumps the leader epoch only
            below this metadata version (3.6+: ``3.6-IV0``); ``None`` = every shrink bumps.
        kraft_last_known_leader: last-known-leader election from ``lastKnownElr`` (3.9+).
        kraft_unclean_shutdown_handling: ``handleBrokerUncleanShutdown`` (3.9+).
        kraft_unclean_election_logged_info: the builder logs unclean elections at INFO (3.6+).
        kraft_directories_min_metadata_version: metadata version of KIP-858 directories (3.7+).
        kraft_leader_recovery_min_metadata_version: metadata version from which an unclean
            election sets RECOVERING.
        kraft_registration_change_record_min_metadata_version: from this metadata version
            fencing uses ``BrokerRegistrationChangeRecord`` instead of Fence/Unfence records.
        kraft_in_controlled_shutdown_min_metadata_version: from this metadata version the
            registration change record carries ``inControlledShutdown``.
    """

    release: KafkaRelease
    unclean_config_checked: bool
    unclean_default: bool
    offline_leader_rule: OfflineLeaderRule
    controlled_shutdown_rule: ControlledShutdownRule
    controlled_shutdown_notifies_shutting_down: bool
    controlled_shutdown_skips_deleting_topics: bool
    explicit_strategy_required: bool
    liveness_includes_offline_dirs: bool
    offline_leader_selection: OfflineLeaderSelection
    last_isr_member_rule: LastIsrMemberRule
    preferred_on_preferred_leader: PreferredOnPreferredLeader
    auto_rebalance_filter: AutoRebalanceFilter
    auto_rebalance_batched: bool
    replica_deletion_ineligible_from_offline: bool
    reassignment_layout: ReassignmentLayout
    admin_elect_leaders: bool
    admin_unclean_election: bool
    broker_unclean_dynamic_trigger: bool
    topic_unclean_dynamic_trigger: bool
    stale_broker_epoch_rejected: bool
    alter_partition: bool
    leader_recovery_state_exists: bool
    default_inter_broker_protocol: ProtocolVersion
    kraft_available: bool
    kraft_unclean_config_honoured: bool
    kraft_periodic_unclean_election: bool
    kraft_elr_min_metadata_version: ProtocolVersion | None
    kraft_isr_shrink_bump_below_metadata_version: ProtocolVersion | None
    kraft_last_known_leader: bool
    kraft_unclean_shutdown_handling: bool
    kraft_unclean_election_logged_info: bool
    kraft_directories_min_metadata_version: ProtocolVersion | None
    kraft_leader_recovery_min_metadata_version: ProtocolVersion
    kraft_registration_change_record_min_metadata_version: ProtocolVersion
    kraft_in_controlled_shutdown_min_metadata_version: ProtocolVersion

    @classmethod
    def of(cls, release: KafkaRelease | str) -> KafkaVersion:
        """The profile of a release.

        Args:
            release: a ``KafkaRelease`` or a version string such as ``"2.8"`` or ``"0.10.2"``.

        Returns:
            The release's behaviour profile.

        Raises:
            ValueError: when ``release`` is a string that is not a Kafka version.
        """
        rel = KafkaRelease.parse(release) if isinstance(release, str) else release
        return _build(rel)

    def leader_recovery_supported(self, inter_broker_protocol: ProtocolVersion | None) -> bool:
        """Whether a ZooKeeper-mode unclean election marks the partition RECOVERING.

        ``ZkPartitionStateMachine.isLeaderRecoverySupported`` is
        ``interBrokerProtocolVersion >= IBP_3_2_IV0``.

        Args:
            inter_broker_protocol: the controller's configured IBP; ``None`` = the default.

        Returns:
            True when an unclean leader is written with ``leader_recovery_state=RECOVERING``.
        """
        ibp = inter_broker_protocol or self.default_inter_broker_protocol
        return self.leader_recovery_state_exists and ibp >= _IBP_3_2_IV0

    def elr_supported(self, metadata_version: ProtocolVersion) -> bool:
        """Whether Eligible Leader Replicas can be enabled at ``metadata_version`` (KRaft)."""
        floor = self.kraft_elr_min_metadata_version
        return floor is not None and metadata_version >= floor

    def kraft_isr_shrink_bumps_epoch(self, metadata_version: ProtocolVersion) -> bool:
        """Whether a KRaft ISR shrink bumps the leader epoch at ``metadata_version``."""
        below = self.kraft_isr_shrink_bump_below_metadata_version
        return below is None or metadata_version < below


_IBP_3_2_IV0 = ProtocolVersion.parse("3.2-IV0")


def _mv(text: str) -> ProtocolVersion:
    return ProtocolVersion.parse(text)


@functools.lru_cache(maxsize=256)
def _build(rel: KafkaRelease) -> KafkaVersion:
    def at(text: str) -> bool:
        return rel >= KafkaRelease.parse(text)

    if at("1.1"):
        cs_rule = ControlledShutdownRule.algorithm
    elif at("0.10"):
        cs_rule = ControlledShutdownRule.assignment_order_selector
    elif at("0.8.1"):
        cs_rule = ControlledShutdownRule.isr_head
    else:
        cs_rule = ControlledShutdownRule.isr_minus_leader

    if at("1.1"):
        last_isr = LastIsrMemberRule.keep_size_one
    elif at("0.8.2"):
        last_isr = LastIsrMemberRule.keep_if_unclean_disabled
    else:
        last_isr = LastIsrMemberRule.always_remove

    if at("2.2"):
        preferred = PreferredOnPreferredLeader.filtered_not_needed
    elif at("1.1"):
        preferred = PreferredOnPreferredLeader.rewrite_bump_epoch
    else:
        preferred = PreferredOnPreferredLeader.not_needed_exception

    if at("3.4"):
        arb = AutoRebalanceFilter.can_be_leader
    elif at("2.6"):
        arb = AutoRebalanceFilter.no_reassign_can_be_leader
    elif at("1.0"):
        arb = AutoRebalanceFilter.online_no_reassign
    else:
        arb = AutoRebalanceFilter.live_broker_no_reassign_no_preferred

    if at("3.9"):
        elr_mv: ProtocolVersion | None = _mv("4.0-IV0")
    elif at("3.8"):
        elr_mv = _mv("3.9-IV0")
    elif at("3.7"):
        elr_mv = _mv("3.8-IV0")
    else:
        elr_mv = None

    return KafkaVersion(
        release=rel,
        unclean_config_checked=at("0.8.2"),
        unclean_default=not at("0.11"),
        offline_leader_rule=(
            OfflineLeaderRule.assignment_order if at("0.8.2") else OfflineLeaderRule.live_isr_head
        ),
        controlled_shutdown_rule=cs_rule,
        controlled_shutdown_notifies_shutting_down=at("2.1"),
        controlled_shutdown_skips_deleting_topics=at("2.2"),
        explicit_strategy_required=at("1.1"),
        liveness_includes_offline_dirs=at("1.0"),
        offline_leader_selection=(
            OfflineLeaderSelection.leader_not_online
            if at("1.0")
            else OfflineLeaderSelection.leader_on_dead_broker
        ),
        last_isr_member_rule=last_isr,
        preferred_on_preferred_leader=preferred,
        auto_rebalance_filter=arb,
        auto_rebalance_batched=at("2.3"),
        replica_deletion_ineligible_from_offline=at("2.3"),
        reassignment_layout=(
            ReassignmentLayout.kip455 if at("2.4") else ReassignmentLayout.scala_set
        ),
        admin_elect_leaders=at("2.2"),
        admin_unclean_election=at("2.4"),
        broker_unclean_dynamic_trigger=at("2.0"),
        topic_unclean_dynamic_trigger=at("2.4"),
        stale_broker_epoch_rejected=at("2.2"),
        alter_partition=at("2.7"),
        leader_recovery_state_exists=at("3.2"),
        default_inter_broker_protocol=ProtocolVersion.latest_of(rel),
        kraft_available=at("3.3"),
        kraft_unclean_config_honoured=at("3.9"),
        kraft_periodic_unclean_election=at("3.9"),
        kraft_elr_min_metadata_version=elr_mv,
        kraft_isr_shrink_bump_below_metadata_version=_mv("3.6-IV0") if at("3.6") else None,
        kraft_last_known_leader=at("3.9"),
        kraft_unclean_shutdown_handling=at("3.9"),
        kraft_unclean_election_logged_info=at("3.6"),
        kraft_directories_min_metadata_version=_mv("3.7-IV2") if at("3.7") else None,
        kraft_leader_recovery_min_metadata_version=_mv("3.2-IV0"),
        kraft_registration_change_record_min_metadata_version=_mv("3.3-IV2"),
        kraft_in_controlled_shutdown_min_metadata_version=_mv("3.3-IV3"),
    )
