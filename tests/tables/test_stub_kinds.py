"""The kind of a table's period rows, read from what its stub prints (word boxes laid out
like the real pages cited in each test)."""

from __future__ import annotations

import polars as pl
import pytest

from pipeline.tables.layout import build_tables
from tests.tables.test_layout import COLS, LEFT, PITCH, Page, _table

CW = 20.0


def _fiscal_stub_table(kind_word: str, kind_conf: float, rows: list[tuple[str, float]]) -> Page:
    """A "Fiscal year or month" table: the stub head's first word as OCR read it (text,
    confidence), then year rows (each label word with its confidence)."""
    page = Page()
    page.centred("Table 1.- Receipts and Expenditures by Major Classifications", 1275, 300)
    page.centred("(In millions of dollars)", 1275, 360)
    page.text(kind_word, LEFT, 430, conf=kind_conf)
    page.text("year", LEFT + (len(kind_word) + 1) * CW, 430)
    for x1, head in zip(COLS, ["Total", "Receipts", "Expenditures", "Net"], strict=True):
        page.centred(head, x1 - 90, 430)
    page.text("or month", LEFT, 430 + PITCH)
    y = 430 + 2.5 * PITCH
    for label in rows:
        x = LEFT
        for word, conf in label:
            page.text(word, x, y, conf=conf)
            x += (len(word) + 1) * CW
        for x1 in COLS:
            page.right("1,820", x1, y)
        y += PITCH
    return page


@pytest.mark.parametrize(
    ("kind_word", "conf", "kind"),
    [
        ("Wiscal", 0.0, "fiscal_year"),  # 1948-05 p18
        ("VWiecal", 9.8, "fiscal_year"),  # 1941-01 p21
        ("Meoal", 0.0, "year"),  # 1948-05 p17 Table 9: too garbled to tell
        ("casas", 15.0, "year"),  # 1940-05 p73 ("calendar"): nearer "fiscal", but far
    ],
)
def test_a_garbled_kind_word_before_year_is_read_as_it(kind_word, conf, kind) -> None:
    """1948-05 p18 (Receipts and Expenditures by Major Classifications) prints "Fiscal
    year or month" over year rows 1940 ... 1947; OCR read "Fiscal" as "Wiscal" at
    confidence 0 (1941-01 p21: "VWiecal", confidence 10, the broken F read as two letters).
    Dropped as rule noise, the stub head was "year or month" and the years of unknown kind.
    A low-confidence word just before "year" that is within one edit of "fiscal" (two
    keeping its last letters) and far from "calendar" is that word; a word as garbled as
    "Meoal" or "casas" is neither, and the years stay of unknown kind."""
    rows = [[(y, 95.0)] for y in ("1945", "1946", "1947")]
    tables, cells = _table(_fiscal_stub_table(kind_word, conf, rows))
    first = cells.filter(pl.col("col_idx") == 0).sort("row_idx")
    assert first["period_kind"].to_list() == [kind] * 3


def test_a_garbled_estimate_mark_after_a_year_is_kept() -> None:
    """1948-05 p18: "1948 (Estimated)" and "1949 (Estimated)" under "Fiscal year or month"
    came back as "(Betimated)" at confidence 33 and "(Zetiaated)" at 21. Dropped, the rows
    read "1948", "1949": the estimates stated as the fiscal years' actual figures. Kept,
    the rows are years qualified by a word OCR garbled; nine letters ending "ated" within
    2.5 slips of "Estimated", the word is read as it (labels._garbled_estimated): the
    fiscal years' estimates (the gold's reading of the page image)."""
    rows = [
        [("1946", 95.0)],
        [("1947", 95.0)],
        [("1948", 90.0), ("(Betimated)", 33.0)],
        [("1949", 90.0), ("(Zetiaated)", 21.0)],
    ]
    tables, cells = _table(_fiscal_stub_table("Fiscal", 95.0, rows))
    first = cells.filter(pl.col("col_idx") == 0).sort("row_idx")
    assert first["period_kind"].to_list() == ["fiscal_year", "fiscal_year"] + ["estimate"] * 2
    assert [str(d) for d in first["period_end"].to_list()[2:]] == ["1948-06-30", "1949-06-30"]


