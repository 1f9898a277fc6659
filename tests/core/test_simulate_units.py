"""Building blocks of the simulator: Scala/Java renderings, the ZooKeeper history mirror, times.

* ``java_double`` follows ``Double.toString`` (scientific notation below 1e-3 and from 1e7);
  Scala 2.13 prints ``Set(1, 2, 3, 4, 5)`` as ``HashSet(5, 1, 2, 3, 4)`` (CHAMP order).
* ``ZkHistory`` refuses what ZooKeeper would refuse, numbers transactions 1, 2, 3..., names
  sequential children as ZooKeeper does and removes a session's ephemerals with it.
* Script times accept seconds, ``HH:MM:SS`` offsets and ISO times.
* The engine's table of operations has one function for every kind of operation.
"""

from __future__ import annotations

import io
import json
import typing

import pytest

from kafkactl_lab.simulate import ops as o
from kafkactl_lab.simulate.clock import Clock, Log4jTimestamps
from kafkactl_lab.simulate.engine import OPERATIONS
from kafkactl_lab.simulate.history import Check, HistoryError, ZkHistory
from kafkactl_lab.simulate.scala import (
    ScalaVersion,
    int_map,
    int_set,
    java_double,
    mutable_set_order,
)
from kafkactl_lab.simulate.settings import DEFAULT_START, parse_time


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0.0, "0.0"),
        (1.0, "1.0"),
        (0.5, "0.5"),
        (1 / 3, "0.3333333333333333"),
        (2 / 3, "0.6666666666666666"),
        (0.001, "0.001"),
        (1 / 1500, "6.666666666666666E-4"),
        (1e-4, "1.0E-4"),
        (12345678.0, "1.2345678E7"),
    ],
)
def test_java_double(value: float, text: str) -> None:
    assert java_double(value) == text


def test_scala_collections() -> None:
    v213, v211 = ScalaVersion.v2_13, ScalaVersion.v2_11
    assert int_set([1, 2, 3], v213) == "Set(1, 2, 3)"
    assert int_set([1, 2, 3, 4, 5], v213) == "HashSet(5, 1, 2, 3, 4)"
    assert int_set([3, 1, 2], v213, mutable=True) == "HashSet(1, 2, 3)"
    assert int_set([], v213, mutable=True) == "HashSet()"
    assert int_set([3, 1, 2], v211, mutable=True) == "Set(1, 2, 3)"
    # a 2.13 mutable.HashSet iterates by table slot (size 16: id % 16), then by hash
    assert mutable_set_order([17, 1, 2]) == (1, 17, 2)
    assert int_map([(1, 21), (2, 26)], v213) == "Map(1 -> 21, 2 -> 26)"
    assert int_map([(b, b * 10) for b in range(1, 6)], v213).startswith("HashMap(5 -> 50, 1 -> 10")


def test_log4j_timestamps() -> None:
    stamps = Log4jTimestamps()
    assert stamps.stamp(1709625600123) == "2024-03-05 08:00:00,123"
    assert stamps.stamp(1709625601005) == "2024-03-05 08:00:01,005"


def history() -> tuple[ZkHistory, io.StringIO]:
    out = io.StringIO()
    return ZkHistory(out, Clock(1_709_625_600_000_000)), out


def test_history_numbers_transactions_and_mirrors_the_tree() -> None:
    h, out = history()
    h.create_session("broker-1#1", 18_000, 1)
    h.ensure("broker-1#1", "/brokers/ids")
    h.write("create", "broker-1#1", "/brokers/ids/1", "{}", ephemeral=True)
    h.write("create", "broker-1#1", "/controller_epoch", "0")
    h.multi(
        "broker-1#1",
        [
            {"op": "create", "path": "/controller", "data": "{}", "ephemeral": True},
            {"op": "setData", "path": "/controller_epoch", "data": "1", "version": 0},
        ],
    )
    h.write("create", "broker-1#1", "/n", None)
    first = h.sequential_name("/n/c_")
    h.write("create", "broker-1#1", first, "x", sequential=True)
    h.write("delete", "broker-1#1", first)
    second = h.sequential_name("/n/c_")
    removed = h.close_session("broker-1#1", expired=True)
    records = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [r["zxid"] for r in records] == list(range(1, len(records) + 1))
    assert h.version("/controller_epoch") == 1
    assert (first, second) == ("/n/c_0000000000", "/n/c_0000000001")
    assert sorted(removed) == ["/brokers/ids/1", "/controller"]
    assert records[-1] == {
        **records[-1],
        "op": "closeSession",
        "expired": True,
        "removed": ["/brokers/ids/1", "/controller"],
    }
    assert not h.exists("/controller") and h.exists("/controller_epoch")


def test_history_refuses_what_zookeeper_refuses() -> None:
    h, _ = history()
    h.create_session("s", 6000)
    h.write("create", "s", "/a", None)
    with pytest.raises(HistoryError):
        h.write("create", "s", "/a", None)  # node exists
    with pytest.raises(HistoryError):
        h.write("create", "s", "/x/y", None)  # no parent
    with pytest.raises(HistoryError):
        h.write("setData", "s", "/a", "1", version=3)  # bad version
    with pytest.raises(HistoryError):
        h.write("setData", "s", "/a", "1", check=Check("/a", 9))  # failing check
    h.write("create", "s", "/a/b", None)
    with pytest.raises(HistoryError):
        h.write("delete", "s", "/a")  # not empty
    with pytest.raises(HistoryError):
        h.write("create", "nobody", "/c", None)  # no such session
    h.write("create", "s", "/e", None, ephemeral=True)
    with pytest.raises(HistoryError):
        h.write("create", "s", "/e/child", None)  # ephemerals have no children


def test_script_times() -> None:
    start = int(DEFAULT_START.timestamp() * 1_000_000)
    assert parse_time(90, start) == start + 90_000_000
    assert parse_time("01:30:00", start) == start + 5_400_000_000
    assert parse_time("2024-03-05T09:00:00Z", start) == start + 3_600_000_000
    with pytest.raises(ValueError):
        parse_time("later", start)


def test_every_operation_has_one_function() -> None:
    assert set(OPERATIONS) == set(typing.get_args(o.Op))
    assert all(entry.kind is kind for kind, entry in OPERATIONS.items())
