"""The incremental-run helpers that need no Spark session: --since, the replay's note, scopes."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

import pytest

from jobs.runtime.config import ClusterConfig
from jobs.stages.incremental import (
    earliest_new_fact,
    evidence_note,
    inputs_since,
    parse_evidence_note,
    parse_since,
    settings_digest,
    split_counts,
    window_ms,
)
from kafkactl_core.replay import ClusterFact, ReplaySettings
from kafkactl_core.replay.evidence import Source
from kafkactl_core.replay.facts import ClusterFactKind


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2024-03-05", datetime(2024, 3, 5, tzinfo=UTC)),
        ("2024-03-05T22:00", datetime(2024, 3, 5, 22, tzinfo=UTC)),
        ("2024-03-05 22:00:00Z", datetime(2024, 3, 5, 22, tzinfo=UTC)),
        ("2024-03-05T23:30:00+01:00", datetime(2024, 3, 5, 22, 30, tzinfo=UTC)),
    ],
)
def test_since_is_iso_8601_and_utc_without_an_offset(text: str, expected: datetime) -> None:
    assert parse_since(text) == expected


def test_since_rejects_other_text() -> None:
    with pytest.raises(ValueError, match="--since: not an ISO 8601"):
        parse_since("yesterday")


def test_evidence_note_round_trips_and_other_notes_are_ignored() -> None:
    counts = {"silver.zk_changes": 7, "silver.controller_events": 1200}
    note = evidence_note(counts, "0123abcd")
    assert note.startswith("evidence folded: silver.controller_events=1200, ")
    assert parse_evidence_note(["replayed under Kafka 2.8 rules", note]) == (counts, "0123abcd")
    assert parse_evidence_note(["replayed under Kafka 2.8 rules"]) is None


def test_settings_digest_changes_with_the_settings() -> None:
    actual = ReplaySettings.of("2.8")
    assert settings_digest([actual]) == settings_digest([ReplaySettings.of("2.8")])
    assert settings_digest([actual]) != settings_digest([ReplaySettings.of("2.7")])
    unclean = ReplaySettings.of("2.8", broker_unclean_enable=True)
    assert settings_digest([actual]) != settings_digest([unclean])


def test_split_counts_by_replayed_runs() -> None:
    by_run = {"silver.a": {"r1": 5, "r2": 3}, "silver.b": {"r2": 4}}
    assert split_counts(by_run, frozenset({"r1"})) == (
        {"silver.a": 5, "silver.b": 0},
        {"silver.a": 3, "silver.b": 4},
    )


def test_window_is_the_sum_of_the_settings_windows() -> None:
    settings = ReplaySettings.of("2.8")
    assert window_ms([settings]) == (
        settings.merge_window_ms + settings.settle_ms + settings.shutdown_window_ms
    )


def _fact(time_ms: int | None) -> ClusterFact:
    return ClusterFact("c", time_ms, Source.controller_log, ClusterFactKind.broker_up, "f:1")


def test_earliest_new_fact() -> None:
    assert earliest_new_fact([]) == (False, None)
    assert earliest_new_fact([_fact(30), _fact(10), _fact(20)]) == (True, 10)
    assert earliest_new_fact([_fact(30), _fact(None)]) == (True, None)


def test_inputs_since_keeps_the_files_modified_since(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    old, new = logs / "controller.log", logs / "state-change.log"
    old.write_text("[2024-03-05 08:00:00,000] INFO x\n")
    new.write_text("[2024-03-05 08:00:00,000] INFO y\n")
    (logs / "notes.txt").write_text("not a Kafka log")
    past = datetime(2020, 1, 1, tzinfo=UTC).timestamp()
    os.utime(old, (past, past))
    cluster = ClusterConfig.model_validate({"name": "c", "inputs": {"logs": [str(logs)]}})
    narrowed, notes = inputs_since(cluster, datetime(2021, 1, 1, tzinfo=UTC))
    assert narrowed.inputs.logs == [str(new)]
    assert narrowed.inputs.zookeeper == []
    assert notes == [
        "--since 2021-01-01 00:00:00 UTC: 1 of 2 log file(s), 0 of 0 ZooKeeper file(s) "
        "modified since"
    ]
