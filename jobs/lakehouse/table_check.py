"""Verifying a Delta table's files: its log, the data files its snapshot references, orphans.

The log is read here, not through an engine (commit JSON lines, checkpoints through pyarrow),
over a pyarrow filesystem: tables written by delta-rs and by delta-spark are checked alike, a
damaged log is described file by file instead of failing to open, and no Spark is needed.
Files whose name starts with ``_`` or ``.`` (the log, checksums, change data) and deletion
vectors are not data files, as Delta's own vacuum treats them.
"""

from __future__ import annotations

import enum
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import unquote, urlsplit

import pyarrow as pa
import pyarrow.fs as pafs
import pyarrow.parquet as pq

LOG_DIR = "_delta_log"
_SIDECARS = "_sidecars"
_COMMIT = re.compile(r"(\d{20})\.json")
_CHECKPOINT = re.compile(r"(\d{20})\.checkpoint(?:\.(\d{10})\.(\d{10})|\.[^./]+)?\.(parquet|json)")


class CheckState(enum.Enum):
    """What the check found for a table."""

    ok = "ok"
    broken = "broken"
    not_created = "not created"
    not_checked = "not checked"


@dataclass(frozen=True)
class Problem:
    """One damaged or missing file of a table.

    Attributes:
        file: the file's path (a missing one: the path it should have).
        kind: what is wrong, in a few words (``version missing``, ``data file missing``, ...).
        detail: the rest of the one-line explanation (line number, sizes, the reader's error).
    """

    file: str
    kind: str
    detail: str = ""

    def __str__(self) -> str:
        return f"{self.file}: {self.kind}" + (f" ({self.detail})" if self.detail else "")


@dataclass(frozen=True)
class TableCheck:
    """The verdict on one table.

    Attributes:
        location: the table's path or URI as given.
        state: ok, broken, not created, or not checked (a location this check cannot read).
        problems: every damaged or missing file (empty unless broken).
        orphans: data files in the table's directory that no version of the log references,
            relative to the table.
        orphan_bytes: their total size.
        version: the latest version of the log, when it has one.
        data_files: data files of the latest snapshot.
        note: why the table was not checked.
    """

    location: str
    state: CheckState
    problems: tuple[Problem, ...] = ()
    orphans: tuple[str, ...] = ()
    orphan_bytes: int = 0
    version: int | None = None
    data_files: int = 0
    note: str = ""


def open_location(location: str) -> tuple[pafs.FileSystem, str] | str:
    """The filesystem and path of a table location, or why it cannot be checked.

    Args:
        location: a local path, a ``file:`` URI, or another URI pyarrow can open (``s3://``,
            ``gs://``, ``abfs://``, ``hdfs://``, as far as this pyarrow was built for it).

    Returns:
        ``(filesystem, path)``, or a one-line reason (a Unity Catalog name, a scheme pyarrow
        does not support, an object store it cannot reach).
    """
    scheme = urlsplit(location).scheme
    if not scheme:
        if "/" not in location and location.count(".") == 2:
            return f"{location} is a Unity Catalog table; --check reads table directories"
        return pafs.LocalFileSystem(), location
    try:
        filesystem, path = pafs.FileSystem.from_uri(location)
    except (pa.ArrowException, ValueError, OSError) as exc:
        return f"{location}: not opened by pyarrow ({_first_line(exc)})"
    return filesystem, path.rstrip("/")


def check_table(location: str) -> TableCheck:
    """Check the Delta table at ``location`` (see ``check_files``).

    Args:
        location: the table's path or URI, as the lakehouse gives it.

    Returns:
        The verdict; ``not checked`` with a note for a location pyarrow cannot open or an
        object store it cannot list (no credentials, no network).
    """
    opened = open_location(location)
    if isinstance(opened, str):
        return TableCheck(location, CheckState.not_checked, note=opened)
    filesystem, path = opened
    try:
        return check_files(filesystem, path, location)
    except (OSError, pa.ArrowException) as exc:
        if isinstance(filesystem, pafs.LocalFileSystem):
            problem = Problem(location, "unreadable", _first_line(exc))
            return TableCheck(location, CheckState.broken, (problem,))
        return TableCheck(location, CheckState.not_checked, note=f"{location}: {_first_line(exc)}")


