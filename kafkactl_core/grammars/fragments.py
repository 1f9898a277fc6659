"""Regex building blocks that grammar entries are composed from.

Every fragment stays inside the common subset of Python ``re`` and RE2 that
``kafkactl_core.grammars.lint`` enforces: ``[0-9]`` rather than ``\\d``, no named groups.
Fragments whose name says ``capture`` (or that are written with a capturing group) contribute
exactly the groups their docstring lists; composing entries from them keeps "one group per
field" easy to check.
"""

from __future__ import annotations

__all__ = [
    "BROKER_IDENT",
    "BROKER_STATES",
    "COLLECTION",
    "CTRL_IDENT",
    "ID",
    "INT",
    "INTS",
    "LAI_JSON",
    "LAI_V1_1",
    "LAI_V3_2",
    "LAI_V3_3",
    "LAI_V3_5",
    "LICE",
    "LICE_FIELDS",
    "NODE",
    "NUM",
    "PARTITION_STATE",
    "RECOVERY",
    "REPLICA_STATE",
    "REST",
    "SC_IDENT",
    "TEXT",
    "TOPIC",
    "TOPICS",
    "TP",
    "TPB",
    "TPS",
    "TPS_BRACKET",
    "coll",
    "escape_literal",
]

_SPECIAL = frozenset("\\.^$|?*+()[]{}")


def escape_literal(text: str) -> str:
    """Escape ``text`` for use as a literal in a portable pattern.

    Only regex metacharacters are escaped (Python's ``re.escape`` also escapes spaces and ``#``,
    which is legal but noisy).

    Args:
        text: literal text.

    Returns:
        The escaped text.
    """
    return "".join("\\" + char if char in _SPECIAL else char for char in text)


ID = "([0-9]+)"
"""One group: a broker or controller id."""

NUM = "([0-9]+)"
"""One group: a non-negative number (epochs, counts, offsets)."""

INT = "(-?[0-9]+)"
"""One group: a possibly negative number (leader -1, previous epoch -1)."""

INTS = "((?:-?[0-9]+(?:,[ ]*-?[0-9]+)*)?)"
"""One group: a comma-separated integer list (``1,2,3`` or ``1, 2, 3``), possibly empty."""

_TOPIC_CHARS = "[A-Za-z0-9._-]"

TOPIC = f"({_TOPIC_CHARS}+)"
"""One group: a topic name (Kafka's legal characters)."""

TP = f"({_TOPIC_CHARS}+)-([0-9]+)"
"""Two groups (topic, partition): ``orders-0`` (TopicPartition; TopicAndPartition from 1.0)."""

TPB = rf"\[({_TOPIC_CHARS}+),([0-9]+)\]"
"""Two groups (topic, partition): the ``[orders,0]`` rendering (TopicAndPartition up to 0.11)."""

TPS = f"((?:{_TOPIC_CHARS}+-[0-9]+(?:,[ ]*{_TOPIC_CHARS}+-[0-9]+)*)?)"
"""One group: a possibly empty list of ``orders-0`` partitions."""

TPS_BRACKET = rf"((?:\[{_TOPIC_CHARS}+,[0-9]+\](?:,[ ]*\[{_TOPIC_CHARS}+,[0-9]+\])*)?)"
"""One group: a possibly empty list of ``[orders,0]`` partitions."""

TOPICS = f"((?:{_TOPIC_CHARS}+(?:,[ ]*{_TOPIC_CHARS}+)*)?)"
"""One group: a possibly empty list of topic names."""

TEXT = "([^\\n]*)"
"""One group: free text up to the end of the line (kept verbatim)."""

REST = "[^\\n]*"
"""No group: any text up to the end of the line."""

PARTITION_STATE = "(NonExistentPartition|NewPartition|OnlinePartition|OfflinePartition)"
"""One group: a PartitionStateMachine state."""

REPLICA_STATE = (
    "(NewReplica|OnlineReplica|OfflineReplica|ReplicaDeletionStarted|"
    "ReplicaDeletionSuccessful|ReplicaDeletionIneligible|NonExistentReplica)"
)
"""One group: a ReplicaStateMachine state."""

RECOVERY = "(RECOVERED|RECOVERING)"
"""One group: a KIP-704 leader recovery state."""

COLLECTION = (
    "(?:List|Set|HashSet|ListSet|TreeSet|ArrayBuffer|ListBuffer|Vector|ArraySeq|WrappedArray|"
    "Buffer|Queue|Stream)"
)
"""No group: the name of a Scala collection as its ``toString`` prints it."""


