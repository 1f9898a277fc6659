"""Normalize one ``silver.broker_configs`` row into a config fact.

Only the keys the replay reads (``settings.CONFIG_KEYS``, and ``delete.topic.enable`` of a
broker, which the report reads) give a fact; the table keeps every key.

* ``broker`` rows (a broker's ``KafkaConfig values`` block, printed at start) are the broker's
  static configuration: scope ``broker_static``, named by the broker id, the lowest precedence
  of the timelines (``ClusterTimelines._configured``: topic > broker > broker_default >
  broker_static, whose source label is ``static_broker_config``).
* ``topic`` rows of a ``Created log`` line's overrides (``log_created``) are the topic's
  configuration at the time the broker created the partition's log: scope ``topic``. Older
  releases printed the whole effective config there (``log_created_effective``): those values
  may be broker defaults, which a topic fact would wrongly pin against later broker changes, so
  they give no fact.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kafkactl_core.grammars.config_lines import KAFKA_CONFIG, LOG_CREATED
from kafkactl_core.replay.evidence import Source
from kafkactl_core.replay.facts import STATIC_SCOPE, ClusterFact, ClusterFactKind
from kafkactl_core.replay.from_logs import Normalized
from kafkactl_core.replay.settings import CONFIG_KEYS, DELETE_TOPIC_KEY
from kafkactl_core.replay.values import as_int, as_ms, as_str

__all__ = ["BROKER_CONFIG_COLUMNS", "normalize_broker_config"]

BROKER_CONFIG_COLUMNS = (
    "cluster",
    "ts",
    "file",
    "line",
    "source_kind",
    "scope",
    "name",
    "key",
    "value",
)
"""The ``silver.broker_configs`` columns read (``ts``: ``logged_at``)."""

_SCOPES = {KAFKA_CONFIG: STATIC_SCOPE, LOG_CREATED: "topic"}
"""Fact scope by ``source_kind`` (``log_created_effective`` gives none)."""


def normalize_broker_config(row: Mapping[str, Any]) -> Normalized:
    """The config fact of one ``silver.broker_configs`` row (none for a key the replay ignores).

    Args:
        row: column -> value (``BROKER_CONFIG_COLUMNS`` are read).

    Returns:
        No evidence; one config fact, or none (another key, an effective config or no name).
    """
    key = as_str(row.get("key"))
    scope = _SCOPES.get(as_str(row.get("source_kind")) or "")
    name = as_str(row.get("name"))
    read = key in CONFIG_KEYS or (key == DELETE_TOPIC_KEY and scope == STATIC_SCOPE)
    if not read or scope is None or name is None:
        return Normalized([], [])
    line = as_int(row.get("line")) or 0
    fact = ClusterFact(
        cluster=as_str(row.get("cluster")) or "",
        time_ms=as_ms(row.get("ts")),
        source=Source.server_log,
        kind=ClusterFactKind.config,
        ref=f"{as_str(row.get('file')) or ''}:{line}",
        seq=line,
        scope=scope,
        name=name,
        key=key,
        value=as_str(row.get("value")),
    )
    return Normalized([], [fact])
