"""``--fail-on`` rules, the report's scope and its JSON summary, on the demo's report data
(its planted unclean election audit-0 at 2024-03-05 10:32, broker 2's crash, the skewed
brokers)."""

from __future__ import annotations

import dataclasses
import json
from datetime import UTC, date, datetime

import pytest

from kafkactl_core.report.alerts import FailOn, alert_findings
from kafkactl_core.report.document import ReportData
from kafkactl_core.report.scope import ReportScope, parse_time
from kafkactl_core.report.summary import json_summary
from tests.golden.cases import computed, load_inputs


def ms(text: str) -> int:
    return int(parse_time(text, "test").timestamp() * 1000)


@pytest.fixture(scope="module")
def demo() -> ReportData:
    return computed(load_inputs())[1]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("unclean", FailOn(unclean=True)),
        ("offline>=300", FailOn(offline_seconds=300.0)),
        ("imbalance>=0.25", FailOn(imbalance_ratio=0.25)),
        ("imbalance>=20%", FailOn(imbalance_ratio=0.2)),
        ("anomaly=error", FailOn(anomaly_severity="error")),
        (
            " unclean, offline >= 60.5 ,imbalance>=1,anomaly=warning",
            FailOn(True, 60.5, 1.0, "warning"),
        ),
    ],
)
def test_fail_on_rules_parse(text: str, expected: FailOn) -> None:
    assert FailOn.parse(text) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("uncleen", "'uncleen' is not one of unclean, offline>=SECONDS"),
        ("offline>=5%", "offline takes seconds, not a percent"),
        ("anomaly=fatal", "'anomaly=fatal' is not one of"),
        ("imbalance>0.2", "'imbalance>0.2' is not one of"),
        (",", "no rule given"),
    ],
)
def test_a_bad_rule_is_named(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=r"^--fail-on: ") as caught:
        FailOn.parse(text)
    assert message in str(caught.value)


def test_the_demo_fires_each_rule_it_breaks(demo: ReportData) -> None:
    (unclean,) = alert_findings(demo, FailOn(unclean=True))
    assert unclean.startswith("unclean: 1 unclean election(s), the first at 2024-03-05 10:32")
    assert "audit-0 leader 2 -> 4" in unclean
    longest = demo.offline_longest[0]
    assert longest.duration_seconds is not None
    (offline,) = alert_findings(demo, FailOn(offline_seconds=longest.duration_seconds))
    assert offline.startswith(f"offline>={longest.duration_seconds:g}: {longest.topic}-")
    assert alert_findings(demo, FailOn(offline_seconds=longest.duration_seconds + 0.001)) == []
    worst = max(b.max_ratio or 0.0 for b in demo.brokers)
    assert worst > 0.1
    (imbalance,) = alert_findings(demo, FailOn(imbalance_ratio=worst))
    assert imbalance.startswith(f"imbalance>={worst:g}: broker ")
    assert alert_findings(demo, FailOn(imbalance_ratio=worst + 0.01)) == []


def test_anomaly_rules_count_that_severity_and_worse(demo: ReportData) -> None:
    counts = {severity: 0 for severity in ("info", "warning", "error")}
    for _, _, severity, n in demo.anomaly_counts:
        counts[severity] += n
    expected = {
        "info": sum(counts.values()),
        "warning": counts["warning"] + counts["error"],
        "error": counts["error"],
    }
    for severity, total in expected.items():
        found = alert_findings(demo, FailOn(anomaly_severity=severity))
        if total:
            assert found[0].startswith(f"anomaly={severity}: {total} anomalies: ")
        else:
            assert found == []
    quiet = dataclasses.replace(demo, anomaly_counts=[("anomalies", "gap", "info", 2)])
    assert alert_findings(quiet, FailOn(anomaly_severity="warning")) == []


def test_nothing_fires_on_a_quiet_report(demo: ReportData) -> None:
    quiet = dataclasses.replace(demo, unclean=[], offline_longest=[], brokers=[], anomaly_counts=[])
    assert alert_findings(quiet, FailOn(True, 0.0, 0.0, "info")) == []


def test_times_parse_as_utc_unless_they_carry_an_offset() -> None:
    assert parse_time("2024-03-05", "--from") == datetime(2024, 3, 5, tzinfo=UTC)
    assert parse_time("2024-03-05T10:30Z", "--from") == datetime(2024, 3, 5, 10, 30, tzinfo=UTC)
    assert parse_time("2024-03-05 12:30+02:00", "--to") == datetime(2024, 3, 5, 10, 30, tzinfo=UTC)
    with pytest.raises(ValueError, match=r"^--to: not an ISO 8601 date or time: 'yesterday'"):
        parse_time("yesterday", "--to")


