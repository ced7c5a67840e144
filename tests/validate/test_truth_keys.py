"""Every accepted key is exactly right against the synth ground truth.

synth (truth only: the reading is perfect, built from truth_cells' printed numbers)
-> find_anchors -> draft_tasks -> validate_drafts, then each accepted key is compared
with the key recomputed from the true values of the cells its oracle reads.
"""

from __future__ import annotations

import hashlib
import re
from decimal import Decimal
from pathlib import Path

import polars as pl
import pytest

from pipeline.draft.formulas import round_half_up

synth = pytest.importorskip("pipeline.synth.scans", reason="pipeline.synth is not there yet")
anchors = pytest.importorskip(
    "pipeline.detect.anchors", reason="pipeline.detect.anchors is not there yet"
)


def _doc_id(file_name: str) -> str:
    return hashlib.sha256(file_name.encode()).hexdigest()[:16]


def perfect_reading(truth_dir: Path) -> dict[str, pl.DataFrame]:
    """documents, tables and table_cells as a flawless OCR + table stage would give them."""
    from pipeline.ingest.schemas import DOCUMENTS_SCHEMA
    from pipeline.synth.truth import read_truth
    from pipeline.tables.schemas import TABLE_CELLS_SCHEMA, TABLES_SCHEMA

    tables_t = read_truth(truth_dir, "truth_tables")
    cells_t = read_truth(truth_dir, "truth_cells")
    files = sorted(set(tables_t["file_name"]))
    volumes = dict(zip(tables_t["file_name"], tables_t["volume"], strict=False))
    documents = pl.DataFrame(
        [
            {
                "doc_id": _doc_id(f),
                "file_sha256": _doc_id(f) * 4,
                "corpus": "synth-scans",
                "source_path": f,
                "file_name": f,
                "volume": volumes[f],
                "n_pages": 10,
                "has_text_layer": False,
                "text_layer_policy": "auto",
                "blob_sha256": _doc_id(f) * 4,
            }
            for f in files
        ],
        schema=DOCUMENTS_SCHEMA,
    )
    doc = pl.col("file_name").map_elements(_doc_id, return_dtype=pl.String)
    table_id = pl.format("{}:{}:{}", pl.col("doc_id"), pl.col("page_no"), pl.col("table_no"))
    tables = tables_t.with_columns(doc.alias("doc_id")).with_columns(
        table_id.alias("table_id"), pl.lit("clear").alias("quality")
    )
    tables = tables.select(list(TABLES_SCHEMA)).cast(TABLES_SCHEMA)
    cells = (
        cells_t.with_columns(doc.alias("doc_id"))
        .with_columns(
            table_id.alias("table_id"),
            pl.col("printed_text").alias("text"),
            pl.lit(True).alias("is_number"),
            pl.col("printed_value_str").cast(pl.Float64).alias("value"),
            pl.col("printed_value_str").alias("value_str"),
            pl.col("printed_value_str").str.starts_with("-").alias("negative"),
            pl.col("printed_text").str.contains(r"^\s*[-\u2014.]+\s*$").alias("is_dash"),
            pl.lit(95.0).alias("conf"),
            (700.0 + 300 * pl.col("col_idx")).alias("x0"),
            (400.0 + 50 * pl.col("row_idx")).alias("y0"),
            (900.0 + 300 * pl.col("col_idx")).alias("x1"),
            (440.0 + 50 * pl.col("row_idx")).alias("y1"),
        )
        .select(list(TABLE_CELLS_SCHEMA))
        .cast(TABLE_CELLS_SCHEMA)
    )
    return {"documents": documents, "tables": tables, "table_cells": cells, "truth_cells": cells_t}


def truth_to_tasks(truth_dir: Path, data_root: Path) -> tuple[pl.DataFrame, dict]:
    """Run anchors -> drafts -> validation on a perfect reading; return tasks and frames."""
    from pipeline.config import data_paths
    from pipeline.draft import draft_tasks
    from pipeline.store import Warehouse
    from pipeline.validate import build_contamination_index, validate_drafts

    frames = perfect_reading(truth_dir)
    result = anchors.find_anchors(frames["tables"], frames["table_cells"])
    warehouse = Warehouse(data_paths(data_root))
    for name in ("documents", "tables", "table_cells"):
        warehouse.replace(name, frames[name])
    warehouse.replace("identities", result.identities)
    warehouse.replace("anchored_cells", result.anchored_cells)
    drafts = draft_tasks(result.anchored_cells, frames["tables"], frames["documents"])
    tasks = validate_drafts(drafts, warehouse.root, build_contamination_index(warehouse.root))
    return tasks, frames


def true_key(task: dict, truth: dict[tuple, str], file_of: dict[str, str]) -> Decimal:
    """The task's formula (from its oracle) applied to the true values of its cells."""
    expression = re.search(r"emit\(answer=(.*), places=", task["oracle_source"]).group(1)
    values = {}
    for n, s in enumerate(task["sources"], start=1):
        key = (file_of[s["doc_id"]], s["page_no"], s["table_no"], s["row_idx"], s["col_idx"])
        values[f"x{n}"] = Decimal(truth[key])
    exact = eval(expression, {"max": max, "min": min}, values)  # noqa: S307 - template text
    return round_half_up(exact, task["precision"])


def test_every_accepted_key_matches_the_truth(tmp_path: Path) -> None:
    corpus = synth.generate_scans(
        tmp_path / "corpus", seed=3, volumes=2, tables_per_volume=4, progress=False
    )
    tasks, frames = truth_to_tasks(corpus.truth_dir, tmp_path / "data")
    truth = {
        (r["file_name"], r["page_no"], r["table_no"], r["row_idx"], r["col_idx"]): r[
            "true_value_str"
        ]
        for r in frames["truth_cells"].iter_rows(named=True)
    }
    file_of = dict(
        zip(frames["documents"]["doc_id"], frames["documents"]["file_name"], strict=True)
    )
    accepted = tasks.filter(pl.col("status") == "accepted")
    assert accepted.height >= 20
    assert accepted["kind"].n_unique() >= 6
    wrong = [
        (t["task_id"], t["answer"], str(true_key(t, truth, file_of)))
        for t in accepted.iter_rows(named=True)
        if Decimal(t["answer"]) != true_key(t, truth, file_of)
    ]
    assert wrong == []
