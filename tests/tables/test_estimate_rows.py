"""Estimate rows of year stubs, and figures OCR misread into the row label.

Real stubs: 1948-05 p18 (Receipts and Expenditures by Major Classifications: 1940 ...
1947, "1948 (Estimated)", "1949 (Estimated)", "1947-July" ...), 1953-09 p16 (Tables 3
and 4, "1954 (Est.)" read "(Eet.)" and "(Ket.)"), 1948-05 p17 (Table 9, "October" whose
"*" came back as "." and "February" whose "-.1" came back as "<1").
"""

from __future__ import annotations

import polars as pl

from pipeline.tables.columns import split_strays
from pipeline.tables.estimate_rows import (
    estimates_after_actuals,
    page_estimate_marks,
    restore_estimate_marks,
    restore_estimate_years,
)
from pipeline.tables.headers import Column
from pipeline.tables.layout import build_tables
from pipeline.tables.lines import Chunk
from pipeline.tables.numbers import parse_number
from pipeline.tables.periods import NOT_A_PERIOD, parse_period
from tests.tables.test_layout import COLS, LEFT, PITCH, Page, _table

# 1948-05 p18 Table 1 stub as read: the 8 of "1948" read as a 3
P18_STUB = ["1946", "1947", "1943 (Estimated)", "1949 (Estimated)", "1947-July", "August"]


def test_a_qualified_year_between_its_neighbours_years_is_the_year_between() -> None:
    out = restore_estimate_years(P18_STUB)
    assert out[2] == "1948 (Estimated)"
    assert out[:2] + out[3:] == P18_STUB[:2] + P18_STUB[3:]


def test_a_qualified_year_is_left_when_more_than_one_digit_off_or_of_another_qualifier() -> None:
    two_off = ["1946", "1947", "1953 (Estimated)", "1949 (Estimated)"]
    assert restore_estimate_years(two_off) == two_off
    other_word = ["1946", "1947", "1943 (Bonds)", "1949 (Estimated)"]
    assert restore_estimate_years(other_word) == other_word


def test_an_estimate_of_a_year_the_stub_closed_above_it_names_no_period() -> None:
    periods = [parse_period(label, "Fiscal year or month") for label in P18_STUB]
    assert periods[2].kind == "estimate" and periods[2].end.year == 1943
    checked = estimates_after_actuals(periods)
    assert checked[2] is NOT_A_PERIOD
    assert checked[3] == periods[3]  # 1949 (Estimated): two years past 1947
    assert checked[:2] == periods[:2] and checked[4:] == periods[4:]
    # more than two years past the last actual year: a misread year too
    far = [parse_period(x, "Fiscal year") for x in ("1946", "1947", "1953 (Estimated)")]
    assert estimates_after_actuals(far)[2] is NOT_A_PERIOD
    # with no actual year above it, an estimate is left as read
    alone = [parse_period("1954 (Est.)", "Fiscal year")]
    assert estimates_after_actuals(alone) == alone


def test_a_garbled_estimate_mark_takes_the_mark_another_stub_of_the_page_prints() -> None:
    # 1953-09 p16: Table 3 reads "1954 (Eet.).|" (the typewriter s read as e), Table 4
    # "1954 (Ket.)!" at confidence 0.5
    marks = page_estimate_marks(["1953 74,607 3,469", "1954 (Eet.).| 72,116 3,224"])
    assert marks == {1954: "(Est.)"}
    labels = ["1953", "1954 (Ket.)", "1953-Jan", "1954 (Bonds)", "1955 (Ket.)"]
    out = restore_estimate_marks(labels, marks)
    assert out == ["1953", "1954 (Est.)", "1953-Jan", "1954 (Bonds)", "1955 (Ket.)"]
    assert restore_estimate_marks(labels, {}) == labels


def _chunk(text: str, x0: float, x1: float) -> Chunk:
    return Chunk(text, x0, 0.0, x1, 30.0, 90.0, 1, parse_number(text))


def test_words_standing_in_a_value_column_are_no_label() -> None:
    # 1948-05 p17 Table 9, row "October": "*" read as "." and ".4" as "ay" (x from the OCR)
    columns = [Column(x0=859, x1=905, align=903), Column(x0=1145, x1=1186, align=1186)]
    label = [_chunk("October", 185, 283), _chunk(".", 892, 902), _chunk("ay", 1163, 1186)]
    kept, strays = split_strays(label, columns, 30.0)
    assert [c.text for c in kept] == ["October"]
    assert [c.text for c in strays] == [".", "ay"]
    # a label's own words a word-space apart stay ("1954 (Est.)")
    label = [_chunk("1954", 57, 99), _chunk("(Est.)", 113, 170)]
    assert split_strays(label, columns, 30.0) == (label, [])
    # what a stub prints past a gutter stays: a tax status ("2-1/2 December" |
    # "(taxable)", 1953-09 p39), a year as a typewriter's comes back ("19k9", 1953-09
    # p27), the day of a dated row ("Feb." | "7", 1940-05 p61)
    years = [Column(x0=560, x1=640, align=640)]
    for first, second in (("2-1/2 December", "(taxable)"), ("", "19k9"), ("Feb.", "7")):
        label = (
            [_chunk(first, 300, 400), _chunk(second, 480, 640)]
            if first
            else [_chunk(second, 580, 640)]
        )
        assert split_strays(label, years, 30.0) == (label, [])
    # "n.a." read as "nea." is a figure's place
    label = [_chunk("7/29/83", 100, 260), _chunk("nea.", 590, 640)]
    assert [c.text for c in split_strays(label, years, 30.0)[1]] == ["nea."]
    # the stub word lost: the misread figure ("s" for "482", 1948-05 p18) is no label
    kept, strays = split_strays([_chunk("s", 579, 620)], [Column(560, 625, 621)], 30.0)
    assert kept == [] and [c.text for c in strays] == ["s"]