def check_files(filesystem: pafs.FileSystem, path: str, location: str) -> TableCheck:
    """Check a Delta table's log, data files and orphans.

    The log must be readable from its newest readable checkpoint on: every commit after it
    present (versions contiguous) and every line of each a JSON action. Every data file of the
    latest snapshot must exist, have the size its ``add`` action gives and a readable Parquet
    footer with the row count of its statistics. Files no version from that checkpoint on
    references are orphans (a killed write's files): readers ignore them, so they are counted,
    not errors.

    Args:
        filesystem: where the table lives.
        path: the table's directory on ``filesystem``.
        location: the table's location as shown to the user (problems name files under it).

    Returns:
        The verdict.
    """
    listing = _listing(filesystem, path)
    if listing is None:
        return TableCheck(location, CheckState.not_created)
    log_files = {name[len(LOG_DIR) + 1 :] for name in listing if name.startswith(LOG_DIR + "/")}
    data = {name: size for name, size in listing.items() if _is_data_file(name)}
    has_log = filesystem.get_file_info(f"{path}/{LOG_DIR}").type == pafs.FileType.Directory
    if not has_log:
        return _with_orphans(TableCheck(location, CheckState.not_created), data, set())
    log = _LogReader(filesystem, path, location, log_files)
    snapshot, referenced = log.replay()
    problems = list(log.problems)
    if not log.problems:
        problems.extend(_check_data(filesystem, path, location, snapshot, listing))
    verdict = TableCheck(
        location,
        CheckState.broken if problems else CheckState.ok,
        tuple(problems),
        version=log.latest,
        data_files=len(snapshot),
    )
    # With a damaged log the referenced files are not known: no orphan count.
    return verdict if log.problems else _with_orphans(verdict, data, referenced)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0]


def _listing(filesystem: pafs.FileSystem, path: str) -> dict[str, int] | None:
    """Every file under ``path`` (relative, ``/``-separated) with its size; None: no directory."""
    if filesystem.get_file_info(path).type != pafs.FileType.Directory:
        return None
    infos = filesystem.get_file_info(pafs.FileSelector(path, recursive=True))
    prefix = path.rstrip("/") + "/"
    return {
        info.path[len(prefix) :]: int(info.size or 0)
        for info in infos
        if info.type == pafs.FileType.File
    }


def _is_data_file(name: str) -> bool:
    parts = name.split("/")
    return not any(part.startswith(("_", ".")) for part in parts) and not parts[-1].startswith(
        "deletion_vector_"
    )


def _with_orphans(verdict: TableCheck, data: dict[str, int], referenced: set[str]) -> TableCheck:
    orphans = sorted(name for name in data if name not in referenced)
    return replace(verdict, orphans=tuple(orphans), orphan_bytes=sum(data[n] for n in orphans))


