"""The configuration brokers print in server.log (``silver.broker_configs``) and the replay's use.

Real records of the captures under ``tests/fixtures/real-kafka``: the ``KafkaConfig values:``
block of ZooKeeper-mode 2.8.2 and 3.9.1 brokers, of KRaft 3.9.1 brokers and of a 4.1.1
controller (logger ``AbstractConfig`` from 4.0), and ``Created log for partition`` lines (a
topic's overrides); the 0.10 wording (``[t,p]``, ``k -> v``) from a real 0.10.2 line.
"""

from __future__ import annotations

import collections
import gzip
import io
from datetime import UTC, datetime
from pathlib import Path

import pytest

from kafkactl_core.grammars import (
    IgnoredRecord,
    ParsedEvent,
    assemble_records,
    parse_record,
    resolve_layout,
)
from kafkactl_core.grammars.config_lines import KAFKA_CONFIG as KC
from kafkactl_core.grammars.config_lines import ConfigLine, config_lines
from kafkactl_core.replay import (
    ReplaySettings,
    broker_config_rows,
    build_timelines,
    controller_event_rows,
    normalize_broker_config,
    normalize_rows,
    replay,
)
from kafkactl_core.replay.facts import ClusterFactKind
from kafkactl_core.replay.settings import printed_percentage, printed_roles, with_printed
from kafkactl_core.versions import KafkaRelease

CAPTURES = Path(__file__).resolve().parents[1] / "fixtures" / "real-kafka"
KAFKA = resolve_layout("kafka")


def _log(tmp_path: Path, name: str) -> Path:
    """A capture's log file, decompressed into ``tmp_path`` when gzipped."""
    source = CAPTURES / name
    if not name.endswith(".gz"):
        return source
    path = tmp_path / name.replace("/", "-").removesuffix(".gz")
    path.write_bytes(gzip.decompress(source.read_bytes()))
    return path


def _rows(tmp_path: Path, name: str) -> list[dict[str, object]]:
    return list(broker_config_rows(_log(tmp_path, name), "real"))


def _first_block(rows: list[dict[str, object]]) -> dict[str, dict[str, object]]:
    """The rows of the file's first KafkaConfig block, by key."""
    kafka = [row for row in rows if row["source_kind"] == "kafka_config"]
    first = kafka[0]["ts"]
    return {str(row["key"]): row for row in kafka if row["ts"] == first}


def test_a_zookeeper_2_8_broker_block(tmp_path: Path) -> None:
    rows = _rows(tmp_path, "unclean-election-2.8.2-zk/brokers/2/server.log.gz")
    block = _first_block(rows)
    # node.id = -1 in ZooKeeper mode: the broker is named by broker.id
    assert (block["node.id"]["value"], block["broker.id"]["value"]) == ("-1", "2")
    assert {row["name"] for row in block.values()} == {"2"}
    assert {row["broker"] for row in block.values()} == {2}
    unclean = block["unclean.leader.election.enable"]
    assert (unclean["value"], unclean["line"], unclean["scope"]) == ("false", 250, "broker")
    assert block["broker.id"]["line"] == 49
    assert block["inter.broker.protocol.version"]["value"] == "2.8-IV1"
    assert block["process.roles"]["value"] == "[]"
    assert unclean["ts"] == datetime(2026, 11, 26, 14, 19, 14, 713000)
    # one row per key line: the block spans lines 37 (head) to 271 (the logger)
    assert len(block) == 271 - 37 - 1
    # the broker printed its config twice at each of its starts
    starts = {row["ts"] for row in rows if row["source_kind"] == "kafka_config"}
    assert len(starts) == 4


def test_a_zookeeper_3_9_broker_block(tmp_path: Path) -> None:
    block = _first_block(_rows(tmp_path, "unclean-election-3.9.1-zk/brokers/2/server.log"))
    assert (block["broker.id"]["line"], block["broker.id"]["name"]) == (45, "2")
    unclean = block["unclean.leader.election.enable"]
    assert (unclean["line"], unclean["value"]) == (338, "false")


