"""Ground-truth contracts of the synthetic scan corpus (``<out>/truth/*.parquet``).

Coordinates: ``page_no`` is 1-based; ``table_no`` is 0-based top to bottom on the
page; ``row_idx``/``col_idx`` are 0-based over body rows and value columns (the
label column is not counted), i.e. the grid a table reader should rebuild.
Values are exact decimal text in the table's unit (``"-1234.5"``; ``"0"`` for a dash).
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from pipeline.store import check_schema

TRUTH_PAGES_SCHEMA = {
    "file_name": pl.String,
    "volume": pl.String,  # "1950-03"
    "page_no": pl.Int32,
    "kind": pl.String,  # contents | tables
    "dpi": pl.Int32,  # resolution of the page image (pixels per inch)
    "blur_sigma": pl.Float64,  # gaussian sigma in page-image pixels
    "noise_sd": pl.Float64,  # gaussian noise sd in gray levels (0-255)
    "skew_deg": pl.Float64,  # counter-clockwise rotation of the page content
    "n_tables": pl.Int32,
}

TRUTH_TABLES_SCHEMA = {
    "file_name": pl.String,
    "volume": pl.String,
    "page_no": pl.Int32,
    "table_no": pl.Int32,
    "series_id": pl.String,  # the same statement across volumes
    # as printed, e.g. "Table 3.- Budget Receipts by Source", unit (title layout) and
    # "(Continued)" included
    "title": pl.String,
    "statement": pl.String,  # the statement name: no number, unit or "(Continued)"
    "continued": pl.Boolean,  # the title says "(Continued)"
    # the unit as printed where the page prints it (unit line, title, column head or
    # page head), e.g. "(In millions of dollars)"; "" when the page prints none
    "unit": pl.String,
    "unit_words": pl.String,  # "millions of dollars", ...; "unknown" when none is printed
    "unit_multiplier": pl.Int64,  # null when the page prints no unit
    "unit_source": pl.String,  # unit_line | title | column_head | page_head | none
    "page_head": pl.String,  # the unit line printed once at the head of the page, or ""
    # the layouts this table shows (pipeline.synth.statements.StatementTable.tags), e.g.
    # unit_title, quarters, year_to_date, cumulative, estimates, as_of, months,
    # month_year_rows, month_grid, date_groups, dims, not_a_period, wrapped, hyphenated,
    # headings, label_marks, chart, continued, classic
    "layout": pl.List(pl.String),
    "stub_head": pl.String,  # the head of the label column as printed
    "n_rows": pl.Int32,  # body rows (header lines excluded)
    "n_cols": pl.Int32,  # value columns (label column excluded)
    # clean labels: indentation and footnote marks dropped, wrapped lines joined
    "row_labels": pl.List(pl.String),
    "col_labels": pl.List(pl.String),  # header levels joined by " / "
    "has_misprint": pl.Boolean,
    # Extra: the table's box on the unskewed page in PDF points (title to bottom rule,
    # footnotes excluded), for matching detected tables by overlap.
    "x0": pl.Float64,
    "y0": pl.Float64,
    "x1": pl.Float64,
    "y1": pl.Float64,
}

TRUTH_CELLS_SCHEMA = {
    "file_name": pl.String,
    "volume": pl.String,
    "page_no": pl.Int32,
    "table_no": pl.Int32,
    "row_idx": pl.Int32,
    "col_idx": pl.Int32,
    # the clean label: wrapped lines joined (a word broken at a hyphen made whole),
    # footnote marks ("3/") dropped
    "row_label": pl.String,
    "col_label": pl.String,  # header levels as printed joined by " / "
    "printed_text": pl.String,  # exactly as printed, marks included, e.g. "r(1,234) 1/"
    "printed_value_str": pl.String,  # the number printed; "0" for a dash
    "true_value_str": pl.String,  # differs from printed only on a misprint
    "is_total": pl.Boolean,  # a row total, column total or subtotal cell
    "misprint": pl.Boolean,
    "revised": pl.Boolean,  # carries an "r" mark
    "footnote": pl.String,  # "1/", "2/", "*" or ""
    "row_label_printed": pl.String,  # the label's printed lines joined by "\n", marks kept
    "row_parent": pl.String,  # the stub heading ("Internal revenue") the row sits under, or ""
    # the period a question about this cell states (pipeline.tables.periods kinds):
    # fiscal_year, quarter, month, year_to_date (end null: the page prints no end),
    # cumulative_to_date (start null), as_of_date, estimate, or not_a_period for a cell
    # whose labels carry years that are not periods (bond maturities "1960-65"); null
    # where nothing dates the cell (a "Total" column over the periods)
    "period_kind": pl.String,
    "period_start": pl.Date,
    "period_end": pl.Date,
    "period_text": pl.String,
    "dimension": pl.String,  # what the column measures where a period has several; else null
}

TRUTH_IDENTITIES_SCHEMA = {
    "file_name": pl.String,
    "page_no": pl.Int32,
    "table_no": pl.Int32,
    "kind": pl.String,  # col_total (a total row) | row_total (a total column) | subtotal
    "total_row_idx": pl.Int32,
    "total_col_idx": pl.Int32,
    "member_rows": pl.List(pl.Int32),
    "member_cols": pl.List(pl.Int32),
    "holds_as_printed": pl.Boolean,
}

TRUTH_REVISIONS_SCHEMA = {
    "series_id": pl.String,
    "row_label": pl.String,
    "col_label": pl.String,
    "first_volume": pl.String,  # the volume that printed the earlier value
    "first_value_str": pl.String,
    "revised_volume": pl.String,  # the volume that printed the revised value (marked "r")
    "revised_value_str": pl.String,
    # row and column labels of the earlier printing (row_label / col_label are the revised
    # printing's; they differ where a month row carries its year in one volume only)
    "first_row_label": pl.String,
    "first_col_label": pl.String,
    # the stub headings over the row in the revised and the earlier printing ("Calendar
    # years"; "" for none): a year printed under two headings is two facts
    "row_parent": pl.String,
    "first_row_parent": pl.String,
}

TRUTH_SCHEMAS = {
    "truth_pages": TRUTH_PAGES_SCHEMA,
    "truth_tables": TRUTH_TABLES_SCHEMA,
    "truth_cells": TRUTH_CELLS_SCHEMA,
    "truth_identities": TRUTH_IDENTITIES_SCHEMA,
    "truth_revisions": TRUTH_REVISIONS_SCHEMA,
}


def truth_frame(name: str, rows: list[dict]) -> pl.DataFrame:
    """A truth table from row dicts, typed and ordered by its declared schema."""
    schema = TRUTH_SCHEMAS[name]
    return pl.from_dicts(rows, schema=schema) if rows else pl.DataFrame(schema=schema)


def read_truth(truth_dir: Path, name: str) -> pl.DataFrame:
    """Read one truth table and check it against its schema (names the file on mismatch)."""
    path = truth_dir / f"{name}.parquet"
    # glob=False: a truth folder's path may hold [ ] * ?, which polars would expand
    frame = pl.read_parquet(path, glob=False)
    return check_schema(frame, TRUTH_SCHEMAS[name], str(path))
