"""KRaft metadata versions: parsing, ordering and every feature gate at its boundary."""

from __future__ import annotations

import pytest

from kafkactl_core.kraft.metadata_version import MetadataVersion, elr_gate
from kafkactl_core.versions import KafkaRelease

MV = MetadataVersion.parse


def test_parse_and_render() -> None:
    assert MV("3.7-IV2") == MetadataVersion(3, 7, 2)
    assert str(MV("4.0-iv1")) == "4.0-IV1"
    assert MV("3.3") == MV("3.3-IV3")  # a bare release is its newest IV, as in Kafka
    assert MV("3.7") == MV("3.7-IV4")


@pytest.mark.parametrize("text", ["", "3", "3.7-IV", "IV2", "3.7-IV2x"])
def test_parse_rejects_garbage(text: str) -> None:
    with pytest.raises(ValueError):
        MV(text)


def test_ordering_follows_the_enum() -> None:
    chain = [
        "3.0-IV1",
        "3.1-IV0",
        "3.2-IV0",
        "3.3-IV0",
        "3.3-IV3",
        "3.4-IV0",
        "3.5-IV2",
        "3.6-IV0",
        "3.6-IV2",
        "3.7-IV0",
        "3.7-IV4",
        "3.8-IV0",
        "3.9-IV0",
        "4.0-IV0",
        "4.0-IV1",
    ]
    versions = [MV(text) for text in chain]
    assert versions == sorted(versions)
    assert [v.feature_level for v in versions] == sorted(v.feature_level or 0 for v in versions)


def test_feature_levels_round_trip() -> None:
    assert MV("3.3-IV3").feature_level == 7
    assert MV("3.7-IV2").feature_level == 17
    assert MetadataVersion.from_feature_level(22) == MV("4.0-IV0")
    assert MV("5.1-IV7").feature_level is None
    with pytest.raises(ValueError):
        MetadataVersion.from_feature_level(999)


@pytest.mark.parametrize(
    ("gate", "below", "at"),
    [
        ("is_kraft_supported", "3.0-IV0", "3.0-IV1"),
        ("is_leader_recovery_supported", "3.1-IV0", "3.2-IV0"),
        ("is_broker_registration_change_record_supported", "3.3-IV1", "3.3-IV2"),
        ("is_in_controlled_shutdown_state_supported", "3.3-IV2", "3.3-IV3"),
        ("is_migration_supported", "3.3-IV3", "3.4-IV0"),
        ("is_directory_assignment_supported", "3.7-IV1", "3.7-IV2"),
    ],
)
def test_gate_turns_on_at_its_version(gate: str, below: str, at: str) -> None:
    assert getattr(MV(below), gate)() is False
    assert getattr(MV(at), gate)() is True


def test_isr_shrink_bump_stops_at_3_6_iv0() -> None:
    assert MV("3.5-IV2").is_leader_epoch_bump_required_on_isr_shrink()
    assert not MV("3.6-IV0").is_leader_epoch_bump_required_on_isr_shrink()


@pytest.mark.parametrize(
    ("release", "below", "at"),
    [
        ("3.7", "3.7-IV4", "3.8-IV0"),
        ("3.8", "3.8-IV0", "3.9-IV0"),
        ("3.9", "3.9-IV0", "4.0-IV0"),
        ("4.0", "3.9-IV0", "4.0-IV0"),
    ],
)
def test_elr_gate_moves_with_the_release(release: str, below: str, at: str) -> None:
    kafka = KafkaRelease.parse(release)
    assert not MV(below).is_elr_supported(kafka)
    assert MV(at).is_elr_supported(kafka)


def test_no_elr_before_3_7() -> None:
    assert elr_gate(KafkaRelease(3, 6)) is None
    assert not MV("4.0-IV1").is_elr_supported(KafkaRelease(3, 6))


@pytest.mark.parametrize(
    ("mv", "release", "version"),
    [
        ("3.7-IV1", "3.9", 0),
        ("3.7-IV2", "3.9", 1),
        ("3.9-IV0", "3.9", 1),
        ("4.0-IV0", "3.9", 2),
        ("3.9-IV0", "3.8", 2),
        ("3.8-IV0", "3.7", 2),
        ("3.3-IV3", "3.9", 0),
    ],
)
def test_partition_change_record_version(mv: str, release: str, version: int) -> None:
    assert MV(mv).partition_change_record_version(KafkaRelease.parse(release)) == version


@pytest.mark.parametrize(
    ("mv", "version"), [("3.3-IV2", 0), ("3.3-IV3", 1), ("3.4-IV0", 2), ("3.7-IV2", 3)]
)
def test_register_broker_record_version(mv: str, version: int) -> None:
    assert MV(mv).register_broker_record_version() == version
