"""Configuration: strict pydantic models loaded from ``conf/<env>.yaml``.

Unknown keys, wrong types and input paths that do not exist fail at start-up with ONE line
naming the file, the key and what is wrong, e.g.::

    conf/local.yaml: clusters[0].timezone: unknown time zone 'Europe/Pariss'

A key that was removed (``REMOVED_KEYS``) is unknown too, and its line says why.
"""

from __future__ import annotations

import glob
import os
import reprlib
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from kafkactl_core.versions import KafkaRelease

Engine = Literal["auto", "delta-spark", "delta-rs"]
DEFAULT_CONF = Path("conf/local.yaml")
REMOVED_KEYS: Mapping[str, str] = {
    "grammar_executor": "the JVM grammar executor was retired, log records are always parsed by "
    "the Arrow executor",
}
"""Keys (as error locations name them) that an older file may still have, and why they went."""

_QUOTE = reprlib.Repr()
_QUOTE.maxstring = _QUOTE.maxother = 80
_QUOTE.maxlevel = 3
"""Quotes a wrong value in an error line: a YAML alias can make a small file's value huge (a list
of lists of aliases), and a whole ``repr`` of it took minutes and gigabytes."""


class ConfigError(ValueError):
    """A configuration problem, with a one-line message naming the file and key."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class LakehouseConfig(_Strict):
    """Where tables live: a directory/URI (``path``) or a Unity Catalog ``catalog`` + ``schema``."""

    path: str | None = None
    catalog: str | None = None
    schema_name: str | None = Field(default=None, alias="schema")
    retention_hours: int = Field(default=168, ge=0)
    """Age after which a later run deletes files no commit references (a stopped write's,
    replaced rows'); Delta's default, long enough for any write still under way."""

    @model_validator(mode="after")
    def _one_location(self) -> LakehouseConfig:
        if self.path is None and (self.catalog is None or self.schema_name is None):
            raise ValueError("give either path, or catalog and schema")
        if self.path is not None and self.catalog is not None:
            raise ValueError("give either path, or catalog and schema, not both")
        return self


class SparkConfig(_Strict):
    """Settings for a local SparkSession (ignored where a platform provides the session)."""

    master: str = "local[*]"
    shuffle_partitions: int = Field(default=4, ge=1)
    driver_memory: str = "2g"
    conf: dict[str, str] = Field(default_factory=dict)


class KafkaDefaults(_Strict):
    """Broker settings assumed when the evidence (ZooKeeper configs, logs) does not say.

    Keys are Kafka's own config names.
    """

    unclean_leader_election_enable: Literal["version-default"] | bool = Field(
        default="version-default", alias="unclean.leader.election.enable"
    )
    leader_imbalance_per_broker_percentage: int = Field(
        default=10, ge=0, le=100, alias="leader.imbalance.per.broker.percentage"
    )
    auto_leader_rebalance_enable: bool = Field(default=True, alias="auto.leader.rebalance.enable")
    min_insync_replicas: int | None = Field(default=None, ge=1, alias="min.insync.replicas")
    """The brokers' static value; unset: Kafka's default (1) unless the evidence says."""


INPUT_KINDS = ("logs", "zookeeper", "kraft_metadata")
"""The fields of ``ClusterInputs``."""


class ClusterInputs(_Strict):
    """Input locations of one cluster: files, directories or globs.

    ``kraft_metadata``: a KRaft controller's ``__cluster_metadata-0`` directory, or its
    segments and snapshots.
    """

    logs: list[str] = Field(default_factory=list)
    zookeeper: list[str] = Field(default_factory=list)
    kraft_metadata: list[str] = Field(default_factory=list)


class ClusterConfig(_Strict):
    """One Kafka cluster to audit."""

    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$", max_length=128)
    kafka_version: str = "auto"
    timezone: str = "UTC"
    log_layout: str = "auto"
    inputs: ClusterInputs = Field(default_factory=ClusterInputs)
    kafka_defaults: KafkaDefaults | None = None

    @field_validator("kafka_version")
    @classmethod
    def _version(cls, value: str) -> str:
        if value != "auto":
            KafkaRelease.parse(value)
        return value

    @field_validator("timezone")
    @classmethod
    def _timezone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError) as exc:
            raise ValueError(f"unknown time zone {value!r}") from exc
        return value


class AppConfig(_Strict):
    """The whole configuration file."""

    version: Literal[1] = 1
    lakehouse: LakehouseConfig
    engine: Engine = "auto"
    spark: SparkConfig = Field(default_factory=SparkConfig)
    kafka_defaults: KafkaDefaults = Field(default_factory=KafkaDefaults)
    clusters: list[ClusterConfig] = Field(default_factory=list)

    @field_validator("clusters")
    @classmethod
    def _unique(cls, value: list[ClusterConfig]) -> list[ClusterConfig]:
        names = [c.name for c in value]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise ValueError(f"cluster names must be unique, repeated: {', '.join(duplicates)}")
        return value

    def cluster(self, name: str) -> ClusterConfig:
        """The cluster called ``name``.

        Raises:
            ConfigError: when there is none.
        """
        for cluster in self.clusters:
            if cluster.name == name:
                return cluster
        known = ", ".join(c.name for c in self.clusters) or "none"
        raise ConfigError(f"no cluster named {name!r} in the configuration (known: {known})")

    def input_entries(self) -> list[str]:
        """Every cluster's input locations (files, directories or globs), in order."""
        return [
            entry
            for cluster in self.clusters
            for kind in INPUT_KINDS
            for entry in getattr(cluster.inputs, kind)
        ]

    def defaults_for(self, cluster: ClusterConfig) -> KafkaDefaults:
        """The Kafka defaults in force for ``cluster``: its own, else the file's."""
        return cluster.kafka_defaults or self.kafka_defaults


def _location(loc: Sequence[int | str]) -> str:
    text = ""
    for part in loc:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else str(part)
    return text or "<top>"


def _describe(error: Mapping[str, Any]) -> str:
    kind = error.get("type", "")
    if kind == "extra_forbidden":
        removed = REMOVED_KEYS.get(_location(error["loc"]))
        return f"removed key: {removed}; delete it" if removed else "unknown key"
    if kind == "missing":
        return "required key is missing"
    message = str(error.get("msg", "invalid value"))
    message = message.removeprefix("Value error, ")
    if "input" in error and kind not in ("model_type", "dict_type") and not kind.endswith("_error"):
        return f"{message[0].lower()}{message[1:]}, got {_QUOTE.repr(error['input'])}"
    return message[0].lower() + message[1:]


def format_validation_error(source: str, exc: ValidationError) -> str:
    """One line for a pydantic error: ``<file>: <key>: <what is wrong>`` (+ how many more)."""
    errors = exc.errors()
    first = errors[0]
    line = f"{source}: {_location(first['loc'])}: {_describe(first)}"
    if len(errors) > 1:
        line += f" (and {len(errors) - 1} more)"
    return line


def check_input_paths(config: AppConfig, source: str) -> None:
    """Fail when an input path, directory or glob matches nothing.

    Raises:
        ConfigError: naming the first such key.
    """
    for index, cluster in enumerate(config.clusters):
        for kind in INPUT_KINDS:
            for pos, entry in enumerate(getattr(cluster.inputs, kind)):
                if not glob.glob(os.path.expanduser(entry)):
                    raise ConfigError(
                        f"{source}: clusters[{index}].inputs.{kind}[{pos}]: "
                        f"no such file, directory or glob match: {entry}"
                    )


def parse_config(data: Any, source: str) -> AppConfig:
    """Validate already-loaded YAML data.

    Args:
        data: the parsed document.
        source: its name for messages (usually the file path).

    Returns:
        The configuration.

    Raises:
        ConfigError: one line naming the key and the problem.
    """
    if not isinstance(data, Mapping):
        raise ConfigError(
            f"{source}: expected a mapping at the top level, got {type(data).__name__}"
        )
    try:
        config = AppConfig.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(format_validation_error(source, exc)) from None
    check_input_paths(config, source)
    return config


def load_config(path: str | os.PathLike[str] | None = None) -> AppConfig:
    """Load and validate a configuration file.

    With no path, ``conf/local.yaml`` in the working directory is used, or the copy packaged in
    the wheel when there is none.

    Args:
        path: the YAML file.

    Returns:
        The configuration.

    Raises:
        ConfigError: unreadable file, invalid YAML, or invalid content (one line).
    """
    if path is None and not DEFAULT_CONF.exists():
        packaged = resources.files("jobs").joinpath("conf/local.yaml")
        if not packaged.is_file():  # an editable install packages no copy
            raise ConfigError(
                f"{DEFAULT_CONF}: not in the working directory and not packaged with this "
                "installation: pass --conf FILE"
            )
        return parse_config(
            yaml.safe_load(packaged.read_text(encoding="utf-8")), "<packaged local.yaml>"
        )
    source = str(path or DEFAULT_CONF)
    try:
        text = Path(source).read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{source}: cannot read configuration: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{source}: byte {exc.start}: not UTF-8 text") from None
    try:
        data = yaml.safe_load(text)
    except RecursionError:
        raise ConfigError(f"{source}: invalid YAML: nested too deeply") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}: " if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ConfigError(f"{source}: {where}invalid YAML: {problem}") from None
    return parse_config(data, source)


def with_overrides(
    config: AppConfig,
    *,
    lakehouse: str | None = None,
    catalog: str | None = None,
    schema: str | None = None,
    engine: str | None = None,
) -> AppConfig:
    """Apply the global command-line options ``--lakehouse``, ``--catalog/--schema``, ``--engine``.

    Raises:
        ConfigError: ``--lakehouse`` together with ``--catalog``, or only one of catalog/schema.
    """
    update: dict[str, Any] = {}
    if lakehouse is not None and (catalog or schema):
        raise ConfigError("--lakehouse and --catalog/--schema are alternatives: give one")
    if lakehouse is not None:
        update["lakehouse"] = LakehouseConfig(path=lakehouse)
    if catalog is not None or schema is not None:
        if catalog is None or schema is None:
            raise ConfigError("--catalog and --schema go together")
        update["lakehouse"] = LakehouseConfig(catalog=catalog, schema_name=schema)
    if engine is not None:
        update["engine"] = engine
    return config.model_copy(update=update) if update else config
