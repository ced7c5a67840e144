"""Score published answer keys against the generator's ground truth.

Each accepted task's oracle is rerun, in the sandbox, against a *truth warehouse*: a
copy of the pipeline's warehouse in which every cell the table stage rebuilt carries
the true value of the ground-truth cell at the same (table, row, column). The oracle's
formula is then applied to true numbers, so its answer is the true key, and a task is
right exactly when the pipeline's key equals it. A cell read at a position that the
truth does not have (a mis-built table) makes the oracle fail there and the task
counts as unverifiable, never as right.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

import polars as pl

from oracles.sandbox import run_oracles
from pipeline.detect.schemas import ANCHORED_CELLS_SCHEMA
from pipeline.store import Warehouse
from pipeline.synth.truth import read_truth
from pipeline.tables.evaluate import match_tables
from pipeline.tables.schemas import TABLE_CELLS_SCHEMA

KEY_SCORES_SCHEMA = {
    "task_id": pl.String,
    "kind": pl.String,
    "answer": pl.String,
    "true_answer": pl.String,  # null when the oracle could not run on true values
    "status": pl.String,  # right | wrong | unverifiable
}


@dataclass
class KeyScores:
    """Accepted keys checked against the truth."""

    scores: pl.DataFrame  # KEY_SCORES_SCHEMA

    @property
    def n_right(self) -> int:
        return int((self.scores["status"] == "right").sum())

    @property
    def n_wrong(self) -> int:
        return int((self.scores["status"] == "wrong").sum())

    @property
    def n_unverifiable(self) -> int:
        return int((self.scores["status"] == "unverifiable").sum())

    def summary(self) -> str:
        return (
            f"accepted keys: {self.scores.height}; right {self.n_right}, wrong {self.n_wrong}, "
            f"unverifiable {self.n_unverifiable}"
        )


def true_values(warehouse_dir: Path, truth_dir: Path) -> pl.DataFrame:
    """(table_id, row_idx, col_idx) -> true value.

    Rebuilt tables are matched to the truth's by box overlap on their page (the
    evaluator's matching); a warehouse without ``pages`` (a perfect reading built from
    the truth itself) is matched by document, page and table number.
    """
    # read by the warehouse, part by part: the folder's path may hold [ ] * ? (a data
    # root like 'da[ta] {v1}'), which a polars pattern would expand
    warehouse = Warehouse.at(warehouse_dir)
    documents = warehouse.read("documents")
    tables = warehouse.read("tables")
    docs = documents.select("doc_id", "file_name")
    truth_tables = read_truth(truth_dir, "truth_tables").join(docs, on="file_name")
    key = ["doc_id", "page_no", "table_no"]
    if warehouse.exists("pages"):
        pages = warehouse.read("pages")
        page_info = pages.select("doc_id", "page_no", "width_px", "height_px")
        found = tables.join(page_info, on=["doc_id", "page_no"], how="left")
        matches = match_tables(truth_tables, found).drop_nulls("table_id")
    else:
        matches = truth_tables.select(key).join(tables.select(*key, "table_id"), on=key)
    truth_cells = read_truth(truth_dir, "truth_cells").join(docs, on="file_name")
    return truth_cells.join(matches, on=key).select(
        "table_id", "row_idx", "col_idx", pl.col("true_value_str").alias("true_str")
    )


def truth_warehouse(warehouse_dir: Path, truth_dir: Path, out_dir: Path) -> Path:
    """Write a copy of the oracle-facing warehouse with true values substituted."""
    warehouse_dir, out_dir = Path(warehouse_dir), Path(out_dir)
    truth = true_values(warehouse_dir, truth_dir)
    key = ["table_id", "row_idx", "col_idx"]
    if out_dir.exists():
        shutil.rmtree(out_dir)
    out_dir.mkdir(parents=True)
    # on true values every identity the pipeline found should hold (a misprint's identity
    # included): the oracle API re-asserts them and fails the task where one does not
    warehouse = Warehouse.at(warehouse_dir)
    identities = warehouse.read("identities")
    cells = warehouse.read("table_cells").join(truth, on=key, how="left")
    # ... except one over a position the reader left empty (a dash OCR dropped): it
    # cannot be checked on any values, and stays as the pipeline found it
    members = (
        identities.select(
            "identity_id",
            "table_id",
            row_idx=pl.concat_list("member_rows", "total_row_idx"),
            col_idx=pl.concat_list("member_cols", "total_col_idx"),
        )
        .explode("row_idx", "col_idx", empty_as_null=False)
        .join(cells.select(key).with_columns(present=pl.lit(True)), on=key, how="left")
        .group_by("identity_id")
        .agg(complete=pl.col("present").fill_null(False).all())
    )
    identities = (
        identities.join(members, on="identity_id", how="left")
        .with_columns(holds=pl.col("holds") | pl.col("complete").fill_null(False))
        .drop("complete")
    )

    # a cell with no true counterpart gets no number: reading it cannot look right
    cells = cells.with_columns(
        value_str=pl.col("true_str"),
        value=pl.col("true_str").cast(pl.Float64),
        is_number=pl.col("true_str").is_not_null(),
    ).select(list(TABLE_CELLS_SCHEMA))
    anchored = warehouse.read("anchored_cells").join(truth, on=key, how="inner")
    anchored = anchored.with_columns(
        value_str=pl.col("true_str"),
        printed_str=pl.col("true_str"),
        implied_str=pl.lit(None, pl.String),
        status=pl.lit("confirmed"),
    ).select(list(ANCHORED_CELLS_SCHEMA))
    for name, frame in (
        ("table_cells", cells),
        ("anchored_cells", anchored),
        ("identities", identities),
    ):
        (out_dir / name).mkdir()
        frame.write_parquet(out_dir / name / "all.parquet")
    return out_dir


def score_keys(
    tasks: pl.DataFrame,
    warehouse_dir: Path,
    truth_dir: Path,
    scratch_dir: Path,
    workers: int | None = None,
) -> KeyScores:
    """Rerun every accepted oracle on true values and compare with the published key.

    Only the scanned-table kinds: a workbook QA key (``WORKBOOK_KINDS``) reads cells the
    pipeline never OCRs, so its truth is the generator's cached total, not this corpus."""
    from pipeline.draft.workbook_qa import WORKBOOK_KINDS

    accepted = tasks.filter(
        (pl.col("status") == "accepted") & ~pl.col("kind").is_in(list(WORKBOOK_KINDS))
    )
    truth_wh = truth_warehouse(warehouse_dir, truth_dir, Path(scratch_dir) / "truth_warehouse")
    results = run_oracles(
        dict(zip(accepted["task_id"], accepted["oracle_source"], strict=True)),
        truth_wh,
        workers=workers,
        progress=False,
    )
    rows = []
    for task in accepted.iter_rows(named=True):
        result = results[task["task_id"]]
        true_answer = result.answer if result.ok else None
        if true_answer is None:
            status = "unverifiable"
        else:
            status = "right" if Decimal(str(true_answer)) == Decimal(task["answer"]) else "wrong"
        rows.append(
            {
                "task_id": task["task_id"],
                "kind": task["kind"],
                "answer": task["answer"],
                "true_answer": None if true_answer is None else str(true_answer),
                "status": status,
            }
        )
    return KeyScores(pl.DataFrame(rows, schema=KEY_SCORES_SCHEMA))
