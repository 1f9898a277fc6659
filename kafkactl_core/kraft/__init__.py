"""KRaft controller rules: metadata versions, partition registrations and records, the
PartitionChangeBuilder election rules and a ReplicationControlManager-style cluster model."""

from __future__ import annotations
