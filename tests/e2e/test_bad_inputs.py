"""Bad inputs through the command line (issue 21): each ends in a per-file reason, the good files
beside it are ingested, and the exit code says whether anything was skipped (4) or not (0).

One ``ingest-logs`` run over a tree of bad inputs beside good ones is shared by the log cases;
the files vanishing or cut short during a run, the ZooKeeper and metadata-log stages and ``run``
have their own runs. Each case checks its row (``silver.ingest_stats``, ``silver.quarantine``,
``silver.zk_ingest_stats`` or ``meta.runs`` notes), its line on stderr, and the good file's rows.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import os
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from jobs.lakehouse.port import Lakehouse, open_lakehouse
from jobs.runtime.config import load_config
from jobs.stages import ingest_logs
from jobs.stages.registry import INPUT_PROBLEMS_EXIT, stage_named
from schemas.catalog import TableSpec
from schemas.kraft import KRAFT_RECORDS
from schemas.logs import INGEST_STATS, LOG_RECORDS, QUARANTINE
from schemas.meta import INGESTED_FILES, RUNS
from schemas.zk import ZK_INGEST_STATS, ZK_RECORDS
from tests.conftest import REPO
from tests.e2e.cli import run_cli, write_conf

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(
        not all(s.installed() for s in map(stage_named, ("ingest-logs", "ingest-zk"))),
        reason="an ingest stage is not installed in this build",
    ),
]
DEMO = REPO / "samples" / "demo"
BROKER = DEMO / "logs" / "broker-1"
SNAPSHOT = DEMO / "zookeeper" / "version-2" / "snapshot.28"
SEGMENT = REPO / "samples" / "kraft-demo" / "metadata" / "00000000000000000000.log"
BIG_LINE = 50 << 20
STAMP = b"[2024-03-05 09:00:00,000] INFO "
TAIL = b" (kafka.controller.KafkaController)\n"


@dataclass
class Run:
    """One command's outcome and the lakehouse it wrote."""

    code: int
    stderr: str
    lakehouse: Lakehouse

    def rows(self, spec: TableSpec) -> list[dict[str, Any]]:
        """Every row of ``spec`` as a dict."""
        return [row.asDict(recursive=True) for row in self.lakehouse.read(spec).collect()]

    def file_rows(self, spec: TableSpec, path: Path) -> int:
        """Rows of ``spec`` read from ``path``."""
        return self.lakehouse.read(spec).filter(F.col("file") == str(path)).count()

    def stats(self, path: Path) -> dict[str, Any]:
        """The ``silver.ingest_stats`` row of ``path`` (exactly one)."""
        (row,) = [r for r in self.rows(INGEST_STATS) if r["file"] == str(path)]
        return row

    def notes(self) -> list[str]:
        """The notes of every ``meta.runs`` row."""
        return [note for row in self.rows(RUNS) for note in row["notes"] or []]

    def said(self, *parts: str) -> bool:
        """Whether one stderr line holds every part."""
        return any(all(part in line for part in parts) for line in self.stderr.splitlines())

    def skipped(self, path: Path, reason: str) -> bool:
        """Whether stderr's closing lines name ``path`` as skipped or damaged, with ``reason``."""
        return self.said("input skipped or damaged", f"{path}: ", reason)


def _cli(spark: SparkSession, conf: Path, *argv: str) -> Run:
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code, _ = run_cli("--conf", str(conf), *argv)
    return Run(code, err.getvalue(), open_lakehouse(load_config(conf), spark))


def _conf(root: Path) -> Path:
    return write_conf(root / "conf.yaml", root / "lakehouse", "delta-rs", name="c")


