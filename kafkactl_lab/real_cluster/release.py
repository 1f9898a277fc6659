"""A Kafka release from Maven Central: its jars in the jar cache and its shipped log4j settings.

Kafka's distribution puts in ``libs/`` the broker (``org.apache.kafka:kafka_<scala>``) and its
command-line tools (``org.apache.kafka:kafka-tools``, which also brings the logging binding,
``reload4j`` + ``slf4j-reload4j`` in 3.x, that the broker's own POM leaves to the distribution).
Both coordinates, with their runtime dependencies, are installed by
``jobs.runtime.spark_jars.install`` into the same cache as Delta's jars
(``$KAFKACTL_AUDIT_JARS``, else inside the virtualenv), once: a complete folder has a
``COMPLETE`` marker and a second use downloads nothing.

The logging configuration is the release's own ``config/log4j.properties`` (and
``tools-log4j.properties``) up to 3.9, ``config/log4j2.yaml`` (and ``tools-log4j2.yaml``) from
4.0, copied verbatim from ``github:apache/kafka`` into ``shipped_config/`` (series 3.9: branch
``3.9`` at c821449, identical to tag 3.9.0-rc3; series 2.8: branch ``2.8`` at 3893458; the 4.x
files, one for every 4.x release: ``log4j2.yaml`` at b967e96, ``tools-log4j2.yaml`` at
4d5e938). From 4.0 the distribution's ``libs/`` also holds Log4j 2's SLF4J binding, which no
POM of the broker or the tools brings: it is installed as a third coordinate.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from jobs.runtime.spark_jars import Coordinate, install, jar_cache

PACKAGE = "kafkactl_lab.real_cluster"
SHIPPED_CONFIG = "shipped_config"
"""The package folder holding each release series' shipped log4j files."""


class ReleaseUnsupported(ValueError):
    """The release has no shipped logging configuration here, or a bad version string."""


LOG4J2_SLF4J_BINDING = Coordinate("org.apache.logging.log4j", "log4j-slf4j-impl", "2.24.3")
"""The binding Kafka 4.x ships in ``libs/`` (SLF4J 1.7 to Log4j 2.24, as its ``log4j-core``)."""


@dataclass(frozen=True)
class Logging:
    """How a release's JVMs are told their logging configuration.

    Attributes:
        server: the shipped file of the brokers and controllers.
        tools: the shipped file of the command-line tools.
        system_property: the JVM property naming the file.
    """

    server: str
    tools: str
    system_property: str

    def flag(self, path: Path) -> str:
        """The JVM flag that points the logging at ``path``."""
        return f"-D{self.system_property}=file:{path}"


LOG4J = Logging("log4j.properties", "tools-log4j.properties", "log4j.configuration")
LOG4J2 = Logging("log4j2.yaml", "tools-log4j2.yaml", "log4j2.configurationFile")


@dataclass(frozen=True)
class KafkaRelease:
    """One Kafka release, as Maven Central publishes it.

    Attributes:
        version: the release, e.g. ``3.9.1``.
        scala: the Scala binary version of the broker artifact (``2.13``; ``2.12``/``2.11``
            for old releases).
    """

    version: str
    scala: str = "2.13"

    @property
    def series(self) -> str:
        """``major.minor`` of the release (``3.9`` for ``3.9.1``)."""
        parts = self.version.split(".")
        if len(parts) < 2 or not all(p.isdigit() for p in parts[:2]):
            raise ReleaseUnsupported(f"not a Kafka release version: {self.version!r}")
        return ".".join(parts[:2])

    def at_least(self, major: int, minor: int) -> bool:
        """Whether the release is ``major.minor`` or later."""
        first, second = (int(p) for p in self.series.split("."))
        return (first, second) >= (major, minor)

    @property
    def logging(self) -> Logging:
        """Log4j 1 (reload4j) up to 3.9, Log4j 2 from 4.0."""
        return LOG4J2 if self.at_least(4, 0) else LOG4J

    @property
    def coordinates(self) -> tuple[Coordinate, ...]:
        """The broker artifact first, then the tools (with the logging binding up to 3.9)."""
        own = (
            Coordinate("org.apache.kafka", f"kafka_{self.scala}", self.version),
            Coordinate("org.apache.kafka", "kafka-tools", self.version),
        )
        return (*own, LOG4J2_SLF4J_BINDING) if self.at_least(4, 0) else own

    def install(self, cache: Path | None = None) -> list[Path]:
        """Install the release's jars into the cache once, and return its classpath.

        Args:
            cache: the jar cache; ``jobs.runtime.spark_jars.jar_cache()`` when None.

        Returns:
            One jar per file name, the broker artifact's folder first.

        Raises:
            jobs.runtime.spark_jars.JarsUnavailable: Maven or the network failed.
        """
        folder = cache if cache is not None else jar_cache()
        seen: dict[str, Path] = {}
        for coordinate in self.coordinates:
            for jar in install(coordinate, folder):
                seen.setdefault(jar.name, jar)
        return list(seen.values())

    def classpath(self, cache: Path | None = None) -> str:
        """The installed jars as a Java classpath string (installing them when missing)."""
        return ":".join(str(jar) for jar in self.install(cache))

    def shipped_config(self, name: str) -> str:
        """A file of this release's ``config/`` folder, as Kafka ships it.

        The copy of the release's series (``log4j-3.9.properties``), else of its major
        release (``log4j2-4.x.yaml``).

        Args:
            name: ``log4j.properties``, ``tools-log4j.properties``, ``log4j2.yaml`` or
                ``tools-log4j2.yaml``.

        Returns:
            The file's text.

        Raises:
            ReleaseUnsupported: no copy for this release series.
        """
        stem, _, suffix = name.rpartition(".")
        folder = resources.files(PACKAGE).joinpath(SHIPPED_CONFIG)
        major = self.series.split(".")[0]
        for series in (self.series, f"{major}.x"):
            resource = folder.joinpath(f"{stem}-{series}.{suffix}")
            if resource.is_file():
                return resource.read_text(encoding="utf-8")
        raise ReleaseUnsupported(
            f"Kafka {self.version}: no shipped {name} for series {self.series} in "
            f"{PACKAGE}/{SHIPPED_CONFIG}"
        )