def _panel(page: Page, top: float, stub_head: list[str], heads: list[str], rows: list[str]) -> None:
    for k, text in enumerate(stub_head):
        page.text(text, LEFT, top + k * PITCH)
    for x1, head in zip(COLS, heads, strict=True):
        page.centred(head, x1 - 90, top)
    y = top + 2.5 * PITCH
    for label in rows:
        page.text(label, LEFT, y)
        for x1 in COLS:
            page.right("366", x1, y)
        y += PITCH


@pytest.mark.parametrize(
    ("lower_rows", "kinds"),
    [
        (["1940", "1941", "1942", "1943", "1944"], ["fiscal_year"] * 5),
        # another stub below: the head above is not its own
        (["1930", "1931", "1932", "1933", "1934"], ["year"] * 5),
    ],
)
def test_a_lower_panel_whose_stub_head_is_lost_reads_the_one_above(lower_rows, kinds) -> None:
    """1948-05 p18 Table 1 (Receipts and Expenditures by Major Classifications) is printed
    in two panels under one title, each with the stub head "Fiscal year or month" over
    1940 ... 1949 and the months. OCR read the lower panel's stub head as "eg es" at
    confidence 26 (dropped): its years were of unknown kind. A panel that carries the
    title above, whose stub head reads no word and whose rows are the rows of the panel
    above, reads the stub head above; a panel with other rows does not."""
    page = Page()
    page.centred("Table 1.- Receipts and Expenditures by Major Classifications", 1275, 300)
    page.centred("(In millions of dollars)", 1275, 360)
    years = ["1940", "1941", "1942", "1943", "1944"]
    _panel(page, 430, ["Fiscal year", "or month"], ["Total", "Net", "Receipts", "Paid"], years)
    _panel(page, 1200, [], ["Other", "Increment", "Seigniorage", "Clearing"], lower_rows)
    tables, cells = build_tables(page.words(), page.pages())
    assert tables.height == 2, tables
    lower = cells.filter(pl.col("table_no") == 1, pl.col("col_idx") == 0).sort("row_idx")
    assert lower["row_label"].to_list() == lower_rows
    assert lower["period_kind"].to_list() == kinds


@pytest.mark.parametrize(
    ("title", "kind"),
    [
        (
            "Summary Aging Schedule of Gross Accounts and Loans Receivable Due from the "
            "Public, as of Sept. 30, 1983",
            "as_of_date",
        ),
        ("Treasury bonds due Sept. 30, 1983", "not_a_period"),  # a maturity
    ],
)
def test_due_from_names_a_debtor_not_a_maturity(title, kind) -> None:
    """1984-06 p88: "... Receivable Due from the Public, as of Sept. 30, 1983" is a position
    on that day; "due" read as a maturity word made the title no period, and the table's
    columns undated. "Due from" names who owes; "due" before a date is still a maturity."""
    from pipeline.tables.periods import parse_period

    assert parse_period(title).kind == kind


@pytest.mark.parametrize(
    ("row", "expected"),
    [
        ("1g4g\u2014January", ["January 1948", "February 1948", "March 1948"]),
        # its place is February's: left as read, and the months after it undated
        ("1g4g\u2014February", ["1g4g\u2014February", "March", "April"]),
        # its letters cannot spell the year its place implies (1948)
        ("1g5g\u2014January", ["1g5g\u2014January", "February", "March"]),
    ],
)
def test_a_month_row_whose_year_ocr_spelled_is_dated_by_its_place(row, expected) -> None:
    """1948-05 p25 Table 4 (Special Issues ...), "End of fiscal year or month": after
    "1947-July" ... "December" the stub prints "1948-January", "February", "March"; OCR
    read the year "1g4g" (the 9 and the 8 of the typewriter face as "g"), and the three
    rows were undated. A month row whose year is four characters with letters for digits,
    standing where its month falls in the run, takes the year its place implies when its
    letters spell it."""
    from pipeline.tables.axes import axis_periods
    from pipeline.tables.stub_periods import carry_years

    run = ["1946", "1947", "1947-July", "August", "September", "October", "November", "December"]
    rows = [*run, row, *(["February", "March"] if "January" in row else ["March", "April"])]
    assert carry_years(rows)[-3:] == expected
    axis, periods, _ = axis_periods(
        ["Total"], rows, "Special Issues", "End of fiscal year or month"
    )
    assert axis == "row"
    dated = [p is not None and p.kind == "as_of_date" for p in periods[-3:]]
    assert dated == [e.endswith("1948") for e in expected]


