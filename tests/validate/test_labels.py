from __future__ import annotations

import pytest

from pipeline.validate.labels import label_problem


@pytest.mark.parametrize(
    "label",
    [
        "Individual income tax",
        "Total receipts",
        "Social security / Old-age insurance",
        "Fiscal year / 1948",
        "1947-48",
        "June 1939",
        "Federal Home Loan Bank 2/",
        "U.S. Govt. agencies (net)",
        "1st quarter",
        "FY2011",
        "Civil service retirement & disability",
        "United Statee Housing",  # misspelt but readable: not the rule's business
    ],
)
def test_readable_labels_pass(label):
    assert label_problem(label) is None


@pytest.mark.parametrize(
    "label, why",
    [
        ("E869 00 0000000000000000000", "repeated glyphs"),
        ("Rural Administration..........6+", "repeated glyphs"),
        ("Home and Farm Anthori | ~", "unexpected characters"),
        ("l939 receipts", "letters and digits mixed"),
        ("4 5 6 7 (8) 9", "too few letters"),
        ("", "empty label"),
        ("Receipts / ", "empty header level"),
    ],
)
def test_noise_is_rejected(label, why):
    assert why in (label_problem(label) or "")