def _stub_page(rows: list[tuple[str, str, float]]) -> Page:
    """A fiscal-year table whose first column prints ``rows``' (label, first figure,
    label confidence); the other columns print 1,234."""
    page = Page()
    page.centred("Table 3.- Derivation of Cash Budget Expenditures", 1275, 300)
    page.centred("(In millions of dollars)", 1275, 360)
    page.text("Fiscal year or month", LEFT, 430)
    for x1, head in zip(COLS, ["Total", "Banks", "Funds", "Other"], strict=True):
        page.centred(head, x1 - 90, 430)
    y = 500
    for label, first, conf in rows:
        page.text(label, LEFT, y, conf)
        page.right(first, COLS[0], y)
        for x1 in COLS[1:]:
            page.right("1,234", x1, y)
        y += PITCH
    return page


def test_a_misread_first_figure_leaves_the_row_label_and_period() -> None:
    """1953-09 p16 Table 3: "74,607" of the 1953 row came back as "™%,607"; the row
    read "1953 ™%,607", no period. 1953-09 p16 Table 4: "429" of "July" as "keg"."""
    rows = [
        ("1951", "44,633", 95.0),
        ("1952", "66,145", 95.0),
        ("1953", "\u2122%,607", 95.0),
        ("1954 (Est.)", "72,116", 95.0),
        ("1953-June", "7,988", 95.0),
        ("July.", "keg", 95.0),
    ]
    _, cells = _table(_stub_page(rows))
    first = cells.filter(pl.col("col_idx") == 0).sort("row_idx")
    assert first["row_label"].to_list() == ["1951", "1952", "1953", "1954 (Est.)",
                                            "1953-June", "July."]  # fmt: skip
    assert first["text"].to_list()[2] == "\u2122%,607"
    assert first["period_kind"].to_list() == ["fiscal_year"] * 3 + ["estimate", "month", "month"]
    assert first["period_end"].to_list()[2].year == 1953


def test_a_month_name_read_at_no_confidence_is_kept_as_the_stub() -> None:
    """1948-05 p18: "December" came back as "Decerber" at confidence 0; dropped as rule
    noise, the row was labelled by its misread first figure "-5N7"."""
    rows = [
        ("1947-October", "283", 95.0),
        ("November", "138", 95.0),
        ("Decerber", "-5N7", 0.0),
        ("1948-January", "482", 95.0),
    ]
    _, cells = _table(_stub_page(rows))
    first = cells.filter(pl.col("col_idx") == 1).sort("row_idx")
    assert first["row_label"].to_list()[2] == "December"  # the month run reads it
    assert first["period_kind"].to_list() == ["month"] * 4
    assert [d.month for d in first["period_start"].to_list()] == [10, 11, 12, 1]


def test_two_stubs_of_a_page_share_their_estimate_mark() -> None:
    """1953-09 p16: Table 3 reads "1954 (Eet.)", Table 4 below it "1954 (Ket.)"."""
    page = Page()
    y = 300
    for number, mark in (("3", "(Eet.)"), ("4", "(Ket.)")):
        page.centred(f"Table {number}.- Derivation of Cash Transactions", 1275, y)
        page.centred("(In millions of dollars)", 1275, y + 60)
        page.text("Fiscal year or month", LEFT, y + 130)
        for x1, head in zip(COLS, ["Total", "Banks", "Funds", "Other"], strict=True):
            page.centred(head, x1 - 90, y + 130)
        y += 200
        for label in ("1951", "1952", "1953", f"1954 {mark}"):
            page.text(label, LEFT, y, 0.5 if "Ket" in label else 95.0)
            for x1 in COLS:
                page.right("1,234", x1, y)
            y += PITCH
        y += 4 * PITCH
    tables, cells = _table_pair(page)
    last = cells.filter((pl.col("col_idx") == 0) & (pl.col("row_idx") == 3)).sort("table_id")
    assert last["row_label"].to_list() == ["1954 (Est.)", "1954 (Est.)"]
    assert last["period_kind"].to_list() == ["estimate", "estimate"]
    assert tables.height == 2


def _table_pair(page: Page) -> tuple[pl.DataFrame, pl.DataFrame]:
    return build_tables(page.words(), page.pages())
