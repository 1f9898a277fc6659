"""A whole ZooKeeper dataDir (or a pile of copied files) decoded into Kafka state and changes.

``find_data_files`` lists snapshots and transaction logs under the given paths (unknown files
are returned too, so the caller can quarantine them). ``DataDirReplay`` streams the
``silver.zk_state`` rows of every snapshot, then replays the logs in zxid order on the tree of
the earliest intact snapshot, yielding ``silver.zk_changes`` rows; txns older than that
snapshot are still turned into changes (without previous values), a damaged file ends with a
``FileIssue`` while the good files and every entry before the damage are still used.
``decode_datadir`` collects everything, including broker liveness intervals. Text dumps of
ZooKeeper's ``SnapshotFormatter``/``TxnLogToolkit`` among the files are recognised by their
first line and give the same rows (times to the second).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from kafkactl_core.zk.files import Compression, FileKind, parse_data_file_name, sniff_kind
from kafkactl_core.zk.jute import DEFAULT_LIMITS, FileIssue, IssueKind, Limits
from kafkactl_core.zk.snapshot import SnapshotSummary, load_snapshot, read_snapshot
from kafkactl_core.zk.state import (
    BrokerInterval,
    KafkaReplay,
    ZkChange,
    ZkStateRow,
    ZkTree,
    broker_liveness,
    state_row,
    state_rows,
)
from kafkactl_core.zk.textdump import DumpSummary, parse_snapshot_dump, parse_txnlog_dump
from kafkactl_core.zk.txnlog import TxnEntry, TxnLogSummary, read_txnlog
from kafkactl_core.zk.znodes import detect_chroot

_COUNTER_MASK = 0xFFFFFFFF


def _read_text(path: str) -> str:
    # no newline translation and no strict decoding: raw bytes inside multi sub-txns matter
    with open(path, "rb") as f:
        return f.read().decode("utf-8", "replace")


@dataclass(frozen=True, slots=True)
class DataFile:
    """A dataDir file: path, snapshot or log, the zxid in its name, compression."""

    path: str
    kind: FileKind
    zxid: int | None
    compression: Compression


def find_data_files(paths: Iterable[str | os.PathLike[str]]) -> tuple[list[DataFile], list[str]]:
    """List ZooKeeper files under ``paths`` (files or directories, walked recursively).

    Args:
        paths: dataDirs, ``version-2`` directories or single files.

    Returns:
        The snapshots and logs, and the paths of other files (not silently dropped: the
        caller reports them).
    """
    found: list[DataFile] = []
    other: list[str] = []
    for root in paths:
        base = Path(root)
        files = sorted(p for p in base.rglob("*") if p.is_file()) if base.is_dir() else [base]
        for file in files:
            parsed = parse_data_file_name(file.name)
            try:
                with file.open("rb") as f:
                    head = f.read(64)
            except OSError:
                head = b""
            kind = sniff_kind(head, parsed.kind)
            if kind is FileKind.other:
                other.append(str(file))
            else:
                found.append(DataFile(str(file), kind, parsed.zxid, parsed.compression))
    return found, other


def _order(files: list[DataFile], *kinds: FileKind) -> list[DataFile]:
    chosen = [f for f in files if f.kind in kinds]
    return sorted(chosen, key=lambda f: (f.zxid is None, f.zxid or 0, f.path))


@dataclass(slots=True)
class DataDirReplay:
    """Stream the Kafka state rows and change rows of a set of dataDir files.

    Iterate it for ``ZkStateRow`` and ``ZkChange`` values; afterwards ``snapshots``, ``logs``,
    ``dumps`` (text dumps of ZooKeeper's tools) and ``issues`` hold the per-file summaries and
    every problem found, ``base_rows`` the state the replay started from and ``tree`` the
    state after the last replayed txn (None when there was no base to replay onto).
    """

    files: list[DataFile]
    chroot: str | None = None
    limits: Limits = DEFAULT_LIMITS
    snapshots: list[SnapshotSummary] = field(default_factory=list)
    logs: list[TxnLogSummary] = field(default_factory=list)
    dumps: list[DumpSummary] = field(default_factory=list)
    issues: list[FileIssue] = field(default_factory=list)
    base_rows: list[ZkStateRow] = field(default_factory=list)
    base_zxid: int | None = None
    duplicates: int = 0
    tree: ZkTree | None = None

    def __iter__(self) -> Iterator[ZkStateRow | ZkChange]:
        self.snapshots, self.logs, self.dumps, self.issues = [], [], [], []
        self.base_rows = []
        tree: ZkTree | None = None
        chroot = self.chroot
        rebase_points: list[tuple[int, str]] = []  # intact snapshots after the base
        for data_file in _order(self.files, FileKind.snapshot, FileKind.snapshot_dump):
            if data_file.kind is FileKind.snapshot_dump:
                dump = parse_snapshot_dump(_read_text(data_file.path), data_file.path)
                self.dumps.append(dump.summary)
                self.issues.extend(dump.summary.issues)
                if chroot is None and dump.nodes:
                    chroot = detect_chroot(list(dump.nodes))
                # like a binary snapshot, the zxid in the name (the dump's "Last zxid" is the
                # newest zxid among the nodes, or the name's when larger)
                zxid = data_file.zxid if data_file.zxid is not None else dump.summary.zxid
                for node in dump.nodes.values():
                    row = state_row(data_file.path, zxid, node, chroot or "")
                    if row is not None:
                        yield row
                continue
            if tree is None:
                snap = load_snapshot(data_file.path, limits=self.limits)
                self._note_snapshot(snap.summary)
                if chroot is None:
                    chroot = detect_chroot(list(snap.nodes))
                rows = list(state_rows(snap, chroot))
                yield from rows
                if snap.summary.complete:
                    tree = ZkTree.from_snapshot(snap)
                    self.base_rows = rows
                    self.base_zxid = snap.summary.zxid
                continue
            snap_reader = read_snapshot(data_file.path, limits=self.limits)
            yield from state_rows(snap_reader, chroot or "")
            self._note_snapshot(snap_reader.summary)
            if snap_reader.summary.complete and snap_reader.summary.zxid is not None:
                rebase_points.append((snap_reader.summary.zxid, data_file.path))
        chroot = chroot or ""
        logs = _order(self.files, FileKind.txnlog, FileKind.txnlog_dump)
        if tree is None and logs and logs[0].zxid is not None and logs[0].zxid <= 1:
            tree = ZkTree()  # the history starts at the first txn: replay from an empty tree
            self.base_zxid = 0
        self.tree = tree
        replay = KafkaReplay(tree, chroot)
        before_base = KafkaReplay(None, chroot)
        base = self.base_zxid if tree is not None else None
        last: int | None = base
        for data_file in logs:
            skipped = 0
            for entry in self._entries(data_file):
                zxid = entry.zxid
                if base is not None and zxid <= base:
                    yield from before_base.apply(entry, data_file.path)
                    continue
                if last is not None and zxid <= last:
                    skipped += 1
                    continue
                if (
                    last is not None
                    and zxid >> 32 == last >> 32
                    and (zxid & _COUNTER_MASK) > (last & _COUNTER_MASK) + 1
                ):
                    self.issues.append(self._gap(data_file, entry, last, rebase_points, replay))
                last = zxid
                yield from replay.apply(entry, data_file.path)
            if skipped:
                self.duplicates += skipped
                self.issues.append(
                    FileIssue(
                        data_file.path,
                        None,
                        IssueKind.bad_record,
                        f"{skipped} entries repeat zxids already replayed from another log "
                        "file (overlapping copies); each zxid is reported once",
                        fatal=False,
                    )
                )
        self.chroot = chroot

    def _gap(
        self,
        data_file: DataFile,
        entry: TxnEntry,
        last: int,
        rebase_points: list[tuple[int, str]],
        replay: KafkaReplay,
    ) -> FileIssue:
        """Report missing zxids; re-base the tree on an intact snapshot inside the hole."""
        missing = f"zxids {last + 1:#x}..{entry.zxid - 1:#x} are missing (a log file is missing"
        inside = [(z, p) for z, p in rebase_points if last < z < entry.zxid]
        if replay.tree is not None and inside:
            zxid, path = max(inside)
            snap = load_snapshot(path, limits=self.limits)
            if snap.summary.complete:
                replay.tree = self.tree = ZkTree.from_snapshot(snap)
                return FileIssue(
                    data_file.path,
                    entry.offset,
                    IssueKind.truncated,
                    f"{missing} or damaged): no change rows for them; the state was re-based "
                    f"on {path} (zxid {zxid:#x})",
                    fatal=False,
                )
        return FileIssue(
            data_file.path,
            entry.offset,
            IssueKind.truncated,
            f"{missing} or damaged): no change rows for them, and later previous values come "
            "from a stale tree",
            fatal=False,
        )

    def _entries(self, data_file: DataFile) -> Iterator[TxnEntry]:
        """The entries of a binary log (streamed) or of a toolkit dump; records summaries."""
        if data_file.kind is FileKind.txnlog_dump:
            dump = parse_txnlog_dump(_read_text(data_file.path), data_file.path)
            self.dumps.append(dump.summary)
            self.issues.extend(dump.summary.issues)
            yield from dump.entries
            return
        reader = read_txnlog(data_file.path, limits=self.limits)
        yield from reader
        self.logs.append(reader.summary)
        self.issues.extend(reader.summary.issues)

    def _note_snapshot(self, summary: SnapshotSummary) -> None:
        self.snapshots.append(summary)
        self.issues.extend(summary.issues)


@dataclass(frozen=True, slots=True)
class DataDirResult:
    """Everything decoded from a dataDir.

    Attributes:
        state: ``silver.zk_state`` rows of every snapshot.
        changes: ``silver.zk_changes`` rows in zxid order.
        liveness: broker registration intervals.
        snapshots: per-snapshot summaries.
        logs: per-log summaries.
        dumps: per-file summaries of ``SnapshotFormatter``/``TxnLogToolkit`` text dumps.
        issues: every problem, naming file and offset.
        ignored: files that are neither snapshots nor logs.
        chroot: Kafka's chroot used.
        base_zxid: the zxid of the state the replay started from (None: no base).
        tree: the ZooKeeper tree after the last replayed txn (None without a base).
    """

    state: list[ZkStateRow]
    changes: list[ZkChange]
    liveness: list[BrokerInterval]
    snapshots: list[SnapshotSummary]
    logs: list[TxnLogSummary]
    dumps: list[DumpSummary]
    issues: list[FileIssue]
    ignored: list[str]
    chroot: str
    base_zxid: int | None
    tree: ZkTree | None


def decode_datadir(
    paths: Iterable[str | os.PathLike[str]],
    *,
    chroot: str | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> DataDirResult:
    """Decode a dataDir into Kafka state, changes and broker liveness (all in memory).

    Args:
        paths: dataDirs, ``version-2`` directories or single files.
        chroot: Kafka's chroot; None detects it from the first snapshot.
        limits: bounds for length fields.

    Returns:
        The result; damaged files appear in ``issues``, never as exceptions.
    """
    files, ignored = find_data_files(paths)
    replay = DataDirReplay(files, chroot=chroot, limits=limits)
    state: list[ZkStateRow] = []
    changes: list[ZkChange] = []
    for row in replay:
        if isinstance(row, ZkStateRow):
            state.append(row)
        else:
            changes.append(row)
    return DataDirResult(
        state=state,
        changes=changes,
        liveness=broker_liveness(replay.base_rows, changes, replay.base_zxid),
        snapshots=replay.snapshots,
        logs=replay.logs,
        dumps=replay.dumps,
        issues=replay.issues,
        ignored=ignored,
        chroot=replay.chroot or "",
        base_zxid=replay.base_zxid,
        tree=replay.tree,
    )
