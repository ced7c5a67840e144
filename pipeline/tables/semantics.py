"""Table semantics for frames read without the page-layout stage.

The layout stage (:mod:`pipeline.tables.layout`) decides a table's statement name, unit
and each cell's period while it reads the page. A reading that arrives as plain frames
(the generator's perfect reading, an imported parse) gets the same decisions here, from
the same rules: :func:`pipeline.tables.titles.split_title`,
:func:`pipeline.tables.units.table_unit` and :func:`pipeline.tables.axes.cell_periods`.
"""

from __future__ import annotations

import polars as pl

from pipeline.tables.axes import cell_periods
from pipeline.tables.titles import split_title
from pipeline.tables.units import table_unit


def annotate(tables: pl.DataFrame, cells: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """``tables`` with statement/unit columns and ``cells`` with period columns filled.

    ``tables`` needs ``table_id``, ``title``, ``unit`` (the printed unit line) and
    ``col_labels`` (``page_head``, the unit lines printed at the head of the page, is
    optional); ``cells`` needs ``table_id``, ``row_idx``, ``col_idx``, ``row_label``.
    """
    table_rows, periods = [], []
    labels = {
        k[0]: dict(zip(g["row_idx"].to_list(), g["row_label"].to_list(), strict=True))
        for k, g in cells.select("table_id", "row_idx", "row_label").unique().group_by(["table_id"])
    }
    # the rows' stub headings ("Fiscal years:", "Calendar years:", "Months:"), when the
    # cells carry them: a heading that names a kind of year dates the year rows under it,
    # as in the page reading (pipeline.tables.layout)
    headings: dict[str, dict[int, str]] = {}
    if "row_parent" in cells.columns:
        rows = cells.select("table_id", "row_idx", "row_parent").unique(["table_id", "row_idx"])
        for k, g in rows.group_by(["table_id"]):
            headings[k[0]] = dict(
                zip(g["row_idx"].to_list(), g["row_parent"].fill_null("").to_list(), strict=True)
            )
    for t in tables.iter_rows(named=True):
        title = split_title(t["title"] or "")
        printed_unit = t.get("unit_printed") or t.get("unit") or ""
        page_head = t.get("page_head") or []  # unit lines at the head of the page, if known
        unit = table_unit(
            t["title"] or "",
            [printed_unit] if printed_unit else [],
            t["col_labels"] or [],
            [page_head] if isinstance(page_head, str) else list(page_head),
        )
        table_rows.append(
            {
                **t,
                "table_number": title.number,
                "statement": title.name,
                "continued": title.continued,
                "unit": unit.words,
                "unit_multiplier": unit.multiplier,
                "unit_source": unit.source,
                "unit_printed": unit.printed,
                "stub_head": t.get("stub_head") or "",
            }
        )
        by_row = labels.get(t["table_id"], {})
        row_labels = [by_row.get(i, "") for i in range(max(by_row, default=-1) + 1)]
        by_heading = headings.get(t["table_id"], {})
        row_headings = [by_heading.get(i, "") for i in range(len(row_labels))]
        for (r, c), cp in cell_periods(
            t["col_labels"] or [],
            row_labels,
            title.name,
            t.get("stub_head") or "",
            printed_unit,
            row_headings=row_headings,
        ).items():
            p = cp.period
            periods.append(
                {
                    "table_id": t["table_id"],
                    "row_idx": r,
                    "col_idx": c,
                    "period_kind": p.kind if p else None,
                    "period_start": p.start if p else None,
                    "period_end": p.end if p else None,
                    "period_text": p.text if p else None,
                    "period_axis": cp.axis,
                    "dimension": cp.dimension,
                }
            )
    period_schema = {
        "table_id": pl.String,
        "row_idx": pl.Int32,
        "col_idx": pl.Int32,
        "period_kind": pl.String,
        "period_start": pl.Date,
        "period_end": pl.Date,
        "period_text": pl.String,
        "period_axis": pl.String,
        "dimension": pl.String,
    }
    period_frame = pl.DataFrame(periods, schema=period_schema, orient="row")
    keep = [
        c
        for c in cells.columns
        if c not in period_schema or c in ("table_id", "row_idx", "col_idx")
    ]
    out_cells = (
        cells.select(keep)
        .with_columns(pl.col("row_idx").cast(pl.Int32), pl.col("col_idx").cast(pl.Int32))
        .join(period_frame, on=["table_id", "row_idx", "col_idx"], how="left")
    )
    if "row_parent" not in out_cells.columns:
        out_cells = out_cells.with_columns(row_parent=pl.lit(""))
    out_tables = pl.DataFrame(table_rows, infer_schema_length=None) if table_rows else tables
    return out_tables, out_cells
