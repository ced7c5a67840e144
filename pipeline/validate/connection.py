"""An in-memory DuckDB over one warehouse folder, for the validation SQL."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import duckdb
import polars as pl

from pipeline.detect.schemas import ANCHORED_CELLS_SCHEMA
from pipeline.ingest.schemas import WORDS_SCHEMA
from pipeline.store import Warehouse
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
    return Warehouse.at(warehouse_dir).connect(required=NEEDED)
