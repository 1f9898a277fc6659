"""Lists cross the Arrow boundary (the delta-rs writer, the replay's normalize step) as joined text
and come back equal."""

from __future__ import annotations

import pyarrow as pa
import pytest

from jobs.tasks.list_transport import LIST_SEPARATOR, NULL_ITEM, split_lists

SCHEMA = pa.schema([("ids", pa.list_(pa.int32())), ("names", pa.list_(pa.string()))])


def _sent(column: str, lists: list[list[object] | None]) -> dict[str, list[object]]:
    """What ``joined_lists`` makes of ``lists`` on the Spark side (array_join and size)."""
    text = [
        None
        if items is None
        else LIST_SEPARATOR.join(NULL_ITEM if i is None else str(i) for i in items)
        for items in lists
    ]
    return {column: text, f"__size_{column}": [None if i is None else len(i) for i in lists]}


def test_lists_come_back_with_nulls_empties_and_null_items() -> None:
    ids: list[list[object] | None] = [[1, 2], None, [], [None, 3], [7]]
    names: list[list[object] | None] = [[""], ["a", "b"], None, [], ["", ""]]
    batch = pa.RecordBatch.from_pydict({**_sent("ids", ids), **_sent("names", names)})
    back = split_lists(batch, ["ids", "names"], SCHEMA)
    assert back.column("ids").to_pylist() == ids
    assert back.column("names").to_pylist() == names
    assert back.schema.field("ids").type == pa.list_(pa.int32())


def test_an_item_holding_the_separator_is_refused() -> None:
    batch = pa.RecordBatch.from_pydict(
        {"names": [f"a{LIST_SEPARATOR}b"], "__size_names": [1], "ids": [None], "__size_ids": [None]}
    )
    with pytest.raises(ValueError, match="names"):
        split_lists(batch, ["ids", "names"], SCHEMA)