@pytest.mark.parametrize(
    ("row", "expected"),
    [
        ("1938-5", ["November 1938", "December 1938"]),
        ("1937-5", ["1937-5", "3 Dee"]),  # not the year its place implies
        ("1938-39", ["1938-39", "3 Dee"]),  # a span of years, not a month row
    ],
)
def test_a_month_row_whose_month_ocr_garbled_is_dated_by_its_place(row, expected) -> None:
    """1939-12 p63 (Monetary Stocks of Gold and Silver, "End of fiscal year or month"):
    after the year rows the stub prints "1938-Nov.", "Dec.", "1939-Jan." ...; OCR read the
    first two "1938-5" and "3 Dee", and both rows were undated. Counted back from
    "1939-Jan.", the row two above is November 1938: a row that prints that year with its
    month cut to a mark or two is that month, and the garbled row between is December."""
    from pipeline.tables.stub_periods import carry_years

    rows = ["1937", "1938", row, "3 Dee", "1939-Jan", "Feb.", "Mar"]
    assert carry_years(rows)[2:4] == expected


def test_a_garbled_day_row_inside_panels_of_one_sequence_takes_its_place_s_day() -> None:
    """1940-05 p59 (Short-Term Foreign Assets ... for February 1940): nine panels print
    "Feb. 7", "Feb. 14", "Feb. 21", "Feb. 28"; OCR read some of them "Fed. 7 Th217",
    "Ted. 14 igh eke", "Ted. A" (a figure run into the stub), and those rows were undated.
    Inside panels that repeat one sequence of days, a garbled day row next to a dated row
    of its panel takes the day its place gives; a day it prints must agree, and a row
    whose neighbours give two different days stays undated."""
    from pipeline.tables.stub_periods import title_month_days

    title = "Short-Term Foreign Assets as Reported by Banks for February 1940"
    week = ["Feb. 7", "Feb. 14", "Feb. 21", "Feb. 28"]
    dated = [f"February {d}, 1940" for d in (7, 14, 21, 28)]
    got = title_month_days(week + ["Fed. 7 Th217", "Feb. 14", "Feb. 21", "Feb. 28"] + week, title)
    assert got == dated * 3
    got = title_month_days(week + week + ["Feb. 7", "Ted. 14 igh eke", "Ted. A", "Feb. 28"], title)
    assert got == dated * 3
    # the day it prints is not its place's; one panel only: no sequence to read by
    got = title_month_days(week + week + ["Feb. 7", "Ted. 21 x", "Feb. 21", "Feb. 28"], title)
    assert got[9] == "Ted. 21 x"
    assert title_month_days(["Feb. 7", "Ted. A", "Feb. 21"], title)[1] == "Ted. A"