def test_kraft_broker_and_controller_blocks(tmp_path: Path) -> None:
    broker = _first_block(_rows(tmp_path, "broker-crash-3.9.1-kraft/brokers/3/server.log.gz"))
    assert (broker["node.id"]["line"], broker["node.id"]["name"]) == (277, "3")
    assert broker["process.roles"]["value"] == "[broker]"
    # 4.x prints the block with the AbstractConfig logger; a controller prints its own
    controller = _first_block(
        _rows(tmp_path, "unclean-election-4.1.1-kraft/brokers/101/server.log.gz")
    )
    assert (controller["node.id"]["line"], controller["node.id"]["name"]) == (229, "101")
    assert (controller["process.roles"]["line"], controller["process.roles"]["value"]) == (
        246,
        "[controller]",
    )
    assert len(controller) == 404 - 67 - 1


def test_created_log_properties_are_the_topic_overrides(tmp_path: Path) -> None:
    rows = _rows(tmp_path, "elr-election-4.1.1-kraft/brokers/1/server.log.gz")
    created = [row for row in rows if row["source_kind"] == "log_created"]
    assert created[0] == {
        "cluster": "real",
        "broker": None,
        "scope": "topic",
        "name": "safe",
        "key": "min.insync.replicas",
        "value": "2",
        "ts": datetime(2026, 11, 26, 21, 46, 20, 699000),
        "source_kind": "log_created",
        "file": created[0]["file"],
        "line": 790,
    }
    # ``{}`` (no override) says nothing: the 2.8.2 broker created risky-0 without overrides
    zk = _rows(tmp_path, "unclean-election-2.8.2-zk/brokers/2/server.log.gz")
    assert [row for row in zk if row["source_kind"] == "log_created"] == []


def _row(line: ConfigLine) -> dict[str, object]:
    """A ``silver.broker_configs``-shaped row of an entry (as the replay reads it)."""
    return {
        "cluster": "c",
        "ts": datetime(2021, 4, 28, 16, 41, 50),
        "file": "server.log",
        "line": line.line,
        "source_kind": line.source_kind,
        "scope": line.scope,
        "name": line.name,
        "key": line.key,
        "value": line.value,
    }


def test_the_0_10_wording_gives_the_whole_topic_config() -> None:
    message = (
        "Created log for partition [dns_kafka_topic,2] in C:\\tmp\\kafka-logs-2 with properties "
        "{compression.type -> producer, min.insync.replicas -> 1, unclean.leader.election.enable"
        " -> true, cleanup.policy -> [delete], retention.bytes -> -1}."
    )
    line = f"[2021-04-28 16:41:50,987] INFO {message} (kafka.log.LogManager)\n"
    (record,) = assemble_records(io.BytesIO(line.encode()), KAFKA)
    outcome = parse_record(record)
    assert isinstance(outcome, ParsedEvent)
    assert outcome.grammar == "config/log_created_effective"
    event = outcome.event
    lines = config_lines(event.event_type.value, record.text, 7, event.topic, event.detail)
    # the whole effective config (broker defaults too): told apart, it gives no topic fact
    assert {line.source_kind for line in lines} == {"log_created_effective"}
    facts = [f for line in lines for f in normalize_broker_config(_row(line)).facts]
    assert facts == []
    assert [(line.name, line.key, line.value, line.line) for line in lines] == [
        ("dns_kafka_topic", "compression.type", "producer", 7),
        ("dns_kafka_topic", "min.insync.replicas", "1", 7),
        ("dns_kafka_topic", "unclean.leader.election.enable", "true", 7),
        ("dns_kafka_topic", "cleanup.policy", "[delete]", 7),
        ("dns_kafka_topic", "retention.bytes", "-1", 7),
    ]


