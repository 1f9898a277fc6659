"""KRaft broker registrations and the heartbeat state machine (``BrokerHeartbeatManager``).

A broker is *active* (may lead, may join an ISR) when registered, unfenced and not in controlled
shutdown. Heartbeats move a broker between FENCED, UNFENCED, CONTROLLED_SHUTDOWN and SHUTDOWN_NOW
(``calculateNextBrokerState``): an unfenced broker asking to shut down enters controlled shutdown
only while it leads some partition, otherwise it is shut down (fenced) at once.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

from kafkactl_core.kraft import directory_ids


@dataclass(frozen=True, slots=True)
class BrokerRegistration:
    """A broker's registration as the controller holds it.

    Attributes:
        broker_id: the broker id.
        epoch: the broker epoch (offset of its RegisterBrokerRecord in a real cluster).
        incarnation_id: the process incarnation; a new one re-registers the broker.
        rack: rack id, if any.
        fenced: fenced brokers neither lead nor join an ISR.
        in_controlled_shutdown: set by a BrokerRegistrationChangeRecord (MV ``3.3-IV3``+).
        directories: the broker's online log directories (sorted), empty before ``3.7-IV2``.
    """

    broker_id: int
    epoch: int
    incarnation_id: str = ""
    rack: str | None = None
    fenced: bool = True
    in_controlled_shutdown: bool = False
    directories: tuple[str, ...] = ()

    @property
    def is_active(self) -> bool:
        """``ClusterControlManager.isActive``: unfenced and not in controlled shutdown."""
        return not self.fenced and not self.in_controlled_shutdown

    def has_online_dir(self, directory: str) -> bool:
        """Whether a replica in ``directory`` on this broker is online."""
        return directory_ids.is_online(directory, self.directories)

    def directory_intersection(self, directories: Sequence[str]) -> tuple[str, ...]:
        """The given directories that are currently online on this broker."""
        return tuple(d for d in directories if d in self.directories)

    def directory_difference(self, directories: Sequence[str]) -> tuple[str, ...]:
        """This broker's online directories minus the given ones."""
        return tuple(d for d in self.directories if d not in directories)


class BrokerControlState(enum.Enum):
    """``BrokerControlState``: where heartbeats put a broker."""

    FENCED = "FENCED"
    UNFENCED = "UNFENCED"
    CONTROLLED_SHUTDOWN = "CONTROLLED_SHUTDOWN"
    SHUTDOWN_NOW = "SHUTDOWN_NOW"

    @property
    def fenced(self) -> bool:
        """FENCED and SHUTDOWN_NOW count as fenced."""
        return self in (BrokerControlState.FENCED, BrokerControlState.SHUTDOWN_NOW)

    @property
    def in_controlled_shutdown(self) -> bool:
        """Only CONTROLLED_SHUTDOWN."""
        return self is BrokerControlState.CONTROLLED_SHUTDOWN

    @property
    def should_shut_down(self) -> bool:
        """Only SHUTDOWN_NOW."""
        return self is BrokerControlState.SHUTDOWN_NOW


def next_broker_state(
    current: BrokerControlState,
    *,
    want_fence: bool,
    want_shut_down: bool,
    caught_up: bool,
    has_leaderships: bool,
    shutdown_offset_reached: bool = True,
) -> BrokerControlState:
    """``BrokerHeartbeatManager.calculateNextBrokerState`` for one heartbeat.

    Args:
        current: the broker's state before the heartbeat.
        want_fence: the broker asks to be fenced.
        want_shut_down: the broker asks to shut down.
        caught_up: its metadata offset reached its registration record (needed to unfence).
        has_leaderships: it leads at least one partition.
        shutdown_offset_reached: every active broker has replayed the controlled-shutdown
            records (the lowest active offset passed the broker's shutdown offset).

    Returns:
        The next state.
    """
    state = BrokerControlState
    if current is state.FENCED:
        if want_shut_down:
            return state.SHUTDOWN_NOW
        if not want_fence:
            return state.UNFENCED if caught_up else state.FENCED
        return state.FENCED
    if current is state.UNFENCED:
        if want_fence:
            return state.SHUTDOWN_NOW if want_shut_down else state.FENCED
        if want_shut_down:
            return state.CONTROLLED_SHUTDOWN if has_leaderships else state.SHUTDOWN_NOW
        return state.UNFENCED
    if current is state.CONTROLLED_SHUTDOWN:
        if has_leaderships:
            return state.CONTROLLED_SHUTDOWN
        return state.SHUTDOWN_NOW if shutdown_offset_reached else state.CONTROLLED_SHUTDOWN
    return state.SHUTDOWN_NOW


@dataclass(frozen=True, slots=True)
class HeartbeatReply:
    """``BrokerHeartbeatReply``."""

    is_caught_up: bool
    is_fenced: bool
    in_controlled_shutdown: bool
    should_shut_down: bool

    def to_json_dict(self) -> dict[str, bool]:
        """The reply's flags in snake_case."""
        return {
            "is_caught_up": self.is_caught_up,
            "is_fenced": self.is_fenced,
            "in_controlled_shutdown": self.in_controlled_shutdown,
            "should_shut_down": self.should_shut_down,
        }
