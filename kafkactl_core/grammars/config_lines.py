"""The configuration a broker printed, one entry per key (``silver.broker_configs``).

The grammar entries of ``families/configs.py`` recognise two statements; this module cuts a
recognised record into its keys:

* ``KafkaConfig values:`` (event ``broker_config_logged``): one ``\\tkey = value`` line per key,
  the record's own lines; the entries take the scope ``broker`` and, as name, the broker's id:
  ``broker.id`` (ZooKeeper mode), else ``node.id`` (KRaft), when one is a node id (not ``-1``);
* ``Created log for partition`` (event ``topic_config_logged``): the properties, ``k=v`` pairs
  separated by ``, ``; the scope ``topic``, its name the topic. An empty ``{}`` gives no entry.
  Older releases printed the topic's whole effective config, broker defaults included, as
  ``k -> v`` pairs: their entries are told apart (``log_created_effective``), since a value
  there is not necessarily the topic's own.

Values are kept as printed (``null``, ``[]``, ``[hidden]`` for the secrets Kafka hides).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kafkactl_core.grammars.events import EventType

__all__ = [
    "BROKER_SCOPE",
    "CONFIG_EVENT_TYPES",
    "KAFKA_CONFIG",
    "LOG_CREATED",
    "LOG_CREATED_EFFECTIVE",
    "SOURCE_KINDS",
    "TOPIC_SCOPE",
    "ConfigLine",
    "config_lines",
]

BROKER_SCOPE = "broker"
TOPIC_SCOPE = "topic"

CONFIG_EVENT_TYPES: frozenset[str] = frozenset(
    {EventType.BROKER_CONFIG_LOGGED.value, EventType.TOPIC_CONFIG_LOGGED.value}
)
"""The event types of the recognised configuration statements."""

KAFKA_CONFIG = "kafka_config"
LOG_CREATED = "log_created"
LOG_CREATED_EFFECTIVE = "log_created_effective"
SOURCE_KINDS = (KAFKA_CONFIG, LOG_CREATED, LOG_CREATED_EFFECTIVE)
"""What an entry was read from (``silver.broker_configs.source_kind``): a KafkaConfig block, a
Created-log line's overrides, or (older releases) its whole effective config."""

_ID_KEYS = ("broker.id", "node.id")
_PROPERTY = re.compile(r"(?:^|, )([A-Za-z0-9._-]+)(=| -> )")


@dataclass(frozen=True, slots=True)
class ConfigLine:
    """One configuration key a broker printed.

    Attributes:
        source_kind: one of ``SOURCE_KINDS``.
        scope: ``broker`` (a KafkaConfig block) or ``topic`` (a Created-log line).
        name: the broker id as text, or the topic; ``None`` when the block names no node id.
        key: the config key.
        value: the value as printed.
        line: the 1-based line number of the key in its file.
    """

    source_kind: str
    scope: str
    name: str | None
    key: str
    value: str
    line: int


def _block(text: str, first_line: int) -> tuple[ConfigLine, ...]:
    pairs: list[tuple[str, str, int]] = []
    for offset, line in enumerate(text.split("\n")):
        if not line.startswith("\t"):
            continue
        key, separator, value = line[1:].partition(" =")
        if separator and key:
            pairs.append((key, value.removeprefix(" "), first_line + offset))
    values = {key: value for key, value, _ in pairs}
    name = next(
        (values[key] for key in _ID_KEYS if values.get(key, "").isdigit()),
        None,
    )
    return tuple(ConfigLine(KAFKA_CONFIG, BROKER_SCOPE, name, k, v, line) for k, v, line in pairs)


def _properties(detail: str, topic: str | None, line: int) -> tuple[ConfigLine, ...]:
    found = list(_PROPERTY.finditer(detail))
    out: list[ConfigLine] = []
    for position, match in enumerate(found):
        end = found[position + 1].start() if position + 1 < len(found) else len(detail)
        kind = LOG_CREATED if match.group(2) == "=" else LOG_CREATED_EFFECTIVE
        value = detail[match.end() : end]
        out.append(ConfigLine(kind, TOPIC_SCOPE, topic, match.group(1), value, line))
    return tuple(out)


def config_lines(
    event_type: str | None,
    text: str | None,
    first_line: int,
    topic: str | None = None,
    detail: str | None = None,
) -> tuple[ConfigLine, ...]:
    """The keys of a recognised configuration record (none for any other record).

    Args:
        event_type: the record's event type.
        text: the record's physical lines joined with newlines (a KafkaConfig block).
        first_line: the record's first line number.
        topic: the Created-log line's topic.
        detail: the Created-log line's properties, without their braces.

    Returns:
        One entry per key, in the order printed.
    """
    if event_type == EventType.BROKER_CONFIG_LOGGED.value:
        return _block(text or "", first_line)
    if event_type == EventType.TOPIC_CONFIG_LOGGED.value:
        return _properties(detail or "", topic, first_line)
    return ()
