"""Parquet contracts of the anchoring assets: ``identities`` and ``anchored_cells``.

An *identity* is one arithmetic fact a table prints about itself: a total (or
subtotal) cell equals the sum of its member cells along one axis.
"""

from __future__ import annotations

import polars as pl

IDENTITIES_SCHEMA = {
    "identity_id": pl.String,  # f"{table_id}:{kind}:{axis}{index}", stable across runs
    "table_id": pl.String,
    "kind": pl.String,  # col_total (a total row) | row_total (a total column) | subtotal
    "total_row_idx": pl.Int32,  # position of the total cell
    "total_col_idx": pl.Int32,
    "member_rows": pl.List(pl.Int32),  # member cell positions (same length lists)
    "member_cols": pl.List(pl.Int32),
    "total_value_str": pl.String,
    "members_sum_str": pl.String,
    "residual": pl.Float64,  # total - sum(members)
    "tolerance": pl.Float64,  # allowed |residual| from the table's printed precision
    "holds": pl.Boolean,
    "found_by": pl.String,  # label | arithmetic
}

ANCHORED_CELLS_SCHEMA = {
    "table_id": pl.String,
    "doc_id": pl.String,
    "page_no": pl.Int32,
    "table_no": pl.Int32,
    "row_idx": pl.Int32,
    "col_idx": pl.Int32,
    "row_label": pl.String,
    "col_label": pl.String,
    "status": pl.String,  # confirmed | repaired | contradicted
    # the value to use: printed (confirmed), repaired reading, or implied by the total
    "value_str": pl.String,
    "printed_str": pl.String,  # the value as read from the page
    "implied_str": pl.String,  # for contradicted cells: total - sum(other members); else null
    "is_total": pl.Boolean,
    "identity_ids": pl.List(pl.String),  # identities this cell takes part in
    "unit_multiplier": pl.Int64,
    "quality": pl.String,
}

REPAIRS_SCHEMA = {
    "table_id": pl.String,
    "row_idx": pl.Int32,
    "col_idx": pl.Int32,
    "original_str": pl.String,  # what OCR read
    "repaired_str": pl.String,  # the only reading that satisfies every identity of the cell
    "identity_ids": pl.List(pl.String),
}
