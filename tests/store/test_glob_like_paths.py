"""A warehouse whose path holds glob characters ([ ] * ? { } ' \\) is read as that folder
and nothing else: polars and DuckDB take every path they are given as a glob pattern, so a
root like ``da[ta] {v1}`` either failed to read ("expanded paths were empty") or, worse,
read a neighbouring folder the pattern happens to match (``dat {v1}``). Each test has such
a decoy beside the real root, holding other rows under the same asset names. DuckDB also
took a ``key=value`` folder of the path as a hive partition column."""

from __future__ import annotations

import polars as pl
import pytest

from pipeline.config import data_paths
from pipeline.store import Warehouse
from pipeline.validate.connection import connect
from pipeline.validate.reading.rule import ReadingContext

# (root name, a sibling the root's name matches when read as a glob pattern)
ODD_ROOTS = [
    ("da[ta] {v1}", "dat {v1}"),
    ("data[1]", "data1"),
    ("data[!x]", "datay"),
    ("d*a", "dxxa"),
    ("d?a", "dza"),
    ("it's [x]", "it's x"),
    ("**", "zz"),
    ("a]b [c] {d,e}", "a]b c {d,e}"),
    ("back\\slash[1]", "back\\slash1"),
    # DuckDB reads a 'key=value' folder as a hive partition column (here overriding doc)
    ("doc=decoy", "doc=other"),
    ("run=3 [x]", "run=3 x"),
]
SCHEMA = {"doc": pl.String, "n": pl.Int64}


def _warehouses(tmp_path, name: str, decoy: str) -> tuple[Warehouse, Warehouse]:
    real, other = Warehouse(data_paths(tmp_path / name)), Warehouse(data_paths(tmp_path / decoy))
    other.write("things", pl.DataFrame({"doc": ["decoy"], "n": [1000]}), "vol1", SCHEMA)
    other.write("things", pl.DataFrame({"doc": ["decoy"], "n": [2000]}), "vol2", SCHEMA)
    real.write("things", pl.DataFrame({"doc": ["a", "b"], "n": [1, 2]}), "vol1", SCHEMA)
    # a later part with one more column: the parts are read by name, as before
    extra = pl.DataFrame({"doc": ["c"], "n": [5], "note": ["new"]})
    real.write("things", extra, "vol2")
    return real, other


@pytest.mark.parametrize(("name", "decoy"), ODD_ROOTS)
def test_warehouse_read_takes_the_root_literally(tmp_path, name, decoy):
    real, other = _warehouses(tmp_path, name, decoy)
    assert [p.name for p in real.parts("things")] == ["vol1.parquet", "vol2.parquet"]
    got = real.read("things").sort("doc")
    assert got["doc"].to_list() == ["a", "b", "c"]
    assert got["note"].to_list() == [None, None, "new"]
    assert real.read("things", SCHEMA)["n"].sum() == 8
    assert other.read("things")["n"].sum() == 3000


@pytest.mark.parametrize(("name", "decoy"), ODD_ROOTS)
def test_duckdb_views_read_the_root_literally(tmp_path, name, decoy):
    real, other = _warehouses(tmp_path, name, decoy)
    con = real.connect()
    assert con.execute("select sum(n), count(*), count(note) from things").fetchone() == (8, 3, 1)
    things = con.execute("select * from things order by doc").pl()
    assert things.columns == ["doc", "n", "note"]
    assert things["doc"].to_list() == ["a", "b", "c"]
    assert other.connect().execute("select sum(n) from things").fetchone()[0] == 3000
    # the validation connection over the folder itself (Warehouse.at)
    con = connect(real.root)
    assert con.execute("select sum(n) from things").fetchone()[0] == 8
    assert con.execute("select count(*) from tables").fetchone()[0] == 0  # required, absent


def test_a_file_named_like_a_pattern_is_one_part(tmp_path):
    """Part names are sanitised, but a file put in an asset folder by hand (or an older
    writer) whose name is itself a pattern is still read as one file."""
    wh = Warehouse(data_paths(tmp_path / "da[ta] {v1}"))
    wh.write("things", pl.DataFrame({"doc": ["a"], "n": [1]}), "vol1", SCHEMA)
    pl.DataFrame({"doc": ["b"], "n": [2]}).write_parquet(wh.folder("things") / "v[o]l*.parquet")
    assert wh.read("things", SCHEMA)["n"].sum() == 3
    assert wh.connect().execute("select sum(n) from things").fetchone()[0] == 3


def test_reading_context_loads_under_a_glob_like_root(tmp_path):
    """The question_mismatch rule reads tables, cells and identities by folder."""
    real = Warehouse(data_paths(tmp_path / "da[ta] {v1}"))
    decoy = Warehouse(data_paths(tmp_path / "dat {v1}"))
    key = {"doc_id": "d1", "page_no": 1, "table_no": 1}
    for wh, statement in ((real, "Receipts"), (decoy, "DECOY")):
        wh.write(
            "tables",
            pl.DataFrame([{"table_id": "t1", **key, "statement": statement, "unit": "dollars"}]),
        )
        wh.write(
            "table_cells",
            pl.DataFrame(
                [
                    {
                        **key,
                        "row_idx": r,
                        "col_idx": 0,
                        "row_parent": None if r == 2 else 2,
                        "period_kind": "fy",
                        "period_start": "1940-07-01",
                        "period_end": "1941-06-30",
                        "period_axis": "col",
                        "dimension": statement,
                    }
                    for r in range(3)
                ]
            ),
        )
        wh.write(
            "identities",
            pl.DataFrame(
                [
                    {
                        "table_id": "t1",
                        "total_row_idx": 2,
                        "total_col_idx": 0,
                        "member_rows": [0, 1],
                        "member_cols": [0, 0],
                    }
                ]
            ),
        )
    drafts = pl.DataFrame(
        {"sources": [[{**key, "row_idx": 2, "col_idx": 0}]]},
    )
    context = ReadingContext.load(real.root, drafts)
    assert context.tables[("d1", 1, 1)]["statement"] == "Receipts"
    assert context.cells[("d1", 1, 1, 2, 0)]["dimension"] == "Receipts"
    assert context.totals[("d1", 1, 1)] == {(2, 0): {(0, 0), (1, 0)}}
