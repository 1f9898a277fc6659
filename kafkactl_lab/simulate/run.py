"""``simulate``: one run, from settings (and a script) to the files of an output directory.

Layout written under ``out``::

    logs/broker-<id>/controller.log, state-change.log, server.log
    zookeeper-history.jsonl        every ZooKeeper transaction, in order (history.py)
    ground-truth-elections.jsonl   every election the controller made
    simulation.json                settings, release and counts of the run

Supported releases are those with a renderer (``SUPPORTED_VERSIONS``); any other is refused
with ``UnsupportedVersionError`` rather than rendered inexactly.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TextIO

from kafkactl_core.versions import KafkaRelease
from kafkactl_lab.simulate import ops as o
from kafkactl_lab.simulate.clock import Clock
from kafkactl_lab.simulate.cluster import SimulationStats, SimulatorOptions
from kafkactl_lab.simulate.engine import Simulator
from kafkactl_lab.simulate.mix import (
    bootstrap_operations,
    merge,
    random_operations,
    script_operations,
)
from kafkactl_lab.simulate.output import LineSink, LogDirectory
from kafkactl_lab.simulate.render import Renderer28
from kafkactl_lab.simulate.render10 import Renderer10
from kafkactl_lab.simulate.settings import Script, SimulationSettings

SUPPORTED_VERSIONS: dict[str, type[Renderer28]] = {"2.8": Renderer28, "1.0": Renderer10}
"""Releases rendered exactly: 2.8 (as 2.8.2; 2.8.1 prints the same) and 1.0 (as 1.0.2)."""

_PATCHES = {"2.8": (1, 2), "1.0": (0, 1, 2)}
HISTORY_FILE = "zookeeper-history.jsonl"
TRUTH_FILE = "ground-truth-elections.jsonl"
SUMMARY_FILE = "simulation.json"


class UnsupportedVersionError(ValueError):
    """A release whose log formats the simulator cannot render exactly."""


def renderer_for(version: str) -> type[Renderer28]:
    """The renderer of a release.

    Args:
        version: ``2.8``, ``2.8.1``, ``2.8.2``, ``1.0``, ``1.0.0``-``1.0.2``.

    Returns:
        The renderer class.

    Raises:
        UnsupportedVersionError: for any other release (or text that is not a version).
    """
    try:
        release = KafkaRelease.parse(version)
    except ValueError as exc:
        raise UnsupportedVersionError(str(exc)) from None
    key = f"{release.major}.{release.minor}"
    explicit_patch = version.strip().count(".") >= 2
    supported = ", ".join(sorted(SUPPORTED_VERSIONS, reverse=True))
    if key not in SUPPORTED_VERSIONS or (explicit_patch and release.patch not in _PATCHES[key]):
        raise UnsupportedVersionError(
            f"Kafka {version} cannot be rendered exactly; supported releases: {supported} "
            "(2.8 is written as 2.8.2, 1.0 as 1.0.2)"
        )
    return SUPPORTED_VERSIONS[key]


@dataclass(frozen=True, slots=True)
class SimulationResult:
    """What a run wrote.

    Attributes:
        out: the output directory.
        settings: the effective settings.
        stats: counts of operations, lines, transactions and elections.
    """

    out: str
    settings: SimulationSettings
    stats: SimulationStats


def effective_settings(base: SimulationSettings, script: Script | None) -> SimulationSettings:
    """The settings of a run: ``base`` overridden by the script's own (no mix by default).

    Args:
        base: the command line's settings.
        script: the script, if any.

    Returns:
        The merged, validated settings.
    """
    if script is None:
        return base
    merged = base.model_dump()
    merged["random_mix"] = False
    merged.update(script.settings)
    return SimulationSettings.model_validate(merged)


def operations(settings: SimulationSettings, script: Script | None) -> Iterator[o.Op]:
    """The run's external operations, in time order (lazy)."""
    streams: list[list[o.Op] | Iterator[o.Op]] = []
    if script is None or script.bootstrap:
        streams.append(bootstrap_operations(settings))
    if script is not None:
        streams.append(script_operations(script, settings))
    if settings.random_mix:
        streams.append(random_operations(settings))
    return merge(*streams)


def build_simulator(
    settings: SimulationSettings,
    sink: LineSink,
    history_out: TextIO | None,
    truth_out: TextIO | None,
    *,
    collect: bool = False,
) -> Simulator:
    """A simulator for ``settings`` (used by ``simulate`` and by tests with their own sinks).

    Args:
        settings: the run's settings.
        sink: where lines go.
        history_out: a text stream for the history, or ``None``.
        truth_out: a text stream for the ground truth, or ``None``.
        collect: keep rendered lines and engine calls in memory (tests only).

    Returns:
        The simulator, not yet run.

    Raises:
        UnsupportedVersionError: the release cannot be rendered.
    """
    renderer = renderer_for(settings.kafka_version)
    options = SimulatorOptions(
        auto_rebalance_interval_s=settings.auto_rebalance_interval_s,
        leader_imbalance_percentage=settings.leader_imbalance_percentage,
        auto_rebalance=settings.auto_rebalance,
        unclean_default=settings.unclean_broker_default,
        seed=settings.seed,
        end_us=settings.end_us,
    )
    clock = Clock(settings.start_us)
    return Simulator(
        renderer,
        clock,
        sink,
        history_out,
        truth_out,
        options,
        collect=collect,
    )


def simulate(
    settings: SimulationSettings,
    out: str | os.PathLike[str],
    script: Script | None = None,
) -> SimulationResult:
    """Run a simulation and write its files under ``out`` (see the module docstring).

    Args:
        settings: the run's settings (a script's own settings override them).
        out: the output directory (created; files of a previous run are replaced).
        script: a hand-written scenario instead of (or, with ``random_mix``, besides) the mix.

    Returns:
        The result.

    Raises:
        UnsupportedVersionError: the release cannot be rendered exactly.
    """
    effective = effective_settings(settings, script)
    renderer_for(effective.kafka_version)
    root = os.fspath(out)
    os.makedirs(root, exist_ok=True)
    logs = LogDirectory(os.path.join(root, "logs"))
    with (
        open(os.path.join(root, HISTORY_FILE), "w", encoding="utf-8", newline="\n") as history,
        open(os.path.join(root, TRUTH_FILE), "w", encoding="utf-8", newline="\n") as truth,
    ):
        sim = build_simulator(effective, logs, history, truth)
        try:
            for broker in effective.broker_ids:
                logs.touch(broker)
            stats = sim.run(operations(effective, script))
        finally:
            logs.close()
    summary = {
        "kafka_version": effective.kafka_version,
        "rendered_release": sim.r.release,
        "settings": json.loads(effective.model_dump_json()),
        "stats": stats.to_json(),
    }
    with open(os.path.join(root, SUMMARY_FILE), "w", encoding="utf-8", newline="\n") as f:
        json.dump(summary, f, indent=2, sort_keys=True)
        f.write("\n")
    return SimulationResult(root, effective, stats)
