"""KRaft metadata versions (``X.Y-IVn``): ordering, feature levels and the feature gates.

A metadata version (MV) is what ``metadata.version`` finalises in a KRaft cluster. The controller's
behaviour depends on it (``MetadataVersion.java``): which records it writes, which record versions,
whether an ISR shrink bumps the leader epoch, whether leader recovery (KIP-704), directories
(KIP-858) or Eligible Leader Replicas (KIP-966) are in force. The ELR gate moved with every 3.x
release (it always pointed at an unreleased MV), so it also takes the Kafka release whose code runs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kafkactl_core.versions import KafkaRelease

REFERENCE_RELEASE = KafkaRelease(3, 9)
"""The Kafka release whose controller code this package reproduces (``3.9.0-rc3``)."""

_MV = re.compile(r"^\s*(\d+)\.(\d+)(?:-?IV(\d+))?\s*$", re.IGNORECASE)

_FEATURE_LEVELS: dict[tuple[int, int, int], int] = {
    (3, 0, 1): 1,
    (3, 1, 0): 2,
    (3, 2, 0): 3,
    (3, 3, 0): 4,
    (3, 3, 1): 5,
    (3, 3, 2): 6,
    (3, 3, 3): 7,
    (3, 4, 0): 8,
    (3, 5, 0): 9,
    (3, 5, 1): 10,
    (3, 5, 2): 11,
    (3, 6, 0): 12,
    (3, 6, 1): 13,
    (3, 6, 2): 14,
    (3, 7, 0): 15,
    (3, 7, 1): 16,
    (3, 7, 2): 17,
    (3, 7, 3): 18,
    (3, 7, 4): 19,
    (3, 8, 0): 20,
    (3, 9, 0): 21,
    (4, 0, 0): 22,
    (4, 0, 1): 23,
    (4, 0, 2): 24,
    (4, 0, 3): 25,
    (4, 1, 0): 26,
    (4, 1, 1): 27,
    (4, 2, 0): 28,
    (4, 2, 1): 29,
}
"""``metadata.version`` feature levels: those ``3.9.0-rc3`` knows, then ``4.0-IV2`` to ``4.2-IV1``
as Kafka 4.1.1's ``MetadataVersion`` enum numbers them (their gates are 3.9's: the controller
rules reproduced here are ``3.9.0-rc3``'s)."""

_BY_FEATURE_LEVEL = {level: key for key, level in _FEATURE_LEVELS.items()}


