"""Fixtures: Debian's ZooKeeper and one scenario run on a real server.

``zk_install`` skips the module's tests when the package is missing (``.ci/run`` installs it).
``zk_run`` starts a standalone server on 127.0.0.1 (free port, own dataDir under tmp, small
``snapCount`` so several snapshots and logs roll), writes the Kafka-shaped history of
``scenario.py``, stops the server and hands over the dataDir and what was written.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.zk.harness import MISSING, ZkInstall, ZkServer, find_install
from tests.zk.scenario import Recorder, run_scenario


@dataclass(frozen=True)
class ZkRun:
    """A finished scenario run: the dataDir files and the record of writes."""

    install: ZkInstall
    version2: Path
    rec: Recorder

    @property
    def snapshots(self) -> list[Path]:
        return sorted(
            (p for p in self.version2.iterdir() if p.name.startswith("snapshot.")),
            key=lambda p: int(p.name.split(".")[1], 16),
        )

    @property
    def logs(self) -> list[Path]:
        return sorted(
            (p for p in self.version2.iterdir() if p.name.startswith("log.")),
            key=lambda p: int(p.name.split(".")[1], 16),
        )


@pytest.fixture(scope="session")
def zk_install() -> ZkInstall:
    install = find_install()
    if install is None:
        pytest.skip(MISSING)
    return install


@pytest.fixture(scope="session")
def zk_run(zk_install: ZkInstall, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ZkRun]:
    server = ZkServer(zk_install, tmp_path_factory.mktemp("zk"), snap_count=40)
    server.start()
    try:
        rec = run_scenario(server.hosts)
    finally:
        server.stop()  # never leave a server running
    yield ZkRun(zk_install, server.version2, rec)
