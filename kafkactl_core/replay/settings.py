"""Replay settings: the cluster's release and static configuration, windows, and what-if overrides.

``ReplaySettings`` says under which rules a cluster's evidence is replayed: the Kafka release
(its ``KafkaVersion`` profile), ZooKeeper or KRaft mode, the static broker value of
``unclean.leader.election.enable`` (what ``server.properties`` set: the "configured default"),
the inter-broker protocol / metadata version, and the time windows the fold uses to merge the
same election seen in several sources. ``with_what_if`` derives the settings of a what-if
scenario from ``KEY=VALUE`` overrides of the config keys the replay honours.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from kafkactl_core.kraft.metadata_version import MetadataVersion
from kafkactl_core.profiles import KafkaVersion
from kafkactl_core.versions import KafkaRelease, ProtocolVersion
from kafkactl_core.zkcontroller.cluster import parse_bool_config

__all__ = [
    "ACTUAL",
    "CONFIG_KEYS",
    "DELETE_TOPIC_KEY",
    "HONOURED_KEYS",
    "IMBALANCE_PERCENTAGE_KEY",
    "MIN_ISR_KEY",
    "PRINTED_KEYS",
    "PROCESS_ROLES_KEY",
    "UNCLEAN_KEY",
    "ReplaySettings",
    "printed_percentage",
    "printed_roles",
    "with_printed",
    "with_what_if",
]

ACTUAL = "actual"
"""Scenario name of the replay of what really happened."""

UNCLEAN_KEY = "unclean.leader.election.enable"
AUTO_REBALANCE_KEY = "auto.leader.rebalance.enable"
IBP_KEY = "inter.broker.protocol.version"
VERSION_KEY = "kafka.version"

HONOURED_KEYS = (UNCLEAN_KEY, AUTO_REBALANCE_KEY, IBP_KEY, VERSION_KEY)
"""Config keys a what-if may override.

