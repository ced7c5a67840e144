"""Anchored cells: the stage's entry point and which cells the identities anchor.

``find_anchors`` runs the steps in order (grid, spans, identities, pinning, repairs)
and ``_assemble`` decides every cell's status: a pinned breaking cell is repaired or
contradicted; every other cell of an identity that holds (or holds once its breaking
cell is corrected) is confirmed; the rest are not anchored. It shapes the
``identities``, ``anchored_cells`` and ``repairs`` frames to their schemas.
"""

from __future__ import annotations

from dataclasses import dataclass

import duckdb
import numpy as np
import polars as pl
import pyarrow as pa

from pipeline.detect.anchors.grid import _KEY, _POS, _format, _grid
from pipeline.detect.anchors.identities import _identities
from pipeline.detect.anchors.pinning import _pin
from pipeline.detect.anchors.spans import _find_spans, _lines
from pipeline.detect.schemas import ANCHORED_CELLS_SCHEMA, IDENTITIES_SCHEMA, REPAIRS_SCHEMA
from pipeline.store.warehouse import check_schema, run_sql
from pipeline.tables.schemas import TABLE_CELLS_SCHEMA, TABLES_SCHEMA


@dataclass(frozen=True)
class AnchorResult:
    """The stage output: frames following the schemas in ``pipeline.detect.schemas``."""

    identities: pl.DataFrame
    anchored_cells: pl.DataFrame
    repairs: pl.DataFrame


def find_anchors(tables: pl.DataFrame, table_cells: pl.DataFrame) -> AnchorResult:
    """Find the total identities of every table and the cells they anchor.

    ``tables`` and ``table_cells`` follow ``pipeline.tables.schemas``. Returns the
    identities (each checked, with residual and tolerance), the anchored cells
    (confirmed, repaired or contradicted, carrying the table's quality and
    unit_multiplier) and the OCR repairs applied.
    """
    tables = check_schema(tables, TABLES_SCHEMA, "tables")
    cells = check_schema(table_cells, TABLE_CELLS_SCHEMA, "table_cells")
    tables = tables.with_row_index("tkey").with_columns(pl.col("tkey").cast(pl.Int64))
    grid, decimals = _grid(tables, cells)
    # two threads: the stage shares a small machine with the rest of the pipeline
    con = duckdb.connect(config={"threads": 2})
    try:
        lines = _lines(grid, decimals)
        spans = _find_spans(con, lines)
        del lines  # the largest frame of the stage (two rows per cell)
        con.register("spans", spans.select("lkey", "total_line", "start_line"))
        members = run_sql(con, "anchors_members")
    finally:
        con.close()
    identities, membership = _identities(tables, grid, spans, members, decimals)
    cell_status, resolved = _pin(tables, grid, identities, membership, decimals)
    return _assemble(tables, grid, identities, membership, cell_status, resolved, decimals)


def _loose_confirms() -> pl.Expr:
    """Whether an identity that holds only within its rounding window confirms a cell.

    The window (half a unit of the last place per member) admits a one-unit misread,
    so such an identity vouches for a cell only when nothing else doubts it: no other
    identity through the cell breaks, and OCR read the figure confidently
    (``TRUSTED_CONF``). Audit: 1939-12 "Silver Production, by Leading Countries",
    United States 1933 printed 22,821, read 22,822 at confidence 54; the row missed
    its printed total by one unit in a rounding window of 5.5 and "confirmed" it.
    """
    return pl.col("loose") & ~pl.col("broken") & ~pl.col("doubtful").fill_null(False)


