"""Broker lifecycle in the KRaft controller: registration, heartbeats, fencing, shutdown.

Heartbeats drive ``BrokerHeartbeatManager``'s state machine: unfencing elects leaders for
leaderless partitions (the broker acceptable although still fenced), a controlled shutdown
removes the broker from every ISR it is in (followers too, RF 1 included), fencing (session
timeout, or shutting down without leaderships) does the same and writes the fence record.
Unclean shutdown (ELR MVs) also drops the broker from every ELR.
"""

from __future__ import annotations

from collections.abc import Sequence

from kafkactl_core.kraft.brokers import BrokerControlState, HeartbeatReply, next_broker_state
from kafkactl_core.kraft.controller import ControllerBase, OpResult, PendingOp
from kafkactl_core.kraft.errors import NO_ERROR, ApiError, Errors
from kafkactl_core.kraft.records import (
    FENCE,
    IN_CONTROLLED_SHUTDOWN,
    UNFENCE,
    BrokerRegistrationChangeRecord,
    FenceBrokerRecord,
    RegisterBrokerRecord,
    UnfenceBrokerRecord,
    UnregisterBrokerRecord,
)


class BrokerLifecycle(ControllerBase):
    """Registration, heartbeats, session-timeout fencing, controlled and unclean shutdown."""

    # -- broker lifecycle ----------------------------------------------------------------------

    def register_broker(
        self,
        broker_id: int,
        broker_epoch: int,
        *,
        incarnation_id: str = "",
        rack: str | None = None,
        log_dirs: Sequence[str] = (),
    ) -> OpResult[ApiError]:
        """Write a RegisterBrokerRecord: a (new incarnation of the) broker, fenced.

        Partitions are not changed (the unclean-shutdown handling of a re-registration is the
        separate ``unclean_shutdown`` operation).
        """
        op = PendingOp()
        mv = self.metadata_version
        dirs = tuple(log_dirs) if mv.is_directory_assignment_supported() else ()
        op.add(
            RegisterBrokerRecord(
                broker_id=broker_id,
                broker_epoch=broker_epoch,
                incarnation_id=incarnation_id,
                rack=rack,
                fenced=True,
                in_controlled_shutdown=False,
                log_dirs=dirs,
            ),
            mv.register_broker_record_version(),
        )
        return self._commit(op, NO_ERROR)

    def _handle_broker_fenced(self, op: PendingOp, broker_id: int) -> None:
        registration = self.broker(broker_id)
        if registration is None:
            return
        self._generate_leader_and_isr_updates(
            op, self._isrs.partitions_with_broker_in_isr(broker_id), broker_to_remove=broker_id
        )
        if self.metadata_version.is_broker_registration_change_record_supported():
            op.add(BrokerRegistrationChangeRecord(broker_id, registration.epoch, fenced=FENCE))
        else:
            op.add(FenceBrokerRecord(broker_id, registration.epoch))

    def _handle_broker_unfenced(self, op: PendingOp, broker_id: int, broker_epoch: int) -> None:
        if self.metadata_version.is_broker_registration_change_record_supported():
            op.add(BrokerRegistrationChangeRecord(broker_id, broker_epoch, fenced=UNFENCE))
        else:
            op.add(UnfenceBrokerRecord(broker_id, broker_epoch))
        self._generate_leader_and_isr_updates(
            op, self._isrs.partitions_with_no_leader(), broker_to_add=broker_id
        )

    def _handle_broker_in_controlled_shutdown(
        self, op: PendingOp, broker_id: int, broker_epoch: int
    ) -> None:
        registration = self.broker(broker_id)
        if (
            self.metadata_version.is_in_controlled_shutdown_state_supported()
            and registration is not None
            and not registration.in_controlled_shutdown
        ):
            op.add(
                BrokerRegistrationChangeRecord(
                    broker_id, broker_epoch, in_controlled_shutdown=IN_CONTROLLED_SHUTDOWN
                ),
                1,
            )
        self._generate_leader_and_isr_updates(
            op, self._isrs.partitions_with_broker_in_isr(broker_id), broker_to_remove=broker_id
        )

    def _handle_directories_offline(
        self, op: PendingOp, broker_id: int, broker_epoch: int, offline: Sequence[str]
    ) -> None:
        registration = self.broker(broker_id)
        if registration is None:
            return
        newly_offline = registration.directory_intersection(offline)
        if not newly_offline:
            return
        for directory in newly_offline:
            hosted = [
                (topic.topic_id, number)
                for topic, number, partition in self.iter_partitions()
                if directory in partition.directories
            ]
            self._generate_leader_and_isr_updates(op, hosted, broker_to_remove=broker_id)
        op.add(
            BrokerRegistrationChangeRecord(
                broker_id, broker_epoch, log_dirs=registration.directory_difference(offline)
            ),
            2,
        )

    def _control_state(self, broker_id: int) -> BrokerControlState:
        registration = self.broker(broker_id)
        if registration is None:
            return BrokerControlState.SHUTDOWN_NOW
        if self.in_heartbeat_controlled_shutdown(broker_id):
            return BrokerControlState.CONTROLLED_SHUTDOWN
        if registration.fenced:
            return BrokerControlState.FENCED
        return BrokerControlState.UNFENCED

    def heartbeat(
        self,
        broker_id: int,
        *,
        broker_epoch: int | None = None,
        want_fence: bool = False,
        want_shut_down: bool = False,
        caught_up: bool = True,
        offline_log_dirs: Sequence[str] = (),
    ) -> OpResult[HeartbeatReply | ApiError]:
        """``processBrokerHeartbeat``: move the broker through its states.

        Args:
            broker_id: the broker.
            broker_epoch: its epoch (None: the registered one).
            want_fence: it asks to be fenced.
            want_shut_down: it asks to shut down (controlled shutdown if it leads something).
            caught_up: its metadata offset reached its registration (required to unfence) and
                every active broker replayed its controlled-shutdown records.
            offline_log_dirs: directories the broker reports offline (MV ``3.7-IV2``+).

        Returns:
            The reply, or STALE_BROKER_EPOCH.
        """
        error = self._check_broker_epoch(broker_id, broker_epoch)
        registration = self.broker(broker_id)
        if error is not None or registration is None:
            return OpResult((), error or ApiError(Errors.STALE_BROKER_EPOCH))
        epoch = registration.epoch
        current = self._control_state(broker_id)
        nxt = next_broker_state(
            current,
            want_fence=want_fence,
            want_shut_down=want_shut_down,
            caught_up=caught_up,
            has_leaderships=self._isrs.has_leaderships(broker_id),
            shutdown_offset_reached=caught_up,
        )
        op = PendingOp()
        if current is not nxt:
            if nxt in (BrokerControlState.FENCED, BrokerControlState.SHUTDOWN_NOW):
                self._handle_broker_fenced(op, broker_id)
            elif nxt is BrokerControlState.UNFENCED:
                self._handle_broker_unfenced(op, broker_id, epoch)
            else:
                self._handle_broker_in_controlled_shutdown(op, broker_id, epoch)
        if self.metadata_version.is_directory_assignment_supported():
            self._handle_directories_offline(op, broker_id, epoch, offline_log_dirs)
        reply = HeartbeatReply(
            caught_up, nxt.fenced, nxt.in_controlled_shutdown, nxt.should_shut_down
        )
        result: OpResult[HeartbeatReply | ApiError] = self._commit(op, reply)
        if nxt.fenced:
            self._shutting_down.discard(broker_id)
        elif nxt is BrokerControlState.CONTROLLED_SHUTDOWN:
            self._shutting_down.add(broker_id)
        return result

    def fence_stale_broker(self, broker_id: int) -> OpResult[ApiError]:
        """``maybeFenceOneStaleBroker`` for a broker whose session timed out.

        Returns:
            NONE; BROKER_ID_NOT_REGISTERED for an unknown broker. An already fenced broker
            has no session to time out: nothing is written.
        """
        registration = self.broker(broker_id)
        if registration is None:
            return OpResult((), ApiError(Errors.BROKER_ID_NOT_REGISTERED))
        op = PendingOp()
        if not registration.fenced:
            self._handle_broker_fenced(op, broker_id)
        result = self._commit(op, NO_ERROR)
        self._shutting_down.discard(broker_id)
        return result

    def set_in_controlled_shutdown(self, broker_id: int) -> OpResult[ApiError]:
        """Write a BrokerRegistrationChangeRecord entering controlled shutdown; no elections."""
        registration = self.broker(broker_id)
        if registration is None:
            return OpResult((), ApiError(Errors.BROKER_ID_NOT_REGISTERED))
        op = PendingOp()
        op.add(
            BrokerRegistrationChangeRecord(
                broker_id, registration.epoch, in_controlled_shutdown=IN_CONTROLLED_SHUTDOWN
            ),
            1,
        )
        return self._commit(op, NO_ERROR)

    def unregister_broker(self, broker_id: int) -> OpResult[ApiError]:
        """``unregisterBroker``: leave every ISR and ELR, then an UnregisterBrokerRecord."""
        registration = self.broker(broker_id)
        if registration is None:
            return OpResult(
                (),
                ApiError(
                    Errors.BROKER_ID_NOT_REGISTERED,
                    f"Broker ID {broker_id} is not currently registered",
                ),
            )
        op = PendingOp()
        self._generate_leader_and_isr_updates(
            op, self._isrs.partitions_with_broker_in_isr(broker_id), broker_to_remove=broker_id
        )
        self._generate_leader_and_isr_updates(
            op, self._elrs.partitions_with_broker_in_elr(broker_id), broker_to_remove=broker_id
        )
        op.add(UnregisterBrokerRecord(broker_id, registration.epoch))
        return self._commit(op, NO_ERROR)

    def unclean_shutdown(self, broker_ids: Sequence[int]) -> OpResult[ApiError]:
        """``handleBrokerUncleanShutdown`` for each broker (one batch, replayed at the end).

        Only when the MV supports ELR: the brokers leave every ISR and ELR and may not lead.
        """
        op = PendingOp()
        if self.metadata_version.is_elr_supported(self.release):
            for broker_id in broker_ids:
                self._generate_leader_and_isr_updates(
                    op,
                    self._isrs.partitions_with_broker_in_isr(broker_id),
                    broker_with_unclean_shutdown=broker_id,
                )
                self._generate_leader_and_isr_updates(
                    op,
                    self._elrs.partitions_with_broker_in_elr(broker_id),
                    broker_with_unclean_shutdown=broker_id,
                )
        return self._commit(op, NO_ERROR)
