"""Small-input path: log files and ZooKeeper rows to evidence and facts without Spark.

``controller_event_rows`` runs the pure-Python grammar executor over a log file and yields rows
shaped like ``silver.controller_events`` (the columns the Spark ingest job writes).
``broker_config_rows`` yields the ``silver.broker_configs`` rows of a log file alike.
``normalize_rows`` turns silver-shaped rows of any of those tables into evidence and facts.
Together with ``build_timelines`` and ``driver.replay`` this is the whole replay for tests and
small inputs.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from kafkactl_core.grammars import ParsedEvent, assemble_records, parse_record, resolve_layout
from kafkactl_core.grammars.config_lines import BROKER_SCOPE, CONFIG_EVENT_TYPES, config_lines
from kafkactl_core.metadata_log.payloads import decode
from kafkactl_core.metadata_log.segments import SNAPSHOT, kind_of, scan
from kafkactl_core.replay.evidence import PartitionEvidence
from kafkactl_core.replay.facts import ClusterFact
from kafkactl_core.replay.from_configs import BROKER_CONFIG_COLUMNS, normalize_broker_config
from kafkactl_core.replay.from_kraft import MetadataEntry
from kafkactl_core.replay.from_logs import LOG_COLUMNS, normalize_controller_event
from kafkactl_core.replay.from_zk import (
    ZK_CHANGE_COLUMNS,
    ZK_STATE_COLUMNS,
    normalize_zk_change,
    normalize_zk_state,
)
from kafkactl_core.versions import KafkaRelease

__all__ = ["broker_config_rows", "controller_event_rows", "metadata_entries", "normalize_rows"]


def controller_event_rows(
    path: str | Path,
    cluster: str,
    version_hint: KafkaRelease | None = None,
    layout: str = "kafka",
) -> Iterator[dict[str, Any]]:
    """Parse a log file and yield ``silver.controller_events``-shaped rows of its events.

    Args:
        path: the log file.
        cluster: the cluster name to put in every row.
        version_hint: the cluster's release, when known.
        layout: the log4j layout preset.

    Yields:
        One row per recognised event (ignored and quarantined records yield nothing).
    """
    compiled = resolve_layout(layout)
    name = str(path)
    with open(path, "rb") as handle:
        for record in assemble_records(handle, compiled):
            outcome = parse_record(record, version_hint)
            if not isinstance(outcome, ParsedEvent):
                continue
            event = outcome.event
            row: dict[str, Any] = {
                field.name: getattr(event, field.name) for field in dataclasses.fields(event)
            }
            row["event_type"] = event.event_type.value
            row.update(
                grammar=outcome.grammar,
                ts=outcome.timestamp,
                level=outcome.level,
                logger=outcome.logger,
                file=name,
                first_line=outcome.first_line,
                cluster=cluster,
            )
            yield row


def broker_config_rows(
    path: str | Path, cluster: str, layout: str = "kafka"
) -> Iterator[dict[str, Any]]:
    """Parse a log file and yield its ``silver.broker_configs``-shaped rows (``ts``: the record's
    time, as the replay stage reads ``logged_at``).

    Args:
        path: the log file.
        cluster: the cluster name to put in every row.
        layout: the log4j layout preset.

    Yields:
        One row per configuration key the file's brokers printed.
    """
    compiled = resolve_layout(layout)
    name = str(path)
    with open(path, "rb") as handle:
        for record in assemble_records(handle, compiled):
            outcome = parse_record(record)
            if not isinstance(outcome, ParsedEvent):
                continue
            event = outcome.event
            if event.event_type.value not in CONFIG_EVENT_TYPES:
                continue
            lines = config_lines(
                event.event_type.value, record.text, record.first_line, event.topic, event.detail
            )
            for entry in lines:
                yield {
                    "cluster": cluster,
                    "broker": int(entry.name)
                    if entry.scope == BROKER_SCOPE and entry.name is not None
                    else None,
                    "scope": entry.scope,
                    "name": entry.name,
                    "key": entry.key,
                    "value": entry.value,
                    "ts": outcome.timestamp,
                    "source_kind": entry.source_kind,
                    "file": name,
                    "line": entry.line,
                }


def normalize_rows(
    controller_events: Iterable[Mapping[str, Any]] = (),
    zk_changes: Iterable[Mapping[str, Any]] = (),
    zk_state: Iterable[Mapping[str, Any]] = (),
    broker_configs: Iterable[Mapping[str, Any]] = (),
) -> tuple[list[PartitionEvidence], list[ClusterFact]]:
    """Normalize silver-shaped rows of the four tables, each seen through the columns the
    Spark replay stage reads of it (``LOG_COLUMNS``, ``ZK_CHANGE_COLUMNS``, ``ZK_STATE_COLUMNS``,
    ``BROKER_CONFIG_COLUMNS``), so that a column the stage does not read is not read here either.

    Args:
        controller_events: ``silver.controller_events`` rows.
        zk_changes: ``silver.zk_changes`` rows.
        zk_state: ``silver.zk_state`` rows.
        broker_configs: ``silver.broker_configs`` rows (``ts``: their ``logged_at``).

    Returns:
        All partition evidence and all cluster facts, in input order.
    """
    evidence: list[PartitionEvidence] = []
    facts: list[ClusterFact] = []
    for normalize, rows, columns in (
        (normalize_controller_event, controller_events, LOG_COLUMNS),
        (normalize_zk_change, zk_changes, ZK_CHANGE_COLUMNS),
        (normalize_zk_state, zk_state, ZK_STATE_COLUMNS),
        (normalize_broker_config, broker_configs, BROKER_CONFIG_COLUMNS),
    ):
        for row in rows:
            found = normalize({name: row.get(name) for name in columns})
            evidence.extend(found.evidence)
            facts.extend(found.facts)
    return evidence, facts


def metadata_entries(path: str | Path, cluster: str) -> list[MetadataEntry]:
    """Decode a metadata log segment or snapshot into replay entries.

    Args:
        path: a ``<offset>.log`` segment or ``<offset>-<epoch>.checkpoint`` snapshot.
        cluster: the cluster name to put in every entry.

    Returns:
        One entry per record, undecodable ones with their problem (damage between batches is
        the ingest stage's to account for).
    """
    name = Path(path).name
    snapshot_end = kind_of(name).base_offset if kind_of(name).kind == SNAPSHOT else None
    entries = []
    for batch in scan(Path(path).read_bytes()).batches:
        for record in batch.records:
            payload = decode(record, control=batch.is_control)
            entries.append(
                MetadataEntry(
                    cluster,
                    name,
                    record.offset,
                    record.timestamp,
                    batch.partition_leader_epoch,
                    payload.kind,
                    payload.type,
                    payload.data,
                    payload.problem,
                    snapshot_end,
                )
            )
    return entries
