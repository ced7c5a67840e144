"""The grid: what every table position holds, in exact integer units.

Decides, per position of every table (including the positions a sparse reading left
empty), its value in integer units of ``10**-decimals`` (``decimals`` the most decimal
places any number in the batch prints, at most ``MAX_DECIMALS``), the decimal places
printed, and whether its row or column label announces a total (``TOTAL_LABEL``).
Also the shared position keys (one Int64 per position, ``_cell``) and the number
reading/formatting every other step of the anchors stage uses.
"""

from __future__ import annotations

import polars as pl

from pipeline.ingest.digits import TRUSTED_CONF

# Row/column labels that announce a total. "Net ..." lines are often sums of a
# section too; when they are differences they simply fail to add up and get no span.
TOTAL_LABEL = r"(?i)^[^a-z0-9]*(grand\s+total|sub-?\s*total|totals?|net)\b"

# A label (or one level of a header path) that announces a deduction: "Deduct:",
# "Less:", "Deductions". A line under such a spanner is subtracted from the total, not
# added; the sign cannot be read reliably from a garbled header, so a span that
# holds such a line asserts no identity. "Less than ..." is a size class, not a
# deduction.
DEDUCT_LABEL = r"(?i)(^|/)\W*(deduct(ions?)?|less)\b"
_SIZE_CLASS = r"(?i)(^|/)\W*less\s+than\b"

# Decimal places carried exactly; more than this is rounded (never seen in statements).
MAX_DECIMALS = 6

# Rows and columns per table are numbered below _SLOT; a position packs into one Int64.
_SLOT = 4096
_POS = ["cell", "tkey", "row_idx", "col_idx"]
_KEY = ["cell"]


def _scaled(value_str: pl.Expr, decimals: int) -> tuple[pl.Expr, pl.Expr]:
    """Exact integer units (10**-decimals) of a decimal text, and its printed decimals."""
    text = value_str.str.strip_chars()
    negative = text.str.starts_with("-")
    body = text.str.strip_prefix("-")
    parts = body.str.split(".")
    whole = parts.list.get(0, null_on_oob=True)
    frac = parts.list.get(1, null_on_oob=True).fill_null("")
    units = (whole + frac.str.slice(0, decimals).str.pad_end(decimals, "0")).cast(
        pl.Int64, strict=False
    )
    units = pl.when(negative).then(-units).otherwise(units)
    return units, frac.str.len_chars().cast(pl.Int32)


