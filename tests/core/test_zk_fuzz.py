"""Random damage never escapes as an exception, and a log keeps every entry before the damage.

Hypothesis flips, truncates and overwrites bytes of a valid snapshot and a valid log; the
decoders must return values (entries, nodes, issues), never raise.
"""

from __future__ import annotations

import io

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kafkactl_core.zk.jute import (
    OPEN_ACL_UNSAFE,
    CloseSessionTxn,
    CreateTxn,
    MultiTxn,
    OpCode,
    SetDataTxn,
    Stat,
    SubTxn,
)
from kafkactl_core.zk.snapshot import read_snapshot
from kafkactl_core.zk.textdump import parse_snapshot_dump, parse_txnlog_dump
from kafkactl_core.zk.txnlog import read_txnlog
from kafkactl_lab.zk_encode import NodeSpec, encode_snapshot
from tests.core.zk_builders import txn_entry, txnlog

STATE = b'{"controller_epoch":1,"leader":1,"version":1,"leader_epoch":%d,"isr":[1,2]}'


def _entries():
    out = []
    for i in range(1, 13):
        if i % 4 == 0:
            op = OpCode.multi
            record = MultiTxn(
                (
                    SubTxn(OpCode.setData, SetDataTxn("/s", STATE % i, i)),
                    SubTxn(OpCode.create, CreateTxn(f"/n{i}", b"x", OPEN_ACL_UNSAFE, False, i)),
                )
            )
        elif i % 4 == 1:
            op, record = OpCode.create, CreateTxn(f"/e{i}", b"{}", OPEN_ACL_UNSAFE, True, i)
        elif i % 4 == 2:
            op, record = OpCode.closeSession, CloseSessionTxn((f"/e{i - 1}",))
        else:
            op, record = OpCode.setData, SetDataTxn("/s", STATE % i, i)
        out.append(txn_entry(7, i, i, 1000 + i, op, record))
    return out


ENTRIES = _entries()
LOG = txnlog(ENTRIES)
STARTS = [16 + sum(len(e) for e in ENTRIES[:i]) for i in range(len(ENTRIES))]
SNAPSHOT = encode_snapshot(
    [NodeSpec("/", b"", Stat(0, 0, 0, 0, 0, 2, 0, 0, 2))]
    + [NodeSpec(f"/n{i}", STATE % i, Stat(i, i, i, i, i, 0, 0, 0, i)) for i in range(1, 9)],
    sessions=[(7, 6000)],
    digest=(9, 2, 1234),
)

damage = st.lists(
    st.tuples(st.integers(min_value=0, max_value=len(LOG) - 1), st.integers(0, 255)),
    min_size=1,
    max_size=4,
)


def apply(data, edits, cut):
    out = bytearray(data)
    for at, value in edits:
        if at < len(out):
            out[at] = value
    return bytes(out[:cut])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edits=damage, cut=st.integers(min_value=0, max_value=len(LOG)))
def test_damaged_log_never_raises_and_keeps_the_prefix(edits, cut):
    data = apply(LOG, edits, cut)
    reader = read_txnlog(io.BytesIO(data), "log.1")
    entries = list(reader)
    first_damage = min([at for at, value in edits if LOG[at] != value and at < cut] + [cut])
    intact = [i for i, start in enumerate(STARTS) if start + len(ENTRIES[i]) <= first_damage]
    # every entry wholly before the first damaged byte decodes as written
    assert [e.zxid for e in entries[: len(intact)]] == [i + 1 for i in intact]
    summary = reader.summary
    assert summary.entries == len(entries)
    for issue in summary.issues:
        assert issue.file == "log.1" and issue.detail


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    edits=st.lists(
        st.tuples(st.integers(0, len(SNAPSHOT) - 1), st.integers(0, 255)), min_size=1, max_size=3
    ),
    cut=st.integers(min_value=0, max_value=len(SNAPSHOT)),
)
def test_damaged_snapshot_never_raises(edits, cut):
    data = apply(SNAPSHOT, edits, cut)
    reader = read_snapshot(io.BytesIO(data), "snapshot.9")
    nodes = list(reader)
    summary = reader.summary
    changed = sum(a != b for a, b in zip(data, SNAPSHOT, strict=False))
    without_digest = SNAPSHOT[: len(SNAPSHOT) - 33]  # a pre-3.6 snapshot ends at the first seal
    if (changed == 1 and len(data) == len(SNAPSHOT)) or (
        changed == 0 and len(data) < len(SNAPSHOT) and data != without_digest
    ):
        # a truncation, or one changed byte (Adler32 catches every single-byte error), is
        # always noticed
        assert not summary.complete and summary.error is not None
        assert summary.error.file == "snapshot.9"
    if data == without_digest:
        assert summary.complete and summary.digest is None
    assert len(nodes) == summary.nodes


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=400))
def test_text_parsers_never_raise(text):
    parse_txnlog_dump(text)
    parse_txnlog_dump(
        "ZooKeeper Transactional Log File with dbid 0 txnlog format version 2\n" + text
    )
    parse_snapshot_dump(text)
    parse_snapshot_dump("ZNode Details (count=1):\n----\n" + text)
