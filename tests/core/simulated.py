"""A simulation's logs through the pure-Python path: parsed, normalized and replayed under the
simulated release, with the brokers' unclean setting the simulation had."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kafkactl_core.replay import ReplaySettings, build_timelines, replay
from kafkactl_core.replay.facts import ClusterFact
from kafkactl_core.replay.local import controller_event_rows, normalize_rows
from kafkactl_core.replay.rows import ReplayOutput
from kafkactl_core.versions import KafkaRelease

SHORT_SCRIPTED_RUN: dict[str, Any] = {"brokers": 4, "topics": 0, "hours": 0.25, "seed": 3}
"""A script's settings: a quarter of an hour on four brokers, topics only as the script creates."""


@dataclass(frozen=True)
class Replayed:
    """What the replay of a simulation saw and gave."""

    release: KafkaRelease
    rows: list[dict[str, Any]]
    facts: list[ClusterFact]
    output: ReplayOutput


def replay_simulation(out: Path) -> Replayed:
    """Parse every log under ``out/logs`` and replay it (``out`` holds ``simulation.json``)."""
    summary = json.loads((out / "simulation.json").read_text())
    version = summary["kafka_version"]
    release = KafkaRelease.parse(version)
    rows = [
        row
        for path in sorted((out / "logs").rglob("*.log"))
        for row in controller_event_rows(path, "sim", release)
    ]
    evidence, facts = normalize_rows(rows)
    settings = ReplaySettings.of(
        version, broker_unclean_enable=summary["settings"]["unclean_broker_default"]
    )
    return Replayed(release, rows, facts, replay(evidence, build_timelines(facts), settings))