def test_secrets_stay_as_printed_and_a_block_without_node_id_has_no_name() -> None:
    text = (
        "[2024-03-05 14:20:44,058] INFO KafkaConfig values: \n"
        "\tbroker.id = -1\n"
        "\tlistener.name.sasl_ssl.plain.sasl.jaas.config = [hidden]\n"
        "\tssl.keystore.password = [hidden]\n"
        "\tssl.truststore.password = null\n"
        "\tzookeeper.connect = zk:2181/kafka=a\n"
        "\tlog.dirs = \n"
        " (kafka.server.KafkaConfig)"
    )
    assert config_lines("broker_config_logged", text, 10) == (
        ConfigLine(KC, "broker", None, "broker.id", "-1", 11),
        ConfigLine(
            KC, "broker", None, "listener.name.sasl_ssl.plain.sasl.jaas.config", "[hidden]", 12
        ),
        ConfigLine(KC, "broker", None, "ssl.keystore.password", "[hidden]", 13),
        ConfigLine(KC, "broker", None, "ssl.truststore.password", "null", 14),
        ConfigLine(KC, "broker", None, "zookeeper.connect", "zk:2181/kafka=a", 15),
        ConfigLine(KC, "broker", None, "log.dirs", "", 16),
    )
    assert config_lines("leader_elected", text, 10) == ()


@pytest.mark.parametrize(
    "name",
    [
        "unclean-election-2.8.2-zk/brokers/3/server.log.gz",
        "unclean-election-3.9.1-zk/brokers/3/server.log",
        "broker-crash-3.9.1-kraft/brokers/3/server.log.gz",
        "elr-election-4.1.1-kraft/brokers/1/server.log.gz",
        "elr-election-4.1.1-kraft/brokers/101/server.log.gz",
    ],
)
def test_configuration_records_are_used_not_ignored(tmp_path: Path, name: str) -> None:
    path = _log(tmp_path, name)
    text = path.read_bytes()
    with path.open("rb") as handle:
        outcomes = [parse_record(record) for record in assemble_records(handle, KAFKA)]
    used = collections.Counter(o.grammar for o in outcomes if isinstance(o, ParsedEvent))
    assert used["config/kafka_config_values"] == text.count(b"INFO KafkaConfig values:")
    assert used["config/log_created"] == text.count(b"INFO Created log for partition ")
    ignored = [o for o in outcomes if isinstance(o, IgnoredRecord) and o.family == "foreign_logger"]
    assert ignored, "other server.log noise stays ignored"
    # every key line of every block is a row
    keys = sum(
        1 for row in broker_config_rows(path, "real") if row["source_kind"] == "kafka_config"
    )
    blocks = text.split(b"KafkaConfig values: \n")[1:]
    assert keys == sum(block.split(b"\n (")[0].count(b"\n\t") + 1 for block in blocks)


def test_a_static_config_row_is_a_broker_static_fact_and_others_say_nothing() -> None:
    row = {
        "cluster": "c",
        "ts": datetime(2026, 1, 1, tzinfo=UTC),
        "file": "/logs/server.log",
        "line": 250,
        "source_kind": "kafka_config",
        "scope": "broker",
        "name": "2",
        "key": "unclean.leader.election.enable",
        "value": "false",
    }
    (fact,) = normalize_broker_config(row).facts
    assert (fact.kind, fact.scope, fact.name, fact.key, fact.value) == (
        ClusterFactKind.config,
        "broker_static",
        "2",
        "unclean.leader.election.enable",
        "false",
    )
    assert (fact.ref, fact.time_ms) == ("/logs/server.log:250", 1767225600000)
    assert normalize_broker_config({**row, "key": "log.dirs"}) == ([], [])
    assert normalize_broker_config({**row, "name": None}) == ([], [])
    topic = normalize_broker_config(
        {**row, "source_kind": "log_created", "scope": "topic", "name": "safe"}
    ).facts
    assert [(f.scope, f.name) for f in topic] == [("topic", "safe")]


