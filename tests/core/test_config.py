"""Configuration: the default loads; each kind of mistake is one line naming the key."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pytest

from jobs.runtime.config import ConfigError, load_config
from tests.conftest import REPO

VALID = """
version: 1
lakehouse: {path: LAKE}
engine: delta-rs
spark: {master: "local[2]", shuffle_partitions: 2}
kafka_defaults: {unclean.leader.election.enable: false, min.insync.replicas: 2}
clusters:
  - name: prod-eu
    kafka_version: "2.8"
    timezone: Europe/Berlin
    inputs: {logs: [LOGS]}
"""


def _write(tmp_path: Path, text: str) -> Path:
    logs = tmp_path / "logs"
    logs.mkdir(exist_ok=True)
    path = tmp_path / "conf.yaml"
    path.write_text(text.replace("LAKE", str(tmp_path / "lh")).replace("LOGS", str(logs)))
    return path


def _error(path: Path) -> str:
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    message = str(caught.value)
    assert "\n" not in message, "a configuration error is one line"
    assert message.startswith(str(path) + ": ")
    return message


def test_embedded_default_loads() -> None:
    config = load_config(REPO / "conf" / "local.yaml")
    assert config.engine == "delta-rs", "the local default, chosen by measurement"
    assert config.lakehouse.path == "lakehouse"
    assert config.kafka_defaults.leader_imbalance_per_broker_percentage == 10


def test_valid_file_loads(tmp_path: Path) -> None:
    config = load_config(_write(tmp_path, VALID))
    cluster = config.cluster("prod-eu")
    assert cluster.kafka_version == "2.8"
    assert cluster.timezone == "Europe/Berlin"
    assert config.defaults_for(cluster).unclean_leader_election_enable is False
    assert config.defaults_for(cluster).min_insync_replicas == 2
    assert config.spark.shuffle_partitions == 2


def test_unknown_key(tmp_path: Path) -> None:
    text = VALID.replace("    timezone: Europe/Berlin", "    timezone: UTC\n    colour: red")
    assert _error(_write(tmp_path, text)).endswith("clusters[0].colour: unknown key")


@pytest.mark.parametrize("value", ["arrow", "jvm"])
def test_a_removed_key_names_itself_and_says_why(tmp_path: Path, value: str) -> None:
    text = VALID.replace("engine: delta-rs", f"engine: delta-rs\ngrammar_executor: {value}")
    assert _error(_write(tmp_path, text)).endswith(
        ": grammar_executor: removed key: the JVM grammar executor was retired, log records are"
        " always parsed by the Arrow executor; delete it"
    )


def test_wrong_type(tmp_path: Path) -> None:
    text = VALID.replace("shuffle_partitions: 2", "shuffle_partitions: many")
    message = _error(_write(tmp_path, text))
    assert "spark.shuffle_partitions: " in message
    assert "integer" in message and "'many'" in message


def test_missing_input_path(tmp_path: Path) -> None:
    text = VALID.replace("[LOGS]", "[LOGS, /nonexistent/kafka/logs]")
    message = _error(_write(tmp_path, text))
    assert message.endswith(
        "clusters[0].inputs.logs[1]: no such file, directory or glob match: /nonexistent/kafka/logs"
    )


def test_missing_required_key(tmp_path: Path) -> None:
    text = "\n".join(line for line in VALID.splitlines() if "lakehouse" not in line)
    assert _error(_write(tmp_path, text)).endswith("lakehouse: required key is missing")


def test_bad_values_name_the_key(tmp_path: Path) -> None:
    cases = {
        "timezone: Europe/Berlin": ("timezone: Mars/Olympus", "timezone: unknown time zone"),
        'kafka_version: "2.8"': ('kafka_version: "two"', "kafka_version: not a Kafka version"),
        "engine: delta-rs": ("engine: duckdb", "engine: input should be"),
        "min.insync.replicas: 2": (
            "min.insync.replicas: 0",
            "kafka_defaults.min.insync.replicas: input should be greater than or equal to 1",
        ),
    }
    for original, (replacement, expected) in cases.items():
        message = _error(_write(tmp_path, VALID.replace(original, replacement)))
        assert expected in message, message


def test_invalid_yaml_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("version: 1\nlakehouse: {path: x\nengine: auto\n")
    assert "invalid YAML" in _error(path)


def test_unreadable_file(tmp_path: Path) -> None:
    assert "cannot read configuration" in _error(tmp_path / "absent.yaml")


def test_duplicate_cluster_names(tmp_path: Path) -> None:
    text = VALID + "  - name: prod-eu\n"
    assert "cluster names must be unique, repeated: prod-eu" in _error(_write(tmp_path, text))


def test_catalog_overrides(tmp_path: Path) -> None:
    from jobs.runtime.config import with_overrides

    config = load_config(_write(tmp_path, VALID))
    uc = with_overrides(config, catalog="main", schema="kafka_audit")
    assert (uc.lakehouse.catalog, uc.lakehouse.schema_name, uc.lakehouse.path) == (
        "main",
        "kafka_audit",
        None,
    )
    with pytest.raises(ConfigError, match="go together"):
        with_overrides(config, catalog="main")
    with pytest.raises(ConfigError, match="alternatives"):
        with_overrides(config, lakehouse="/x", catalog="main", schema="s")


def test_no_default_file_here_and_none_packaged_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if resources.files("jobs").joinpath("conf/local.yaml").is_file():
        pytest.skip("this installation is a wheel: it packages conf/local.yaml")
    monkeypatch.chdir(tmp_path)  # an editable install (this checkout's) packages none
    with pytest.raises(ConfigError, match=r"^conf/local.yaml: not in the working directory"):
        load_config()
