"""Parquet contracts of the table assets: ``tables`` and ``table_cells``."""

from __future__ import annotations

import polars as pl

TABLES_SCHEMA = {
    "table_id": pl.String,  # f"{doc_id}:{page_no}:{table_no}"
    "doc_id": pl.String,
    "page_no": pl.Int32,
    "table_no": pl.Int32,  # 0-based, top to bottom on the page
    "title": pl.String,  # as printed, number and "(Continued)" included
    "table_number": pl.String,  # "Table 3", "TABLE CM-II-2"; "" if none
    # the title without number, unit or "(Continued)": what a question names
    "statement": pl.String,
    "continued": pl.Boolean,  # the title says "(Continued)" / "con."
    # "millions of dollars", "thousands", "dollars", "percent"; "unknown" if none printed
    "unit": pl.String,
    "unit_multiplier": pl.Int64,  # 1, 1_000, 1_000_000, 1_000_000_000; null when unknown
    # unit_line | title | column_head | page_head | continued (from the table it continues) | none
    "unit_source": pl.String,
    "unit_printed": pl.String,  # the printed text the unit was read from
    "stub_head": pl.String,  # the head of the label column, e.g. "Fiscal year or month"
    "n_rows": pl.Int32,  # body rows
    "n_cols": pl.Int32,  # value columns (the label column is not counted)
    "col_labels": pl.List(pl.String),  # header path per value column, levels joined by " / "
    "x0": pl.Float64,
    "y0": pl.Float64,
    "x1": pl.Float64,
    "y1": pl.Float64,
    "quality": pl.String,  # the page's quality tag
    "word_source": pl.String,  # ocr | text_layer: where the page's words came from
    # the title as read, before lexicon corrections of OCR slips and a glued folio dropped
    "title_read": pl.String,
}

TABLE_CELLS_SCHEMA = {
    "table_id": pl.String,
    "doc_id": pl.String,
    "page_no": pl.Int32,
    "table_no": pl.Int32,
    "row_idx": pl.Int32,  # 0-based over body rows
    "col_idx": pl.Int32,  # 0-based over value columns
    "row_label": pl.String,  # the row's label text (indentation dropped)
    "col_label": pl.String,  # header path, levels joined by " / "
    # why the column's header path is uncertain (a spanner that may or may not stand
    # over the column, see pipeline.tables.headers); "" when it is read unambiguously
    "col_label_doubt": pl.String,
    "text": pl.String,  # the cell as read
    "is_number": pl.Boolean,
    "value": pl.Float64,  # parsed number (dash = 0); null when not a number
    "value_str": pl.String,  # exact decimal text of the value, e.g. "-1234.5"; null if not a number
    "negative": pl.Boolean,
    "is_dash": pl.Boolean,
    "footnote": pl.String,  # footnote marks glued to the number, e.g. "1/" or "*"; "" if none
    "revised": pl.Boolean,  # an "r" revised mark
    "conf": pl.Float64,  # min OCR confidence of the cell's words
    "row_parent": pl.String,  # the stub heading the row sits under; "" at the top level
    "row_label_read": pl.String,  # the label as read, before lexicon corrections of OCR slips
    # OCR label words (row and column) the archive's lexicon does not confirm
    "label_doubt": pl.List(pl.String),
    "period_kind": pl.String,  # pipeline.tables.periods.KINDS; null when no period is printed
    "period_start": pl.Date,
    "period_end": pl.Date,
    "period_text": pl.String,  # how a question states the period
    "period_axis": pl.String,  # where the period is printed: col | row | title | grid | ""
    "dimension": pl.String,  # what the column measures when a period has several columns
    "x0": pl.Float64,
    "y0": pl.Float64,
    "x1": pl.Float64,
    "y1": pl.Float64,
}
