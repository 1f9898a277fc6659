"""Which input files have been ingested: content hashes in ``meta.ingested_files``.

A file is identified by the SHA-256 of its bytes, not its name: a rotated or copied log with
the same content is the same evidence, and re-ingesting it adds nothing.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import StringType, StructField, StructType

from jobs.lakehouse.port import Lakehouse, WriteMode
from jobs.logparse.inputs import KnownExtent
from schemas.catalog import TableSpec
from schemas.meta import INGESTED_FILES

_CHUNK = 1 << 20
FILE_KEYS = StructType([StructField("file", StringType(), False)])
"""The keys of ``Lakehouse.replace_keys`` that replace a table's rows read from some files."""


@dataclass(frozen=True)
class FileDigest:
    """An input file, the hash of its bytes, and how many physical lines they hold."""

    path: str
    sha256: str
    size: int
    lines: int = 0


def digest_file(path: str | os.PathLike[str]) -> FileDigest:
    """Hash a file's bytes in 1 MiB chunks (constant memory)."""
    sha = hashlib.sha256()
    size = lines = 0
    last = b"\n"
    with open(path, "rb") as handle:
        while chunk := handle.read(_CHUNK):
            sha.update(chunk)
            size += len(chunk)
            lines += chunk.count(b"\n")
            last = chunk[-1:]
    return FileDigest(os.fspath(path), sha.hexdigest(), size, lines + (last != b"\n"))


def already_ingested(lakehouse: Lakehouse, cluster: str, hashes: Iterable[str]) -> set[str]:
    """The subset of ``hashes`` already ingested for ``cluster``."""
    wanted = sorted(set(hashes))
    if not wanted or not lakehouse.exists(INGESTED_FILES):
        return set()
    rows = (
        lakehouse.read(INGESTED_FILES)
        .filter((F.col("cluster") == cluster) & F.col("content_sha256").isin(wanted))
        .select("content_sha256")
        .distinct()
        .collect()
    )
    return {row.content_sha256 for row in rows}


def known_extents(lakehouse: Lakehouse, cluster: str, source: str) -> list[KnownExtent]:
    """Every extent (hash, size, lines) already ingested for ``cluster`` by ``source``."""
    if not lakehouse.exists(INGESTED_FILES):
        return []
    rows = (
        lakehouse.read(INGESTED_FILES)
        .filter((F.col("cluster") == cluster) & (F.col("source") == source))
        .select("content_sha256", "size_bytes", "lines")
        .distinct()
        .collect()
    )
    return [KnownExtent(r.content_sha256, r.size_bytes, r.lines) for r in rows]


def unrecorded_reads(
    lakehouse: Lakehouse, spec: TableSpec, cluster: str, source: str, paths: Sequence[str]
) -> list[tuple[str, str]]:
    """The (run_id, file) pairs of ``spec``'s rows of ``cluster`` read from ``paths`` that
    ``meta.ingested_files`` does not record for ``source``.

    A run stopped (killed, failed) after committing rows of a file but before recording the
    file leaves such rows; the file is then read again, and those rows are the ones its new
    rows replace.

    Args:
        lakehouse: the lakehouse.
        spec: a table with ``cluster``, ``run_id`` and ``file`` columns.
        cluster: the cluster.
        source: the ``meta.ingested_files`` source of the files.
        paths: the files about to be read.

    Returns:
        The pairs, sorted.
    """
    if not paths or not lakehouse.exists(spec):
        return []
    written = (
        lakehouse.read(spec)
        .filter((F.col("cluster") == cluster) & F.col("file").isin(sorted(set(paths))))
        .select("run_id", "file")
        .distinct()
    )
    recorded = (
        lakehouse.read(INGESTED_FILES)
        .filter((F.col("cluster") == cluster) & (F.col("source") == source))
        .select("run_id", F.col("path").alias("file"))
    )
    stale = written.join(recorded, ["run_id", "file"], "left_anti").collect()
    return sorted((row.run_id, row.file) for row in stale)


def record_ingested(
    spark: SparkSession,
    lakehouse: Lakehouse,
    cluster: str,
    files: Sequence[FileDigest],
    source: str,
    run_id: str,
) -> int:
    """Append the files just ingested to ``meta.ingested_files``; returns rows written."""
    if not files:
        return 0
    now = datetime.now(UTC)
    rows = [
        {
            "cluster": cluster,
            "content_sha256": f.sha256,
            "size_bytes": f.size,
            "lines": f.lines,
            "path": f.path,
            "source": source,
            "run_id": run_id,
            "ingested_at": now,
        }
        for f in files
    ]
    return lakehouse.write_rows(INGESTED_FILES, rows, WriteMode.append)