def _good_log(directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    return Path(shutil.copy(BROKER / "controller.log", directory / "controller.log"))


def _lines(path: Path) -> int:
    return path.read_bytes().count(b"\n")


@dataclass
class Tree:
    """The bad inputs beside good ones (see ``logs_run``)."""

    good: Path
    alias: Path
    gz: Path
    encodings: Path
    snapshot: Path
    segment: Path
    empty: Path
    loop: Path
    looped: Path
    big: Path
    dangling: Path
    fifo: Path


def _tree(root: Path) -> Tree:
    good = _good_log(root / "good")
    (root / "alias").mkdir()
    alias = root / "alias" / "controller.log"
    alias.symlink_to(good)
    compressed = gzip.compress((BROKER / "state-change.log").read_bytes())
    gz = root / "gz" / "state-change.log.1.gz"
    gz.parent.mkdir()
    gz.write_bytes(compressed[: len(compressed) // 2])
    encodings = root / "encodings" / "server.log"
    encodings.parent.mkdir()
    lines = (b"NUL bytes \x00\x00 inside", b"not UTF-8 \xff\xfe\xc3\x28", b"a good line")
    encodings.write_bytes(b"".join(STAMP + line + TAIL for line in lines))
    foreign = root / "foreign"
    foreign.mkdir()
    snapshot = Path(shutil.copy(SNAPSHOT, foreign / "controller.log.5"))
    segment = Path(shutil.copy(SEGMENT, foreign / "server.log.7"))
    empty = root / "empty"
    (empty / "sub").mkdir(parents=True)
    (empty / "notes.txt").write_text("not a log\n")
    loop = root / "loop"
    looped = _good_log(loop)
    looped = looped.rename(loop / "state-change.log")
    (loop / "self").symlink_to(loop)
    big = root / "big" / "server.log"
    big.parent.mkdir()
    with big.open("wb") as handle:
        handle.write(STAMP + b"before the long line\n" + STAMP)
        handle.write(b"x" * BIG_LINE)
        handle.write(b"\n" + STAMP + b"after the long line\n")
    dangling = root / "gone" / "controller.log"
    dangling.parent.mkdir()
    dangling.symlink_to(root / "nowhere")
    fifo = root / "fifo" / "controller.log"
    fifo.parent.mkdir()
    os.mkfifo(fifo)
    return Tree(
        good, alias, gz, encodings, snapshot, segment, empty, loop, looped, big, dangling, fifo
    )


@pytest.fixture(scope="module")
def logs_run(spark: SparkSession, tmp_path_factory: pytest.TempPathFactory) -> tuple[Tree, Run]:
    """``ingest-logs`` over every bad input at once, beside the good ones."""
    root = tmp_path_factory.mktemp("bad-logs")
    tree = _tree(root / "in")
    paths = [
        tree.good,
        tree.good,  # the same path twice
        tree.good.parent,  # and its directory
        tree.alias.parent,  # the same file through a symlink
        tree.gz,
        tree.encodings,
        tree.snapshot,
        tree.segment,
        tree.empty,
        tree.loop,
        tree.big.parent,
        tree.dangling.parent,
        tree.fifo.parent,
    ]
    run = _cli(spark, _conf(root), "ingest-logs", "--cluster", "c", *map(str, paths))
    return tree, run


def test_exit_code_says_input_was_skipped(logs_run: tuple[Tree, Run]) -> None:
    tree, run = logs_run
    assert run.code == INPUT_PROBLEMS_EXIT, run.stderr
    good = run.stats(tree.good)
    assert good["error"] is None
    assert good["physical_lines"] == _lines(tree.good)
    assert run.file_rows(LOG_RECORDS, tree.good) == good["records"] > 0
    recorded = {row["path"] for row in run.rows(INGESTED_FILES)}
    assert recorded == {str(p) for p in (tree.good, tree.gz, tree.encodings, tree.looped, tree.big)}


def test_same_file_twice_is_read_once(logs_run: tuple[Tree, Run]) -> None:
    tree, run = logs_run
    assert str(tree.alias) not in {row["file"] for row in run.rows(INGEST_STATS)}
    note = f"{tree.alias}: the same file as {tree.good}, read once"
    assert note in run.notes()
    assert run.said(note)


def test_truncated_gzip_keeps_the_lines_before_the_damage(logs_run: tuple[Tree, Run]) -> None:
    tree, run = logs_run
    stats = run.stats(tree.gz)
    reason = f"gzip data cut short after byte {stats['size_bytes']}"
    assert stats["error"] == reason
    assert 0 < stats["size_bytes"] < (BROKER / "state-change.log").stat().st_size
    assert run.file_rows(LOG_RECORDS, tree.gz) == stats["records"] > 0
    assert run.skipped(tree.gz, reason)


def test_nul_bytes_and_invalid_utf8_are_kept_and_counted(logs_run: tuple[Tree, Run]) -> None:
    tree, run = logs_run
    stats = run.stats(tree.encodings)
    assert stats["error"] is None and stats["records"] == 3
    quarantined = [r for r in run.rows(QUARANTINE) if r["file"] == str(tree.encodings)]
    assert [(r["first_line"], r["reason"]) for r in quarantined if r["reason"] == "invalid_utf8"]
    assert ("invalid_utf8" in stats["quarantined_by_reason"]) and (
        stats["quarantined_by_reason"]["invalid_utf8"] == 1
    )
    texts = [
        row.text
        for row in run.lakehouse.read(LOG_RECORDS)
        .filter(F.col("file") == str(tree.encodings))
        .orderBy("first_line")
        .collect()
    ]
    assert "\x00\x00" in texts[0] and "\ufffd" in texts[1]
    assert run.said(str(tree.encodings), "1 record(s) with invalid UTF-8 quarantined")


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("snapshot", "a ZooKeeper snapshot, not a Kafka log (ingest-zk reads it)"),
        ("segment", "binary data, not a Kafka log"),
        ("fifo", "not a regular file (a FIFO, socket or device)"),
    ],
)
def test_other_formats_are_refused(logs_run: tuple[Tree, Run], name: str, reason: str) -> None:
    tree, run = logs_run
    path = getattr(tree, name)
    assert str(path) not in {row["file"] for row in run.rows(INGEST_STATS)}
    assert any(note.startswith(f"{path}: {reason}") for note in run.notes())
    assert run.skipped(path, reason)


def test_unreadable_file_has_its_error_row(logs_run: tuple[Tree, Run]) -> None:
    tree, run = logs_run
    stats = run.stats(tree.dangling)
    assert stats["error"].startswith("read error after byte 0: [Errno 2] No such file")
    assert stats["records"] == 0
    assert run.skipped(tree.dangling, "read error after byte 0")


def test_directory_without_logs_and_symlink_loop_are_noted(logs_run: tuple[Tree, Run]) -> None:
    tree, run = logs_run
    empty = f"{tree.empty}: no Kafka log files"
    loop = f"{tree.loop / 'self'}: symlink loop to {tree.loop}, walked once"
    for note in (empty, loop):
        assert any(n.startswith(note) for n in run.notes())
        assert run.said(note)
    assert run.stats(tree.looped)["error"] is None
    assert run.file_rows(LOG_RECORDS, tree.looped) == run.stats(tree.looped)["records"] > 0


def test_a_50_mb_line_is_one_record(logs_run: tuple[Tree, Run]) -> None:
    tree, run = logs_run
    stats = run.stats(tree.big)
    assert stats["error"] is None and stats["physical_lines"] == 3 and stats["records"] == 3
    lengths = [
        row.byte_length
        for row in run.lakehouse.read(LOG_RECORDS)
        .filter(F.col("file") == str(tree.big))
        .orderBy("first_line")
        .collect()
    ]
    assert lengths[1] == len(STAMP) + BIG_LINE + 1


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a file whatever its mode")
def test_unreadable_by_mode(spark: SparkSession, tmp_path: Path) -> None:
    good = _good_log(tmp_path / "in")
    locked = tmp_path / "in" / "state-change.log"
    shutil.copy(BROKER / "state-change.log", locked)
    locked.chmod(0)
    run = _cli(spark, _conf(tmp_path), "ingest-logs", "--cluster", "c", str(good.parent))
    assert run.code == INPUT_PROBLEMS_EXIT
    assert "Permission denied" in run.stats(locked)["error"]
    assert run.skipped(locked, "Permission denied")
    assert run.file_rows(LOG_RECORDS, good) == run.stats(good)["records"] > 0


@contextlib.contextmanager
def _after_planning(action: Callable[[], None]) -> Iterator[None]:
    """Run ``action`` once the ingest is planned, before any file is read."""
    planned = ingest_logs.plan_ingest

    def plan_then_act(*args: Any, **kwargs: Any) -> ingest_logs.IngestPlan:
        plan = planned(*args, **kwargs)
        action()
        return plan

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ingest_logs, "plan_ingest", plan_then_act)
        yield