def coll(inner: str) -> str:
    """A Scala collection's ``toString`` around ``inner`` (``List(1, 2)``, ``HashSet(a)``, ...).

    Args:
        inner: the fragment matching the elements.

    Returns:
        The fragment; it has the groups of ``inner``.
    """
    return COLLECTION + r"\(" + inner + r"\)"


CTRL_IDENT = r"\[[A-Za-z][A-Za-z ]*[ =]([0-9]+)\][:,]? "
"""One group (origin_broker): any ``logIdent`` ending in the writer's id.

``[Controller id=1] ``, ``[Controller 1]: ``, ``[PartitionStateMachine controllerId=1] ``,
``[Partition state machine on Controller 1]: ``, ``[Topic Deletion Manager 1], ``,
``[BrokerChangeListener on Controller 0]: ``, ``[QuorumController id=2] ``, ``[KafkaServer id=1] ``.
"""

SC_IDENT = r"\[Controller id=([0-9]+)(?: epoch=([0-9]+))?\] "
"""Two groups (origin_broker, controller_epoch): the 1.0+ controller-side state-change prefix."""

BROKER_IDENT = r"\[Broker id=([0-9]+)\] "
"""One group (origin_broker): the 1.0+ broker-side state-change prefix."""

SC_IDENT_OLD = r"Controller ([0-9]+) epoch ([0-9]+) "
"""Two groups (origin_broker, controller_epoch): the 0.8 - 0.11 controller-side state-change
writer."""

SERVER_IDENT = r"\[Kafka ?Server (?:id=)?([0-9]+)\],? "
"""One group (origin_broker): ``KafkaServer``'s prefix in server.log, ``[Kafka Server 1], `` up to
0.11, ``[KafkaServer id=1] `` from 1.0."""

PARTITION_IDENT = rf"\[Partition {TP} broker=([0-9]+)\] "
"""Three groups (topic, partition, origin_broker): ``kafka.cluster.Partition``'s 1.0+ prefix
(``[Partition orders-0 broker=1] ``)."""

PARTITION_IDENT_OLD = f"Partition {TPB} on broker ([0-9]+): "
"""Three groups (topic, partition, origin_broker): ``PARTITION_IDENT`` up to 0.11
(``Partition [orders,0] on broker 1: ``)."""

NODE = r"[^\n]*? \(id: [0-9]+ rack: [^)\n]*\)"
"""No group: a broker ``Node`` (``kafka-2:9092 (id: 2 rack: null)``)."""

NODE_ID = r"[^\n]*? \(id: ([0-9]+) rack: [^)\n]*\)"
"""One group (broker): ``NODE`` with its id captured."""

LAI_JSON = (
    r'\{"leader":(-?[0-9]+),"leader_epoch":([0-9]+),"isr":\[((?:-?[0-9]+(?:,-?[0-9]+)*)?)\]\}'
)
"""Three groups (leader, leader_epoch, isr): ``LeaderAndIsr.toString`` up to 1.0 (JSON)."""

LAI_V1_1 = (
    r"LeaderAndIsr\(leader=(-?[0-9]+), leaderEpoch=(-?[0-9]+), isr=List\("
    + INTS
    + r"\), zkVersion=(-?[0-9]+)\)"
)
"""Four groups (leader, leader_epoch, isr, zk_version): ``LeaderAndIsr`` 1.1 - 3.1."""

LAI_V3_2 = (
    r"LeaderAndIsr\(leader=(-?[0-9]+), leaderEpoch=(-?[0-9]+), isr=List\("
    + INTS
    + r"\), leaderRecoveryState="
    + RECOVERY
    + r", zkVersion=(-?[0-9]+)\)"
)
"""Five groups (leader, leader_epoch, isr, leader_recovery_state, zk_version): 3.2."""

LAI_V3_3 = (
    r"LeaderAndIsr\(leader=(-?[0-9]+), leaderEpoch=(-?[0-9]+), isr=List\("
    + INTS
    + r"\), leaderRecoveryState="
    + RECOVERY
    + r", partitionEpoch=(-?[0-9]+)\)"
)
"""Five groups (leader, leader_epoch, isr, leader_recovery_state, partition_epoch): 3.3 - 3.4."""

