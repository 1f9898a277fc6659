"""The replay: every partition's evidence folded through Kafka's election rules.

Flow (ARCHITECTURE.md "replay"): silver rows are normalized into ``PartitionEvidence`` (per
partition) and ``ClusterFact`` (per cluster) by ``normalize_controller_event``,
``normalize_zk_change``, ``normalize_zk_state`` and ``normalize_broker_config``; facts become
``ClusterTimelines`` (``build_timelines``, small, broadcast); each partition's evidence, sorted by
``PartitionEvidence.order_key``, is folded by a ``PartitionReplay`` (or many by a
``ReplayDriver``) into ``ElectionRow``, ``TimelineRow`` and ``AnomalyRow`` (the gold tables).
``with_what_if`` and ``evaluate_what_if`` replay the elections under changed settings.

Modules: ``values`` (tolerant coercions), ``evidence``, ``facts``, ``from_logs``, ``from_zk``,
``from_configs``,
``settings``, ``timelines``, ``rules`` (expected leader), ``rows``, ``fold`` (with ``state``,
``state_names``, ``leadership``, ``drafts``, ``findings``, ``inference``, ``election``,
``intervals``), ``driver``, ``whatif``, ``local`` (log files to evidence without Spark). Pure
Python.
"""

from __future__ import annotations

from kafkactl_core.replay.driver import ReplayDriver, partition_key, replay
from kafkactl_core.replay.evidence import (
    EVIDENCE_COLUMNS,
    EVIDENCE_SORT_COLUMNS,
    EVIDENCE_VALUES,
    Fact,
    PartitionEvidence,
    Source,
)
from kafkactl_core.replay.facts import (
    CLUSTER_FACT_COLUMNS,
    CLUSTER_FACT_VALUES,
    ClusterFact,
    ClusterFactKind,
)
from kafkactl_core.replay.fold import PartitionReplay
from kafkactl_core.replay.from_configs import BROKER_CONFIG_COLUMNS, normalize_broker_config
from kafkactl_core.replay.from_logs import (
    LOG_COLUMNS,
    LOG_EVENT_TYPES,
    Normalized,
    evidence_from_controller_event,
    facts_from_controller_event,
    normalize_controller_event,
)
from kafkactl_core.replay.from_zk import (
    ZK_CHANGE_COLUMNS,
    ZK_STATE_COLUMNS,
    normalize_zk_change,
    normalize_zk_state,
)
from kafkactl_core.replay.local import broker_config_rows, controller_event_rows, normalize_rows
from kafkactl_core.replay.rows import (
    ANOMALY_KINDS,
    AnomalyRow,
    ElectionRow,
    ReplayOutput,
    TimelineRow,
    WhatIfRow,
)
from kafkactl_core.replay.rules import ElectionInputs, Expectation, expected_leader
from kafkactl_core.replay.settings import (
    ACTUAL,
    HONOURED_KEYS,
    ReplaySettings,
    with_what_if,
)
from kafkactl_core.replay.timelines import ClusterTimelines, LivenessView, build_timelines
from kafkactl_core.replay.whatif import evaluate_what_if

__all__ = [
    "ACTUAL",
    "ANOMALY_KINDS",
    "BROKER_CONFIG_COLUMNS",
    "CLUSTER_FACT_COLUMNS",
    "CLUSTER_FACT_VALUES",
    "EVIDENCE_COLUMNS",
    "EVIDENCE_SORT_COLUMNS",
    "EVIDENCE_VALUES",
    "HONOURED_KEYS",
    "LOG_COLUMNS",
    "LOG_EVENT_TYPES",
    "ZK_CHANGE_COLUMNS",
    "ZK_STATE_COLUMNS",
    "AnomalyRow",
    "ClusterFact",
    "ClusterFactKind",
    "ClusterTimelines",
    "ElectionInputs",
    "ElectionRow",
    "Expectation",
    "Fact",
    "LivenessView",
    "Normalized",
    "PartitionEvidence",
    "PartitionReplay",
    "ReplayDriver",
    "ReplayOutput",
    "ReplaySettings",
    "Source",
    "TimelineRow",
    "WhatIfRow",
    "broker_config_rows",
    "build_timelines",
    "controller_event_rows",
    "evaluate_what_if",
    "evidence_from_controller_event",
    "expected_leader",
    "facts_from_controller_event",
    "normalize_broker_config",
    "normalize_controller_event",
    "normalize_rows",
    "normalize_zk_change",
    "normalize_zk_state",
    "partition_key",
    "replay",
    "with_what_if",
]
