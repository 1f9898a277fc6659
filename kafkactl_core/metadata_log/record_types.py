"""The metadata and KRaft control record schemas, from Kafka's message definitions.

Written from ``metadata/src/main/resources/common/metadata/*.json`` (metadata records, by api
key) and ``clients/src/main/resources/common/message/`` (``LeaderChangeMessage``,
``SnapshotHeaderRecord``, ``SnapshotFooterRecord``, ``KRaftVersionRecord``, ``VotersRecord``) of
Apache Kafka up to 4.1. Every one is flexible in all its versions. A type or version missing here
is kept undecoded with its reason, never dropped.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from kafkactl_core.metadata_log.schema import MessageSchema, f, message


def _named(table: Mapping[str, Callable[[str], MessageSchema]]) -> dict[str, MessageSchema]:
    return {name: build(name) for name, build in table.items()}


_METADATA = _named(
    {
        "RegisterBrokerRecord": message(
            0,
            "0-3",
            (
                f("BrokerId", "int32", "0+"),
                f("IsMigratingZkBroker", "bool", "2+", default="false"),
                f("IncarnationId", "uuid", "0+"),
                f("BrokerEpoch", "int64", "0+"),
                f(
                    "EndPoints",
                    "[]BrokerEndpoint",
                    "0+",
                    fields=(
                        f("Name", "string", "0+"),
                        f("Host", "string", "0+"),
                        f("Port", "uint16", "0+"),
                        f("SecurityProtocol", "int16", "0+"),
                    ),
                ),
                f(
                    "Features",
                    "[]BrokerFeature",
                    "0+",
                    fields=(
                        f("Name", "string", "0+"),
                        f("MinSupportedVersion", "int16", "0+"),
                        f("MaxSupportedVersion", "int16", "0+"),
                    ),
                ),
                f("Rack", "string", "0+", nullable="0+"),
                f("Fenced", "bool", "0+", default="true"),
                f("InControlledShutdown", "bool", "1+", default="false"),
                f("LogDirs", "[]uuid", "3+", tag=0),
            ),
        ),
        "UnregisterBrokerRecord": message(
            1,
            "0",
            (
                f("BrokerId", "int32", "0+"),
                f("BrokerEpoch", "int64", "0+"),
            ),
        ),
        "TopicRecord": message(
            2,
            "0",
            (
                f("Name", "string", "0+"),
                f("TopicId", "uuid", "0+"),
            ),
        ),
        "PartitionRecord": message(
            3,
            "0-2",
            (
                f("PartitionId", "int32", "0+", default="-1"),
                f("TopicId", "uuid", "0+"),
                f("Replicas", "[]int32", "0+"),
                f("Isr", "[]int32", "0+"),
                f("RemovingReplicas", "[]int32", "0+"),
                f("AddingReplicas", "[]int32", "0+"),
                f("Leader", "int32", "0+", default="-1"),
                f("LeaderRecoveryState", "int8", "0+", tag=0, default="0"),
                f("LeaderEpoch", "int32", "0+", default="-1"),
                f("PartitionEpoch", "int32", "0+", default="-1"),
                f("Directories", "[]uuid", "1+"),
                f("EligibleLeaderReplicas", "[]int32", "2+", nullable="2+", tag=1, default="null"),
                f("LastKnownElr", "[]int32", "2+", nullable="2+", tag=2, default="null"),
            ),
        ),
        "ConfigRecord": message(
            4,
            "0",
            (
                f("ResourceType", "int8", "0+"),
                f("ResourceName", "string", "0+"),
                f("Name", "string", "0+"),
                f("Value", "string", "0+", nullable="0+"),
            ),
        ),
        "PartitionChangeRecord": message(
            5,
            "0-2",
            (
                f("PartitionId", "int32", "0+", default="-1"),
                f("TopicId", "uuid", "0+"),
                f("Isr", "[]int32", "0+", nullable="0+", tag=0, default="null"),
                f("Leader", "int32", "0+", tag=1, default="-2"),
                f("Replicas", "[]int32", "0+", nullable="0+", tag=2, default="null"),
                f("RemovingReplicas", "[]int32", "0+", nullable="0+", tag=3, default="null"),
                f("AddingReplicas", "[]int32", "0+", nullable="0+", tag=4, default="null"),
                f("LeaderRecoveryState", "int8", "0+", tag=5, default="-1"),
                f("Directories", "[]uuid", "1+", nullable="1+", tag=8, default="null"),
                f("EligibleLeaderReplicas", "[]int32", "2+", nullable="2+", tag=6, default="null"),
                f("LastKnownElr", "[]int32", "2+", nullable="2+", tag=7, default="null"),
            ),
        ),
        "FenceBrokerRecord": message(
            7,
            "0",
            (
                f("Id", "int32", "0+"),
                f("Epoch", "int64", "0+"),
            ),
        ),
        "UnfenceBrokerRecord": message(
            8,
            "0",
            (
                f("Id", "int32", "0+"),
                f("Epoch", "int64", "0+"),
            ),
        ),
        "RemoveTopicRecord": message(9, "0", (f("TopicId", "uuid", "0+"),)),
        "DelegationTokenRecord": message(
            10,
            "0",
            (
                f("Owner", "string", "0+"),
                f("Requester", "string", "0+"),
                f("Renewers", "[]string", "0+"),
                f("IssueTimestamp", "int64", "0+"),
                f("MaxTimestamp", "int64", "0+"),
                f("ExpirationTimestamp", "int64", "0+"),
                f("TokenId", "string", "0+"),
            ),
        ),
        "UserScramCredentialRecord": message(
            11,
            "0",
            (
                f("Name", "string", "0+"),
                f("Mechanism", "int8", "0+"),
                f("Salt", "bytes", "0+"),
                f("StoredKey", "bytes", "0+"),
                f("ServerKey", "bytes", "0+"),
                f("Iterations", "int32", "0+"),
            ),
        ),
        "FeatureLevelRecord": message(
            12,
            "0",
            (
                f("Name", "string", "0+"),
                f("FeatureLevel", "int16", "0+"),
            ),
        ),
        "ClientQuotaRecord": message(
            14,
            "0",
            (
                f(
                    "Entity",
                    "[]EntityData",
                    "0+",
                    fields=(
                        f("EntityType", "string", "0+"),
                        f("EntityName", "string", "0+", nullable="0+"),
                    ),
                ),
                f("Key", "string", "0+"),
                f("Value", "float64", "0+"),
                f("Remove", "bool", "0+"),
            ),
        ),
        "ProducerIdsRecord": message(
            15,
            "0",
            (
                f("BrokerId", "int32", "0+"),
                f("BrokerEpoch", "int64", "0+", default="-1"),
                f("NextProducerId", "int64", "0+"),
            ),
        ),
        "BrokerRegistrationChangeRecord": message(
            17,
            "0-2",
            (
                f("BrokerId", "int32", "0+"),
                f("BrokerEpoch", "int64", "0+"),
                f("Fenced", "int8", "0+", tag=0),
                f("InControlledShutdown", "int8", "1+", tag=1),
                f("LogDirs", "[]uuid", "2+", tag=2),
            ),
        ),
        "AccessControlEntryRecord": message(
            18,
            "0",
            (
                f("Id", "uuid", "0+"),
                f("ResourceType", "int8", "0+"),
                f("ResourceName", "string", "0+"),
                f("PatternType", "int8", "0+"),
                f("Principal", "string", "0+"),
                f("Host", "string", "0+"),
                f("Operation", "int8", "0+"),
                f("PermissionType", "int8", "0+"),
            ),
        ),
        "RemoveAccessControlEntryRecord": message(19, "0", (f("Id", "uuid", "0+"),)),
        "NoOpRecord": message(20, "0", ()),
        "ZkMigrationStateRecord": message(21, "0", (f("ZkMigrationState", "int8", "0+"),)),
        "RemoveUserScramCredentialRecord": message(
            22,
            "0",
            (
                f("Name", "string", "0+"),
                f("Mechanism", "int8", "0+"),
            ),
        ),
        "BeginTransactionRecord": message(
            23, "0", (f("Name", "string", "0+", nullable="0+", tag=0, default="null"),)
        ),
        "EndTransactionRecord": message(24, "0", ()),
        "AbortTransactionRecord": message(
            25, "0", (f("Reason", "string", "0+", nullable="0+", tag=0, default="null"),)
        ),
        "RemoveDelegationTokenRecord": message(26, "0", (f("TokenId", "string", "0+"),)),
        "RegisterControllerRecord": message(
            27,
            "0",
            (
                f("ControllerId", "int32", "0+"),
                f("IncarnationId", "uuid", "0+"),
                f("ZkMigrationReady", "bool", "0+"),
                f(
                    "EndPoints",
                    "[]ControllerEndpoint",
                    "0+",
                    fields=(
                        f("Name", "string", "0+"),
                        f("Host", "string", "0+"),
                        f("Port", "uint16", "0+"),
                        f("SecurityProtocol", "int16", "0+"),
                    ),
                ),
                f(
                    "Features",
                    "[]ControllerFeature",
                    "0+",
                    fields=(
                        f("Name", "string", "0+"),
                        f("MinSupportedVersion", "int16", "0+"),
                        f("MaxSupportedVersion", "int16", "0+"),
                    ),
                ),
            ),
        ),
        # the topic whose partitions lose their ELR and last known ELR; empty: every topic
        "ClearElrRecord": message(28, "0", (f("TopicName", "string", "0+"),)),
    }
)

_CONTROL = _named(
    {
        "KRaftVersionRecord": message(
            -1,
            "0",
            (
                f("Version", "int16", "0+"),
                f("KRaftVersion", "int16", "0+"),
            ),
        ),
        "LeaderChangeMessage": message(
            -1,
            "0-1",
            (
                f("Version", "int16", "0+"),
                f("LeaderId", "int32", "0+"),
                f(
                    "Voters",
                    "[]Voter",
                    "0+",
                    fields=(
                        f("VoterId", "int32", "0+"),
                        f("VoterDirectoryId", "uuid", "1+"),
                    ),
                ),
                f(
                    "GrantingVoters",
                    "[]Voter",
                    "0+",
                    fields=(
                        f("VoterId", "int32", "0+"),
                        f("VoterDirectoryId", "uuid", "1+"),
                    ),
                ),
            ),
        ),
        "SnapshotFooterRecord": message(-1, "0", (f("Version", "int16", "0+"),)),
        "SnapshotHeaderRecord": message(
            -1,
            "0",
            (
                f("Version", "int16", "0+"),
                f("LastContainedLogTimestamp", "int64", "0+"),
            ),
        ),
        "VotersRecord": message(
            -1,
            "0",
            (
                f("Version", "int16", "0+"),
                f(
                    "Voters",
                    "[]Voter",
                    "0+",
                    fields=(
                        f("VoterId", "int32", "0+"),
                        f("VoterDirectoryId", "uuid", "0+"),
                        f(
                            "Endpoints",
                            "[]Endpoint",
                            "0+",
                            fields=(
                                f("Name", "string", "0+"),
                                f("Host", "string", "0+"),
                                f("Port", "uint16", "0+"),
                            ),
                        ),
                        f(
                            "KRaftVersionFeature",
                            "KRaftVersionFeature",
                            "0+",
                            fields=(
                                f("MinSupportedVersion", "int16", "0+"),
                                f("MaxSupportedVersion", "int16", "0+"),
                            ),
                        ),
                    ),
                ),
            ),
        ),
    }
)

METADATA_BY_KEY: dict[int, MessageSchema] = {
    schema.api_key: schema for schema in _METADATA.values()
}
"""Metadata record schemas by api key (the ``apiKey`` of a record's frame)."""

CONTROL_BY_TYPE: dict[int, tuple[str, MessageSchema]] = {
    2: ("LeaderChange", _CONTROL["LeaderChangeMessage"]),
    3: ("SnapshotHeader", _CONTROL["SnapshotHeaderRecord"]),
    4: ("SnapshotFooter", _CONTROL["SnapshotFooterRecord"]),
    5: ("KRaftVersion", _CONTROL["KRaftVersionRecord"]),
    6: ("KRaftVoters", _CONTROL["VotersRecord"]),
}
"""KRaft control records by ``ControlRecordType`` id: the label the dump tool prints, the schema.

Types 0 and 1 (``ABORT``, ``COMMIT``) are transaction markers, which a metadata log never holds.
"""
