"""An in-memory DuckDB over one warehouse folder, for the validation SQL."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import duckdb
import polars as pl

from pipeline.detect.schemas import ANCHORED_CELLS_SCHEMA
from pipeline.ingest.schemas import WORDS_SCHEMA
from pipeline.tables.schemas import TABLE_CELLS_SCHEMA, TABLES_SCHEMA

# Assets the validation SQL reads; an absent one is an empty table of its schema
# (e.g. a corpus without OCR words), never a silent skip of the rule: the caller
# still gets every task's verdict, computed over what the archive holds.
NEEDED: dict[str, Mapping[str, pl.DataType]] = {
    "tables": TABLES_SCHEMA,
    "table_cells": TABLE_CELLS_SCHEMA,
    "words": WORDS_SCHEMA,
    "anchored_cells": ANCHORED_CELLS_SCHEMA,
}


def connect(warehouse_dir: Path) -> duckdb.DuckDBPyConnection:
    """One view per asset folder of ``warehouse_dir``, empty tables for missing ones."""
    con = duckdb.connect()
    warehouse_dir = Path(warehouse_dir)
    for name, schema in NEEDED.items():
        parts = sorted((warehouse_dir / name).glob("*.parquet"))
        if parts:
            glob = str(warehouse_dir / name / "*.parquet").replace("'", "''")
            con.execute(
                f"CREATE VIEW {name} AS SELECT * FROM read_parquet('{glob}', union_by_name = true)"
            )
        else:
            con.register(f"{name}_empty", pl.DataFrame(schema=dict(schema)))
            con.execute(f"CREATE VIEW {name} AS SELECT * FROM {name}_empty")
    return con
