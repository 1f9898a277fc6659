"""A Kafka cluster simulator: the ZooKeeper-mode controller driven through realistic churn.

``simulate(settings, out, script)`` runs the scenario engine (``kafkactl_core.zkcontroller``)
through a seeded random mix of operations (broker crashes and restarts, controlled shutdowns and
rolling restarts, ISR shrinks and expansions, controller failovers, auto-rebalance checks,
reassignments, topic creation and deletion, rare unclean elections) or a script of timed
operations, and writes what a real cluster of the chosen release would have written: each
broker's ``controller.log``, ``state-change.log`` and ``server.log`` in that release's exact
formats, the ZooKeeper transactions in order (``zookeeper-history.jsonl``) and the ground truth
of every election. Output is streamed; memory holds only per-broker and per-partition state.

Modules: ``settings`` (pydantic settings and scripts), ``ops`` (operations), ``mix`` (bootstrap,
random mix, scripts as streams), ``engine`` (the ``Simulator`` and its table of operations),
``cluster`` (its state), ``brokers``/``partitions``/``topics``/``reassignment`` (the operations),
``trace``/``delivery``/``failover``/``ground_truth`` (what they share), ``recording`` (the traced
engine), ``render``/``render10`` (lines of 2.8 and 1.0, with ``render_base``,
``render_controller``/``render10_controller`` and the per-release templates of
``render_formats``), ``scala`` (Scala/Java toString), ``history`` and ``znodes`` (ZooKeeper
writes and payloads), ``clock`` and ``output`` (time, files), ``run`` (one run to a directory).
"""

from __future__ import annotations

from kafkactl_lab.simulate.run import (
    HISTORY_FILE,
    SUMMARY_FILE,
    SUPPORTED_VERSIONS,
    TRUTH_FILE,
    SimulationResult,
    UnsupportedVersionError,
    renderer_for,
    simulate,
)
from kafkactl_lab.simulate.settings import (
    MixRates,
    Script,
    SimulationSettings,
    load_script,
)

__all__ = [
    "HISTORY_FILE",
    "SUMMARY_FILE",
    "SUPPORTED_VERSIONS",
    "TRUTH_FILE",
    "MixRates",
    "Script",
    "SimulationResult",
    "SimulationSettings",
    "UnsupportedVersionError",
    "load_script",
    "renderer_for",
    "simulate",
]
