"""``jobs.lakehouse.table_check`` on small delta-rs tables damaged in each way (no JVM)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from deltalake import DeltaTable, write_deltalake

from jobs.lakehouse.table_check import CheckState, TableCheck, check_table, open_location

ROWS = pa.table({"cluster": ["a", "b", "a"], "x": [1, 2, 3]})


def _table(path: Path, commits: int = 3, checkpoint_at: int | None = None) -> Path:
    """A table partitioned by cluster with ``commits`` appends (versions 0 to commits-1)."""
    for version in range(commits):
        write_deltalake(str(path), ROWS, mode="append", partition_by=["cluster"])
        if version == checkpoint_at:
            DeltaTable(str(path)).create_checkpoint()
    return path


def _log(table: Path, version: int, suffix: str = "json") -> Path:
    return table / "_delta_log" / f"{version:020d}.{suffix}"


def _data_files(table: Path) -> list[Path]:
    return sorted(table.glob("cluster=*/*.parquet"))


def _only_problem(verdict: TableCheck) -> str:
    assert verdict.state is CheckState.broken, verdict
    assert len(verdict.problems) == 1, verdict.problems
    return str(verdict.problems[0])


def test_an_intact_table_is_ok(tmp_path: Path) -> None:
    table = _table(tmp_path / "t", commits=4, checkpoint_at=1)
    verdict = check_table(str(table))
    assert verdict.state is CheckState.ok
    assert (verdict.problems, verdict.orphans, verdict.version) == ((), (), 3)
    assert verdict.data_files == 8
    assert check_table(table.as_uri()).state is CheckState.ok


def test_an_overwritten_table_counts_only_the_current_files(tmp_path: Path) -> None:
    table = _table(tmp_path / "t", commits=2)
    write_deltalake(str(table), ROWS, mode="overwrite", partition_by=["cluster"])
    verdict = check_table(str(table))
    assert (verdict.state, verdict.data_files, verdict.orphans) == (CheckState.ok, 2, ())


def test_no_directory_or_no_log_is_not_created(tmp_path: Path) -> None:
    assert check_table(str(tmp_path / "absent")).state is CheckState.not_created
    killed = tmp_path / "killed" / "cluster=a"
    killed.mkdir(parents=True)
    (killed / "part-0.parquet").write_bytes(b"PAR1")
    verdict = check_table(str(tmp_path / "killed"))
    assert verdict.state is CheckState.not_created
    assert verdict.orphans == ("cluster=a/part-0.parquet",)


def test_a_deleted_data_file_is_named(tmp_path: Path) -> None:
    table = _table(tmp_path / "t")
    gone = _data_files(table)[0]
    gone.unlink()
    assert _only_problem(check_table(str(table))) == (
        f"{gone}: data file missing (the latest snapshot references it)"
    )


def test_a_truncated_data_file_is_named(tmp_path: Path) -> None:
    table = _table(tmp_path / "t")
    cut = _data_files(table)[1]
    size = cut.stat().st_size
    os.truncate(cut, size - 10)
    assert _only_problem(check_table(str(table))) == (
        f"{cut}: data file size differs ({size - 10} bytes, the log says {size})"
    )


def test_an_unreadable_footer_of_the_right_size_is_named(tmp_path: Path) -> None:
    table = _table(tmp_path / "t")
    damaged = _data_files(table)[0]
    raw = damaged.read_bytes()
    damaged.write_bytes(raw[:-4] + b"XXXX")
    problem = _only_problem(check_table(str(table)))
    assert problem.startswith(f"{damaged}: Parquet footer unreadable (")


def test_a_garbled_commit_is_named_with_its_line(tmp_path: Path) -> None:
    table = _table(tmp_path / "t")
    commit = _log(table, 1)
    lines = commit.read_text().splitlines()
    lines[1] = lines[1][: len(lines[1]) // 2]
    commit.write_text("\n".join(lines) + "\n")
    problem = _only_problem(check_table(str(table)))
    assert problem.startswith(f"{commit}:2: not a JSON action (")


def test_an_emptied_commit_is_named(tmp_path: Path) -> None:
    table = _table(tmp_path / "t")
    os.truncate(_log(table, 2), 0)
    assert _only_problem(check_table(str(table))) == f"{_log(table, 2)}: empty commit file"


def test_a_missing_version_is_named(tmp_path: Path) -> None:
    table = _table(tmp_path / "t", commits=5)
    _log(table, 1).unlink()
    _log(table, 2).unlink()
    assert _only_problem(check_table(str(table))) == (
        f"{_log(table, 1)}: version missing (versions 1 to 2)"
    )


def test_commits_before_a_checkpoint_may_be_gone(tmp_path: Path) -> None:
    table = _table(tmp_path / "t", commits=4, checkpoint_at=2)
    for version in range(3):
        _log(table, version).unlink()
    verdict = check_table(str(table))
    assert (verdict.state, verdict.data_files) == (CheckState.ok, 8)


def test_a_missing_checkpoint_is_named(tmp_path: Path) -> None:
    table = _table(tmp_path / "t", commits=4, checkpoint_at=2)
    checkpoint = _log(table, 2, "checkpoint.parquet")
    checkpoint.unlink()
    assert _only_problem(check_table(str(table))) == (
        f"{checkpoint}: checkpoint missing (_last_checkpoint names it)"
    )


def test_a_damaged_checkpoint_is_named_and_the_log_read_without_it(tmp_path: Path) -> None:
    table = _table(tmp_path / "t", commits=4, checkpoint_at=2)
    checkpoint = _log(table, 2, "checkpoint.parquet")
    checkpoint.write_bytes(checkpoint.read_bytes()[:100])
    verdict = check_table(str(table))
    assert verdict.state is CheckState.broken
    assert [p.kind for p in verdict.problems] == ["checkpoint unreadable"]
    assert verdict.problems[0].file == str(checkpoint)
    assert verdict.data_files == 8


def test_a_log_without_commits_is_broken(tmp_path: Path) -> None:
    table = _table(tmp_path / "t", commits=1)
    _log(table, 0).unlink()
    assert _only_problem(check_table(str(table))) == (
        f"{table}/_delta_log/: no commit file in the Delta log"
    )


def test_orphans_are_counted_not_errors(tmp_path: Path) -> None:
    table = _table(tmp_path / "t")
    orphan = table / "cluster=a" / "part-killed.parquet"
    orphan.write_bytes(_data_files(table)[0].read_bytes())
    (table / ".part-killed.parquet.crc").write_bytes(b"crc")
    (table / "_change_data").mkdir()
    (table / "_change_data" / "x.parquet").write_bytes(b"x")
    verdict = check_table(str(table))
    assert verdict.state is CheckState.ok
    assert verdict.orphans == ("cluster=a/part-killed.parquet",)
    assert verdict.orphan_bytes == orphan.stat().st_size


def test_files_of_older_versions_are_not_orphans(tmp_path: Path) -> None:
    table = _table(tmp_path / "t", commits=2)
    DeltaTable(str(table)).delete("cluster = 'b'")
    verdict = check_table(str(table))
    assert (verdict.state, verdict.data_files, verdict.orphans) == (CheckState.ok, 2, ())


def test_a_row_count_other_than_the_statistics_is_named(tmp_path: Path) -> None:
    table = _table(tmp_path / "t", commits=1)
    commit = _log(table, 0)
    actions = [json.loads(line) for line in commit.read_text().splitlines()]
    for action in actions:
        if "add" in action:
            stats = json.loads(action["add"]["stats"])
            action["add"]["stats"] = json.dumps({**stats, "numRecords": stats["numRecords"] + 1})
    commit.write_text("".join(json.dumps(a) + "\n" for a in actions))
    verdict = check_table(str(table))
    assert [p.kind for p in verdict.problems] == ["row count differs", "row count differs"]


@pytest.mark.parametrize(
    ("location", "why"),
    [
        ("main.kafka_audit.gold_elections", "is a Unity Catalog table"),
        ("dbfs:/lake/gold/elections", "not opened by pyarrow"),
    ],
)
def test_locations_it_cannot_read_are_not_checked(location: str, why: str) -> None:
    assert isinstance(open_location(location), str)
    verdict = check_table(location)
    assert verdict.state is CheckState.not_checked
    assert why in verdict.note


def _split_checkpoint(table: Path, version: int) -> list[Path]:
    """Rewrite a single-file checkpoint as a two-part one; returns the parts."""
    single = _log(table, version, "checkpoint.parquet")
    rows = pq.read_table(single)
    half = rows.num_rows // 2
    parts = [_log(table, version, f"checkpoint.{k:010d}.{2:010d}.parquet") for k in (1, 2)]
    pq.write_table(rows.slice(0, half), parts[0])
    pq.write_table(rows.slice(half), parts[1])
    single.unlink()
    hint = table / "_delta_log" / "_last_checkpoint"
    hint.write_text(json.dumps({**json.loads(hint.read_text()), "parts": 2}))
    return parts


def test_a_multi_part_checkpoint_needs_all_its_parts(tmp_path: Path) -> None:
    table = _table(tmp_path / "t", commits=4, checkpoint_at=2)
    parts = _split_checkpoint(table, 2)
    for version in range(3):
        _log(table, version).unlink()
    verdict = check_table(str(table))
    assert (verdict.state, verdict.data_files) == (CheckState.ok, 8)
    parts[1].unlink()
    problems = [str(p) for p in check_table(str(table)).problems]
    assert problems == [
        f"{parts[0]}: checkpoint missing (_last_checkpoint names it)",
        f"{_log(table, 0)}: version missing (versions 0 to 2)",
    ]


def test_a_v2_checkpoint_is_read_with_its_sidecars(tmp_path: Path) -> None:
    table = _table(tmp_path / "t", commits=4, checkpoint_at=2)
    classic = _log(table, 2, "checkpoint.parquet")
    rows = pq.read_table(classic)
    sidecars = table / "_delta_log" / "_sidecars"
    sidecars.mkdir()
    pq.write_table(rows.select(["add", "remove"]), sidecars / "one.parquet")
    header = [
        {name: value for name, value in row.items() if value is not None}
        for row in rows.select(["protocol", "metaData"]).to_pylist()
    ]
    sidecar = {"sidecar": {"path": "one.parquet", "sizeInBytes": 1, "modificationTime": 0}}
    v2 = _log(table, 2, "checkpoint.3a0d65cd-4056-49b8-937b-95f9e3ee90e5.json")
    v2.write_text("".join(json.dumps(a) + "\n" for a in [*filter(None, header), sidecar]))
    classic.unlink()
    hint = table / "_delta_log" / "_last_checkpoint"
    hint.write_text(json.dumps({"version": 2, "size": 1, "v2Checkpoint": {"path": v2.name}}))
    for version in range(3):
        _log(table, version).unlink()
    verdict = check_table(str(table))
    assert (verdict.state, verdict.data_files, verdict.orphans) == (CheckState.ok, 8, ())
    (sidecars / "one.parquet").unlink()
    problems = [p.kind for p in check_table(str(table)).problems]
    assert problems == ["checkpoint unreadable", "version missing"]
