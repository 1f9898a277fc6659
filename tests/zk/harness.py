"""Debian's ZooKeeper for the tests: find it, start/stop a standalone server, run its dump tools.

``find_install`` finds the ``zookeeper`` package (installed by ``.ci/run``, never by a test) and
the jars listed by ``dpkg -L zookeeper libzookeeper-java``. ``ZkServer`` runs
``org.apache.zookeeper.server.ZooKeeperServerMain`` on 127.0.0.1 with its own dataDir and
``snapCount``; ``snapshot_formatter``/``txnlog_toolkit`` run ZooKeeper's own dump tools on a
file with an en_US/UTC JVM so their text is what ``kafkactl_core.zk.textdump`` parses.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

JAVA_FLAGS = ["-Duser.language=en", "-Duser.country=US", "-Duser.timezone=UTC", "-Xmx256m"]


@dataclass(frozen=True)
class ZkInstall:
    """Where Debian's ZooKeeper lives."""

    java: str
    classpath: str

    def run(self, main: str, *args: str, timeout: float = 60) -> str:
        """Run a ZooKeeper main class and return its stdout (stderr on failure)."""
        proc = subprocess.run(
            [self.java, *JAVA_FLAGS, "-cp", self.classpath, main, *args],
            capture_output=True,
            timeout=timeout,
            check=False,
        )
        if proc.returncode != 0:
            raise RuntimeError(f"{main} {' '.join(args)} failed: {proc.stderr[-2000:]!r}")
        # bytes, decoded without universal newlines: the toolkit prints raw \r bytes
        return proc.stdout.decode("utf-8")


def _dpkg_files(*packages: str) -> list[str]:
    try:
        out = subprocess.run(
            ["dpkg", "-L", *packages], capture_output=True, text=True, check=False, timeout=30
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    return out.splitlines()


def find_install() -> ZkInstall | None:
    """The installed ZooKeeper, None when the package or Java is missing."""
    java = shutil.which("java")
    jars = [f for f in _dpkg_files("zookeeper", "libzookeeper-java") if f.endswith(".jar")]
    main = next((j for j in jars if os.path.basename(j) == "zookeeper.jar"), None)
    if java is None or main is None or not Path(main).is_file():
        return None
    # zookeeper.jar's manifest Class-Path pulls jute, netty, slf4j-api …; slf4j-nop keeps the
    # tools' stdout clean of logging.
    parts = [main]
    nop = Path("/usr/share/java/slf4j-nop.jar")
    if nop.is_file():
        parts.append(str(nop))
    return ZkInstall(java, ":".join(parts))


MISSING = (
    "Debian's zookeeper package or java is missing (`.ci/run` installs it: apt-get install -y "
    "zookeeper)"
)
"""Why the tests that need a real ZooKeeper skip."""


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class ZkServer:
    """A standalone ZooKeeper server on 127.0.0.1 with its own dataDir."""

    def __init__(
        self,
        install: ZkInstall,
        root: Path,
        *,
        snap_count: int = 60,
        tick_ms: int = 100,
        prealloc_kb: int = 16,
        compression: str | None = None,
    ) -> None:
        self.install = install
        self.root = root
        self.data_dir = root / "data"
        self.port = free_port()
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.config = root / "zoo.cfg"
        self.config.write_text(
            "\n".join(
                [
                    f"tickTime={tick_ms}",
                    f"dataDir={self.data_dir}",
                    f"clientPort={self.port}",
                    "clientPortAddress=127.0.0.1",
                    f"snapCount={snap_count}",
                    f"preAllocSize={prealloc_kb}",
                    "admin.enableServer=false",
                    "forceSync=no",
                    "maxClientCnxns=0",
                    "",
                ]
            )
        )
        self.compression = compression
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def hosts(self) -> str:
        """The connect string."""
        return f"127.0.0.1:{self.port}"

    @property
    def version2(self) -> Path:
        """The ``version-2`` directory holding snapshots and logs."""
        return self.data_dir / "version-2"

    def start(self, timeout: float = 30) -> None:
        """Start and wait until the client port answers ``ruok``-free TCP connects."""
        flags = list(JAVA_FLAGS)
        if self.compression:
            flags.append(f"-Dzookeeper.snapshot.compression.method={self.compression}")
        log = (self.root / "server.log").open("wb")
        self.proc = subprocess.Popen(
            [
                self.install.java,
                *flags,
                "-cp",
                self.install.classpath,
                "org.apache.zookeeper.server.ZooKeeperServerMain",
                str(self.config),
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"ZooKeeper exited: {(self.root / 'server.log').read_text()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError("ZooKeeper did not open its client port")

    def stop(self) -> None:
        """Stop the server (SIGTERM, then SIGKILL) and wait for it."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=15)
        self.proc = None


def snapshot_formatter(install: ZkInstall, snapshot: Path) -> str:
    """``SnapshotFormatter -d`` output of one snapshot."""
    return install.run("org.apache.zookeeper.server.SnapshotFormatter", "-d", str(snapshot))


def txnlog_toolkit(install: ZkInstall, log: Path) -> str:
    """``TxnLogToolkit -d`` output of one transaction log."""
    return install.run("org.apache.zookeeper.server.persistence.TxnLogToolkit", "-d", str(log))