* ``unclean.leader.election.enable``: forced for every topic (beats topic and broker configs);
* ``auto.leader.rebalance.enable``: ``false`` removes automatic preferred elections;
* ``inter.broker.protocol.version``: whether unclean leaders are written RECOVERING;
* ``kafka.version``: replay under another release's election rules.
"""

MIN_ISR_KEY = "min.insync.replicas"

CONFIG_KEYS = (*HONOURED_KEYS, MIN_ISR_KEY)
"""Config keys the replay reads from the evidence's topic and broker configs: the honoured keys,
and ``min.insync.replicas`` (KRaft fills the ELR from it; every election row states it)."""

IMBALANCE_PERCENTAGE_KEY = "leader.imbalance.per.broker.percentage"
PROCESS_ROLES_KEY = "process.roles"
PRINTED_KEYS = (IBP_KEY, IMBALANCE_PERCENTAGE_KEY, PROCESS_ROLES_KEY)
"""Static broker keys read from the configuration the brokers printed at start
(``silver.broker_configs``) for the whole cluster: ``with_printed``, ``printed_percentage``,
``printed_roles``."""

DELETE_TOPIC_KEY = "delete.topic.enable"
"""A static broker key the report reads (from the brokers' printed configuration): with
``false`` a ZooKeeper controller never deletes a topic (``gold.topic_lifecycle``)."""

_PARSED_SETTINGS: dict[str, tuple[str, Callable[[str], object]]] = {
    IBP_KEY: ("inter_broker_protocol", ProtocolVersion.parse),
    VERSION_KEY: ("release", KafkaRelease.parse),
}
"""The what-if keys whose value is parsed into a ``ReplaySettings`` field: key → (field, parser)."""


@dataclass(frozen=True, slots=True)
class ReplaySettings:
    """How one cluster's evidence is replayed.

    Attributes:
        release: the Kafka release the cluster ran.
        mode: ``zk``, ``kraft`` or ``auto`` (a partition with KRaft evidence uses KRaft rules).
        broker_unclean_enable: the static ``unclean.leader.election.enable`` of the brokers
            (``server.properties``), ``None`` when not known (the release default applies).
        broker_min_isr: the static ``min.insync.replicas`` of the brokers, ``None`` when not
            known (Kafka's default, 1, applies).
        inter_broker_protocol: the configured IBP, ``None`` = the release's default.
        metadata_version: the KRaft metadata version, ``None`` = the release's newest.
        merge_window_ms: evidence of one election from several sources is merged when it is
            this close in time (clocks of different brokers differ).
        settle_ms: an election (or timeline interval) is final, and emitted, once evidence this
            much later has been seen.
        shutdown_window_ms: ZooKeeper-only evidence: a leader change away from a registered
            leader that deregisters within this window is taken as a controlled shutdown.
        scenario: the name rows are tagged with (``actual`` for the real history).
        forced_unclean: what-if: ``unclean.leader.election.enable`` forced for every topic.
        auto_rebalance_enable: what-if: ``False`` removes automatic preferred elections.
        overrides: the what-if ``(key, value)`` pairs applied, for the record.
        profile: the release's behaviour profile (derived).
    """

    release: KafkaRelease
    mode: str = "auto"
    broker_unclean_enable: bool | None = None
    broker_min_isr: int | None = None
    inter_broker_protocol: ProtocolVersion | None = None
    metadata_version: MetadataVersion | None = None
    merge_window_ms: int = 5_000
    settle_ms: int = 60_000
    shutdown_window_ms: int = 120_000
    scenario: str = ACTUAL
    forced_unclean: bool | None = None
    auto_rebalance_enable: bool | None = None
    overrides: tuple[tuple[str, str], ...] = ()
    profile: KafkaVersion = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "profile", KafkaVersion.of(self.release))

    @classmethod
    def of(cls, release: str | KafkaRelease, **kwargs: Any) -> ReplaySettings:
        """Settings for a release given as text (``"2.8"``) or a ``KafkaRelease``.

        Args:
            release: the cluster's Kafka release.
            **kwargs: other fields.

        Returns:
            The settings.

        Raises:
            ValueError: when ``release`` is not a Kafka version.
        """
        rel = KafkaRelease.parse(release) if isinstance(release, str) else release
        return cls(rel, **kwargs)

    @property
    def recovery_supported(self) -> bool:
        """ZooKeeper mode: an unclean leader is written RECOVERING (IBP >= 3.2-IV0)."""
        return self.profile.leader_recovery_supported(self.inter_broker_protocol)

    @property
    def kraft_metadata_version(self) -> MetadataVersion:
        """The KRaft metadata version in force (the release's newest when not configured)."""
        if self.metadata_version is not None:
            return self.metadata_version
        release = self.release
        if (release.major, release.minor) < (3, 0):
            return MetadataVersion.parse("3.0-IV1")
        try:
            return MetadataVersion.parse(f"{release.major}.{release.minor}")
        except ValueError:
            return MetadataVersion.parse("3.9")


def with_what_if(
    settings: ReplaySettings, overrides: Iterable[str], scenario: str | None = None
) -> tuple[ReplaySettings, list[str]]:
    """The settings of a what-if scenario.

    Args:
        settings: the actual cluster's settings.
        overrides: ``KEY=VALUE`` texts (``HONOURED_KEYS``).
        scenario: the scenario name; default ``what-if:KEY=VALUE,...``.

    Returns:
        The scenario's settings and the overrides that could not be applied (unknown key or
        invalid value, each with the reason); those are ignored, never raised.
    """
    problems: list[str] = []
    applied: list[tuple[str, str]] = []
    changes: dict[str, Any] = {}
    for text in overrides:
        key, sep, value = text.partition("=")
        key, value = key.strip(), value.strip()
        if not sep or not key:
            problems.append(f"{text!r}: expected KEY=VALUE")
            continue
        if key in (UNCLEAN_KEY, AUTO_REBALANCE_KEY):
            flag = parse_bool_config(value)
            if flag is None:
                problems.append(f"{text!r}: {key} takes true or false")
                continue
            changes["forced_unclean" if key == UNCLEAN_KEY else "auto_rebalance_enable"] = flag
        elif key in _PARSED_SETTINGS:
            setting, parse = _PARSED_SETTINGS[key]
            try:
                changes[setting] = parse(value)
            except ValueError as exc:
                problems.append(f"{text!r}: {exc}")
                continue
        else:
            problems.append(f"{text!r}: {key} is not a key the replay honours {HONOURED_KEYS}")
            continue
        applied.append((key, value))
    name = scenario or "what-if:" + ",".join(f"{k}={v}" for k, v in applied)
    derived = replace(settings, scenario=name, overrides=settings.overrides + tuple(applied))
    if changes:
        derived = replace(derived, **changes)
    return derived, problems


def with_printed(settings: ReplaySettings, printed: Mapping[str, str]) -> ReplaySettings:
    """The settings with the inter-broker protocol the brokers printed, when the settings have
    none and the printed value is a protocol version (a KRaft broker prints the one its metadata
    version implies).

    Args:
        settings: the cluster's settings.
        printed: the brokers' printed values by key (``PRINTED_KEYS``).

    Returns:
        The settings, the IBP filled in when known.
    """
    text = printed.get(IBP_KEY)
    if settings.inter_broker_protocol is not None or not text:
        return settings
    try:
        return replace(settings, inter_broker_protocol=ProtocolVersion.parse(text))
    except ValueError:
        return settings


def printed_percentage(printed: Mapping[str, str]) -> int | None:
    """``leader.imbalance.per.broker.percentage`` as the brokers printed it, ``None`` when not
    printed or not a non-negative integer."""
    text = printed.get(IMBALANCE_PERCENTAGE_KEY, "").strip()
    return int(text) if text.isdigit() else None


def printed_roles(printed: Mapping[str, str]) -> bool | None:
    """Whether the brokers printed KRaft roles (``process.roles = [broker]``...: ``True``) or
    none (ZooKeeper mode prints ``[]``: ``False``); ``None`` when not printed."""
    text = printed.get(PROCESS_ROLES_KEY)
    if text is None:
        return None
    return text.strip() not in ("", "[]", "null")