def test_annotate_dates_year_rows_by_their_stub_headings() -> None:
    """1953-09 p29 (Savings bonds, Series E through K): "Fiscal years:" and "Calendar
    years:" each head year rows, the same year printed under both. ``annotate`` (the
    reading of given tables and cells) takes each row's heading from ``row_parent``, as
    the page reading does: 1952 under "Calendar years" is the calendar year, not the
    fiscal year; cells that carry no row_parent are read by the stub head alone."""
    from datetime import date

    from pipeline.tables.semantics import annotate

    tables = pl.DataFrame(
        {
            "table_id": ["t"],
            "title": ["Table 3.- Sales and Redemptions of Savings Bonds"],
            "unit": ["(In millions of dollars)"],
            "col_labels": [["Sales", "Redemptions"]],
            "stub_head": ["Period"],
        }
    )
    rows = [("1951", "Fiscal years"), ("1952", "Fiscal years"), ("1952", "Calendar years")]
    cells = pl.DataFrame(
        {
            "table_id": ["t"] * 6,
            "row_idx": [r for r in range(3) for _ in range(2)],
            "col_idx": [0, 1] * 3,
            "row_label": [label for label, _ in rows for _ in range(2)],
            "row_parent": [parent for _, parent in rows for _ in range(2)],
        }
    )
    _, out = annotate(tables, cells)
    got = out.filter(pl.col("col_idx") == 0).sort("row_idx")
    assert got["period_kind"].to_list() == ["fiscal_year", "fiscal_year", "calendar_year"]
    assert got["period_start"].to_list() == [date(1950, 7, 1), date(1951, 7, 1), date(1952, 1, 1)]
    _, bare = annotate(tables, cells.drop("row_parent"))
    # without the headings the years are of no stated kind (both 1952 rows no period)
    kinds = bare.filter(pl.col("col_idx") == 0).sort("row_idx")["period_kind"].to_list()
    assert kinds == ["year", "not_a_period", "not_a_period"]


def _railroad_page(garbled_width: float, second_kind: tuple[str, float] | None = None) -> Page:
    """1948-05 p17: Table 8 (Railroad Retirement Act) and Table 9 (Railroad Unemployment
    Insurance Act) one over the other, each under the stub head "Fiscal year or month".
    OCR read Table 8's "Fiscal" as "Fiecal" (confidence 74) and Table 9's as "Meoal"
    (confidence 0), both words 82 px wide at 300 dpi: here the readable one is 120 wide
    (six letters) and the garbled one ``garbled_width``. ``second_kind``: a third stub
    head's kind word (text, confidence) printed in the same page's margin table."""
    page = Page()
    for k, (number, kind_word, conf) in enumerate([("8", "Fiecal", 74.0), ("9", "Meoal", 0.0)]):
        top = 300 + k * 1100
        page.centred(f"Table {number}.- Railroad Act - Budget Receipts and Expenditures", 1275, top)
        page.centred("(In millions of dollars)", 1275, top + 60)
        page.text(kind_word, LEFT, top + 130, conf=conf)
        if k == 1:
            page.rows[-1]["x1"] = page.rows[-1]["x0"] + garbled_width
        page.text("year", LEFT + 7 * CW, top + 130)
        for x1, head in zip(COLS, ["Excess", "Taxes", "Total", "Refunds"], strict=True):
            page.centred(head, x1 - 90, top + 130)
        page.text("or mooth", LEFT, top + 130 + PITCH)
        y = top + 130 + 2.5 * PITCH
        for label in ("1945", "1946", "1947"):
            page.text(label, LEFT, y)
            for x1 in COLS:
                page.right("1,820", x1, y)
            y += PITCH
    if second_kind is not None:
        page.text(second_kind[0], LEFT, 3000, conf=second_kind[1])
    return page


