"""Doubt on column header paths OCR cut short (pipeline.tables.headers)."""

from __future__ import annotations

from tests.tables.test_headers import _paths


def test_a_column_without_a_head_under_a_spanner_over_headed_columns_is_doubted() -> None:
    """1939-12 p68 (right table, OCR): "Unweighted" over "United States", "United
    Kingdom", "France", "Japan"; OCR dropped "France" and "Japan", so those columns'
    paths stop at the spanner ("Unweighted"): cut short, they are marked uncertain (the
    first column is, too, for where the spanner stands)."""
    words = [
        ("Unweighted", 1372, 427, 1514, 452),
        ("United", 1212, 528, 1296, 550), ("United", 1325, 528, 1411, 550),
        ("States", 1215, 552, 1295, 574), ("Kingdom", 1322, 552, 1425, 574),
    ]  # fmt: skip
    boxes = [(1229, 1275), (1356, 1400), (1485, 1527), (1598, 1641)]
    paths, doubt = _paths(words, boxes, 25.0, 40.0)
    assert paths == [
        "Unweighted / United States",
        "Unweighted / United Kingdom",
        "Unweighted",
        "Unweighted",
    ]
    assert not doubt[1] and "no head of its own" in doubt[2] and doubt[3]
