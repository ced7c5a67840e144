"""Repairs: whether a breaking cell was misread by OCR, and its corrected value.

A breaking cell (pinned by a second identity through it or another printing, never
by its digits alone) whose only fixing reading differs from the printed one by one
confusable digit (``CONFUSABLE_DIGITS``) is *repaired* (when another printing
supports the cell, only if the reading equals it); otherwise it is *contradicted*:
the printed number disagrees with the total, and the value the total implies (in a
rounded table: the supporting printing, or the transposed figure) is recorded.
``_variants`` lists the one-confusable-digit readings of the candidates.
"""

from __future__ import annotations

import polars as pl

from pipeline.detect.anchors.grid import _KEY, _scaled

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


def _cell_status(
    candidates: pl.DataFrame,
    variants: pl.DataFrame,
    pinned: pl.DataFrame,
    implied: pl.DataFrame,
    decimals: int,
) -> pl.DataFrame:
    """Repaired or contradicted, and the value to use, for every pinned breaking cell.

    ``variants`` are the candidates' fixing confusable readings (``_variants``,
    already filtered to the total's window), ``implied`` the value other evidence
    gives a pinned cell (another printing, a transposition; ``reprint_v``).
    """
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
    return status
