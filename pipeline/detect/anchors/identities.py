"""Identities: the sums each span asserts, and whether each one holds.

Each span gives one identity per crossing position whose total cell is printed; its
members are the run's lines minus those inside a nested span
(``sql/anchors_members.sql``). Numbers are compared in exact integer units of the
printed last place. A table counts as exact when most of its identities close
exactly (``EXACT_SHARE`` of those within the rounding window; smoothed towards
its document's share, weight ``DOC_PRIOR_WEIGHT``, so that one-identity tables follow
their volume); exact tables get tolerance 0, the others the rounding tolerance
``n_members * half a unit of the last printed place``. A span whose identities mostly
fail even loosely is dropped as a coincidence of the search (a labelled total kept on
its label alone may fail in one position at most), and an identity with an unsigned
figure on a "Deduct:" / "Less:" line asserts nothing. Decides, per identity, its
residual, tolerance and whether it holds.
"""

from __future__ import annotations

import polars as pl

from pipeline.detect.anchors.grid import _KEY, _cell

# Weight of the document's exact-closing share when deciding a table's tolerance.
DOC_PRIOR_WEIGHT = 2.0

# Share of a table's identities (those within the rounding window) that must close
# exactly for the table to count as exact. Totals added from the printed figures close
# everywhere but at a misread; totals rounded separately close exactly only by chance,
# about half the time for a handful of members, so half closing says little. Real
# bulletins (12 volumes): at 0.5, 4,560 confirmed cells of rounded tables were lost to
# one-unit misses read as misreads; at 0.8 their cells are confirmed within the
# rounding window (a sample of 22 checked on the page images: all printed as read).
EXACT_SHARE = 0.8

_SPAN = ["lkey", "total_line"]


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
    # a line under a "Deduct:" / "Less:" spanner is subtracted from the total. Printed
    # with its minus sign, plain addition is right; printed unsigned, the identity is
    # no plain sum and asserts nothing (nor does a total the spanner covers: its
    # header is the deduction's, or garbled). Audit: 1967-08 Table 2 "Trust Receipts",
    # "Deduct: Interfund transactions" was added into "Net trust receipts" and the
    # 104-unit miss "repaired" the printed 3,850 to 3,950 (8 -> 9).
    deduct = _deduct_cells(grid, ids)
    unsigned_deduction = (
        membership.join(deduct, on=["ident", "cell"], how="semi")
        .filter((pl.col("sign") == 1) | (pl.col("v") > 0))
        .select("ident")
        .unique()
    )
    ids = ids.join(unsigned_deduction, on="ident", how="anti")
    membership = membership.join(unsigned_deduction, on="ident", how="anti")
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
    # a total over one line is a reprint of it, not a sum: two printings of a figure that
    # OCR read alike check nothing (1953-09 Table 4: "Total" 2,311 and "Total trust
    # accounts" 2,311 both read "2,3", parsed 2.3, and "confirmed" each other)
    sums = sums.filter(pl.col("n_members") >= 2)
    ids = ids.join(sums, on="ident").with_columns(
        res=pl.when("checkable").then(pl.col("total") - pl.col("members_sum")),
        # rounding tolerance: half a unit of the last printed place per member
        loose=(pl.col("n_members") * (pl.lit(10) ** (decimals - pl.col("k")).cast(pl.Int64)) // 2),
    )
    # a span whose identities mostly fail, even loosely, was a coincidence of the search;
    # a labelled total the arithmetic never confirmed is kept for the one misread cell
    # that can outvote it, so it may miss in one position at most (a single cell sits
    # in one identity of a span): a "Net" line missing everywhere is a difference
    span_ok = (
        ids.filter("checkable")
        .group_by(_SPAN)
        .agg(
            ok=(pl.col("res").abs() <= pl.col("loose")).sum() * 3 >= pl.len(),
            n_bad=(pl.col("res").abs() > pl.col("loose")).sum(),
        )
    )
    ids = ids.join(span_ok, on=_SPAN, how="left").filter(
        pl.col("ok").fill_null(True) | (pl.col("fallback") & (pl.col("n_bad") <= 1))
    )
    # renumber the kept identities 0..n-1 in order, so an ident indexes ``ids`` directly
    ids = _tolerance(ids).sort("ident").with_columns(dense=pl.int_range(pl.len(), dtype=pl.Int64))
    membership = (
        membership.join(
            ids.select("ident", "dense", "res", "tol", "loose", "holds", "checkable"),
            on="ident",
            how="inner",
            maintain_order="left",
        )
        .drop("ident")
        .rename({"dense": "ident"})
    )
    return ids.drop("ident").rename({"dense": "ident"}), membership


def _deduct_cells(grid: pl.DataFrame, ids: pl.DataFrame) -> pl.DataFrame:
    """(ident, cell) of every cell on a deduction line of its identity's axis.

    The line of a column total's identity (axis down) is a row; of a row total's, a
    column. Its label announces a deduction when it matches ``DEDUCT_LABEL``.
    """
    rows = grid.filter("row_deduct").select("tkey", line=pl.col("row_idx"))
    cols = grid.filter("col_deduct").select("tkey", line=pl.col("col_idx"))
    spans = ids.select("ident", "tkey", "axis", "row_idx", "col_idx")
    down = spans.filter(pl.col("axis") == "down").join(rows.unique(), on="tkey")
    across = spans.filter(pl.col("axis") == "across").join(cols.unique(), on="tkey")
    return pl.concat(
        [
            down.select("ident", cell=_cell(pl.col("tkey"), pl.col("line"), pl.col("col_idx"))),
            across.select("ident", cell=_cell(pl.col("tkey"), pl.col("row_idx"), pl.col("line"))),
        ]
    )


def _tolerance(ids: pl.DataFrame) -> pl.DataFrame:
    """Exact (0) or rounding tolerance per table, and whether each identity holds."""
    # only identities within the rounding window vote: a miss beyond it is a misread
    # or a wrong member set, evidence of neither exact nor rounded totals
    checked = ids.filter(pl.col("checkable") & (pl.col("res").abs() <= pl.col("loose")))
    per_table = checked.group_by("tkey", "doc_id").agg(
        n=pl.len(), n_zero=(pl.col("res") == 0).sum()
    )
    per_doc = per_table.group_by("doc_id").agg(doc_share=pl.col("n_zero").sum() / pl.col("n").sum())
    exact = per_table.join(per_doc, on="doc_id").select(
        "tkey",
        exact=(pl.col("n_zero") + DOC_PRIOR_WEIGHT * pl.col("doc_share"))
        / (pl.col("n") + DOC_PRIOR_WEIGHT)
        >= EXACT_SHARE,
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
