"""Evaluation: how well the anchored cells match a generated corpus's ground truth.

Decides nothing about a build; scores one (``ledgerforge evaluate``, the tests):
precision and recall of anchored cells, misprints flagged, repairs applied and
correct, identities recovered.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from pipeline.detect.anchors.anchored import AnchorResult


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
    # glob=False: the truth folder's path may hold [ ] * ?, which polars would expand
    truth = pl.read_parquet(truth_dir / "truth_cells.parquet", glob=False)
    truth_ids = pl.read_parquet(truth_dir / "truth_identities.parquet", glob=False)
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
        series = pl.read_parquet(truth_dir / "truth_tables.parquet", glob=False).select(
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
