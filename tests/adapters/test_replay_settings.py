"""The replay job's plumbing that needs no JVM: silver columns, release choice, what-if keys."""

from __future__ import annotations

import pytest
from pyspark.sql.types import TimestampType

from jobs.cli import UsageError
from jobs.stages.replay import SOURCES, profile_differences, what_if_settings
from kafkactl_core.grammars.entry import VersionRange
from kafkactl_core.replay import ReplaySettings


def test_every_column_a_normalizer_reads_is_in_its_silver_table() -> None:
    for table, spec, columns, times in SOURCES:
        names = spec.schema.fieldNames()
        for name in columns:
            source = times.get(name, name)
            assert source in names, f"{table}: {name} ({source}) not in {spec.qualified_name}"
        for source in times.values():
            assert isinstance(spec.schema[source].dataType, TimestampType), (table, source)


def test_profile_differences_inside_an_inferred_range() -> None:
    # The demo's logs: [2.8, 3.2) has one rule set.
    assert profile_differences(VersionRange.of("2.8", "3.2")) == []
    # 0.10.x: one rule set (0.10.0 and 0.10.2 behave alike).
    assert profile_differences(VersionRange.of("0.10.0", "0.11.0")) == []
    # [0.8, 0.10): 0.8.0, 0.8.1 and 0.8.2 elect differently.
    differing = profile_differences(VersionRange.of(None, "0.10.0"))
    assert "offline_leader_rule" in differing and "controlled_shutdown_rule" in differing
    # An open upper bound reaches the newest rules.
    assert "kraft_available" in profile_differences(VersionRange.of("3.0", None))


def test_what_if_names_the_scenario_and_rejects_bad_keys_in_one_line() -> None:
    actual = ReplaySettings.of("2.8")
    scenario = what_if_settings(actual, ["unclean.leader.election.enable=false"])
    assert scenario.scenario == "what-if:unclean.leader.election.enable=false"
    assert scenario.forced_unclean is False and scenario.release == actual.release
    for bad, reason in (
        ("nope=1", "is not a key the replay honours"),
        ("unclean.leader.election.enable=maybe", "takes true or false"),
        ("kafka.version=x", "not a Kafka version"),
        ("noequals", "expected KEY=VALUE"),
    ):
        with pytest.raises(UsageError, match=reason) as raised:
            what_if_settings(actual, [bad])
        assert "\n" not in str(raised.value)