def _replay(tmp_path: Path, capture: str, version: str, configs: bool):
    events: list[dict[str, object]] = []
    config_rows: list[dict[str, object]] = []
    for source in sorted((CAPTURES / capture).glob("brokers/*/*.log*")):
        path = _log(tmp_path, str(source.relative_to(CAPTURES)))
        events.extend(controller_event_rows(path, "real", KafkaRelease.parse(version)))
        config_rows.extend(broker_config_rows(path, "real"))
    evidence, facts = normalize_rows(events, broker_configs=config_rows if configs else ())
    timelines = build_timelines(facts)
    return replay(evidence, timelines, ReplaySettings.of(version)), timelines["real"]


@pytest.mark.parametrize(
    ("capture", "version"),
    [("unclean-election-2.8.2-zk", "2.8.2"), ("unclean-election-3.9.1-zk", "3.9.1")],
)
def test_the_unclean_setting_is_known_from_the_logs_alone(
    tmp_path: Path, capture: str, version: str
) -> None:
    out, _ = _replay(tmp_path, capture, version, configs=True)
    elections = [r for r in out.elections if (r.topic, r.partition) == ("risky", 0)]
    failed = [r for r in elections if r.new_leader == -1]
    (unclean,) = [r for r in elections if r.unclean]
    # the failed elections: the controller's (broker 1) static config said false
    assert failed and all(
        (r.unclean_setting, r.unclean_setting_source, r.controller_id)
        == (False, "static_broker_config", 1)
        for r in failed
    )
    # the topic's own setting (the scenario's alter_topic_config) beats the static one
    assert (unclean.unclean_setting, unclean.unclean_setting_source) == (True, "topic_config")
    assert unclean.min_insync_replicas_source == "static_broker_config"
    # without the configuration, the release's default
    before, _ = _replay(tmp_path, capture, version, configs=False)
    assert {r.unclean_setting_source for r in before.elections if r.new_leader == -1} == {
        "version_default"
    }


def test_a_topic_min_isr_from_a_created_log_line(tmp_path: Path) -> None:
    path = _log(tmp_path, "elr-election-4.1.1-kraft/brokers/1/server.log.gz")
    rows = list(broker_config_rows(path, "real"))
    _, facts = normalize_rows(broker_configs=rows)
    timelines = build_timelines(facts)["real"]
    stamp = next(row["ts"] for row in rows if row["source_kind"] == "log_created")
    assert isinstance(stamp, datetime)
    after = int(stamp.replace(tzinfo=UTC).timestamp() * 1000) + 1
    assert timelines.min_isr_setting("safe", after, None, 1) == (2, "topic_config")
    # another topic: the broker's static min.insync.replicas (1), named by its node id
    assert timelines.min_isr_setting("other", after, None, 1) == (1, "static_broker_config")
    assert timelines.unclean_setting("other", after, ReplaySettings.of("4.1.1"), 1) == (
        False,
        "static_broker_config",
    )


def test_the_printed_cluster_settings_fill_what_the_configuration_does_not_say() -> None:
    settings = ReplaySettings.of("3.9")
    printed = {
        "inter.broker.protocol.version": "3.1-IV0",
        "leader.imbalance.per.broker.percentage": "25",
        "process.roles": "[broker, controller]",
    }
    filled = with_printed(settings, printed)
    assert str(filled.inter_broker_protocol) == "3.1-IV0" and not filled.recovery_supported
    assert with_printed(filled, {"inter.broker.protocol.version": "3.9-IV0"}) == filled
    assert with_printed(settings, {"inter.broker.protocol.version": "bogus"}) == settings
    assert (printed_percentage(printed), printed_roles(printed)) == (25, True)
    assert (printed_percentage({}), printed_roles({})) == (None, None)
    assert printed_roles({"process.roles": "[]"}) is False
    assert printed_percentage({"leader.imbalance.per.broker.percentage": "x"}) is None
