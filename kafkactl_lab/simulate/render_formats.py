"""Each release's message templates: where releases differ only in wording, a table entry.

A template is a ``str.format`` string of the fields its method passes (a template may leave
some out); ``None`` says the release does not write the line at all. ``FORMATS_10`` is
``FORMATS_28`` with 1.0's own entries over it, so a wording difference between the releases
is one entry here rather than a whole overridden method.
"""

from __future__ import annotations

from collections.abc import Mapping

FORMATS_28: Mapping[str, str | None] = {
    "event_thread_started": "[ControllerEventThread controllerId={broker}] Starting",
    "send_thread": "[RequestSendThread controllerId={c}] ",
    "partition_state_machine": "kafka.controller.ZkPartitionStateMachine",
    "replica_state_machine": "kafka.controller.ZkReplicaStateMachine",
    "leader_isr_controller_epoch": (
        "(Leader:{leader},ISR:{isr},LeaderEpoch:{leader_epoch},ZkVersion:{zk_version},"
        "ControllerEpoch:{controller_epoch})"
    ),
    "broker_change": (
        "[Controller id={c}] Newly added brokers: {added}, deleted brokers: {deleted}, "
        "bounced brokers: {bounced}, all live brokers: {live}"
    ),
    "replica_failed": (
        "[Controller id={c} epoch={epoch}] Controller {c} epoch {epoch} initiated state change "
        "of replica {replica} for partition {tp} from {before} to {target} failed"
    ),
    "replica_failed_frame": (
        "ZkReplicaStateMachine.logInvalidTransition(ReplicaStateMachine.scala:438)"
    ),
    "epoch_updating": "[Controller id={c}] Updating leader epoch for partition {tp}",
    "reassignment_assigned": None,
    "reassignment_waiting": None,
    "reassignment_removed": None,
    "deletion_manager": "[Topic Deletion Manager {c}] ",
    "deletion_started": "Deletion of topic {topic} (re)started",
    "shutting_down_removed": "Removed {brokers} from list of shutting down brokers.",
}
"""Kafka 2.8.2."""

FORMATS_10: Mapping[str, str | None] = {
    **FORMATS_28,
    "event_thread_started": "[controller-event-thread]: Starting",
    "send_thread": "[Controller-{c}-to-broker-{broker}-send-thread]: ",
    "partition_state_machine": "kafka.controller.PartitionStateMachine",
    "replica_state_machine": "kafka.controller.ReplicaStateMachine",
    "leader_isr_controller_epoch": (
        "(Leader:{leader},ISR:{isr},LeaderEpoch:{leader_epoch},ControllerEpoch:{controller_epoch})"
    ),
    "broker_change": (
        "[Controller id={c}] Newly added brokers: {added}, deleted brokers: {deleted}, "
        "all live brokers: {live}"
    ),
    "replica_failed": (
        "[Controller id={c} epoch={epoch}] Initiated state change of replica {replica} for "
        "partition {tp} from {before} to {target} failed"
    ),
    "replica_failed_frame": (
        "ReplicaStateMachine.assertValidPreviousStates(ReplicaStateMachine.scala:320)"
    ),
    "epoch_updating": "[Controller id={c}] Updating leader epoch for partition {tp}.",
    # the trailing space is Kafka's
    "reassignment_assigned": (
        "[Controller id={c}] Updated assigned replicas for partition {tp} being reassigned "
        "to {replicas} "
    ),
    "reassignment_waiting": (
        "[Controller id={c}] Waiting for new replicas {target} for partition {tp} being "
        "reassigned to catch up with the leader"
    ),
    "reassignment_removed": (
        "[Controller id={c}] Removed partition {tp} from the list of reassigned partitions "
        "in zookeeper"
    ),
    "deletion_manager": "[Topic Deletion Manager {c}], ",
    "deletion_started": "Topic deletion callback for {topic}",
    "shutting_down_removed": "Removed {buffer} from list of shutting down brokers.",
}
"""Kafka 1.0.2."""
