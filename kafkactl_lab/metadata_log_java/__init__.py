"""KRaft metadata log segments written by Kafka's own classes, and Kafka's dumps of them.

``Gen.java`` beside this module is a single-file Java program run on a Kafka release's
classpath (``java -cp <classpath> Gen.java ...``, Java 11 or later): it serializes metadata
records with ``MetadataRecordSerde`` and builds batches with ``MemoryRecordsBuilder``, so the
bytes are Kafka's, not our encoder's. ``codecs`` writes one small segment per compression codec;
``bench`` one large segment of a controller's usual traffic. ``dump`` runs
``kafka.tools.DumpLogSegments --cluster-metadata-decoder`` on a file, as ``kafka-dump-log``
does. ``make_fixtures`` regenerates ``tests/fixtures/kraft-codecs`` (``python -m
kafkactl_lab.metadata_log_java fixtures``).
"""

from __future__ import annotations

import gzip
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

from kafkactl_lab.real_cluster.processes import JAVA_LOCALE, java_executable
from kafkactl_lab.real_cluster.release import KafkaRelease

RELEASE = KafkaRelease("4.1.1")
"""Whose classes write the segments and whose tool dumps them."""
GENERATOR = Path(__file__).resolve().parent / "Gen.java"
CODECS = ("none", "gzip", "snappy", "lz4", "zstd")
SEGMENT_NAME = "00000000000000000000.log"
"""The dump tool takes a segment's base offset from its name."""
DUMP_LOG_SEGMENTS = "kafka.tools.DumpLogSegments"


class Toolbox:
    """The release's classpath, a JVM and the tools' logging settings, ready to run Kafka code.

    Args:
        scratch: a folder for the logging configuration file.
        cache: the jar cache (``jobs.runtime.spark_jars.jar_cache()`` when None).
        release: the Kafka release.
    """

    def __init__(
        self, scratch: Path, cache: Path | None = None, release: KafkaRelease = RELEASE
    ) -> None:
        self.release = release
        self.classpath = release.classpath(cache)
        self.java = java_executable()
        logging = release.logging
        self.log_config = scratch / logging.tools
        self.log_config.write_text(release.shipped_config(logging.tools), encoding="utf-8")

    def command(self, *args: str, heap: str = "-Xmx512m") -> list[str]:
        """A JVM command line on the release's classpath, in en_US and UTC, tools' logging."""
        return [
            self.java,
            heap,
            *JAVA_LOCALE,
            self.release.logging.flag(self.log_config),
            "-cp",
            self.classpath,
            *args,
        ]

    def generate(self, *args: str) -> str:
        """Run ``Gen.java`` with ``args``; its standard output.

        Raises:
            RuntimeError: the program failed.
        """
        return _run(self.command(str(GENERATOR), *args), "Gen.java").decode("utf-8")

    def dump_command(self, segment: Path) -> list[str]:
        """``kafka-dump-log --cluster-metadata-decoder --files <name>``, to run in its folder."""
        return self.command(
            DUMP_LOG_SEGMENTS, "--cluster-metadata-decoder", "--files", segment.name
        )

    def dump(self, segment: Path) -> bytes:
        """The tool's dump of a segment, run in its folder so that it names the file alone.

        Raises:
            RuntimeError: the tool failed.
        """
        return _run(self.dump_command(segment), DUMP_LOG_SEGMENTS, cwd=segment.parent)


def _run(command: Sequence[str], name: str, cwd: Path | None = None) -> bytes:
    proc = subprocess.run(command, capture_output=True, check=False, cwd=cwd)
    if proc.returncode != 0:
        raise RuntimeError(f"{name} failed ({proc.returncode}): {proc.stderr[-2000:]!r}")
    return proc.stdout


def make_fixtures(target: Path, cache: Path | None = None) -> list[Path]:
    """Write ``<target>/<codec>/`` for every codec: the segment and its gzipped dump.

    Args:
        target: the fixture folder (``tests/fixtures/kraft-codecs``).
        cache: the jar cache.

    Returns:
        The files written.
    """
    written: list[Path] = []
    with tempfile.TemporaryDirectory(prefix="kraft-codecs-") as tmp:
        scratch = Path(tmp)
        tools = Toolbox(scratch, cache)
        tools.generate("codecs", str(scratch / "out"))
        for codec in CODECS:
            segment = scratch / "out" / codec / SEGMENT_NAME
            folder = target / codec
            folder.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(segment, folder / SEGMENT_NAME)
            dump = folder / f"dump-{SEGMENT_NAME}.txt.gz"
            # mtime 0 and no file name in the header: the same dump gives the same bytes
            with dump.open("wb") as raw, gzip.GzipFile("", "wb", 9, raw, mtime=0) as out:
                out.write(tools.dump(segment))
            written += [folder / SEGMENT_NAME, dump]
    return written
