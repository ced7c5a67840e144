"""Total-anchored cells: the ``identities`` and ``anchored_cells`` stage.

A printed statement table checks itself: a "Total" row equals the sum of the rows
above it, a "Total" column the sum of the columns to its left, a subtotal the sum of
its indented members. This stage finds those identities, checks them, and catalogues
every cell they fix:

1. **Spans.** A *span* is a total line (row or column) and the contiguous run of
   lines it adds up. Spans are found by arithmetic with prefix sums (a run sums to
   the total when ``Q(t) - v(t) == Q(start)``; ``sql/anchors_runs.sql``), voted over
   the crossing positions so that a misread cell cannot hide a span. Lines labelled
   like totals ("Total ...", "Grand total", "Subtotal", "Net ...") are accepted on
   weaker evidence; unlabelled lines must add up in most positions. The search runs
   in rounds: lines already known to be totals are left out of the sums, so a parent
   total adds its leaves once and nested subtotals are found level by level.
2. **Identities.** Each span gives one identity per crossing position; the members
   are the run's lines minus those inside a nested span (``sql/anchors_members.sql``).
3. **Tolerance.** Numbers are compared in exact integer units of the printed last
   place. A table whose totals were added from the printed figures closes exactly;
   one whose totals were rounded separately may miss by up to
   ``n_members * half a unit of the last printed place``. A table counts as exact
   when at least half of its identities close exactly (smoothed towards its
   document's share, weight ``DOC_PRIOR_WEIGHT``, so that one-identity tables follow
   their volume); exact tables get tolerance 0, the others the rounding tolerance.
   So a one-unit OCR slip (8->9, 5->6 in the last place) is caught in exact tables
   and cannot be caught in rounded ones.
4. **Breaking cells.** For a failing identity, a *candidate* is a cell whose single
   correction makes every identity it is in hold (the allowed corrections of its
   identities intersect). Among an identity's candidates the one that sits in the
   most failing identities is the breaking cell (a cell that also fails in the
   cross-direction identity, or a subtotal failing both as total and as member) when
   it is unique. If no cell is unique that way, the series' other printings are
   asked (``_pin_by_reprints``): the same title (modulo "Table N.-"; a title printed
   twice in one volume names no series), unit, row and column label in other
   documents. The only candidate whose implied value another, confirmed printing
   shows is the breaking cell (or the only one that differs from all its printings
   while the total agrees with its own); figures with an "r" revised mark are never
   compared. Next, the identity is pinned when exactly one candidate has exactly one
   OCR digit-confusion reading that fixes it, not counting cells that another volume
   prints exactly as read here. Last, the bookkeeper's rule of nine: when swapping
   two adjacent figures of exactly one candidate gives its implied value (a
   transposition, the commonest typesetting slip; its residual is a multiple of
   nine), that cell is pinned.
   Otherwise no cell of that identity is anchored by it.
5. **Repairs.** A breaking cell whose only fixing reading differs from the printed
   one by one confusable digit (``CONFUSABLE_DIGITS``) is repaired (when another
   printing supports the cell, only if the reading equals it); otherwise it is
   *contradicted*: the printed number disagrees with the total and the value the
   total implies (in a rounded table: the supporting printing) is recorded.
6. **Confirmed cells.** Every other cell of an identity that holds (or holds once
   its breaking cell is corrected) is confirmed.

Known limits: totals that are differences ("Net" = gross - refunds), totals above or
left of their members, and non-contiguous member sets are not recognised; an
identity with two wrong cells is left unresolved; a misprinted figure printed in one
volume only, in a table with totals in one direction, is pinned only when it is a
transposition.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import duckdb
import numpy as np
import polars as pl
import pyarrow as pa

from pipeline.detect.schemas import ANCHORED_CELLS_SCHEMA, IDENTITIES_SCHEMA, REPAIRS_SCHEMA
from pipeline.store.warehouse import check_schema, run_sql
from pipeline.tables.schemas import TABLE_CELLS_SCHEMA, TABLES_SCHEMA

# Row/column labels that announce a total. "Net ..." lines are often sums of a
# section too; when they are differences they simply fail to add up and get no span.
TOTAL_LABEL = r"(?i)^[^a-z0-9]*(grand\s+total|sub-?\s*total|totals?|net)\b"
# The "Table N.-" prefix of a title: the same series keeps its title across volumes
# but may be renumbered. Applied to the lower-cased title.
TABLE_NUMBER = r"^\W*table\s+[0-9ivxlc]+[a-z]?\s*[.:]*\s*-*\s*"

# One-digit OCR confusions, both directions. Kept to the pairs OCR is known to swap
# on degraded scans; a wider set would "repair" genuine misprints into totals.
CONFUSABLE_DIGITS: tuple[tuple[str, str], ...] = (
    ("8", "6"),
    ("8", "9"),
    ("3", "8"),
    ("1", "7"),
    ("5", "6"),
    ("0", "8"),
    ("0", "6"),
)

# Decimal places carried exactly; more than this is rounded (never seen in statements).
MAX_DECIMALS = 6
# Weight of the document's exact-closing share when deciding a table's tolerance.
DOC_PRIOR_WEIGHT = 2.0
# Search rounds: each finds one more nesting level of subtotals.
MAX_ROUNDS = 4

# Rows and columns per table are numbered below _SLOT; a position packs into one Int64.
_SLOT = 4096
_POS = ["cell", "tkey", "row_idx", "col_idx"]
_KEY = ["cell"]
_SPAN = ["lkey", "total_line"]


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


# ---------------------------------------------------------------- reading numbers


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
    ).join(tables.select("table_id", "tkey"), on="table_id", how="left")
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
    grid = cells.select(
        *_POS,
        "value_str",
        "row_label",
        "col_label",
        v=pl.when(numeric).then(units),
        dec=pl.when(numeric).then(dec).otherwise(0).cast(pl.Int32),
        is_dash=pl.col("is_dash").fill_null(False),
        revised=pl.col("revised").fill_null(False),
        row_total=pl.col("row_label").is_in(row_totals.implode()).fill_null(False),
        col_total=pl.col("col_label").is_in(col_totals.implode()).fill_null(False),
    )
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
            pl.col("dec", "is_dash", "revised", "row_total", "col_total").fill_null(strategy="zero")
        )
        grid = grid.with_columns(pl.col("is_dash", "revised", "row_total", "col_total").cast(bool))
    return grid.with_columns(
        present=pl.col("v").is_not_null(),
        table_dec=pl.col("dec").max().over("tkey").fill_null(0),
    ), decimals


# ---------------------------------------------------------------- spans


def _axis(lkey: pl.Expr) -> pl.Expr:
    """The axis of a line key (tkey * 2 for rows, tkey * 2 + 1 for columns)."""
    return pl.when(lkey % 2 == 0).then(pl.lit("down")).otherwise(pl.lit("across"))


def _lines(grid: pl.DataFrame, decimals: int) -> pl.DataFrame:
    """Both axes of every table as lines crossed by positions (input of anchors_runs).

    Integer keys only: ``lkey`` names one axis of one table, ``strand`` one crossing
    position of it (the partition of the prefix sums).
    """
    ulp = (pl.lit(10.0) ** (decimals - pl.col("table_dec").clip(upper_bound=decimals))).alias("ulp")
    base = grid.select("tkey", "row_idx", "col_idx", "v", "present", "row_total", "col_total", ulp)
    lines = pl.concat(
        [
            base.select(
                lkey=pl.col("tkey") * 2,
                line=pl.col("row_idx"),
                xpos=pl.col("col_idx"),
                v=pl.col("v"),
                present=pl.col("present"),
                label_total=pl.col("row_total"),
                ulp=pl.col("ulp"),
            ),
            base.select(
                lkey=pl.col("tkey") * 2 + 1,
                line=pl.col("col_idx"),
                xpos=pl.col("row_idx"),
                v=pl.col("v"),
                present=pl.col("present"),
                label_total=pl.col("col_total"),
                ulp=pl.col("ulp"),
            ),
        ]
    )
    # strand-major, line order within a strand: the order the prefix sums run in
    return (
        lines.with_columns(strand=pl.col("lkey") * _SLOT + pl.col("xpos"))
        .sort(pl.col("strand") * _SLOT + pl.col("line"))
        .with_columns(line_id=pl.col("lkey") * _SLOT + pl.col("line"))
    )


def _prefix_sums(batch: pl.DataFrame) -> pl.DataFrame:
    """Running sums before each line of its strand (``q``: summed values, ``m``: gaps).

    ``batch`` is strand-sorted, so one running sum over the frame, restarted at each
    strand's first row, does what a window partitioned by strand would.
    """
    summed = pl.when(pl.col("present") & ~pl.col("excluded")).then(pl.col("v")).otherwise(0)
    gap = pl.when(pl.col("present") | pl.col("excluded")).then(0).otherwise(1).cast(pl.Int64)
    first = pl.col("strand") != pl.col("strand").shift(1, fill_value=-1)

    def before(x: pl.Expr) -> pl.Expr:
        running = x.cum_sum() - x
        return running - pl.when(first).then(running).forward_fill()

    return batch.with_columns(q=before(summed), m=before(gap))


def _find_spans(con: duckdb.DuckDBPyConnection, lines: pl.DataFrame) -> pl.DataFrame:
    """Accepted spans (tkey, axis, total_line, start_line, found_by), nested levels included.

    Round 0 leaves labelled total lines out of the sums; later rounds leave out the
    totals found so far. Only tables whose left-out set changed are searched again.
    """
    span_schema = {
        "lkey": pl.Int64,
        "total_line": pl.Int32,
        "start_line": pl.Int32,
        "found_by": pl.String,
    }
    line_key = ["lkey", "total_line"]
    accepted = pl.DataFrame(schema=span_schema)
    labelled = lines.filter("label_total").select("lkey", total_line="line").unique()
    excluded = labelled
    batch = lines
    for _ in range(MAX_ROUNDS):
        if batch.is_empty():
            break
        # filters, not joins: the batch must stay in strand order for the prefix sums
        left_out = excluded.select(pl.col("lkey") * _SLOT + pl.col("total_line")).to_series()
        batch = _prefix_sums(
            batch.with_columns(excluded=pl.col("line_id").is_in(left_out.implode()))
        )
        con.register("lines", batch)
        found = run_sql(con, "anchors_runs")
        con.unregister("lines")
        new = found.select(
            pl.col("lkey").cast(pl.Int64),
            pl.col("total_line").cast(pl.Int32),
            pl.col("start_line").cast(pl.Int32),
            "found_by",
        ).join(accepted, on=line_key, how="anti")
        accepted = pl.concat([accepted, new])
        known = accepted.select(line_key)
        # search again where the left-out set is not yet the set of found totals
        changed = pl.concat(
            [
                known.join(excluded, on=line_key, how="anti"),
                excluded.join(known, on=line_key, how="anti"),
            ]
        )
        todo = changed.select(tkey=pl.col("lkey") // 2).unique()
        todo = pl.concat(
            [todo.select(lkey=pl.col("tkey") * 2), todo.select(lkey=pl.col("tkey") * 2 + 1)]
        )
        batch = lines.filter(pl.col("lkey").is_in(todo["lkey"].implode()))
        excluded = known
    return pl.concat(
        [
            accepted.with_columns(fallback=pl.lit(False)),
            _fallback_spans(labelled, accepted),
        ]
    ).select(
        "lkey",
        tkey=pl.col("lkey") // 2,
        axis=_axis(pl.col("lkey")),
        total_line="total_line",
        start_line="start_line",
        found_by="found_by",
        fallback="fallback",
    )


def _fallback_spans(labelled: pl.DataFrame, accepted: pl.DataFrame) -> pl.DataFrame:
    """Labelled total lines the arithmetic never confirmed, read as the layout suggests.

    In a one- or two-column table a single misread cell outvotes the arithmetic, yet
    the label still says "Total": take the run from just below the previous total
    line (or the top) so the failing identity can be pinned or repaired.
    """
    line_key = ["lkey", "total_line"]
    missing = labelled.join(accepted, on=line_key, how="anti")
    bounds = (
        pl.concat([labelled, accepted.select(line_key)]).unique().rename({"total_line": "bound"})
    )
    start = (
        missing.join(bounds, on="lkey", how="left")
        .with_columns(bound=pl.when(pl.col("bound") < pl.col("total_line")).then("bound"))
        .group_by(line_key)
        .agg(start_line=(pl.col("bound").max().fill_null(-1) + 1).cast(pl.Int32))
    )
    return start.filter(pl.col("start_line") < pl.col("total_line")).select(
        "lkey",
        pl.col("total_line").cast(pl.Int32),
        "start_line",
        found_by=pl.lit("label"),
        fallback=pl.lit(True),
    )


# ---------------------------------------------------------------- identities


def _identities(
    tables: pl.DataFrame,
    grid: pl.DataFrame,
    spans: pl.DataFrame,
    members: pl.DataFrame,
    decimals: int,
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """One identity per span and crossing position, checked; and its cells (long form)."""
    members = members.select(
        pl.col("lkey").cast(pl.Int64),
        pl.col("total_line").cast(pl.Int32),
        pl.col("member_line").cast(pl.Int32),
        "nested",
    )
    nested = members.group_by(_SPAN).agg(pl.col("nested").first())
    # every crossing position of a span: 0 .. the table's last column (row)
    extent = grid.group_by("tkey").agg(
        n_rows=pl.col("row_idx").max() + 1, n_cols=pl.col("col_idx").max() + 1
    )
    down = pl.col("axis") == "down"
    ids = (
        spans.join(nested, on=_SPAN)
        .join(extent, on="tkey")
        .with_columns(
            cross=pl.int_ranges(0, pl.when(down).then("n_cols").otherwise("n_rows"), dtype=pl.Int32)
        )
        .explode("cross", empty_as_null=False)
        .drop_nulls("cross")
        .with_columns(
            row_idx=pl.when(down).then(pl.col("total_line")).otherwise(pl.col("cross")),
            col_idx=pl.when(down).then(pl.col("cross")).otherwise(pl.col("total_line")),
            kind=pl.when(pl.col("nested"))
            .then(pl.lit("subtotal"))
            .when(down)
            .then(pl.lit("col_total"))
            .otherwise(pl.lit("row_total")),
        )
        .with_columns(cell=_cell(pl.col("tkey"), pl.col("row_idx"), pl.col("col_idx")))
        # an identity needs a printed total; a blank total cell asserts nothing
        .join(grid.filter("present").select(_KEY), on=_KEY, how="semi")
        .join(tables.select("tkey", "table_id", "doc_id"), on="tkey")
        # across before down within a table, as the identity ids sort
        .sort("tkey", pl.col("lkey") % 2 == 0, "total_line", "cross")
        .with_columns(
            identity_id=pl.format(
                "{}:{}:{}:r{}c{}", "table_id", "kind", "axis", "row_idx", "col_idx"
            ),
            ident=pl.int_range(pl.len(), dtype=pl.Int64),
        )
    )
    # each span's cells: its members (sign -1) and its total (sign +1), in line order
    span_cells = pl.concat(
        [
            members.select(*_SPAN, "member_line", sign=pl.lit(-1, pl.Int64)),
            members.select(_SPAN)
            .unique()
            .select(*_SPAN, member_line="total_line", sign=pl.lit(1, pl.Int64)),
        ]
    ).sort(*_SPAN, "member_line")
    # ids are in ident order and the join keeps it: membership comes out in ident
    # order, members in position order, with no sort of the long frame
    down = pl.col("lkey") % 2 == 0
    membership = (
        ids.select("ident", "tkey", "lkey", "total_line", "cross")
        .join(span_cells, on=_SPAN, maintain_order="left_right")
        .select(
            "ident",
            "tkey",
            row_idx=pl.when(down).then("member_line").otherwise("cross"),
            col_idx=pl.when(down).then("cross").otherwise("member_line"),
            sign="sign",
        )
    )
    membership = membership.with_columns(
        cell=_cell(pl.col("tkey"), pl.col("row_idx"), pl.col("col_idx"))
    ).join(grid.select(_KEY + ["v", "present", "dec"]), on=_KEY, how="left", maintain_order="left")
    sums = (
        # group_by keeps each group's rows in frame order: members by position
        membership.group_by("ident").agg(
            total=pl.col("v").filter(pl.col("sign") == 1).first(),
            members_sum=pl.col("v").filter(pl.col("sign") == -1).sum(),
            n_members=(pl.col("sign") == -1).sum().cast(pl.Int32),
            member_rows=pl.col("row_idx").filter(pl.col("sign") == -1),
            member_cols=pl.col("col_idx").filter(pl.col("sign") == -1),
            checkable=pl.col("present").fill_null(False).all(),
            k=pl.col("dec").fill_null(0).max().clip(upper_bound=decimals),
        )
    )
    ids = ids.join(sums, on="ident").with_columns(
        res=pl.when("checkable").then(pl.col("total") - pl.col("members_sum")),
        # rounding tolerance: half a unit of the last printed place per member
        loose=(pl.col("n_members") * (pl.lit(10) ** (decimals - pl.col("k")).cast(pl.Int64)) // 2),
    )
    # a span whose identities mostly fail, even loosely, was a coincidence of the search
    span_ok = (
        ids.filter("checkable")
        .group_by(_SPAN)
        .agg(ok=(pl.col("res").abs() <= pl.col("loose")).sum() * 3 >= pl.len())
    )
    ids = ids.join(span_ok, on=_SPAN, how="left").filter(
        pl.col("ok").fill_null(True) | pl.col("fallback")
    )
    # renumber the kept identities 0..n-1 in order, so an ident indexes ``ids`` directly
    ids = _tolerance(ids).sort("ident").with_columns(dense=pl.int_range(pl.len(), dtype=pl.Int64))
    membership = (
        membership.join(
            ids.select("ident", "dense", "res", "tol", "holds", "checkable"),
            on="ident",
            how="inner",
            maintain_order="left",
        )
        .drop("ident")
        .rename({"dense": "ident"})
    )
    return ids.drop("ident").rename({"dense": "ident"}), membership


def _tolerance(ids: pl.DataFrame) -> pl.DataFrame:
    """Exact (0) or rounding tolerance per table, and whether each identity holds."""
    checked = ids.filter("checkable")
    per_table = checked.group_by("tkey", "doc_id").agg(
        n=pl.len(), n_zero=(pl.col("res") == 0).sum()
    )
    per_doc = per_table.group_by("doc_id").agg(doc_share=pl.col("n_zero").sum() / pl.col("n").sum())
    exact = per_table.join(per_doc, on="doc_id").select(
        "tkey",
        exact=(pl.col("n_zero") + DOC_PRIOR_WEIGHT * pl.col("doc_share"))
        / (pl.col("n") + DOC_PRIOR_WEIGHT)
        >= 0.5,
    )
    return (
        ids.join(exact, on="tkey", how="left")
        .with_columns(
            tol=pl.when(pl.col("exact").fill_null(True)).then(0).otherwise(pl.col("loose")),
        )
        .with_columns(
            holds=pl.col("checkable") & (pl.col("res").abs() <= pl.col("tol")).fill_null(False)
        )
    )


# ---------------------------------------------------------------- breaking cells


def _variants(candidates: pl.DataFrame, decimals: int) -> pl.DataFrame:
    """Every one-confusable-digit reading of each candidate cell, in integer units."""
    pairs = pl.DataFrame(
        [(a, b) for a, b in CONFUSABLE_DIGITS] + [(b, a) for a, b in CONFUSABLE_DIGITS],
        schema={"from_digit": pl.String, "to_digit": pl.String},
        orient="row",
    )
    body = candidates.with_columns(
        negative=pl.col("value_str").str.starts_with("-"),
        body=pl.col("value_str").str.strip_prefix("-"),
    )
    width = int(body.select(pl.col("body").str.len_chars().max()).item() or 0)
    positions = pl.DataFrame({"pos": pl.int_range(0, width, eager=True).cast(pl.Int32)})
    swapped = (
        body.join(positions, how="cross")
        .filter(pl.col("pos") < pl.col("body").str.len_chars())
        .with_columns(from_digit=pl.col("body").str.slice(pl.col("pos"), 1))
        .join(pairs, on="from_digit")
        .with_columns(
            variant=pl.col("body").str.slice(0, pl.col("pos"))
            + pl.col("to_digit")
            + pl.col("body").str.slice(pl.col("pos") + 1)
        )
        # a leading zero is never printed, so it cannot be the true reading
        .filter(~(pl.col("variant").str.starts_with("0") & pl.col("variant").str.contains(r"^0\d")))
    )
    units, _ = _scaled(pl.col("variant"), decimals)
    return swapped.with_columns(
        variant_v=pl.when(pl.col("negative")).then(-units).otherwise(units)
    ).select(_KEY + ["variant_v"])


def _transpositions(candidates: pl.DataFrame, decimals: int) -> pl.DataFrame:
    """Every reading of each candidate with two adjacent different digits swapped.

    The decimal point is ignored (a typesetter swaps figures, not the point's place),
    so "1007.7" gives "1070.7" among others. In integer units.
    """
    digits = candidates.select(
        *_KEY,
        negative=pl.col("value_str").str.starts_with("-"),
        digits=pl.col("value_str").str.replace_all(r"[^0-9]", ""),
        scale=(pl.lit(10, pl.Int64) ** (decimals - pl.col("dec").clip(upper_bound=decimals))),
    )
    width = int(digits.select(pl.col("digits").str.len_chars().max()).item() or 0)
    positions = pl.DataFrame({"pos": pl.int_range(0, max(width - 1, 0), eager=True)})
    first = pl.col("digits").str.slice(pl.col("pos"), 1)
    second = pl.col("digits").str.slice(pl.col("pos") + 1, 1)
    swapped = (
        digits.join(positions, how="cross")
        .filter(pl.col("pos") + 1 < pl.col("digits").str.len_chars())
        .filter(first != second)
        .with_columns(
            variant=pl.col("digits").str.slice(0, pl.col("pos"))
            + second
            + first
            + pl.col("digits").str.slice(pl.col("pos") + 2)
        )
        # a leading zero is never printed
        .filter(~pl.col("variant").str.contains(r"^0\d"))
    )
    units = pl.col("variant").cast(pl.Int64, strict=False) * pl.col("scale")
    return swapped.select(
        *_KEY, swap_v=pl.when(pl.col("negative")).then(-units).otherwise(units)
    ).drop_nulls()


def _pin(
    tables: pl.DataFrame,
    grid: pl.DataFrame,
    ids: pl.DataFrame,
    membership: pl.DataFrame,
    decimals: int,
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Breaking cells of failing identities and what to do with them.

    Returns (per pinned cell: status repaired|contradicted, new units) and the
    failing identities resolved by exactly one pinned cell.
    """
    checked = membership.filter("checkable")
    # correction d of this cell that makes the identity hold: |res + sign*d| <= tol
    # only cells of failing identities can break one: window the few, not every cell
    in_failing_ids = checked.filter(~pl.col("holds")).select(_KEY).unique()
    window = (
        checked.join(in_failing_ids, on=_KEY, how="semi")
        .with_columns(center=-pl.col("sign") * pl.col("res"))
        .group_by(_KEY)
        .agg(
            lo=(pl.col("center") - pl.col("tol")).max(),
            hi=(pl.col("center") + pl.col("tol")).min(),
            n_fail=(~pl.col("holds")).sum(),
        )
    )
    candidates = (
        window.filter((pl.col("n_fail") > 0) & (pl.col("lo") <= pl.col("hi")))
        .join(grid.select(_KEY + ["v", "value_str", "is_dash", "dec", "present"]), on=_KEY)
        .filter("present")
    )
    failing = checked.filter(~pl.col("holds")).select("ident", *_KEY)
    in_failing = failing.join(candidates.select(_KEY + ["n_fail"]), on=_KEY)
    best = (
        in_failing.filter(pl.col("n_fail") == pl.col("n_fail").max().over("ident"))
        .group_by("ident")
        .agg(pl.len().alias("n_best"), *[pl.col(c).first() for c in _KEY])
        .filter(pl.col("n_best") == 1)
        .select("ident", *_KEY)
    )
    variants = (
        _variants(candidates.filter(~pl.col("is_dash")), decimals)
        .join(candidates.select(_KEY + ["v", "lo", "hi"]), on=_KEY)
        .filter(
            (pl.col("variant_v") - pl.col("v") >= pl.col("lo"))
            & (pl.col("variant_v") - pl.col("v") <= pl.col("hi"))
        )
    )
    # identities the cross direction leaves open: ask the series' other printings
    _, resolved = _settle(failing, best)
    reprinted, agreeing = _pin_by_reprints(
        tables,
        grid,
        membership,
        candidates,
        failing.join(best.select("ident"), on="ident", how="anti"),
        resolved,
        decimals,
    )
    # a reading that another volume prints as it is here was not misread
    by_repair = (
        failing.join(variants.select(_KEY).join(agreeing, on=_KEY, how="anti"), on=_KEY)
        .group_by("ident")
        .agg(pl.len().alias("n_fix"), *[pl.col(c).first() for c in _KEY])
        .filter(pl.col("n_fix") == 1)
        .select("ident", *_KEY)
    )
    # a printed figure elsewhere is stronger evidence than a confusable digit
    reprinted = reprinted.join(best, on="ident", how="anti")
    pinned_by = pl.concat(
        [
            best,
            reprinted.select("ident", *_KEY),
            by_repair.join(best, on="ident", how="anti").join(reprinted, on="ident", how="anti"),
        ]
    )
    pinned, resolved = _settle(failing, pinned_by)
    # last resort, the bookkeeper's rule of nine: a residual that one swap of adjacent
    # figures in exactly one cell explains pins that cell (never one that agrees
    # with another printing of itself)
    unsettled = failing.join(pinned_by.select("ident"), on="ident", how="anti")
    swaps = (
        _transpositions(
            candidates.join(unsettled.select(_KEY).unique(), on=_KEY, how="semi")
            .join(agreeing, on=_KEY, how="anti")
            .filter(~pl.col("is_dash")),
            decimals,
        )
        .join(candidates.select(_KEY + ["v", "lo", "hi"]), on=_KEY)
        .filter(
            (pl.col("swap_v") - pl.col("v") >= pl.col("lo"))
            & (pl.col("swap_v") - pl.col("v") <= pl.col("hi"))
        )
        .group_by(_KEY)
        .agg(pl.col("swap_v").unique())
        .filter(pl.col("swap_v").list.len() == 1)
        .select(*_KEY, swap_v=pl.col("swap_v").list.first())
    )
    by_swap = (
        unsettled.join(swaps.select(_KEY), on=_KEY)
        .group_by("ident")
        .agg(pl.len().alias("n_swap"), *[pl.col(c).first() for c in _KEY])
        .filter(pl.col("n_swap") == 1)
        .select("ident", *_KEY)
    )
    if len(by_swap):
        pinned_by = pl.concat([pinned_by, by_swap])
        pinned, resolved = _settle(failing, pinned_by)
    swaps = swaps.join(by_swap.select(_KEY), on=_KEY, how="semi")
    implied = pl.concat(
        [
            reprinted.join(pinned, on=_KEY, how="semi").select(*_KEY, "reprint_v"),
            swaps.join(pinned, on=_KEY, how="semi").select(*_KEY, reprint_v="swap_v"),
        ]
    ).unique(_KEY)
    repairs = (
        variants.join(pinned, on=_KEY)
        .group_by(_KEY)
        .agg(pl.len().alias("n"), pl.col("variant_v").first())
        .filter(pl.col("n") == 1)
    )
    ulp = pl.lit(10, pl.Int64) ** (decimals - pl.col("dec").clip(upper_bound=decimals)).cast(
        pl.Int64
    )
    mid = ((pl.col("lo") + pl.col("hi")) // 2 // ulp) * ulp
    status = (
        candidates.join(pinned, on=_KEY)
        .join(repairs.select(_KEY + ["variant_v"]), on=_KEY, how="left")
        .join(implied, on=_KEY, how="left")
        # a reading confusable with the printed one is a misread only if it also
        # agrees with the other printings, when those spoke
        .with_columns(
            variant_v=pl.when(
                pl.col("reprint_v").is_null() | (pl.col("variant_v") == pl.col("reprint_v"))
            ).then("variant_v")
        )
        .with_columns(
            status=pl.when(pl.col("variant_v").is_not_null())
            .then(pl.lit("repaired"))
            .otherwise(pl.lit("contradicted")),
            new_v=pl.when(pl.col("variant_v").is_not_null())
            .then("variant_v")
            # in a rounded table the total leaves a window: the other printing is exact
            .when(pl.col("reprint_v").is_not_null())
            .then("reprint_v")
            .when(pl.col("lo") == pl.col("hi"))
            .then(pl.col("v") + pl.col("lo"))
            .otherwise(
                pl.col("v")
                + pl.when((mid >= pl.col("lo")) & (mid <= pl.col("hi")))
                .then(mid)
                .otherwise(pl.col("lo"))
            ),
        )
        .select(_KEY + ["status", "new_v", "dec"])
    )
    return status, resolved


def _settle(failing: pl.DataFrame, pinned_by: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Pinned cells and the failing identities they resolve.

    An identity claimed by two different breaking cells cannot be settled: neither
    cell is pinned and the identity stays unresolved.
    """
    per_ident = failing.join(pinned_by.select(_KEY).unique(), on=_KEY).group_by("ident").len()
    clash = per_ident.filter(pl.col("len") > 1).select("ident")
    clash_cells = failing.join(clash, on="ident").select(_KEY).unique()
    pinned = pinned_by.select(_KEY).unique().join(clash_cells, on=_KEY, how="anti")
    resolved = (
        failing.join(pinned, on=_KEY).select("ident").unique().join(clash, on="ident", how="anti")
    )
    return pinned, resolved


# ---------------------------------------------------------------- other printings


def _series(tables: pl.DataFrame) -> pl.DataFrame:
    """Per table, the key of the series it prints: title without "Table N.-", and unit.

    Only tables whose key is unique within their document get one.
    """
    title = (
        pl.col("title")
        .fill_null("")
        .str.to_lowercase()
        .str.replace(TABLE_NUMBER, "")
        .str.replace_all(r"[^a-z0-9]+", " ")
        .str.strip_chars()
    )
    # a title printed twice in one volume does not name one series (a generic
    # "Summary", a layout repeated for many funds): no evidence from it
    return tables.select("tkey", "doc_id", "unit_multiplier", series=title).filter(
        (pl.col("series") != "") & (pl.len().over("doc_id", "series", "unit_multiplier") == 1)
    )


def _pin_by_reprints(
    tables: pl.DataFrame,
    grid: pl.DataFrame,
    membership: pl.DataFrame,
    candidates: pl.DataFrame,
    open_failing: pl.DataFrame,
    resolved: pl.DataFrame,
    decimals: int,
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Breaking cells of failing identities, pinned by the series' other printings.

    A series is reprinted volume after volume (same title modulo "Table N.-", unit,
    row label and column label). Printings in other documents are compared, never
    across an "r" revised mark on either side: a revision legitimately changes a
    figure between volumes. Within one failing identity a candidate cell (one
    correction makes all its identities hold) is the breaking cell when

    - *support*: it is the only cell whose total-implied value equals another
      printing of the same figure that its own table confirms (and the printed
      value equals no other printing), or
    - *lone dissent*: no cell has support, the identity's total agrees with another
      printing of itself, it differs from every other printing of itself, and no
      other cell of the identity differs from all of its printings. A figure
      revised without a mark moves its total too, so the total's agreement is what
      keeps a silent revision from passing for a misprint.

    Returns the pins (ident, cell, reprint_v: the supporting
    printing's value, null for a lone dissent) and the cells of open identities that
    agree with another printing of themselves.
    """
    out_schema = {"ident": pl.Int64, "cell": pl.Int64, "reprint_v": pl.Int64}
    open_ids = open_failing.select("ident").unique().join(resolved, on="ident", how="anti")
    if open_ids.is_empty():
        return pl.DataFrame(schema=out_schema), pl.DataFrame(
            schema={c: out_schema[c] for c in _KEY}
        )
    checked = membership.filter("checkable")
    open_cells = checked.join(open_ids, on="ident").select("ident", *_KEY, "sign")
    series = _series(tables)
    fact = ["series", "unit_multiplier", "row_label", "col_label"]
    mine = (
        grid.join(open_cells.select(_KEY).unique(), on=_KEY, how="semi")
        .filter(pl.col("present") & ~pl.col("revised"))
        .join(series, on="tkey")
        .select(*_KEY, *fact, "doc_id", "v")
    )
    # confirmed elsewhere: in an identity that holds, or resolved without this cell
    good = pl.concat([checked.filter("holds").select("ident"), resolved]).unique()
    others = (
        grid.join(series.join(mine.select("series").unique(), on="series", how="semi"), on="tkey")
        .filter(pl.col("present") & ~pl.col("revised"))
        .join(mine.select(fact).unique(), on=fact, how="semi")
        .select(*_KEY, *fact, "doc_id", "v")
    )
    confirmed = (
        membership.join(others.select(_KEY), on=_KEY, how="semi")
        .join(good, on="ident", how="semi")
        .select(_KEY)
        .unique()
    )
    others = others.with_columns(confirmed=pl.col("cell").is_in(confirmed["cell"].implode()))
    # counts, not pairs: a figure printed in many tables must not multiply the rows
    # (other documents = all printings - those of the cell's own document)

    def printings(keys: list[str], name: str) -> pl.DataFrame:
        return others.group_by(keys).agg(pl.len().alias(name))

    same_value = [*fact, "v"]
    per_cell = (
        mine.join(printings(fact, "n_all"), on=fact, how="left")
        .join(printings([*fact, "doc_id"], "n_own"), on=[*fact, "doc_id"], how="left")
        .join(printings(same_value, "n_same_all"), on=same_value, how="left")
        .join(
            printings([*same_value, "doc_id"], "n_same_own"),
            on=[*same_value, "doc_id"],
            how="left",
        )
        .select(
            *_KEY,
            n_other=pl.col("n_all").fill_null(0) - pl.col("n_own").fill_null(0),
            n_same=pl.col("n_same_all").fill_null(0) - pl.col("n_same_own").fill_null(0),
        )
    )
    # support: a confirmed printing elsewhere equal to a value the total allows. The
    # allowed values are few (the window spans n_members units of the last place), so
    # they are listed and matched exactly
    ulp = pl.lit(10, pl.Int64) ** (decimals - pl.col("dec").clip(upper_bound=decimals)).cast(
        pl.Int64
    )
    allowed = (
        mine.join(candidates.select(*_KEY, "lo", "hi", "dec"), on=_KEY)
        .with_columns(ulp=ulp)
        .with_columns(
            step=pl.int_ranges(
                (-(-pl.col("lo") // pl.col("ulp"))), pl.col("hi") // pl.col("ulp") + 1
            )
        )
        .explode("step", empty_as_null=False)
        .drop_nulls("step")
        .filter(pl.col("step") != 0)
        .with_columns(v_o=pl.col("v") + pl.col("step") * pl.col("ulp"))
    )
    support = (
        allowed.join(
            others.filter("confirmed").select(*fact, doc_o="doc_id", v_o="v").unique(),
            on=[*fact, "v_o"],
        )
        .filter(pl.col("doc_o") != pl.col("doc_id"))
        .group_by(_KEY)
        .agg(pl.col("v_o").unique().alias("support"))
    )
    per_cell = per_cell.join(support, on=_KEY, how="left")
    cells = (
        open_cells.join(per_cell, on=_KEY, how="left")
        .join(candidates.select(_KEY).with_columns(candidate=pl.lit(True)), on=_KEY, how="left")
        .with_columns(
            candidate=pl.col("candidate").fill_null(False),
            n_other=pl.col("n_other").fill_null(0),
            n_same=pl.col("n_same").fill_null(0),
            n_support=pl.col("support").list.n_unique().fill_null(0),
        )
        .with_columns(
            supported=pl.col("candidate") & (pl.col("n_support") > 0) & (pl.col("n_same") == 0),
            agrees=pl.col("n_same") > 0,
            differs=(pl.col("n_other") > 0) & (pl.col("n_same") == 0),
        )
    )
    per_ident = cells.group_by("ident").agg(
        n_supported=pl.col("supported").sum(),
        n_differing=pl.col("differs").sum(),
        total_agrees=(pl.col("agrees") & (pl.col("sign") == 1)).any(),
    )
    by_support = (
        cells.join(per_ident.filter(pl.col("n_supported") == 1), on="ident")
        # two different supporting printings leave the value open
        .filter(pl.col("supported") & (pl.col("n_support") == 1))
        .select("ident", *_KEY, reprint_v=pl.col("support").list.first())
    )
    by_dissent = (
        cells.join(
            per_ident.filter(
                (pl.col("n_supported") == 0) & (pl.col("n_differing") == 1) & pl.col("total_agrees")
            ),
            on="ident",
        )
        .filter(pl.col("differs") & pl.col("candidate"))
        .select("ident", *_KEY, reprint_v=pl.lit(None, pl.Int64))
    )
    pins = pl.concat([by_support, by_dissent]).select(
        [pl.col(c).cast(t) for c, t in out_schema.items()]
    )
    return pins, cells.filter("agrees").select(_KEY).unique()


# ---------------------------------------------------------------- output


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
    good = ids.select(
        pl.col("holds") | pl.col("ident").is_in(resolved["ident"].implode())
    ).to_series()
    pairs = membership.select(
        "cell", "ident", "sign", present=pl.col("present").fill_null(False)
    ).sort("cell", "ident")
    pairs = pairs.with_columns(good=good.gather(pairs["ident"]))
    per_cell = (
        pairs.group_by("cell", maintain_order=True)
        .agg(
            n=pl.len(),
            is_total=(pl.col("sign") == 1).any(),
            confirmed=(pl.col("good") & pl.col("present")).any(),
        )
        .join(status.select(_KEY + ["status", "new_v"]), on=_KEY, how="left", maintain_order="left")
        .with_columns(
            status=pl.when(pl.col("status").is_not_null())
            .then("status")
            .when("confirmed")
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


# ---------------------------------------------------------------- evaluation


def _same_number(a: pl.Expr, b: pl.Expr) -> pl.Expr:
    """Two decimal texts denote the same number (printed precision, no rounding)."""
    x, y = a.cast(pl.Float64, strict=False), b.cast(pl.Float64, strict=False)
    return ((x - y).abs() <= 1e-9 * pl.max_horizontal(y.abs(), pl.lit(1.0))).fill_null(False)


def evaluate_anchors(
    anchor_result: AnchorResult, truth_dir: str | Path, documents: pl.DataFrame
) -> dict[str, float | int | dict[str, float]]:
    """Score anchored cells against the synth ground truth in ``truth_dir``.

    ``truth_dir`` holds ``truth_cells.parquet`` and ``truth_identities.parquet``
    (``pipeline.synth``); ``documents`` maps doc_id to file_name. Cells are matched by
    (file, page, table, row, column). Returns:

    - ``precision``: anchored cells whose value to use equals the true value;
    - ``recall``: true cells taking part in a true identity that are anchored with
      their true value;
    - ``misprint_flagged``: misprinted cells marked contradicted with the true value
      implied; ``misprint_flagged_pinnable`` the same over misprints whose cell sits
      in two true identities (the only ones a total alone can pin to one cell);
      ``misprint_flagged_reprinted`` over misprints whose figure another volume
      also prints (the ones the other printings can pin; needs ``truth_tables``);
    - ``repairs`` / ``repairs_correct``: applied OCR repairs and how many give the
      true value;
    - ``identity_recall``: true identities whose total cell heads a found identity
      with the same members;
    - ``precision_by_quality``: precision per page quality tag.
    """
    truth_dir = Path(truth_dir)
    for name in ("truth_cells", "truth_identities"):
        if not (truth_dir / f"{name}.parquet").exists():
            raise FileNotFoundError(f"{truth_dir / name}.parquet: missing ground truth file")
    truth = pl.read_parquet(truth_dir / "truth_cells.parquet")
    truth_ids = pl.read_parquet(truth_dir / "truth_identities.parquet")
    place = ["file_name", "page_no", "table_no", "row_idx", "col_idx"]
    table_key = ["file_name", "page_no", "table_no"]
    truth = truth.with_columns(pl.col("page_no", "table_no", "row_idx", "col_idx").cast(pl.Int32))
    files = documents.select("doc_id", "file_name").unique()
    anchored = (
        anchor_result.anchored_cells.join(files, on="doc_id", how="left")
        .join(truth.select(place + ["true_value_str", "misprint"]), on=place, how="left")
        .with_columns(correct=_same_number(pl.col("value_str"), pl.col("true_value_str")))
    )
    ids = truth_ids.with_columns(
        pl.col("page_no", "table_no", "total_row_idx", "total_col_idx").cast(pl.Int32)
    )
    in_identity = pl.concat(
        [
            ids.select(*table_key, row_idx="total_row_idx", col_idx="total_col_idx"),
            ids.select(*table_key, row_idx="member_rows", col_idx="member_cols")
            .explode("row_idx", "col_idx", empty_as_null=False)
            .with_columns(pl.col("row_idx", "col_idx").cast(pl.Int32)),
        ]
    ).unique()
    hits = in_identity.join(anchored.filter("correct").select(place), on=place, how="semi")
    misprints = truth.filter(pl.col("misprint"))
    flagged = misprints.join(
        anchored.filter(
            (pl.col("status") == "contradicted")
            & _same_number(pl.col("implied_str"), pl.col("true_value_str"))
        ).select(place),
        on=place,
        how="semi",
    )
    # a misprint can only be pinned when its cell sits in two identities (row and
    # column, or subtotal and total); alone in one, any member could be the wrong one
    crossed = (
        pl.concat(
            [
                ids.select(*table_key, row_idx="total_row_idx", col_idx="total_col_idx"),
                ids.select(*table_key, row_idx="member_rows", col_idx="member_cols")
                .explode("row_idx", "col_idx", empty_as_null=False)
                .with_columns(pl.col("row_idx", "col_idx").cast(pl.Int32)),
            ]
        )
        .group_by(place)
        .len()
        .filter(pl.col("len") >= 2)
    )
    pinnable = misprints.join(crossed, on=place, how="semi")
    # misprints whose figure another volume prints too (same series, row and column
    # label): the ones the other printings can settle
    reprinted = misprints.clear()
    if (truth_dir / "truth_tables.parquet").exists():
        series = pl.read_parquet(truth_dir / "truth_tables.parquet").select(
            "file_name", "series_id", pl.col("page_no", "table_no").cast(pl.Int32)
        )
        fact = ["series_id", "row_label", "col_label"]
        printings = truth.join(series, on=table_key).select(*place, *fact)
        elsewhere = printings.join(printings.select(*fact, other="file_name"), on=fact).filter(
            pl.col("other") != pl.col("file_name")
        )
        reprinted = misprints.join(elsewhere.select(place).unique(), on=place, how="semi")
    repaired = anchored.filter(pl.col("status") == "repaired")
    found = (
        # table_id is f"{doc_id}:{page_no}:{table_no}" (pipeline.tables.schemas)
        anchor_result.identities.with_columns(
            pl.col("table_id")
            .str.split(":")
            .list.to_struct(fields=["doc_id", "page_no", "table_no"], upper_bound=3)
            .alias("where")
        )
        .unnest("where")
        .with_columns(pl.col("page_no", "table_no").cast(pl.Int32))
        .join(files, on="doc_id")
        .select(
            *table_key,
            "total_row_idx",
            "total_col_idx",
            members=pl.concat_list(
                pl.col("member_rows").list.sort(), pl.col("member_cols").list.sort()
            ),
        )
    )
    wanted = ids.select(
        *table_key,
        "total_row_idx",
        "total_col_idx",
        members=pl.concat_list(
            pl.col("member_rows").cast(pl.List(pl.Int32)).list.sort(),
            pl.col("member_cols").cast(pl.List(pl.Int32)).list.sort(),
        ),
    )
    id_hits = wanted.join(
        found, on=[*table_key, "total_row_idx", "total_col_idx", "members"], how="semi"
    )
    by_quality = anchored.group_by("quality").agg(pl.col("correct").mean())

    def share(part: int, whole: int) -> float:
        return part / whole if whole else float("nan")

    return {
        "anchored": len(anchored),
        "precision": share(int(anchored["correct"].sum()), len(anchored)),
        "cells_in_identities": len(in_identity),
        "recall": share(len(hits), len(in_identity)),
        "misprints": len(misprints),
        "misprint_flagged": share(len(flagged), len(misprints)),
        "misprints_flagged": len(flagged),
        "misprints_reprinted": len(reprinted),
        "misprint_flagged_reprinted": share(
            len(flagged.join(reprinted, on=place, how="semi")), len(reprinted)
        ),
        "misprints_pinnable": len(pinnable),
        "misprint_flagged_pinnable": share(
            len(flagged.join(pinnable, on=place, how="semi")), len(pinnable)
        ),
        "repairs": len(repaired),
        "repairs_correct": int(repaired["correct"].sum()),
        "identities_true": len(ids),
        "identity_recall": share(len(id_hits), len(ids)),
        "precision_by_quality": dict(
            zip(by_quality["quality"], by_quality["correct"], strict=True)
        ),
    }
