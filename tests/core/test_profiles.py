"""Each ``KafkaVersion`` switch, checked on both sides of the release where it changes."""

from __future__ import annotations

from typing import Any

import pytest

from kafkactl_core.profiles import (
    AutoRebalanceFilter,
    ControlledShutdownRule,
    KafkaVersion,
    LastIsrMemberRule,
    OfflineLeaderRule,
    OfflineLeaderSelection,
    PreferredOnPreferredLeader,
    ReassignmentLayout,
)
from kafkactl_core.versions import KafkaRelease, ProtocolVersion

# (field, last release with the old value, its value, first release with the new value, new value)
BOUNDARIES: list[tuple[str, str, Any, str, Any]] = [
    ("unclean_config_checked", "0.8.1", False, "0.8.2", True),
    ("unclean_default", "0.10.2", True, "0.11", False),
    (
        "offline_leader_rule",
        "0.8.1",
        OfflineLeaderRule.live_isr_head,
        "0.8.2",
        OfflineLeaderRule.assignment_order,
    ),
    (
        "controlled_shutdown_rule",
        "0.8.0",
        ControlledShutdownRule.isr_minus_leader,
        "0.8.1",
        ControlledShutdownRule.isr_head,
    ),
    (
        "controlled_shutdown_rule",
        "0.9.0",
        ControlledShutdownRule.isr_head,
        "0.10.0",
        ControlledShutdownRule.assignment_order_selector,
    ),
    (
        "controlled_shutdown_rule",
        "1.0",
        ControlledShutdownRule.assignment_order_selector,
        "1.1",
        ControlledShutdownRule.algorithm,
    ),
    ("controlled_shutdown_notifies_shutting_down", "2.0", False, "2.1", True),
    ("controlled_shutdown_skips_deleting_topics", "2.1", False, "2.2", True),
    ("explicit_strategy_required", "1.0", False, "1.1", True),
    ("liveness_includes_offline_dirs", "0.11.0", False, "1.0", True),
    (
        "offline_leader_selection",
        "0.11.0",
        OfflineLeaderSelection.leader_on_dead_broker,
        "1.0",
        OfflineLeaderSelection.leader_not_online,
    ),
    (
        "last_isr_member_rule",
        "0.8.1",
        LastIsrMemberRule.always_remove,
        "0.8.2",
        LastIsrMemberRule.keep_if_unclean_disabled,
    ),
    (
        "last_isr_member_rule",
        "1.0",
        LastIsrMemberRule.keep_if_unclean_disabled,
        "1.1",
        LastIsrMemberRule.keep_size_one,
    ),
    (
        "preferred_on_preferred_leader",
        "1.0",
        PreferredOnPreferredLeader.not_needed_exception,
        "1.1",
        PreferredOnPreferredLeader.rewrite_bump_epoch,
    ),
    (
        "preferred_on_preferred_leader",
        "2.1",
        PreferredOnPreferredLeader.rewrite_bump_epoch,
        "2.2",
        PreferredOnPreferredLeader.filtered_not_needed,
    ),
    (
        "auto_rebalance_filter",
        "0.11.0",
        AutoRebalanceFilter.live_broker_no_reassign_no_preferred,
        "1.0",
        AutoRebalanceFilter.online_no_reassign,
    ),
    (
        "auto_rebalance_filter",
        "2.5",
        AutoRebalanceFilter.online_no_reassign,
        "2.6",
        AutoRebalanceFilter.no_reassign_can_be_leader,
    ),
    (
        "auto_rebalance_filter",
        "3.3",
        AutoRebalanceFilter.no_reassign_can_be_leader,
        "3.4",
        AutoRebalanceFilter.can_be_leader,
    ),
    ("auto_rebalance_batched", "2.2", False, "2.3", True),
    ("replica_deletion_ineligible_from_offline", "2.2", False, "2.3", True),
    ("reassignment_layout", "2.3", ReassignmentLayout.scala_set, "2.4", ReassignmentLayout.kip455),
    ("admin_elect_leaders", "2.1", False, "2.2", True),
    ("admin_unclean_election", "2.3", False, "2.4", True),
    ("broker_unclean_dynamic_trigger", "1.1", False, "2.0", True),
    ("topic_unclean_dynamic_trigger", "2.3", False, "2.4", True),
    ("stale_broker_epoch_rejected", "2.1", False, "2.2", True),
    ("alter_partition", "2.6", False, "2.7", True),
    ("leader_recovery_state_exists", "3.1", False, "3.2", True),
    ("kraft_available", "3.2", False, "3.3", True),
    ("kraft_unclean_config_honoured", "3.8", False, "3.9", True),
    ("kraft_periodic_unclean_election", "3.8", False, "3.9", True),
    ("kraft_last_known_leader", "3.8", False, "3.9", True),
    ("kraft_unclean_shutdown_handling", "3.8", False, "3.9", True),
    ("kraft_unclean_election_logged_info", "3.5", False, "3.6", True),
    ("kraft_elr_min_metadata_version", "3.6", None, "3.7", ProtocolVersion.parse("3.8-IV0")),
    (
        "kraft_elr_min_metadata_version",
        "3.7",
        ProtocolVersion.parse("3.8-IV0"),
        "3.8",
        ProtocolVersion.parse("3.9-IV0"),
    ),
    (
        "kraft_elr_min_metadata_version",
        "3.8",
        ProtocolVersion.parse("3.9-IV0"),
        "3.9",
        ProtocolVersion.parse("4.0-IV0"),
    ),
    (
        "kraft_isr_shrink_bump_below_metadata_version",
        "3.5",
        None,
        "3.6",
        ProtocolVersion.parse("3.6-IV0"),
    ),
    (
        "kraft_directories_min_metadata_version",
        "3.6",
        None,
        "3.7",
        ProtocolVersion.parse("3.7-IV2"),
    ),
]