@pytest.mark.parametrize(
    ("garbled_width", "second_kind", "kind"),
    [
        (120.0, None, "fiscal_year"),  # the width of the page's "Fiecal": that word
        (116.0, None, "fiscal_year"),
        (160.0, None, "year"),  # eight letters wide: "calendar", not "fiscal"
        (100.0, None, "year"),  # five letters wide: neither
        # a "calendar" of the page near that width: which one cannot be told
        (120.0, ("calendar", 95.0), "year"),
    ],
)
def test_a_garbled_kind_word_takes_the_kind_its_page_prints_at_its_width(
    garbled_width, second_kind, kind
) -> None:
    """1948-05 p17 Table 9: "Meoal year or mooth" (the "Meoal" at confidence 0) over
    fiscal years 1940 ... 1947 read as years of unknown kind, though Table 8 above prints
    the same stub head readably ("Fiecal year or month") with its kind word the same
    width. One page sets one word in one type at one width: the garbled word is the kind
    word of that width, when the page prints only one kind at (or near) it."""
    page = _railroad_page(garbled_width, second_kind)
    if second_kind is not None:
        page.rows[-1]["x1"] = page.rows[-1]["x0"] + 124.0  # about the width of "Fiecal"
    tables, cells = build_tables(page.words(), page.pages())
    assert tables.height == 2, tables
    lower = cells.filter((pl.col("table_no") == 1) & (pl.col("col_idx") == 0)).sort("row_idx")
    upper = cells.filter((pl.col("table_no") == 0) & (pl.col("col_idx") == 0)).sort("row_idx")
    assert upper["period_kind"].to_list() == ["fiscal_year"] * 3
    assert lower["period_kind"].to_list() == [kind] * 3


def _cash_page(garbled: tuple[float, float]) -> Page:
    """1953-09 p15: Table 1 (Summary of Cash Transactions) over Table 2 (Derivation of
    Cash Budget Receipts), each under the stub head "Fiscal year / or month". OCR read
    Table 2's first line as one word "re" at confidence 20 spanning both words (x 71-194,
    "or" at 72 below it; Table 1's "Fiscal year" 50-173, its "or" at 52). Here Table 1's
    phrase spans 200-420 and ``garbled`` is the garbled word's (x0, x1)."""
    page = Page()
    for k, number in enumerate(("1", "2")):
        top = 300 + k * 1100
        page.centred(f"Table {number}.- Cash Budget Receipts and Payments", 1275, top)
        page.centred("(In millions of dollars)", 1275, top + 60)
        if k == 0:
            page.text("Fiscal year", LEFT, top + 130)
        else:
            page.line_no += 1
            page._word("re", garbled[0], top + 130, 20.0)
            page.rows[-1]["x1"] = garbled[1]
        for x1, head in zip(COLS, ["Receipts", "Payments", "Total", "Net"], strict=True):
            page.centred(head, x1 - 90, top + 130)
        page.text("or month", LEFT, top + 130 + PITCH)
        y = top + 130 + 2.5 * PITCH
        for label in ("1951", "1952", "1953"):
            page.text(label, LEFT, y)
            for x1 in COLS:
                page.right("1,820", x1, y)
            y += PITCH
    return page


@pytest.mark.parametrize(
    ("garbled", "kind"),
    [
        ((200.0, 420.0), "fiscal_year"),  # the span of the page's "Fiscal year"
        ((210.0, 420.0), "fiscal_year"),
        # the stub head left is "or month", its first line lost: no kind (axes)
        ((200.0, 300.0), "not_a_period"),  # half as wide: not that phrase
        ((280.0, 500.0), "not_a_period"),  # as wide, but set off from its "or month"
    ],
)
def test_a_stub_head_line_read_as_one_garbled_word_takes_its_twin_phrase(garbled, kind) -> None:
    """1953-09 p15 Table 2: its stub head's first line "Fiscal year" came back as one
    word "re" at confidence 20, the stub head "or month" and the fiscal years 1946 ... 1953
    of unknown kind. Table 1 above prints "Fiscal year / or month" readably, its first
    line as wide and set the same way over its "or": the garbled line is that phrase."""
    tables, cells = build_tables(_cash_page(garbled).words(), _cash_page(garbled).pages())
    assert tables.height == 2, tables
    upper = cells.filter((pl.col("table_no") == 0) & (pl.col("col_idx") == 0)).sort("row_idx")
    lower = cells.filter((pl.col("table_no") == 1) & (pl.col("col_idx") == 0)).sort("row_idx")
    assert upper["period_kind"].to_list() == ["fiscal_year"] * 3
    assert lower["period_kind"].to_list() == [kind] * 3