def test_files_vanishing_or_cut_short_while_read(spark: SparkSession, tmp_path: Path) -> None:
    good = _good_log(tmp_path / "in" / "good")
    vanishing = Path(shutil.copy(BROKER / "server.log", tmp_path / "in" / "server.log"))
    shrinking = Path(shutil.copy(BROKER / "state-change.log", tmp_path / "in" / "state-change.log"))
    planned, kept = shrinking.stat().st_size, 1000

    def damage() -> None:
        vanishing.unlink()
        os.truncate(shrinking, kept)

    with _after_planning(damage):
        run = _cli(
            spark,
            _conf(tmp_path),
            "ingest-logs",
            "--cluster",
            "c",
            *map(str, (good, vanishing, shrinking)),
        )
    assert run.code == INPUT_PROBLEMS_EXIT, run.stderr
    gone = run.stats(vanishing)["error"]
    assert "No such file or directory" in gone
    assert run.skipped(vanishing, "No such file or directory")
    cut = f"cut short while read: it ends at byte {kept}, {planned} were planned"
    assert cut in run.stats(shrinking)["error"]
    assert run.skipped(shrinking, cut)
    assert run.file_rows(LOG_RECORDS, good) == run.stats(good)["records"] > 0
    assert {row["path"] for row in run.rows(INGESTED_FILES)} == {str(good)}


