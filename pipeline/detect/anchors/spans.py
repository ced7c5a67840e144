"""Spans: which line totals which contiguous run of lines.

A *span* is a total line (row or column) of a table and the contiguous run of lines
it adds up. Spans are found by arithmetic with prefix sums (a run sums to the total
when ``Q(t) - v(t) == Q(start)``; ``sql/anchors_runs.sql``), voted over the crossing
positions so that a misread cell cannot hide a span. Lines labelled like totals are
accepted on weaker evidence; unlabelled lines must add up in most positions. The
search runs in rounds (``MAX_ROUNDS``): lines already known to be totals are left out
of the sums, so a parent total adds its leaves once and nested subtotals are found
level by level. A labelled total the arithmetic never confirms still gets the span
its layout suggests (``_fallback_spans``).
"""

from __future__ import annotations

import duckdb
import polars as pl

from pipeline.detect.anchors.grid import _SLOT
from pipeline.store.warehouse import run_sql

# Search rounds: each finds one more nesting level of subtotals.
MAX_ROUNDS = 4


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