BROKER_STATES = (
    r"((?:BrokerState\(brokerId=-?[0-9]+, brokerEpoch=-?[0-9]+\)"
    r"(?:, BrokerState\(brokerId=-?[0-9]+, brokerEpoch=-?[0-9]+\))*)?)"
)
"""One group (an ``int_list``): a list of ``BrokerState(brokerId=.., brokerEpoch=..)``."""

LAI_V3_5 = (
    r"LeaderAndIsr\(leader=(-?[0-9]+), leaderEpoch=(-?[0-9]+), isrWithBrokerEpoch=List\("
    + BROKER_STATES
    + r"\), leaderRecoveryState="
    + RECOVERY
    + r", partitionEpoch=(-?[0-9]+)\)"
)
"""Five groups (leader, leader_epoch, isr, leader_recovery_state, partition_epoch): 3.5+."""

LICE = (
    r"\(Leader:(-?[0-9]+),ISR:"
    + INTS
    + r"(?:,LeaderRecoveryState:"
    + RECOVERY
    + r")?,LeaderEpoch:(-?[0-9]+)(?:,ZkVersion:(-?[0-9]+))?,ControllerEpoch:([0-9]+)\)"
)
"""Six groups (leader, isr, leader_recovery_state, leader_epoch, zk_version,
state_controller_epoch): ``LeaderIsrAndControllerEpoch.toString``, every version (the
``LeaderRecoveryState`` and ``ZkVersion`` segments are optional)."""

LICE_FIELDS = "leader isr leader_recovery_state leader_epoch zk_version state_controller_epoch"
"""The field names of ``LICE``'s groups, in order."""

SC_IDENT_NO_EPOCH = r"\[Controller id=([0-9]+)(?: epoch=[0-9]+)?\] "
"""One group (origin_broker): the controller-side state-change prefix, epoch not captured (for
lines that repeat the epoch in their text)."""

BROKER_ANY = r"(?:Broker |\[Broker id=)([0-9]+)\]? "
"""One group (origin_broker): the broker-side state-change writer, ``Broker 1 `` (up to 0.11) or
``[Broker id=1] `` (1.0+)."""

TPX = r"\[?([A-Za-z0-9._-]+?)[,-]([0-9]+)\]?"
"""Two groups (topic, partition): either ``orders-0`` or ``[orders,0]``; the topic is taken lazily,
so the fragment must be followed by text that pins the partition number's end."""

FLOAT = r"(-?(?:[0-9]+(?:\.[0-9]+)?(?:E-?[0-9]+)?|NaN|Infinity))"
"""One group: a Scala ``Double.toString``."""

OPT_COLL_INTS = "(?:" + COLLECTION + r"\()?" + INTS + r"\)?"
"""One group: an integer list, bare (``1,2,3``) or wrapped in a Scala collection."""

REPLICA_ASSIGNMENT = (
    r"ReplicaAssignment\(replicas="
    + INTS
    + ", addingReplicas="
    + INTS
    + ", removingReplicas="
    + INTS
    + r"\)"
)
"""Three groups (replicas, adding_replicas, removing_replicas): the 2.4+ ``ReplicaAssignment``."""

REPLICA_ASSIGNMENT_SKIP = (
    r"ReplicaAssignment\(replicas=[0-9,]*, addingReplicas=[0-9,]*, removingReplicas=[0-9,]*\)"
)
"""No group: a ``ReplicaAssignment`` that is not captured."""


def ident_phrase(phrase: str) -> str:
    """``CTRL_IDENT`` followed by a literal phrase (one group: origin_broker).

    Args:
        phrase: the literal message text after the prefix.

    Returns:
        The fragment.
    """
    return CTRL_IDENT + escape_literal(phrase)


CTRL_IDENT_SKIP = r"\[[A-Za-z][A-Za-z ]*[ =][0-9]+\][:,]? "
"""No group: ``CTRL_IDENT`` for ignored entries."""

TPS_NONEMPTY = f"({_TOPIC_CHARS}+-[0-9]+(?:,[ ]*{_TOPIC_CHARS}+-[0-9]+)*)"
"""One group: a non-empty list of ``orders-0`` partitions."""

TPS_BRACKET_NONEMPTY = rf"(\[{_TOPIC_CHARS}+,[0-9]+\](?:,[ ]*\[{_TOPIC_CHARS}+,[0-9]+\])*)"
"""One group: a non-empty list of ``[orders,0]`` partitions."""

SELECTOR_IDENT = r"\[[A-Za-z]+Selector\]: "
"""No group: the 0.8 - 1.0 leader selectors' prefix (``[OfflinePartitionLeaderSelector]: ``)."""