def test_a_garbled_word_of_a_running_line_is_not_read_as_a_kind_word() -> None:
    """1941-01 p12: the source note "Daily Treasury Statement, except as noted" ("except"
    at confidence 31) stands over "1/ Estimates for the fiscal year ...", its "year" just
    under "except", on a page whose stub heads print "Fiscal" at that width. A stub head
    sets its kind word over "year or month" or beside "year" over "or month"; a word of a
    running line is neither, and stays as read."""
    from pipeline.tables.kind_words import read_kind_words_by_width
    from pipeline.tables.lines import assign_lines

    page = _railroad_page(120.0)
    page.text("Source: Daily Treasury Statement,", LEFT, 2900)
    page._word("except", LEFT + 34 * CW, 2900, 31.0)
    page.text("as noted.", LEFT + 41 * CW, 2900)
    page.text("1/ Estimates for the fiscal", LEFT + 8 * CW, 2900 + 40)
    page._word("year", LEFT + 34 * CW, 2940, 95.0)
    words = read_kind_words_by_width(assign_lines(page.words()))
    texts = words.sort("word_no")["text"].to_list()
    assert "except" in texts
    assert texts.count("Fiscal") == 1  # the garbled "Meoal" of Table 9's stub head read


def test_a_span_of_whole_years_under_a_stub_section_is_those_years() -> None:
    """1953-09 p29 (Savings bonds, Series E through K): under "Fiscal years:" the first
    row is "1941-1945" (the five years together), then 1946 ... 1953; under "Calendar
    years:" again "1941-1945", then 1946 ... 1952. The span is the years from the first
    through the last, of the section's kind: fiscal years 1941-1945 run July 1, 1940 to
    June 30, 1945. Read as no period before (a year span was always refused)."""
    from datetime import date

    page = Page()
    page.centred("Table 3.- Sales and Redemptions by Periods, Series E through K", 1275, 300)
    page.centred("(In millions of dollars)", 1275, 360)
    page.text("Period", LEFT, 430)
    for x1, head in zip(COLS, ["Sales", "Accrued", "Total", "Outstanding"], strict=True):
        page.centred(head, x1 - 90, 430)
    y = 430 + 2 * PITCH
    for section, labels in (("Fiscal years:", ["1941-1945", "1946", "1947"]),
                            ("Calendar years:", ["1941-1945", "1946", "1947"])):  # fmt: skip
        page.text(section, LEFT - 20, y)
        y += PITCH
        for label in labels:
            page.text(label, LEFT, y)
            for x1 in COLS:
                page.right("4,287", x1, y)
            y += PITCH
        y += PITCH
    tables, cells = _table(page)
    first = cells.filter(pl.col("col_idx") == 0).sort("row_idx")
    assert first["row_label"].to_list() == ["1941-1945", "1946", "1947"] * 2
    assert first["period_kind"].to_list() == ["fiscal_year"] * 3 + ["calendar_year"] * 3
    assert first["period_start"][0] == date(1940, 7, 1)
    assert first["period_end"][0] == date(1945, 6, 30)
    assert first["period_start"][3] == date(1941, 1, 1)
    assert first["period_end"][3] == date(1945, 12, 31)


@pytest.mark.parametrize(
    ("label", "context"),
    [
        ("1948-50", "Fiscal years"),  # two-digit end: a maturity as often as a span
        ("2-1/4% February 1953-55 (Bonds)", "Fiscal years"),  # 1948-05 p43: a security
        ("1941-1945", "Amount outstanding, end of period"),  # a stock, kind not printed
        ("1941-1945", "Period"),  # kind not printed
        ("1975-1978", "Fiscal years"),  # across the 1976 change of the fiscal year
        ("1945-1941", "Fiscal years"),  # backwards: a misread
    ],
)
def test_a_year_span_that_cannot_be_stated_exactly_is_no_period(label, context) -> None:
    """Precision first: a span of years is a period only when both years are printed in
    full, are the whole label, run forward, and the page says their kind."""
    from pipeline.tables.periods import parse_period

    assert parse_period(label, context).kind == "not_a_period"
