"""The contamination index: every number printed in the archive, and the keys found in it.

A task whose answer key is printed verbatim somewhere in the archive (other than at
the cells the task reads and their reprints) can be answered by searching instead of
computing, so validation rejects it. The index is built by ``sql/contamination_index.sql``
from parsed table cells and numeric OCR word tokens.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from pipeline.store import check_schema, run_sql
from pipeline.validate.connection import connect
from pipeline.validate.schemas import CONTAMINATION_INDEX_SCHEMA


def build_contamination_index(warehouse_dir: Path) -> pl.DataFrame:
    """Every number printed on every page (``CONTAMINATION_INDEX_SCHEMA``), from the warehouse."""
    con = connect(warehouse_dir)
    index = run_sql(con, "contamination_index")
    return check_schema(index, CONTAMINATION_INDEX_SCHEMA, "contamination_index")


def contamination_hits(
    keys: pl.DataFrame, sources: pl.DataFrame, index: pl.DataFrame, warehouse_dir: Path
) -> pl.DataFrame:
    """Tasks whose key is printed elsewhere: task_id, n_hits, examples (up to three places).

    ``keys``: task_id, answer (decimal text). ``sources``: task_id and the positions of
    the cells each task reads (doc_id, page_no, table_no, row_idx, col_idx).
    """
    con = connect(warehouse_dir)
    con.register("task_keys", keys.select("task_id", "answer"))
    con.register("task_sources", sources)
    con.register("contamination_index", index)
    return run_sql(con, "contamination_hits")