@dataclass
class _LogReader:
    """Reads a table's ``_delta_log`` into its latest snapshot, collecting problems."""

    filesystem: pafs.FileSystem
    path: str
    location: str
    files: set[str]
    problems: list[Problem] = field(default_factory=list)
    latest: int | None = None

    def _shown(self, name: str) -> str:
        return f"{self.location.rstrip('/')}/{LOG_DIR}/{name}"

    def _full(self, name: str) -> str:
        return f"{self.path}/{LOG_DIR}/{name}"

    def replay(self) -> tuple[dict[str, dict[str, Any]], set[str]]:
        """The latest snapshot's ``add`` actions by path, and every path the log references."""
        commits = {int(m.group(1)): name for name in self.files if (m := _COMMIT.fullmatch(name))}
        checkpoints = self._checkpoints()
        versions = set(commits) | set(checkpoints)
        if not versions:
            self.problems.append(Problem(self._shown(""), "no commit file in the Delta log"))
            return {}, set()
        self.latest = max(versions)
        snapshot: dict[str, dict[str, Any]] = {}
        referenced: set[str] = set()
        start = self._load_checkpoint(checkpoints, snapshot, referenced)
        missing = [v for v in range(start + 1, self.latest + 1) if v not in commits]
        for first, last in _runs(missing):
            shown = self._shown(f"{first:020d}.json")
            detail = "" if first == last else f"versions {first} to {last}"
            self.problems.append(Problem(shown, "version missing", detail))
        for version in range(start + 1, self.latest + 1):
            if version in commits:
                actions, problem = self._read_commit(commits[version])
                if problem is not None:
                    self.problems.append(problem)
                self._apply(actions, snapshot, referenced)
        return snapshot, referenced

    def _checkpoints(self) -> dict[int, list[str]]:
        """Complete checkpoints by version (a multi-part one only with all its parts)."""
        parts: dict[int, dict[str, list[str]]] = {}
        for name in self.files:
            match = _CHECKPOINT.fullmatch(name)
            if match:
                version, _, count, _ = match.groups()
                group = f"parts of {int(count)}" if count else name
                parts.setdefault(int(version), {}).setdefault(group, []).append(name)
        complete: dict[int, list[str]] = {}
        for version, groups in parts.items():
            for group, names in groups.items():
                if not group.startswith("parts of ") or len(names) == int(group.split()[-1]):
                    complete[version] = sorted(names)
                    break
        last = self._last_checkpoint()
        if last is not None and last[0] not in complete:
            self.problems.append(
                Problem(self._shown(last[1]), "checkpoint missing", "_last_checkpoint names it")
            )
        return complete

    def _last_checkpoint(self) -> tuple[int, str] | None:
        """The version ``_last_checkpoint`` names and its (first) checkpoint file's name."""
        if "_last_checkpoint" not in self.files:
            return None
        try:
            with self.filesystem.open_input_stream(self._full("_last_checkpoint")) as stream:
                hint = json.loads(stream.read().decode("utf-8"))
            version = int(hint["version"])
            v2 = hint.get("v2Checkpoint")
            parts = hint.get("parts")
        except (ValueError, KeyError, TypeError, AttributeError, OSError, pa.ArrowException) as exc:
            self.problems.append(
                Problem(self._shown("_last_checkpoint"), "unreadable", _first_line(exc))
            )
            return None
        if isinstance(v2, dict) and isinstance(v2.get("path"), str):
            return version, v2["path"]
        if isinstance(parts, int):
            return version, f"{version:020d}.checkpoint.{1:010d}.{parts:010d}.parquet"
        return version, f"{version:020d}.checkpoint.parquet"

    def _load_checkpoint(
        self,
        checkpoints: dict[int, list[str]],
        snapshot: dict[str, dict[str, Any]],
        referenced: set[str],
    ) -> int:
        """Apply the newest readable checkpoint; returns its version (-1: none)."""
        for version in sorted(checkpoints, reverse=True):
            try:
                actions = [a for name in checkpoints[version] for a in self._checkpoint_file(name)]
            except _Unreadable as exc:
                self.problems.append(exc.problem)
                continue
            self._apply(actions, snapshot, referenced)
            return version
        return -1

    def _checkpoint_file(self, name: str) -> list[dict[str, Any]]:
        if name.endswith(".json"):
            actions, problem = self._read_commit(name)
            if problem is not None:
                raise _Unreadable(Problem(problem.file, "checkpoint unreadable", problem.kind))
        else:
            actions = self._parquet_actions(self._full(name), self._shown(name))
        sidecars = [a["sidecar"]["path"] for a in actions if a.get("sidecar")]
        for sidecar in sidecars:
            relative = f"{_SIDECARS}/{unquote(sidecar)}"
            actions.extend(self._parquet_actions(self._full(relative), self._shown(relative)))
        return actions

    def _parquet_actions(self, full: str, shown: str) -> list[dict[str, Any]]:
        try:
            with self.filesystem.open_input_file(full) as handle:
                parquet = pq.ParquetFile(handle)
                names = [n for n in ("add", "remove", "sidecar") if n in parquet.schema_arrow.names]
                table = parquet.read(columns=names)
        except (OSError, pa.ArrowException) as exc:
            raise _Unreadable(Problem(shown, "checkpoint unreadable", _first_line(exc))) from exc
        return [
            {name: row[name] for name in names if row[name] is not None}
            for row in table.to_pylist()
        ]

    def _read_commit(self, name: str) -> tuple[list[dict[str, Any]], Problem | None]:
        """A commit file's actions, up to the first damaged line (its problem, or None)."""
        try:
            with self.filesystem.open_input_stream(self._full(name)) as stream:
                raw = stream.read()
        except (OSError, pa.ArrowException) as exc:
            return [], Problem(self._shown(name), "unreadable", _first_line(exc))
        if not raw.strip():
            return [], Problem(self._shown(name), "empty commit file")
        actions: list[dict[str, Any]] = []
        for number, line in enumerate(raw.split(b"\n"), start=1):
            if not line.strip():
                continue
            try:
                action = json.loads(line)
            except ValueError as exc:
                shown = f"{self._shown(name)}:{number}"
                return actions, Problem(shown, "not a JSON action", _first_line(exc))
            if not isinstance(action, dict):
                return actions, Problem(f"{self._shown(name)}:{number}", "not a JSON object")
            actions.append(action)
        return actions, None

    @staticmethod
    def _apply(
        actions: Iterable[dict[str, Any]],
        snapshot: dict[str, dict[str, Any]],
        referenced: set[str],
    ) -> None:
        for action in actions:
            for kind in ("add", "remove", "cdc"):
                body = action.get(kind)
                if not isinstance(body, dict) or not isinstance(body.get("path"), str):
                    continue
                path = unquote(body["path"])
                referenced.add(path)
                if kind == "add":
                    snapshot[path] = body
                elif kind == "remove":
                    snapshot.pop(path, None)


