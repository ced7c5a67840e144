"""Formula anchors: a SUM total row or total column whose cached value its members confirm."""

from __future__ import annotations

import polars as pl
import pytest

from pipeline.detect.workbook_anchors import (
    WORKBOOK_ANCHORS_SCHEMA,
    SumRange,
    find_workbook_anchors,
    sum_range,
)
from tests.detect.workbook_fixtures import budget, ingest


@pytest.mark.parametrize(
    ("formula", "expected"),
    [
        ("=SUM(B2:B5)", SumRange(2, 2, 5, 2)),
        ("=sum($B$2:$B$5)", SumRange(2, 2, 5, 2)),
        ("=SUM( C7:H7 )", SumRange(7, 3, 7, 8)),
        ("=SUM(B2:C5)", None),  # two-dimensional
        ("=SUM(B2:B5)+1", None),
        ("=SUM(B2,B3)", None),
        ("=SUM(Other!B2:B5)", None),  # another sheet
        ("=SUM(B:B)", None),
        ("=AVERAGE(B2:B5)", None),
        ('=SUMIF(B2:B5,">0")', None),
        (None, None),
    ],
)
def test_only_a_single_sum_over_one_row_or_column_is_a_total(formula, expected):
    assert sum_range(formula) == expected


def test_a_total_row_and_total_columns_are_confirmed_with_their_labels(tmp_path):
    out = ingest([budget(tmp_path / "budget.xlsx")], tmp_path / "blobs")
    anchors = find_workbook_anchors(out.cells)
    assert anchors.schema == pl.Schema(WORKBOOK_ANCHORS_SCHEMA)
    by_address = {a["address"]: a for a in anchors.iter_rows(named=True)}
    assert set(by_address) == {"B6", "D2", "D3"}
    total = by_address["B6"]
    assert total["status"] == "confirmed" and total["axis"] == "column"
    assert total["members"] == ["B2", "B3", "B4", "B5"]
    assert total["member_values"] == ["120", "80.5", "200", "99.5"]
    assert total["recomputed"] == "500.0" and total["cached"] == "500"
    assert total["label"] == "Total" and total["header"] == "Amount"
    assert total["member_labels"] == ["item 1", "item 2", "item 3", "item 4"]
    row_total = by_address["D2"]
    assert row_total["axis"] == "row" and row_total["members"] == ["B2", "C2"]
    assert row_total["header"] == "item 1" and row_total["label"] == "Row total"
    assert row_total["member_labels"] == ["Amount", "Tax"]


def test_a_total_whose_cached_value_disagrees_is_stale(tmp_path):
    out = ingest([budget(tmp_path / "stale.xlsx", total=480)], tmp_path / "blobs")
    anchors = find_workbook_anchors(out.cells)
    total = anchors.filter(pl.col("address") == "B6").row(0, named=True)
    assert total["status"] == "stale"
    assert (total["cached"], total["recomputed"]) == ("480", "500.0")
    assert anchors.filter(pl.col("address") != "B6")["status"].to_list() == ["confirmed"] * 2


def test_float_noise_in_the_cached_total_still_agrees(tmp_path):
    out = ingest(
        [budget(tmp_path / "f.xlsx", amounts=(0.1, 0.2, 0.3), total=0.6000000000000001)],
        tmp_path / "blobs",
    )
    total = find_workbook_anchors(out.cells).filter(pl.col("address") == "B5").row(0, named=True)
    assert total["status"] == "confirmed" and total["recomputed"] == "0.6"


def test_ranges_that_anchor_nothing(tmp_path):
    extra = {
        "F2": "=SUM(F1:F3)",  # circular
        "G1": "x",
        "G2": 5,
        "G3": "=SUM(G1:G2)",  # one number only
        "H1": "=SUM(A2:A5)",  # text only
    }
    out = ingest([budget(tmp_path / "b.xlsx", extra=extra)], tmp_path / "blobs")
    addresses = set(find_workbook_anchors(out.cells)["address"])
    assert addresses == {"B6", "D2", "D3"}


def test_a_total_with_no_cached_value_is_not_anchored(tmp_path):
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append([1])
    ws.append([2])
    ws.append(["=SUM(A1:A2)"])
    wb.save(tmp_path / "uncached.xlsx")
    out = ingest([tmp_path / "uncached.xlsx"], tmp_path / "blobs")
    assert find_workbook_anchors(out.cells).is_empty()
