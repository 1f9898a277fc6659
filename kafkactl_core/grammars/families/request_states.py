"""The partition states LeaderAndIsr and UpdateMetadata requests carry, as both sides print them.

A request's partition state renders as ``(Leader:1,ISR:1,2,...)`` inside a ``PartitionStateInfo``
up to 0.11, ``PartitionState(controllerEpoch=7, ...)`` 0.11 - 2.3 and the generated
``LeaderAndIsrPartitionState(topicName='orders', ...)`` / ``UpdateMetadataPartitionState(...)``
from 2.4 (FORMATS.md 3.3, 4.10). The controller's lines (``requests_sent``) and the brokers'
(``requests_received``) embed the same renderings; each fragment's ``*_FIELDS`` names its groups.
"""

from __future__ import annotations

from kafkactl_core.grammars.fragments import INT, INTS, LICE, LICE_FIELDS, NUM, TOPIC

ROLE = "(become-leader|become-follower)"
"""One group (role): the side of a LeaderAndIsr a partition is on."""

_BOOL = "(?:true|false)"

_LEADERSHIP = f"controllerEpoch={NUM}, leader={INT}, leaderEpoch={INT}"
"""Three groups (state_controller_epoch, leader, leader_epoch), in every rendering from 0.11."""

_NAMED_PARTITION = f"topicName='{TOPIC}', partitionIndex={NUM}, "
"""Two groups (topic, partition): how the generated 2.4+ states name their partition."""

_UPDATE_METADATA_TAIL = (
    rf", isr=\[{INTS}\], zkVersion={INT}, replicas=\[{INTS}\], offlineReplicas=\[[0-9, -]*\]\)"
)
"""Three groups (isr, zk_version, replicas): an UpdateMetadata state after its leadership."""

PARTITION_STATE_0_11 = (
    rf"PartitionState\({_LEADERSHIP}, isr={INTS},"
    rf" zkVersion={INT}, replicas={INTS}(?:, isNew={_BOOL})?\)"
)
"""LeaderAndIsr's ``PartitionState`` 0.11 - 2.3; groups: ``PARTITION_STATE_FIELDS``."""

PARTITION_STATE_FIELDS = "state_controller_epoch leader leader_epoch isr zk_version replicas"

PARTITION_STATE_UPDATE_METADATA_1_0 = rf"PartitionState\({_LEADERSHIP}{_UPDATE_METADATA_TAIL}"
"""UpdateMetadata's ``PartitionState`` 1.0 - 2.3; groups: ``PARTITION_STATE_FIELDS``."""

_LEADER_AND_ISR_STATE_HEAD = (
    rf"LeaderAndIsrPartitionState\({_NAMED_PARTITION}{_LEADERSHIP}, isr=\[{INTS}\], "
)
_LEADER_AND_ISR_STATE_TAIL = (
    rf", replicas=\[{INTS}\], addingReplicas=\[{INTS}\],"
    rf" removingReplicas=\[{INTS}\], isNew={_BOOL}"
)
LEADER_AND_ISR_STATE_2_4 = (
    rf"{_LEADER_AND_ISR_STATE_HEAD}zkVersion={INT}{_LEADER_AND_ISR_STATE_TAIL}\)"
)
"""The generated ``LeaderAndIsrPartitionState`` 2.4 - 3.2 (``{version}`` = ``zk_version``)."""

LEADER_AND_ISR_STATE_3_3 = (
    f"{_LEADER_AND_ISR_STATE_HEAD}partitionEpoch={INT}{_LEADER_AND_ISR_STATE_TAIL},"
    r" leaderRecoveryState=-?[0-9]+\)"
)
"""The generated ``LeaderAndIsrPartitionState`` 3.3+ (``{version}`` = ``partition_epoch``)."""

LEADER_AND_ISR_STATE_FIELDS = (
    "topic partition state_controller_epoch leader leader_epoch isr {version} replicas "
    "adding_replicas removing_replicas"
)

UPDATE_METADATA_STATE_2_4 = (
    rf"UpdateMetadataPartitionState\({_NAMED_PARTITION}{_LEADERSHIP}{_UPDATE_METADATA_TAIL}"
)
"""The generated ``UpdateMetadataPartitionState`` 2.4+; groups: ``UPDATE_METADATA_STATE_FIELDS``."""

UPDATE_METADATA_STATE_FIELDS = f"topic partition {PARTITION_STATE_FIELDS}"

PARTITION_STATE_INFO = rf"\(LeaderAndIsrInfo:{LICE},ReplicationFactor:[0-9]+\),AllReplicas:{INTS}\)"
"""0.8 - 0.11 ``PartitionStateInfo`` (parentheses unbalanced in Kafka's own toString)."""

PARTITION_STATE_INFO_FIELDS = f"{LICE_FIELDS} replicas"