def _assemble(
    tables: pl.DataFrame,
    grid: pl.DataFrame,
    ids: pl.DataFrame,
    membership: pl.DataFrame,
    status: pl.DataFrame,
    resolved: pl.DataFrame,
    decimals: int,
) -> AnchorResult:
    """Shape the three output frames to their schemas."""
    scale = float(10**decimals)
    identities = ids.sort("ident").select(
        "identity_id",
        "table_id",
        "kind",
        total_row_idx="row_idx",
        total_col_idx="col_idx",
        member_rows="member_rows",
        member_cols="member_cols",
        total_value_str=_format(pl.col("total"), pl.col("k"), decimals),
        members_sum_str=pl.when("checkable").then(
            _format(pl.col("members_sum"), pl.col("k"), decimals)
        ),
        residual=pl.col("res").cast(pl.Float64) / scale,
        tolerance=pl.col("tol").cast(pl.Float64) / scale,
        holds="holds",
        found_by="found_by",
    )
    # per cell, over its (cell, ident) pairs in cell order: whether an identity that
    # holds (or is resolved) confirms it, whether it heads one, and how many it is in;
    # idents are dense row numbers of ``ids`` (see _identities), so lookups are gathers
    is_resolved = pl.col("ident").is_in(resolved["ident"].implode())
    # an identity that closes exactly (or once its breaking cell is corrected) fixes
    # every digit of its cells; one that closes only within its rounding window does
    # not: a misread last digit can hide in the window (see _loose_confirms)
    verdict = ids.select(
        exact=(pl.col("holds") & (pl.col("res") == 0)) | is_resolved,
        loose=pl.col("holds") & (pl.col("res") != 0) & ~is_resolved,
        broken=pl.col("checkable") & ~pl.col("holds") & ~is_resolved,
    )
    pairs = membership.select(
        "cell", "ident", "sign", present=pl.col("present").fill_null(False)
    ).sort("cell", "ident")
    pairs = pairs.with_columns(
        **{name: verdict[name].gather(pairs["ident"]) for name in verdict.columns}
    )
    per_cell = (
        pairs.group_by("cell", maintain_order=True)
        .agg(
            n=pl.len(),
            is_total=(pl.col("sign") == 1).any(),
            exact=(pl.col("exact") & pl.col("present")).any(),
            loose=(pl.col("loose") & pl.col("present")).any(),
            broken=pl.col("broken").any(),
        )
        .join(grid.select("cell", "doubtful"), on="cell", how="left", maintain_order="left")
        .join(status.select(_KEY + ["status", "new_v"]), on=_KEY, how="left", maintain_order="left")
        .with_columns(
            status=pl.when(pl.col("status").is_not_null())
            .then("status")
            .when(pl.col("exact") | _loose_confirms())
            .then(pl.lit("confirmed"))
        )
    )
    kept = per_cell["status"].is_not_null()
    # the identity ids of the kept cells as one list column, built from offsets: the
    # pairs are in cell order, so each kept cell's ids are one contiguous run
    in_kept = kept.repeat_by(per_cell["n"]).explode(empty_as_null=False)
    names = ids["identity_id"].gather(pairs.filter(in_kept)["ident"])
    anchored = per_cell.filter(kept)
    offsets = pa.array(np.concatenate([[0], np.cumsum(anchored["n"].to_numpy())]), pa.int64())
    identity_ids = pl.from_arrow(pa.LargeListArray.from_arrays(offsets, names.to_arrow()))
    # the grid in cell order holds every kept cell: a filter lines it up, no join
    if not grid["cell"].is_sorted():
        grid = grid.sort("cell")
    cells = grid.filter(pl.col("cell").is_in(anchored["cell"].implode())).select(
        *_POS[1:], "value_str", "dec", "row_label", "col_label"
    )
    where = ["table_id", "doc_id", "page_no", "table_no", "unit_multiplier", "quality"]
    # tkey is the row number of ``tables``
    table_cols = tables.select(where)[cells["tkey"]]
    # hstack checks the heights: every kept cell found its grid position
    anchored = (
        anchored.select("status", "new_v", "is_total")
        .hstack(cells)
        .hstack(table_cols)
        .with_columns(identity_ids=identity_ids)
        .with_columns(
            new_str=pl.when(pl.col("new_v").is_not_null()).then(
                _format(pl.col("new_v"), pl.col("dec"), decimals)
            )
        )
    )
    anchored_cells = check_schema(
        anchored.with_columns(
            printed_str=pl.col("value_str"),
            implied_str=pl.when(pl.col("status") == "contradicted").then("new_str"),
            value_str=pl.when(pl.col("status") == "confirmed")
            .then("value_str")
            .otherwise("new_str"),
        ),
        ANCHORED_CELLS_SCHEMA,
        "anchored_cells",
    )
    repairs = check_schema(
        anchored.filter(pl.col("status") == "repaired").with_columns(
            original_str="value_str", repaired_str="new_str"
        ),
        REPAIRS_SCHEMA,
        "repairs",
    )
    return AnchorResult(
        identities=check_schema(identities, IDENTITIES_SCHEMA, "identities"),
        anchored_cells=anchored_cells,
        repairs=repairs,
    )
