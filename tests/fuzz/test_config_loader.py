"""The configuration loader on arbitrary YAML text and random documents built from its keys."""

from __future__ import annotations

from typing import Any

import yaml
from hypothesis import example, given
from hypothesis import strategies as st

from tests.fuzz.budget import FUZZ
from tests.fuzz.config_checks import check_config

KEYS = ["version", "lakehouse", "path", "catalog", "schema", "engine", "spark", "master",
        "shuffle_partitions", "driver_memory", "conf", "kafka_defaults", "clusters", "name",
        "kafka_version", "timezone", "log_layout", "inputs", "logs", "zookeeper",
        "kraft_metadata", "unclean.leader.election.enable", "min.insync.replicas",
        "leader.imbalance.per.broker.percentage", "grammar_executor", "x"]  # fmt: skip
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(),
    st.text(max_size=20),
    st.sampled_from(["auto", "delta-rs", "2.8", "3.9.1", "UTC", "Europe/Pariss", "kafka", "/"]),
)
documents = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.one_of(st.sampled_from(KEYS), st.text(max_size=8)), inner, max_size=6),
    ),
    max_leaves=30,
)
_VALID = b"version: 1\nlakehouse: {path: lakehouse}\nclusters: [{name: a}]\n"


def _dump(document: Any) -> bytes:
    return yaml.safe_dump(document, allow_unicode=True).encode()


@FUZZ
@given(st.one_of(st.binary(max_size=600), st.text(max_size=600).map(str.encode)))
@example(_VALID)
@example(b"version: 1\nlakehouse: {path: \xff}\n")
@example(b"[" * 1100)
def test_any_bytes_load_or_are_one_config_error(data: bytes) -> None:
    check_config(data)


@FUZZ
@given(documents)
@example({"version": 1, "lakehouse": {"path": "x"}, "engine": "delta-rs"})
def test_any_document_loads_or_is_one_config_error(document: Any) -> None:
    check_config(_dump(document))
