"""Preferred and unclean election requests and the auto-rebalance task of ``ZkController``.

A request comes from the auto-rebalance task, the ``/admin/preferred_replica_election`` znode or
the Admin API (``ElectLeaders``, 2.2+); each source has its own error vocabulary, kept as Kafka
reports it.
"""

from __future__ import annotations

from collections.abc import Iterable

from kafkactl_core.model import NO_LEADER, ElectionStrategy, PartitionState, TopicPartition
from kafkactl_core.profiles import PreferredOnPreferredLeader
from kafkactl_core.zkcontroller.controller_state import ControllerState
from kafkactl_core.zkcontroller.results import ImbalanceGroup, OpResult, RequestSource
from kafkactl_core.zkcontroller.states import TransitionError, TransitionErrorKind

_P = PartitionState

PREFERRED_ZNODE = "/admin/preferred_replica_election"


class ElectionRequests(ControllerState):
    """The leader-election requests and the periodic auto-rebalance check."""

    def preferred_election(
        self, source: RequestSource, partitions: Iterable[TopicPartition]
    ) -> OpResult:
        """A preferred-leader election request (auto task, ZK znode, or Admin API).

        Args:
            source: who asked.
            partitions: the partitions.

        Returns:
            The result; ``errors`` holds per-partition outcome codes.
        """
        result = self._begin("preferred_election")
        parts = list(dict.fromkeys(partitions))
        if source is RequestSource.admin and not self.profile.admin_elect_leaders:
            result.error = "UnsupportedVersionException"
        elif not self.has_controller:
            result.error = "NOT_CONTROLLER"
        elif source is RequestSource.auto:
            known = [tp for tp in parts if tp in self.ctx.assignments]
            for tp in parts:
                if tp not in self.ctx.assignments:
                    result.errors[tp] = "UNKNOWN_TOPIC_OR_PARTITION"
            self._on_replica_election(known, unclean=False, source=source, result=result)
        else:
            self._process_replica_leader_election(parts, False, source, result)
        if source is RequestSource.zk and result.error is None:
            self.zk_preferred_pending.clear()
            result.znodes_removed.append(PREFERRED_ZNODE)
        return self._end(result)

    def unclean_election(self, partitions: Iterable[TopicPartition]) -> OpResult:
        """Admin ``ElectLeaders`` with ``UNCLEAN`` (2.4+, KIP-460).

        Args:
            partitions: the partitions.

        Returns:
            The result; ``errors`` holds per-partition outcome codes.
        """
        result = self._begin("unclean_election")
        if not self.profile.admin_unclean_election:
            result.error = "UnsupportedVersionException"
        elif not self.has_controller:
            result.error = "NOT_CONTROLLER"
        else:
            parts = list(dict.fromkeys(partitions))
            self._process_replica_leader_election(parts, True, RequestSource.admin, result)
        return self._end(result)

    def _process_replica_leader_election(
        self, parts: list[TopicPartition], unclean: bool, source: RequestSource, result: OpResult
    ) -> None:
        """``processReplicaLeaderElection`` (2.2+) or the older ZK-triggered path."""
        ctx = self.ctx
        known = []
        for tp in parts:
            if tp not in ctx.assignments:
                result.errors[tp] = "UNKNOWN_TOPIC_OR_PARTITION"
            elif ctx.is_queued_for_deletion(tp.topic):
                result.errors[tp] = "INVALID_TOPIC_EXCEPTION"
            else:
                known.append(tp)
        filtering = self.profile.preferred_on_preferred_leader
        electable = []
        for tp in known:
            leader_and_isr = ctx.leadership.get(tp)
            if leader_and_isr is None:
                result.errors[tp] = "PREFERRED_LEADER_NOT_AVAILABLE"
                continue
            if unclean:
                needed = (
                    leader_and_isr.leader == NO_LEADER
                    or leader_and_isr.leader not in ctx.live_broker_ids
                )
            elif filtering is PreferredOnPreferredLeader.filtered_not_needed:
                needed = leader_and_isr.leader != ctx.assignment(tp).replicas[0]
            else:
                needed = True
            if needed:
                electable.append(tp)
            else:
                result.errors[tp] = "ELECTION_NOT_NEEDED"
        self._on_replica_election(electable, unclean, source, result)

    def _on_replica_election(
        self,
        partitions: list[TopicPartition],
        unclean: bool,
        source: RequestSource,
        result: OpResult,
    ) -> int:
        """``onReplicaElection``; returns how many elections succeeded."""
        if not partitions:
            return 0
        if unclean:
            outcomes = self._psm(
                partitions,
                _P.OnlinePartition,
                ElectionStrategy.offline,
                allow_unclean=source is RequestSource.admin,
                requested_by=source,
            )
        else:
            outcomes = self._psm(
                partitions, _P.OnlinePartition, ElectionStrategy.preferred, requested_by=source
            )
        modern_api = self.profile.admin_elect_leaders
        ok = 0
        for tp, res in outcomes.items():
            if isinstance(res, TransitionError):
                if res.kind is TransitionErrorKind.election_not_needed:
                    result.errors[tp] = "LeaderElectionNotNeededException"
                elif res.kind is TransitionErrorKind.invalid_transition:
                    result.errors[tp] = "IllegalStateException"
                elif modern_api:
                    result.errors[tp] = (
                        "ELIGIBLE_LEADERS_NOT_AVAILABLE"
                        if unclean
                        else "PREFERRED_LEADER_NOT_AVAILABLE"
                    )
                else:
                    result.errors[tp] = "StateChangeFailedException"
            else:
                ok += 1
                if modern_api:
                    result.errors[tp] = "NONE"
        return ok

    def auto_rebalance_check(self) -> OpResult:
        """One run of the periodic auto-rebalance task (``checkAndTriggerAutoLeaderRebalance``).

        Returns:
            The result; ``imbalance`` holds the computation per preferred broker (empty when
            ``auto.leader.rebalance.enable`` is false or there is no controller).
        """
        result = self._begin("auto_rebalance_check")
        if not self.has_controller or not self.config.auto_leader_rebalance_enable:
            result.imbalance = {}
            return self._end(result)
        groups = self.imbalance()
        done: dict[int, ImbalanceGroup] = {}
        for broker, group in groups.items():
            elections = 0
            if group.rebalance and group.candidates:
                if self.profile.auto_rebalance_batched:
                    elections = self._on_replica_election(
                        list(group.candidates), False, RequestSource.auto, result
                    )
                else:
                    for tp in group.candidates:
                        elections += self._on_replica_election(
                            [tp], False, RequestSource.auto, result
                        )
            done[broker] = ImbalanceGroup(
                group.broker,
                group.partitions,
                group.not_preferred,
                group.ratio,
                group.rebalance,
                group.candidates,
                elections,
            )
        result.imbalance = done
        return self._end(result)