def test_a_scope_window_topic_and_brokers() -> None:
    scope = ReportScope(ms("2024-03-05T10:00"), ms("2024-03-05T11:00"), "aud*", (2, 4))
    assert scope.at(ms("2024-03-05T10:00")) and not scope.at(ms("2024-03-05T11:00"))
    assert not scope.at(None) and ReportScope().at(None)
    assert scope.overlaps(ms("2024-03-05T09:00"), None)
    assert scope.overlaps(ms("2024-03-05T09:00"), ms("2024-03-05T10:00"))
    assert not scope.overlaps(ms("2024-03-05T09:00"), ms("2024-03-05T09:59:59.999"))
    assert not scope.overlaps(ms("2024-03-05T11:00"), None)
    assert scope.covers_topic("audit") and not scope.covers_topic("xaudit")
    assert scope.covers_day(date(2024, 3, 5)) and not scope.covers_day(date(2024, 3, 6))
    midnight = ReportScope(ms("2024-03-05T23:00"), ms("2024-03-06T00:00"))
    assert midnight.covers_day(date(2024, 3, 5)) and not midnight.covers_day(date(2024, 3, 6))
    assert not scope.covers_topic(None) and ReportScope().covers_topic(None)
    assert scope.involves([None, 4]) and not scope.involves([1, 3, None])
    assert scope.clip(ms("2024-03-05T09:00"), ms("2024-03-05T10:30")) == (
        ms("2024-03-05T10:00"),
        ms("2024-03-05T10:30"),
    )
    assert scope.describe() == (
        "from 2024-03-05T10:00:00+00:00, to 2024-03-05T11:00:00+00:00, topic aud*, brokers 2, 4"
    )
    assert ReportScope().whole and ReportScope().describe() == "everything"
    with pytest.raises(ValueError, match="--to must be after --from"):
        ReportScope(ms("2024-03-05T11:00"), ms("2024-03-05T10:00"))


@dataclasses.dataclass(frozen=True)
class _Election:
    elected_at_ms: int | None
    topic: str
    prev_leader: int | None
    new_leader: int


def test_an_election_in_scope_is_in_the_window_of_a_topic_with_a_leader_among_the_brokers() -> None:
    scope = ReportScope(ms("2024-03-05T10:00"), ms("2024-03-05T11:00"), "aud*", (2, 4))
    inside = _Election(ms("2024-03-05T10:30"), "audit", 1, 4)
    assert scope.covers_election(inside)
    assert scope.covers_election(dataclasses.replace(inside, prev_leader=2, new_leader=-1))
    assert not scope.covers_election(dataclasses.replace(inside, elected_at_ms=None))
    at_the_end = ms("2024-03-05T11:00")
    assert not scope.covers_election(dataclasses.replace(inside, elected_at_ms=at_the_end))
    assert not scope.covers_election(dataclasses.replace(inside, topic="orders"))
    assert not scope.covers_election(dataclasses.replace(inside, prev_leader=None, new_leader=3))
    assert ReportScope().covers_election(dataclasses.replace(inside, elected_at_ms=None))


@pytest.mark.parametrize(
    ("glob", "topic", "matches"),
    [
        ("orders-*", "orders-eu", True),
        ("orders-*", "my-orders-eu", False),
        ("orders-?", "orders-1", True),
        ("orders-[!0-4]", "orders-3", False),
        ("*.dlq", "billing.dlq", True),
        ("*.dlq", "billingxdlq", False),
    ],
)
def test_topic_globs(glob: str, topic: str, matches: bool) -> None:
    assert ReportScope(topic=glob).covers_topic(topic) is matches


def test_the_json_summary_holds_the_findings_and_every_number(demo: ReportData) -> None:
    findings = alert_findings(demo, FailOn(unclean=True))
    document = json.loads(json_summary(demo, "/r/report.html", findings))
    assert document["cluster"] == "demo" and document["scope"] == "everything"
    assert document["evidence_from"].startswith("2024-03-05T")
    (unclean,) = document["unclean_elections"]
    assert (unclean["topic"], unclean["partition"], unclean["new_leader"]) == ("audit", 0, 4)
    assert unclean["exposure_seconds"] == pytest.approx(120.001)
    assert document["offline"]["intervals"] == demo.offline_count
    assert len(document["imbalance"]["brokers"]) == len(demo.brokers)
    assert document["replication"] == {"under_replicated": 32, "under_min_isr": 0}
    assert [(b["broker"], b["state"]) for b in document["broker_downtime"]][:2] == [
        (3, "offline"), (2, "offline"),
    ]  # fmt: skip
    (move,) = document["reassignments"]
    assert (move["topic"], move["replicas_to"], move["outcome"]) == (
        "payments", [1, 2, 3], "completed",
    )  # fmt: skip
    assert document["findings"] == findings and document["report"] == "/r/report.html"
    assert json.loads(json_summary(demo))["findings"] is None