@dataclass(frozen=True, slots=True, order=True)
class MetadataVersion:
    """A KRaft metadata version such as ``3.7-IV2``, ordered like Kafka's enum.

    Attributes:
        major: release major number.
        minor: release minor number.
        iv: the internal version within the release.
    """

    major: int
    minor: int
    iv: int

    @classmethod
    def parse(cls, text: str) -> MetadataVersion:
        """Parse ``3.7-IV2``; a bare release (``3.3``) means its newest known IV, as in Kafka.

        Args:
            text: the version string.

        Returns:
            The metadata version.

        Raises:
            ValueError: when ``text`` is not a metadata version.
        """
        match = _MV.match(text)
        if match is None:
            raise ValueError(f"not a metadata version: {text!r} (expected e.g. 3.7-IV2)")
        major, minor, iv = int(match.group(1)), int(match.group(2)), match.group(3)
        if iv is not None:
            return cls(major, minor, int(iv))
        known = [key[2] for key in _FEATURE_LEVELS if key[:2] == (major, minor)]
        return cls(major, minor, max(known) if known else 0)

    @classmethod
    def from_feature_level(cls, level: int) -> MetadataVersion:
        """The MV a ``FeatureLevelRecord`` for ``metadata.version`` names.

        Raises:
            ValueError: when the level is not one this package knows.
        """
        key = _BY_FEATURE_LEVEL.get(level)
        if key is None:
            raise ValueError(f"unknown metadata.version feature level {level}")
        return cls(*key)

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}-IV{self.iv}"

    @property
    def release(self) -> KafkaRelease:
        """The feature release that introduced this MV."""
        return KafkaRelease(self.major, self.minor)

    @property
    def feature_level(self) -> int | None:
        """The ``metadata.version`` feature level, None for an MV this package does not know."""
        return _FEATURE_LEVELS.get((self.major, self.minor, self.iv))

    def at_least(self, text: str) -> bool:
        """Whether this MV is ``text`` or newer."""
        return self >= MetadataVersion.parse(text)

    def is_kraft_supported(self) -> bool:
        """KRaft starts at ``3.0-IV1`` (``MINIMUM_KRAFT_VERSION``)."""
        return self >= IBP_3_0_IV1

    def is_leader_recovery_supported(self) -> bool:
        """KIP-704: an unclean election marks the partition RECOVERING (``3.2-IV0``+)."""
        return self >= IBP_3_2_IV0

    def is_broker_registration_change_record_supported(self) -> bool:
        """BrokerRegistrationChangeRecord replaces Fence/UnfenceBrokerRecord (``3.3-IV2``+)."""
        return self >= IBP_3_3_IV2

    def is_in_controlled_shutdown_state_supported(self) -> bool:
        """Registrations carry ``inControlledShutdown`` (KIP-841, ``3.3-IV3``+)."""
        return self >= IBP_3_3_IV3

    def is_migration_supported(self) -> bool:
        """ZooKeeper to KRaft migration (KIP-866, ``3.4-IV0``+)."""
        return self >= IBP_3_4_IV0

    def is_leader_epoch_bump_required_on_isr_shrink(self) -> bool:
        """Before ``3.6-IV0`` the controller bumps the leader epoch on every ISR shrink."""
        return self < IBP_3_6_IV0

    def is_directory_assignment_supported(self) -> bool:
        """Replica directories in partition records (KIP-858, ``3.7-IV2``+)."""
        return self >= IBP_3_7_IV2

    def is_elr_supported(self, release: KafkaRelease = REFERENCE_RELEASE) -> bool:
        """Whether the Eligible Leader Replicas code (KIP-966) is active at this MV.

        Args:
            release: the Kafka release whose ``isElrSupported()`` decides (the gate moved).

        Returns:
            True when ``release`` has ELR code and this MV reaches its gate.
        """
        gate = elr_gate(release)
        return gate is not None and self >= gate

    def partition_record_version(self, release: KafkaRelease = REFERENCE_RELEASE) -> int:
        """Version of PartitionRecord / PartitionChangeRecord the controller writes.

        Args:
            release: the Kafka release (it decides the ELR gate).

        Returns:
            2 with ELR, 1 with directories, else 0.
        """
        if self.is_elr_supported(release):
            return 2
        if self.is_directory_assignment_supported():
            return 1
        return 0

    def partition_change_record_version(self, release: KafkaRelease = REFERENCE_RELEASE) -> int:
        """Version of PartitionChangeRecord the controller writes (same rule as PartitionRecord)."""
        return self.partition_record_version(release)

    def register_broker_record_version(self) -> int:
        """Version of RegisterBrokerRecord: 3 with directories, 2 with migration, 1, or 0."""
        if self.is_directory_assignment_supported():
            return 3
        if self.is_migration_supported():
            return 2
        if self.is_in_controlled_shutdown_state_supported():
            return 1
        return 0


def elr_gate(release: KafkaRelease) -> MetadataVersion | None:
    """The MV at which a Kafka release turns ELR on, None when it has no ELR code.

    ``3.7``: ``3.8-IV0``; ``3.8``: ``3.9-IV0``; ``3.9`` and trunk: ``4.0-IV0`` (KRAFT.md §2).

    Args:
        release: the controller's Kafka release.

    Returns:
        The gating MV, or None before 3.7.
    """
    if release < KafkaRelease(3, 7):
        return None
    if release < KafkaRelease(3, 8):
        return IBP_3_8_IV0
    if release < KafkaRelease(3, 9):
        return IBP_3_9_IV0
    return IBP_4_0_IV0


IBP_3_0_IV1 = MetadataVersion(3, 0, 1)
IBP_3_2_IV0 = MetadataVersion(3, 2, 0)
IBP_3_3_IV2 = MetadataVersion(3, 3, 2)
IBP_3_3_IV3 = MetadataVersion(3, 3, 3)
IBP_3_4_IV0 = MetadataVersion(3, 4, 0)
IBP_3_6_IV0 = MetadataVersion(3, 6, 0)
IBP_3_7_IV2 = MetadataVersion(3, 7, 2)
IBP_3_8_IV0 = MetadataVersion(3, 8, 0)
IBP_3_9_IV0 = MetadataVersion(3, 9, 0)
IBP_4_0_IV0 = MetadataVersion(4, 0, 0)
LATEST_TESTING = MetadataVersion(4, 0, 1)
"""``MetadataVersion.latestTesting()`` at ``3.9.0-rc3``."""
