"""A label printed in two sections is named only where its section headings tell the rows
apart (audit 2026-12-02: 1939-12 p22, 1941-01 p23, 2011-09 p106)."""

from __future__ import annotations

from pipeline.draft.sections import repeated_labels


def test_a_label_under_a_lost_heading_is_unsure() -> None:
    """1939-12 p22: "Duty-free articles 1/:" lost its first line; "Copper" is printed
    under both sections, and OCR spelled the two Paraffin rows apart."""
    rows = [
        ("Crude petroleum", "articlee"),
        ("Paraffin and other petroleun wax producte", "articlee"),
        ("Copper", "articlee"),
        ("Cane sugar", "Dutieble articles"),
        ("Pareffin and other wax producte", "Dutieble articles"),
        ("Copper", "Dutieble articles"),
    ]
    unsure = repeated_labels(rows)
    assert set(unsure) == {
        "Copper",
        "Paraffin and other petroleun wax producte",
        "Pareffin and other wax producte",
    }
    assert "do not name the sections" in unsure["Copper"]
    assert "OCR spelled them apart" in unsure["Pareffin and other wax producte"]


def test_a_label_under_no_heading_is_unsure() -> None:
    """2011-09 p106: two "Foreign exchange" rows whose headings the reader lost."""
    rows = [("Foreign exchange", ""), ("Insurance premiums", ""), ("Foreign exchange", "")]
    assert set(repeated_labels(rows)) == {"Foreign exchange"}


def test_headings_that_name_the_sections_tell_the_rows_apart() -> None:
    rows = [
        ("Foreign exchange", "Profit (+) or loss (-) on"),
        ("Foreign exchange", "Interest (+) or net charges (-) on"),
        ("Total", "Budget"),
        ("Other", "Budget"),
    ]
    assert repeated_labels(rows) == {}


def test_labels_printed_once_are_sure() -> None:
    rows = [("Crude petroleum", ""), ("Lubricating oil", ""), ("Seed oils", "")]
    assert repeated_labels(rows) == {}


def test_the_same_label_and_heading_twice_is_unsure() -> None:
    """1941-01 p23: "Other" under "Budget" in cash income and again in cash outgo (the
    reader kept only "Budget" for both), and under "CASH OUTGO" for the trust funds."""
    rows = [("Other", "Budget"), ("Subtotal", ""), ("Other", "Budget"), ("Other", "CASH OUTGO")]
    assert set(repeated_labels(rows)) == {"Other"}
