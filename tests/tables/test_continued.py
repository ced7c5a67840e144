"""A "(Continued)" page joined to the table it continues on the page before
(pipeline.tables.continued, run by build_tables over consecutive pages)."""

from __future__ import annotations

import polars as pl

from pipeline.tables.layout import build_tables
from tests.tables.test_layout import COLS, LEFT, PITCH, Page


def _page(page_no: int, title: str, unit: str | None, heads: list[str]) -> Page:
    page = Page(page_no=page_no)
    page.centred(title, 1275, 200)
    if unit:
        page.centred(unit, 1275, 260)
    for x1, head in zip(COLS, heads, strict=True):
        page.centred(head, x1 - 90, 330)
    y = 410
    for label in ("Treasury notes", "Treasury bonds", "Total"):
        page.text(label, LEFT, y)
        for x1 in COLS:
            page.right("1,234", x1, y)
        y += PITCH
    return page


def _build(*pages: Page) -> pl.DataFrame:
    words = pl.concat([p.words() for p in pages])
    tables, _ = build_tables(words, pl.concat([p.pages() for p in pages]))
    return tables.sort("page_no")


HEADS = ["Total", "Banks", "Insurance", "Other"]


def test_a_continued_page_takes_the_statement_and_unit_of_the_table_it_continues() -> None:
    """1967-08 p54/p55 style: 'Table 5.- Unmatured Marketable Securities' with its unit
    line, then a page printing only 'Table 5.- (Continued)' over the same columns."""
    first = _page(1, "Table 5.- Unmatured Marketable Securities", "(In millions of dollars)", HEADS)
    second = _page(2, "Table 5.- (Continued)", None, HEADS)
    t = _build(first, second).row(1, named=True)
    assert (t["statement"], t["continued"]) == ("Unmatured Marketable Securities", True)
    assert (t["unit"], t["unit_source"]) == ("millions of dollars", "continued")
    assert t["unit_printed"] == "(In millions of dollars)"


def test_a_continued_part_with_other_columns_keeps_its_unit_unknown() -> None:
    """1984-06 p34/p35, 1967-08 p46/p47: the continued page prints other columns (prices
    per hundred, rates in percent) than the first page's amounts in millions."""
    first = _page(1, "Table 2.- Offerings of Treasury Bills", "(In millions of dollars)", HEADS)
    other = ["Price per hundred", "Rate", "High", "Low"]
    second = _page(2, "Table 2.- Offerings of Treasury Bills - (Continued)", None, other)
    t = _build(first, second).row(1, named=True)
    assert t["statement"] == "Offerings of Treasury Bills"
    assert (t["unit"], t["unit_source"]) == ("unknown", "none")


def test_without_the_page_before_a_continued_table_stays_unknown() -> None:
    """A build of selected pages (the gold pages only): nothing to join to."""
    second = _page(2, "Table 5.- (Continued)", None, HEADS)
    t = _build(second).row(0, named=True)
    assert (t["statement"], t["unit"]) == ("", "unknown")


def test_the_same_number_under_another_name_is_another_table() -> None:
    """1953-09: 'Table 3' restarts in each section; 'Table 3.- Other Taxable Issues -
    (Continued)' does not continue 'Table 3.- Sales and Redemptions by Periods'."""
    first = _page(
        1, "Table 3.- Sales and Redemptions by Periods", "(In millions of dollars)", HEADS
    )
    second = _page(2, "Table 3.- Other Taxable Issues - (Continued)", None, HEADS)
    t = _build(first, second).row(1, named=True)
    assert (t["statement"], t["unit"]) == ("Other Taxable Issues", "unknown")


def test_a_continued_table_joins_only_the_page_right_before() -> None:
    first = _page(1, "Table 5.- Unmatured Marketable Securities", "(In millions of dollars)", HEADS)
    third = _page(3, "Table 5.- (Continued)", None, HEADS)
    t = _build(first, third).row(1, named=True)
    assert (t["statement"], t["unit"]) == ("", "unknown")
