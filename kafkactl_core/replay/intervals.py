"""The partition's timeline intervals: when a change of state opens a new one, when one is final.

An interval (``TimelineRow``) holds while the leader, ISR, epochs, state and assignment stay the
same. Evidence that only fills in what was unknown refines the interval in force instead of
opening another; a closed interval is final once evidence ``settle_ms`` after its end was seen.
"""

from __future__ import annotations

from kafkactl_core.replay.rows import TimelineRow

__all__ = ["FAR_FUTURE", "carries_on", "close", "settle_closed"]

FAR_FUTURE = 1 << 62
"""A time after every evidence: nothing is due."""


def carries_on(
    current: TimelineRow,
    state: str | None,
    leader: int | None,
    isr: tuple[int, ...] | None,
    epoch: int | None,
    pepoch: int | None,
    assignment: tuple[int, ...] | None,
) -> bool:
    """Whether the interval in force still describes the partition, refined where it can be.

    Args:
        current: the interval in force.
        state: the partition state now.
        leader: the leader now.
        isr: the ISR now.
        epoch: the leader epoch now.
        pepoch: the partition epoch now.
        assignment: the assignment now.

    Returns:
        True when nothing changed, or when only the interval's unknowns were filled in (it
        takes them: the same interval, better known); False when a new interval starts.
    """
    if (
        current.leader == leader
        and current.isr == isr
        and current.leader_epoch == epoch
        and current.partition_epoch == pepoch
        and current.state == state
        and current.assignment == assignment
    ):
        return True
    if (
        (current.leader is None or current.leader == leader)
        and (current.isr is None or current.isr == isr)
        and (current.leader_epoch is None or current.leader_epoch == epoch)
        and (current.partition_epoch is None or current.partition_epoch == pepoch)
        and (current.state is None or current.state == state)
        and (current.assignment is None or current.assignment == assignment)
    ):
        current.leader, current.isr, current.leader_epoch = leader, isr, epoch
        current.partition_epoch, current.state = pepoch, state
        current.assignment = assignment
        return True
    return False


def close(current: TimelineRow, time: int) -> int:
    """End an interval at ``time``, never before it started (clocks of sources differ).

    Args:
        current: the interval in force.
        time: when the next one starts.

    Returns:
        Its end: the next interval's start.
    """
    start = current.valid_from_ms
    if start is not None and time < start:
        time = start
    current.valid_to_ms = time
    return time


def settle_closed(
    closed: list[TimelineRow], now: int, settle_ms: int, final: list[TimelineRow]
) -> tuple[list[TimelineRow], int]:
    """Move the closed intervals that ended ``settle_ms`` before ``now`` to ``final``.

    Args:
        closed: the closed intervals not final yet, in order.
        now: the latest evidence time.
        settle_ms: how long after its end an interval may still change.
        final: the output the settled ones are appended to.

    Returns:
        The intervals still unsettled and when the first of them is due (``FAR_FUTURE``: none).
    """
    horizon = now - settle_ms
    remaining: list[TimelineRow] = []
    due = FAR_FUTURE
    for interval in closed:
        end = interval.valid_to_ms
        if end is None or end <= horizon:
            final.append(interval)
        else:
            remaining.append(interval)
            if end + settle_ms < due:
                due = end + settle_ms
    return remaining, due