def test_zookeeper_stage_refuses_a_log_file(spark: SparkSession, tmp_path: Path) -> None:
    data = tmp_path / "in" / "version-2"
    data.mkdir(parents=True)
    snapshot = Path(shutil.copy(SNAPSHOT, data / SNAPSHOT.name))
    log = _good_log(tmp_path / "in" / "logs")
    run = _cli(spark, _conf(tmp_path), "ingest-zk", "--cluster", "c", str(data), str(log))
    assert run.code == INPUT_PROBLEMS_EXIT, run.stderr
    (stats,) = [r for r in run.rows(ZK_INGEST_STATS) if r["file"] == str(log)]
    reason = "not a ZooKeeper snapshot, log or dump"
    assert stats["error"] == reason and stats["records"] == 0
    assert run.skipped(log, reason)
    assert run.file_rows(ZK_RECORDS, snapshot) > 0


def test_metadata_log_stage_refuses_other_formats(spark: SparkSession, tmp_path: Path) -> None:
    metadata = tmp_path / "in" / "__cluster_metadata-0"
    metadata.mkdir(parents=True)
    segment = Path(shutil.copy(SEGMENT, metadata / SEGMENT.name))
    text = Path(shutil.copy(BROKER / "controller.log", tmp_path / "in" / "controller.log"))
    snapshot = Path(
        shutil.copy(SNAPSHOT, tmp_path / "in" / "00000000000000000005-0000000001.checkpoint")
    )
    run = _cli(
        spark,
        _conf(tmp_path),
        "ingest-kraft",
        "--cluster",
        "c",
        *map(str, (metadata, text, snapshot)),
    )
    assert run.code == INPUT_PROBLEMS_EXIT, run.stderr
    assert run.skipped(text, "text, not a KRaft metadata log segment or snapshot")
    assert run.skipped(snapshot, "a ZooKeeper snapshot, not a KRaft metadata log")
    assert run.file_rows(KRAFT_RECORDS, segment) > 0
    notes = run.notes()
    assert any(n.startswith(f"{text}: text, not a KRaft") for n in notes)


def test_run_exits_4(spark: SparkSession, tmp_path: Path) -> None:
    log = _good_log(tmp_path / "in")
    snapshot = Path(shutil.copy(SNAPSHOT, tmp_path / "in" / "controller.log.1"))
    run = _cli(spark, _conf(tmp_path), "run", "--cluster", "c", "--logs", str(log.parent))
    assert run.code == INPUT_PROBLEMS_EXIT, run.stderr
    assert run.skipped(snapshot, "a ZooKeeper snapshot, not a Kafka log")
    assert run.file_rows(LOG_RECORDS, log) == run.stats(log)["records"] > 0
    (ingest,) = [row for row in run.rows(RUNS) if row["stage"] == "ingest-logs"]
    assert ingest["status"] == "succeeded"
    assert any(note.startswith(f"{snapshot}: a ZooKeeper snapshot") for note in ingest["notes"])