@pytest.mark.parametrize(
    ("field", "before", "old", "after", "new"),
    BOUNDARIES,
    ids=[f"{b[0]}@{b[3]}" for b in BOUNDARIES],
)
def test_switch_boundary(field: str, before: str, old: Any, after: str, new: Any) -> None:
    assert getattr(KafkaVersion.of(before), field) == old
    assert getattr(KafkaVersion.of(after), field) == new


def test_every_field_has_a_boundary_test() -> None:
    tested = {b[0] for b in BOUNDARIES}
    constant = {
        "release",
        "default_inter_broker_protocol",
        "kraft_leader_recovery_min_metadata_version",
        "kraft_registration_change_record_min_metadata_version",
        "kraft_in_controlled_shutdown_min_metadata_version",
    }
    assert set(KafkaVersion.__dataclass_fields__) - constant == tested


@pytest.mark.parametrize(
    ("release", "ibp", "expected"),
    [
        ("3.1", None, False),
        ("3.2", None, True),
        ("3.8", "3.1-IV0", False),
        ("3.8", "3.2-IV0", True),
        ("3.8", "2.8", False),
        ("2.8", "3.2-IV0", False),
    ],
)
def test_leader_recovery_by_ibp(release: str, ibp: str | None, expected: bool) -> None:
    version = None if ibp is None else ProtocolVersion.parse(ibp)
    assert KafkaVersion.of(release).leader_recovery_supported(version) is expected


def test_kraft_helpers() -> None:
    v39 = KafkaVersion.of("3.9")
    assert not v39.elr_supported(ProtocolVersion.parse("3.9-IV0"))
    assert v39.elr_supported(ProtocolVersion.parse("4.0-IV0"))
    assert not KafkaVersion.of("3.6").elr_supported(ProtocolVersion.parse("4.0-IV0"))
    assert v39.kraft_isr_shrink_bumps_epoch(ProtocolVersion.parse("3.5-IV2"))
    assert not v39.kraft_isr_shrink_bumps_epoch(ProtocolVersion.parse("3.6-IV0"))
    assert KafkaVersion.of("3.5").kraft_isr_shrink_bumps_epoch(ProtocolVersion.parse("3.6-IV0"))


def test_profile_built_from_release_or_text() -> None:
    assert KafkaVersion.of("2.8") == KafkaVersion.of(KafkaRelease(2, 8))
    assert KafkaVersion.of("0.10.2").release == KafkaRelease(0, 10, 2)
    with pytest.raises(ValueError, match="not a Kafka version"):
        KafkaVersion.of("banana")


def test_protocol_version_ordering() -> None:
    parse = ProtocolVersion.parse
    assert parse("3.2-IV0") < parse("3.2-IV1") < parse("3.2") < parse("3.3-IV0")
    assert str(parse("3.2-IV0")) == "3.2-IV0"
    assert parse("0.10.1-IV2").release == KafkaRelease(0, 10, 1)
    with pytest.raises(ValueError, match="not a protocol version"):
        parse("3.x")