class _Unreadable(Exception):
    """A checkpoint file that cannot be read (the next older one is tried)."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(str(problem))
        self.problem = problem


def _runs(versions: list[int]) -> Iterator[tuple[int, int]]:
    """Consecutive runs of sorted ``versions`` as ``(first, last)``."""
    start = previous = None
    for version in versions:
        if previous is not None and version == previous + 1:
            previous = version
            continue
        if start is not None and previous is not None:
            yield start, previous
        start = previous = version
    if start is not None and previous is not None:
        yield start, previous


def _check_data(
    filesystem: pafs.FileSystem,
    path: str,
    location: str,
    snapshot: dict[str, dict[str, Any]],
    listing: dict[str, int],
) -> Iterator[Problem]:
    for relative in sorted(snapshot):
        add = snapshot[relative]
        if urlsplit(relative).scheme:
            yield Problem(relative, "data file outside the table", "not checked here")
            continue
        shown = f"{location.rstrip('/')}/{relative}"
        if relative not in listing:
            yield Problem(shown, "data file missing", "the latest snapshot references it")
            continue
        expected = add.get("size")
        if isinstance(expected, int) and expected != listing[relative]:
            yield Problem(
                shown,
                "data file size differs",
                f"{listing[relative]} bytes, the log says {expected}",
            )
            continue
        try:
            with filesystem.open_input_file(f"{path}/{relative}") as handle:
                rows = pq.ParquetFile(handle).metadata.num_rows
        except (OSError, pa.ArrowException) as exc:
            yield Problem(shown, "Parquet footer unreadable", _first_line(exc))
            continue
        counted = _stats_rows(add)
        if counted is not None and counted != rows:
            yield Problem(shown, "row count differs", f"{rows} rows, the log says {counted}")


def _stats_rows(add: dict[str, Any]) -> int | None:
    stats = add.get("stats")
    if not isinstance(stats, str):
        return None
    try:
        rows = json.loads(stats).get("numRecords")
    except (ValueError, AttributeError):
        return None
    return rows if isinstance(rows, int) else None