def _format(units: pl.Expr, dec: pl.Expr, decimals: int) -> pl.Expr:
    """Decimal text of integer units, with at least ``dec`` places (more if needed)."""
    scale = 10**decimals
    mag = units.abs()
    whole = (mag // scale).cast(pl.String)
    if decimals == 0:
        body = whole
    else:
        frac_full = (mag % scale).cast(pl.String).str.pad_start(decimals, "0")
        places = pl.max_horizontal(dec, frac_full.str.strip_chars_end("0").str.len_chars())
        body = (
            pl.when(places > 0).then(whole + "." + frac_full.str.slice(0, places)).otherwise(whole)
        )
    return pl.when(units < 0).then("-" + body).otherwise(body)


def _cell(tkey: pl.Expr, row_idx: pl.Expr, col_idx: pl.Expr) -> pl.Expr:
    """One integer per table position: joins on one Int64 beat joins on three columns."""
    return (tkey * _SLOT + row_idx.cast(pl.Int64)) * _SLOT + col_idx.cast(pl.Int64)


def _grid(tables: pl.DataFrame, cells: pl.DataFrame) -> tuple[pl.DataFrame, int]:
    """Every position of every table with its value in exact integer units."""
    # only the columns this stage reads: the join copies every column it carries
    cells = cells.select(
        "table_id",
        "row_idx",
        "col_idx",
        "value_str",
        "is_number",
        "is_dash",
        "revised",
        "row_label",
        "col_label",
        "conf",
        text=pl.col("text") if "text" in cells.columns else pl.lit(None, pl.String),
    ).join(
        tables.select(
            "table_id",
            "tkey",
            text_layer=(pl.col("word_source") == "text_layer").fill_null(False)
            if "word_source" in tables.columns
            else pl.lit(False),
        ),
        on="table_id",
        how="left",
    )
    unknown = cells.filter(pl.col("tkey").is_null())
    if len(unknown):
        raise ValueError(
            f"table_cells: {len(unknown)} cells belong to no table in `tables` "
            f"(e.g. {unknown['table_id'][0]!r})"
        )
    outside = cells.filter(
        ~pl.col("row_idx").is_between(0, _SLOT - 1) | ~pl.col("col_idx").is_between(0, _SLOT - 1)
    )
    if len(outside):
        first = outside.row(0, named=True)
        raise ValueError(
            f"table_cells: {len(outside)} cells lie outside rows/columns 0..{_SLOT - 1} "
            f"(e.g. table {first['table_id']!r} row {first['row_idx']} col {first['col_idx']})"
        )
    cells = cells.with_columns(cell=_cell(pl.col("tkey"), pl.col("row_idx"), pl.col("col_idx")))
    dupes = cells.filter(pl.col("cell").is_duplicated())
    if len(dupes):
        first = dupes.row(0, named=True)
        raise ValueError(
            f"table_cells: {dupes['cell'].n_unique()} positions hold more than one cell "
            f"(e.g. table {first['table_id']!r} row {first['row_idx']} col {first['col_idx']})"
        )
    numeric = pl.col("is_number").fill_null(False) & pl.col("value_str").is_not_null()
    frac = pl.col("value_str").str.split(".").list.get(1, null_on_oob=True).str.len_chars()
    top = cells.filter(numeric).select(frac.max()).item()
    decimals = min(int(top or 0), MAX_DECIMALS)
    units, dec = _scaled(pl.col("value_str"), decimals)
    # the label patterns run once per distinct label, not once per cell
    row_totals = (
        cells.select(pl.col("row_label").unique())
        .filter(pl.col("row_label").str.contains(TOTAL_LABEL))
        .to_series()
    )
    # the deepest header level names the column ("Internal revenue / Total" is a total)
    col_totals = (
        cells.select(pl.col("col_label").unique())
        .filter(pl.col("col_label").str.split(" / ").list.last().str.contains(TOTAL_LABEL))
        .to_series()
    )
    deducts = (
        pl.concat([cells.select(label="row_label"), cells.select(label="col_label")])
        .unique()
        .filter(
            pl.col("label").str.contains(DEDUCT_LABEL) & ~pl.col("label").str.contains(_SIZE_CLASS)
        )
        .to_series()
    )
    grid = cells.select(
        *_POS,
        "value_str",
        "text",
        "row_label",
        "col_label",
        v=pl.when(numeric).then(units),
        dec=pl.when(numeric).then(dec).otherwise(0).cast(pl.Int32),
        is_dash=pl.col("is_dash").fill_null(False),
        revised=pl.col("revised").fill_null(False),
        row_total=pl.col("row_label").is_in(row_totals.implode()).fill_null(False),
        col_total=pl.col("col_label").is_in(col_totals.implode()).fill_null(False),
        row_deduct=pl.col("row_label").is_in(deducts.implode()).fill_null(False),
        col_deduct=pl.col("col_label").is_in(deducts.implode()).fill_null(False),
        text_layer="text_layer",
        # a figure OCR read below TRUSTED_CONF is a doubtful reading (null: no OCR)
        doubtful=(pl.col("conf") < TRUSTED_CONF).fill_null(False) & ~pl.col("text_layer"),
    )
    flags = ["is_dash", "revised", "row_total", "col_total", "row_deduct", "col_deduct", "doubtful"]
    # positions the reader left empty: only tables with fewer cells than their shape
    counts = grid.group_by("tkey").len()
    sparse = tables.join(counts, on="tkey", how="left").filter(
        pl.col("len").fill_null(0) < pl.col("n_rows").fill_null(0) * pl.col("n_cols").fill_null(0)
    )
    if len(sparse):
        shape = (
            sparse.select("tkey", row_idx=pl.int_ranges(0, pl.col("n_rows").fill_null(0)))
            .explode("row_idx", empty_as_null=False)
            .drop_nulls()
            .join(
                sparse.select("tkey", col_idx=pl.int_ranges(0, pl.col("n_cols").fill_null(0)))
                .explode("col_idx", empty_as_null=False)
                .drop_nulls(),
                on="tkey",
            )
            .select(
                "tkey",
                pl.col("row_idx", "col_idx").cast(pl.Int32),
                cell=_cell(pl.col("tkey"), pl.col("row_idx"), pl.col("col_idx")),
            )
            .join(grid.select("cell"), on="cell", how="anti")
        )
        grid = pl.concat([grid, shape], how="diagonal_relaxed").with_columns(
            pl.col("dec", *flags).fill_null(strategy="zero"),
            pl.col("text_layer").fill_null(False),
        )
        grid = grid.with_columns(pl.col(*flags, "text_layer").cast(bool))
    # "2.372" in a table of whole numbers is "2,372" with OCR's period for a comma: its
    # value is unknown, so it neither anchors nor is anchored (a total would otherwise
    # "imply" 6869.312 for a neighbour in a table printed in whole thousands)
    modal = (
        grid.filter(pl.col("v").is_not_null())
        .group_by("tkey", "dec")
        .len()
        .sort("tkey", "len", "dec", descending=[False, True, False])
        .unique("tkey", keep="first")
        .select("tkey", modal_dec="dec")
    )
    slip = (pl.col("dec") == 3) & (pl.col("modal_dec") == 0) & ~pl.col("text_layer")
    grid = (
        grid.join(modal, on="tkey", how="left")
        .with_columns(
            v=pl.when(slip.fill_null(False)).then(None).otherwise("v"),
            dec=pl.when(slip.fill_null(False)).then(0).otherwise("dec"),
        )
        .drop("modal_dec")
    )
    grid = _revised_mark_slips(grid).drop("text")
    return grid.with_columns(
        present=pl.col("v").is_not_null(),
        table_dec=pl.col("dec").max().over("tkey").fill_null(0),
    ), decimals


# a figure whose whole part runs four digits or more with no thousands separator,
# the first a 1 ("1348.7"), and the separator the table prints elsewhere ("1,335.9")
_UNGROUPED_ONE = r"^\W*1\d{3,}(\.\d+)?\W*$"
_GROUPED = r"\d[,.]\d{3}(\D|$)"


def _revised_mark_slips(grid: pl.DataFrame) -> pl.DataFrame:
    """Figures whose leading 1 may be an "r" revised mark OCR read as a digit: unknown.

    In a table that prints revised marks ("r1,421.1") and groups its thousands, tesseract
    reads "r348.7" as "1348.7": a figure a thousand too large and without the separator
    every figure of that size prints. A revised member and its revised total misread
    alike still add up (348.7 + 1286.2 = 1634.9 for r348.7 + r286.2 = r634.9), so such
    an identity would confirm two wrong figures. Their value is unknown: they neither
    anchor nor are anchored. (Figures a text layer gives are not OCR's.)
    """
    text = pl.col("text").fill_null("")
    marks = grid.group_by("tkey").agg(
        marked=pl.col("revised").any(),
        grouped=text.str.contains(_GROUPED).any(),
    )
    slip = (
        pl.col("marked")
        & pl.col("grouped")
        & pl.col("v").is_not_null()
        & ~pl.col("revised")
        & ~pl.col("text_layer")
        & text.str.contains(_UNGROUPED_ONE)
    ).fill_null(False)
    return (
        grid.join(marks, on="tkey", how="left", maintain_order="left")
        .with_columns(v=pl.when(slip).then(None).otherwise("v"))
        .drop("marked", "grouped")
    )
