"""``column_rows`` reads a batch's rows from its columns: each row must be the row of
``to_pylist()``, whatever the column types and nulls. No JVM."""

from __future__ import annotations

import pyarrow as pa
import pytest

from jobs.tasks.column_rows import column_rows

BATCH = pa.RecordBatch.from_pylist(
    [
        {"cluster": "a", "leader": 1, "isr": [1, 2], "recovering": True},
        {"cluster": None, "leader": None, "isr": None, "recovering": None},
        {"cluster": "", "leader": -1, "isr": [], "recovering": False},
    ]
)


@pytest.mark.parametrize("data", [BATCH, pa.Table.from_batches([BATCH, BATCH])])
def test_each_row_is_the_row_of_to_pylist(data: pa.RecordBatch | pa.Table):
    rows = list(column_rows(data))
    assert [dict(row) for row in rows] == data.to_pylist()
    assert [row.get("leader") for row in rows] == data.column("leader").to_pylist()
    assert [row["isr"] for row in rows] == data.column("isr").to_pylist()


def test_a_column_the_batch_lacks_reads_as_the_default():
    row = next(column_rows(BATCH))
    assert row.get("topic") is None and row.get("topic", "none") == "none"
    assert "topic" not in row and "leader" in row and len(row) == 4
    with pytest.raises(KeyError):
        row["topic"]


def test_an_empty_batch_has_no_rows():
    assert list(column_rows(BATCH.slice(0, 0))) == []
