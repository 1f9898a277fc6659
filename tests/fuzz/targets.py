"""Every fuzz target as one function of bytes: what the regression cases replay and what the
atheris harness (``atheris_main``) drives. Each raises AssertionError on a broken property and
lets any other exception escape (a crash)."""

from __future__ import annotations

from collections.abc import Callable

from kafkactl_core.grammars import resolve_layout
from tests.fuzz.config_checks import check_config
from tests.fuzz.decoder_checks import (
    ZNODE_PATHS,
    check_kraft,
    check_text_dumps,
    check_zk_snapshot,
    check_zk_txnlog,
    check_znode,
)
from tests.fuzz.log_checks import ReadPlan, check_executors, check_gzip, check_reader

KAFKA = resolve_layout("kafka")
_PLAN = ReadPlan(split_bytes=512, region_bytes=256)


def _logs(data: bytes) -> None:
    batches = check_reader(data, KAFKA, _PLAN)
    check_executors(data, KAFKA, batches, None)


def _gzip(data: bytes) -> None:
    check_gzip(data, len(data) // 2, KAFKA)


def _znode(data: bytes) -> None:
    path = ZNODE_PATHS[data[0] % len(ZNODE_PATHS)] if data else ZNODE_PATHS[0]
    check_znode(path, data[1:])


TARGETS: dict[str, Callable[[bytes], None]] = {
    "logs": _logs,
    "gzip": _gzip,
    "zk-snapshot": check_zk_snapshot,
    "zk-txnlog": check_zk_txnlog,
    "znode": _znode,
    "zk-dump": check_text_dumps,
    "kraft": check_kraft,
    "config": check_config,
}
"""Target name (a folder of ``regressions/``) -> its check."""
