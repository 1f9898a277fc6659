"""``kafkactl_lab.simulate.truth``: the ground truth against replayed elections.

The replayed side is built from a real simulation's ground truth, turned into
``gold.elections``-shaped rows (as the replay writes them: no ISR before a new partition, naive
UTC times); then one thing at a time is changed and the comparison must name exactly it.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import pytest

from kafkactl_lab.simulate import TRUTH_FILE, SimulationSettings, load_script, simulate
from kafkactl_lab.simulate.truth import Election, compare, read_truth
from tests.core.test_simulate_replay import RETRIED


@pytest.fixture(scope="module")
def truth_lines(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    out = tmp_path_factory.mktemp("truth")
    simulate(SimulationSettings(brokers=4, topics=3, partitions_per_topic=4, hours=1, seed=5), out)
    return (out / TRUTH_FILE).read_text().splitlines()


@pytest.fixture(scope="module")
def retried_lines(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """The ground truth of an offline partition retried 7 times (see ``RETRIED``)."""
    out = tmp_path_factory.mktemp("retried")
    script = out / "script.json"
    script.write_text(json.dumps(RETRIED))
    simulate(SimulationSettings(), out / "sim", load_script(script))
    return (out / "sim" / TRUTH_FILE).read_text().splitlines()


def gold_row(line_record: dict[str, Any]) -> dict[str, Any]:
    """A ground-truth record as the replay would write it."""
    creation = line_record["previous_leader"] is None
    at = dt.datetime(1970, 1, 1) + dt.timedelta(milliseconds=line_record["t"])
    return {
        "topic": line_record["topic"],
        "partition": line_record["partition"],
        "elected_at": at,
        "controller_id": line_record["controller"],
        "controller_epoch": line_record["controller_epoch"],
        "trigger": line_record["trigger"],
        "prev_leader": -1
        if line_record["previous_leader"] is None
        else line_record["previous_leader"],
        "new_leader": line_record["new_leader"],
        "leader_epoch": line_record["leader_epoch"],
        "isr_before": None if creation else list(line_record["isr_before"]),
        "isr_after": line_record["isr_after"],
        "unclean": line_record["unclean"],
        "prev_leader_epoch": line_record["previous_leader_epoch"],
        "partition_epoch": line_record["zk_version"],
    }


def replayed(lines: list[str]) -> list[dict[str, Any]]:
    return [gold_row(json.loads(line)) for line in lines]


def run(lines: list[str], rows: list[dict[str, Any]]):
    return compare(read_truth(lines), (Election.from_gold(r) for r in rows))


def test_the_truth_against_itself_agrees_on_every_election(truth_lines: list[str]) -> None:
    result = run(truth_lines, replayed(truth_lines))
    assert result.ok
    assert result.truth == result.replayed == result.matched == len(truth_lines)
    assert result.triggers["new_partition"] == 12
    assert result.max_time_diff_ms == 0


@pytest.mark.parametrize(
    ("column", "value", "field"),
    [
        ("trigger", "unknown", "trigger"),
        ("new_leader", 99, "new_leader"),
        ("isr_after", [99], "isr_after"),
        ("unclean", True, "unclean"),
        ("controller_epoch", 42, "controller_epoch"),
    ],
)
def test_a_changed_field_is_named(
    truth_lines: list[str], column: str, value: Any, field: str
) -> None:
    rows = replayed(truth_lines)
    rows[-1][column] = value
    result = run(truth_lines, rows)
    assert not result.ok
    assert result.counts == {"differs": 1}
    (mismatch,) = result.mismatches
    assert [name for name, _, _ in mismatch.fields] == [field]
    assert mismatch.key == (rows[-1]["topic"], rows[-1]["partition"], rows[-1]["leader_epoch"])


def test_time_within_the_tolerance_agrees_beyond_it_differs(truth_lines: list[str]) -> None:
    rows = replayed(truth_lines)
    rows[3]["elected_at"] += dt.timedelta(milliseconds=999)
    assert run(truth_lines, rows).ok
    rows[3]["elected_at"] += dt.timedelta(milliseconds=2)
    result = run(truth_lines, rows)
    assert result.counts == {"differs": 1}
    assert result.mismatches[0].fields[0][0] == "t_ms"


def test_missing_extra_and_duplicate_elections(truth_lines: list[str]) -> None:
    rows = replayed(truth_lines)
    gone = rows.pop(5)
    extra = dict(rows[0], leader_epoch=1000)
    result = run(truth_lines, [*rows, extra, rows[1]])
    assert result.counts == {"missing": 1, "extra": 1, "duplicate": 1}
    kinds = {m.kind: m.key for m in result.mismatches}
    assert kinds["missing"] == (gone["topic"], gone["partition"], gone["leader_epoch"])
    assert kinds["extra"][2] == 1000


def _failed(rows: list[dict[str, Any]]) -> list[int]:
    return [i for i, row in enumerate(rows) if row["new_leader"] == -1]


def test_failed_attempts_are_matched_in_time_field_by_field(retried_lines: list[str]) -> None:
    rows = replayed(retried_lines)
    result = run(retried_lines, rows)
    assert result.ok and result.failed_truth == result.failed_matched == len(_failed(rows)) == 7
    first = _failed(rows)[0]
    rows[first]["partition_epoch"] += 1  # not what was written right after
    result = run(retried_lines, rows)
    assert result.counts == {"differs": 1}
    (mismatch,) = result.mismatches
    assert [name for name, _, _ in mismatch.fields] == ["partition_epoch"]
    assert mismatch.describe().startswith("differs: failed attempt ")


def test_a_repeated_attempt_missing_or_extra_is_named(retried_lines: list[str]) -> None:
    rows = replayed(retried_lines)
    first = rows[_failed(rows)[0]]
    # The same attempt 30 s later (as at a later broker change): the replay must show it too.
    again = dict(first, elected_at=first["elected_at"] + dt.timedelta(seconds=30))
    result = run([*retried_lines, json.dumps(_truth(again))], rows)
    assert result.counts == {"missing": 1}
    assert result.mismatches[0].failed_at_ms == _truth(again)["t"]
    result = run(retried_lines, [*rows, again])
    assert result.counts == {"extra": 1}
    # Two replayed attempts for one: the first in time pairs, the other is extra.
    twin = dict(first, elected_at=first["elected_at"] + dt.timedelta(milliseconds=400))
    result = run(retried_lines, [*rows, twin])
    assert result.counts == {"extra": 1} and result.failed_matched == result.failed_truth


def _truth(row: dict[str, Any]) -> dict[str, Any]:
    """A replayed failed attempt as the simulator records one."""
    at = row["elected_at"] - dt.datetime(1970, 1, 1)
    return {
        "t": at.days * 86_400_000 + at.seconds * 1000 + at.microseconds // 1000,
        "topic": row["topic"],
        "partition": row["partition"],
        "trigger": row["trigger"],
        "previous_leader": row["prev_leader"],
        "new_leader": row["new_leader"],
        "previous_leader_epoch": row["prev_leader_epoch"],
        "leader_epoch": row["leader_epoch"],
        "zk_version": row["partition_epoch"],
        "isr_before": row["isr_before"],
        "isr_after": row["isr_after"],
        "unclean": row["unclean"],
        "controller": row["controller_id"],
        "controller_epoch": row["controller_epoch"],
    }


def test_nothing_to_compare_is_not_ok() -> None:
    assert not compare([], []).ok
