"""Titles and units as the real bulletins print them (and as OCR reads them): garbled
scale words, unit lines whose bracket OCR read as a letter, prose that names a table,
chart titles over data tables, running heads over the first table, panels, headings that
end in a colon. Fixtures are word boxes laid out like the cited real page."""

from __future__ import annotations

import polars as pl
import pytest

from pipeline.tables.layout import build_tables
from pipeline.tables.titles import is_numbered_title, split_title
from pipeline.tables.units import UNKNOWN, garbled_scale, is_unit_line, read_unit, table_unit
from tests.tables.test_layout import COLS, CW, LEFT, PITCH, Page


def _rows(page: Page, y: float, labels: list[str], figures: list[str]) -> float:
    """Body rows with a figure in each of the four columns (the figures given, repeated)."""
    for label in labels:
        page.text(label, LEFT, y)
        for x1, fig in zip(COLS, (figures * len(COLS))[: len(COLS)], strict=True):
            page.right(fig, x1, y)
        y += PITCH
    return y


# ---- units -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "unit"),
    [
        # 1948-05 p43: "(Par values - in millions of dollars)" as OCR read it
        ("(Par values - in mtllione of dollare)", "millions of dollars"),
        # 1984-06 p49: "[In millions of dollars]", the bracket read as a T
        ("_ TIn mitlinns of dollars", "millions of dollars"),
        # 1984-06 p39: "[Dollar amounts in millions. Source: ...]"
        ("Oo1lar amounts in mitlions. Source: Subscription", "millions of dollars"),
        ("(Ia millicas of dollars - on basis of daily Treasury statements)", "millions of dollars"),
        ("(In thousands of dollere)", "thousands of dollars"),
    ],
)
def test_a_garbled_scale_word_next_to_dollars_is_read(text: str, unit: str) -> None:
    assert read_unit(text) is not None and read_unit(text)[0] == unit
    assert is_unit_line(text)


@pytest.mark.parametrize(
    "text",
    [
        "(Ic of dollare)",  # no scale word at all
        "(In mil140ns of dollars)",  # digits for letters: too far
        "(In thoueande of fine 1/",  # 1940-05 p73: the scale of ounces, "ounces" lost
        "Net registered tonnage (10 thousande of toae)",
    ],
)
def test_a_scale_word_that_cannot_be_read_for_sure_gives_no_unit(text: str) -> None:
    assert read_unit(text) is None


def test_a_scale_word_is_read_only_when_one_reading_is_clearly_nearest() -> None:
    assert garbled_scale("mitlions") == "million"  # 1 edit from millions, 2 from billions
    assert garbled_scale("thoueande") == "thousand"
    assert garbled_scale("billione") == "billion"
    assert garbled_scale("xillions") is None  # 1 edit from both millions and billions
    assert garbled_scale("mllns") is None  # too short to read


def test_a_unit_line_whose_scale_is_unreadable_is_still_a_unit_line() -> None:
    """1940-05 p73: '(In thousands of fine ounces)' read '(In thoueande of fine 1/': the
    line is the unit line (so the title above it is found), its unit unknown."""
    assert is_unit_line("(In thoueande of fine 1/")
    assert read_unit("(In thoueande of fine 1/") is None


def test_the_bracket_of_a_unit_line_read_as_a_letter() -> None:
    """1984-06 p75: '[In billions of yen]' read 'Lin billions of yen — -'."""
    assert is_unit_line("Lin billions of yen \u2014 -")
    assert read_unit("Lin billions of yen")[0] == "billions of yen"


def test_a_stub_heading_ending_in_a_colon_is_no_unit_line() -> None:
    """1939-12 p54: the stub heading 'TOTAL ASSETS PAYABLE / IN DOLLARS:' of a table in
    thousands of dollars is not its unit line."""
    assert not is_unit_line("IN DOLLARS:")
    assert is_unit_line("(In millions of dollars) :")  # a stray mark after the bracket


# ---- titles ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Table 1.- Net Movement of Capital",
        "TABLE FFO-3\u2014On-Budget and Off-Budget Outlays by Agency",
        "Table CM\u2014IV\u20144. \u2014 Total Claims by Country",
        "Table I.- Status of the General Fund",
        "Tabie FCP\u20141V\u20142. \u2014 Weekly Bank Positions",
        "CHART CM-C.\u2014Net Purchases of Long-Term Domestic Securities",
        "Table 5.- and Redemptions by Denominations",  # OCR lost "Sales"
    ],
)
def test_numbered_titles(text: str) -> None:
    assert is_numbered_title(text)


@pytest.mark.parametrize(
    "text",
    [
        "table below.",  # 1941-01 p21: a footnote's wrapped line
        "Table IFS-2 brings together statistics on liabilities",  # 1984-06 p49 prose
        "Table 4 under \u201cTrust Accounts, Etc.\u201d)",
        "Table 3, footnote 2, In the reopening",
        "\u2022 Table FFO-1 summarizes the amount of total tax returns",
        "Table of Contents",
        "Chart A shows the",
    ],
)
def test_prose_that_names_a_table_is_no_title(text: str) -> None:
    assert not is_numbered_title(text)


def test_section_and_ocr_forms_of_the_number() -> None:
    assert split_title("Section II - Interest-Bearing Securities").number == "Section II"
    assert split_title("Section II - Interest-Bearing Securities").name == (
        "Interest-Bearing Securities"
    )
    t = split_title("Table 1 ~- Regular Federal Grants-in-aid to States - (Continued)")
    assert (t.number, t.name, t.continued) == (
        "Table 1",
        "Regular Federal Grants-in-aid to States",
        True,
    )
    assert split_title("Tabie FCP\u20141V\u20142. \u2014 Weekly Bank Positions").name == (
        "Weekly Bank Positions"
    )
    assert split_title("Table CM~IV\u20145. \u2014 Total Claims").number == "Table CM-IV-5"


def test_a_wrapped_footnote_naming_a_table_does_not_take_the_next_title() -> None:
    """1941-01 p21: the footnotes of the upper table end '... shown as an expenditure in
    the / table below.'; the lower table's title is the line above its unit line."""
    page = Page()
    page.centred("Receipts and Expenditures under Social Security Act", 1275, 200)
    page.centred("(In millions of dollars)", 1275, 260)
    page.centred("Receipts", COLS[0] - 90, 330)
    page.centred("Expenditures", COLS[1] - 90, 330)
    y = _rows(page, 400, ["1937", "1938"], ["252.2", "183.1"])
    page.text("1/ Amounts are shown as an expenditure in the", LEFT, y + 20)
    page.text("table below.", LEFT + 40, y + 20 + PITCH)
    y += 6 * PITCH
    page.centred("Receipts and Expenditures, Federal Old-Age Insurance Trust Fund", 1275, y)
    page.centred("(Cumulative - In millions of dollars)", 1275, y + 60)
    page.centred("Receipts", COLS[0] - 90, y + 130)
    page.centred("Balance", COLS[1] - 90, y + 130)
    _rows(page, y + 200, ["1937", "1938"], ["267.3", "262.1"])
    tables, _ = build_tables(page.words(), page.pages())
    assert tables["statement"].to_list()[1] == (
        "Receipts and Expenditures, Federal Old-Age Insurance Trust Fund"
    )


def test_a_data_table_under_a_chart_takes_the_chart_title() -> None:
    """2011-09 p85: 'CHART CM-C.—Net Purchases ...' over a bar chart, its legend, then
    the data table with only a unit line of its own."""
    page = Page()
    page.centred("CHART CM-C.\u2014Net Purchases of Long-Term", 1275, 200)
    page.centred("Domestic Securities by Foreigners, Selected Countries", 1275, 245)
    for i, y in enumerate(range(330, 900, 60)):
        page.text(str(800 - 100 * i), LEFT - 100, y)  # the chart's axis
    page.text("United Kingdom", LEFT, 1000)
    page.text("All other Europe", 1000, 1000)
    page.text("Japan", 1700, 1000)
    page.centred("[In millions of dollars. Source: Treasury International Capital]", 1275, 1150)
    page.text("Country", LEFT, 1230)
    page.centred("2008", COLS[0] - 90, 1230)
    page.centred("2009", COLS[1] - 90, 1230)
    _rows(page, 1300, ["United Kingdom", "Japan", "All other Asia"], ["328,706", "212,743"])
    tables, _ = build_tables(page.words(), page.pages())
    t = tables.row(0, named=True)
    assert t["table_number"] == "CHART CM-C"
    assert (
        t["statement"]
        == "Net Purchases of Long-Term Domestic Securities by Foreigners, Selected Countries"
    )
    assert t["unit"] == "millions of dollars"


def test_head_lines_that_print_counts_do_not_hide_the_title() -> None:
    """1967-08 p76: the column heads print counts ('5,886 commercial banks', '503 mutual
    savings banks', '22,570 corporate pension trust funds') on lines of their own, tall
    heads set well apart from the body: those lines are no table, and the title and unit
    line above them belong to the table below."""
    page = Page()
    page.centred("Table 1.- Summary of All Securities", 1275, 200)
    page.centred("(Par values - in millions of dollars)", 1275, 260)
    page.text("Total", COLS[0] - 150, 330)
    page.right("5,886", COLS[1] - 60, 360)
    page.right("503", COLS[2] - 80, 360)
    page.text("amount", COLS[0] - 150, 400)
    page.right("469", COLS[0] + 50, 420)
    page.right("22,570", COLS[3] + 120, 420)
    page.text("outstand- commercial mutual", COLS[0] - 150, 460)
    _rows(page, 700, ["Public marketable", "Special issues"], ["210,672", "45,525", "4,046"])
    tables, _ = build_tables(page.words(), page.pages())
    assert tables.height == 1
    t = tables.row(0, named=True)
    assert t["statement"] == "Summary of All Securities"
    assert t["unit"] == "millions of dollars" and t["unit_source"] == "unit_line"


def test_a_lower_panel_takes_the_unit_of_the_table_above() -> None:
    """1967-08 p81: Table 1 with its unit line, then 'Table 2.-' with its own unit line
    (OCR read it differently), the upper panel's rows, then a lower panel (rows under a
    stub heading, set off by a gap) with no title or unit of its own: Table 2's unit."""
    page = Page()
    page.centred("Table 1.- Summary of All Securities", 1275, 200)
    page.centred("(Par values - in millions of dollars)", 1275, 260)
    page.centred("Total", COLS[0] - 90, 330)
    page.centred("Banks", COLS[1] - 90, 330)
    y = _rows(page, 400, ["Public marketable", "Special issues"], ["210,672", "45,525"])
    y += 3 * PITCH
    page.centred("Table 2.- Summary of Public Marketable Securities", 1275, y)
    page.centred("(Par values - in millions of doliars)", 1275, y + 60)
    page.centred("Total", COLS[0] - 90, y + 130)
    page.centred("Banks", COLS[1] - 90, y + 130)
    y = _rows(page, y + 200, ["Treasury bills", "Treasury notes"], ["58,535", "5,844"])
    y += 5 * PITCH
    page.text("By maturity distribution:", LEFT, y)
    _rows(page, y + PITCH, ["Within 1 year", "1 to 5 years"], ["105,837", "18,291"])
    tables, _ = build_tables(page.words(), page.pages())
    assert tables.height == 3
    assert tables["unit"].to_list() == ["millions of dollars"] * 3
    assert tables["statement"].to_list()[1:] == ["Summary of Public Marketable Securities"] * 2


def test_ocr_unit_lines_are_read_in_the_archives_spelling() -> None:
    """1941-01 p65: '(In thousands of fine ounces)' read '(In thousande of fiae ouncee)';
    the archive prints 'thousands' (text layers, confident OCR), so the line reads as
    thousands; the unit as printed keeps the OCR's letters."""
    page = Page()
    page.centred("Silver Production, by Leading Countries", 1275, 200)
    page.centred("(In thousande of fine ounces)", 1275, 260)
    page.centred("Canada", COLS[0] - 90, 330)
    page.centred("Mexico", COLS[1] - 90, 330)
    _rows(page, 400, ["1937", "1938"], ["22,821", "16,395"])
    archive = Page(doc_id="digital", page_no=1)
    for y in range(100, 400, 50):
        archive.text("In thousands of dollars", LEFT, y)
    words = pl.concat([page.words(), archive.words().with_columns(source=pl.lit("text_layer"))])
    tables, _ = build_tables(words, page.pages())
    t = tables.row(0, named=True)
    assert t["unit"] == "thousands of fine ounces" and t["unit_multiplier"] == 1_000
    assert t["unit_printed"] == "(In thousande of fine ounces)"


# ---- titles of untitled-by-number tables ----------------------------------------------


def _heads(page: Page, y: float, heads: list[str]) -> None:
    for x1, head in zip(COLS, heads, strict=False):
        page.centred(head, x1 - 90, y)


def test_a_column_head_over_one_column_is_no_title() -> None:
    """1939-12 p63: 'Monetary Stocks of Gold and Silver' centred over the table; the
    last column's head 'Ratio of Silver / to Gold and Silver' stands over that column
    only, and is no title."""
    page = Page()
    page.centred("Monetary Stocks of Gold and Silver", 1275, 200)
    page.centred("Ratio of Silver", COLS[2] - 90, 330)
    _heads(page, 360, ["Gold", "Silver"])
    page.text("End of fiscal year or month", LEFT, 390)
    _rows(page, 470, ["1934", "1935"], ["7,856.2", "898.2", "10.3"])
    tables, _ = build_tables(page.words(), page.pages())
    assert tables["statement"].to_list() == ["Monetary Stocks of Gold and Silver"]


def test_a_wrapped_title_line_with_figures_is_kept() -> None:
    """1941-01 p40: 'Uses of Funds of Certain Governmental Corporations and Credit
    Agencies / for the First 5 Months, Fiscal Year 1941', tall heads well below."""
    page = Page()
    page.centred(
        "Uses of Funds of Certain Governmental Corporations and Credit Agencies", 1275, 200
    )
    page.centred("for the First 5 Months, Fiscal Year 1941", 1275, 245)
    _heads(page, 560, ["Administrative", "Loans"])
    _rows(
        page, 700, ["Central Bank for Cooperatives", "Commodity Credit"], ["56,582", "32,741,968"]
    )
    tables, _ = build_tables(page.words(), page.pages())
    assert tables["statement"].to_list() == [
        "Uses of Funds of Certain Governmental Corporations and Credit Agencies"
        " for the First 5 Months, Fiscal Year 1941"
    ]


def test_a_head_line_going_on_in_small_letters_is_no_title() -> None:
    """1941-01 p40, lower panel: OCR kept only the head's second line 'counts and loans'
    (of 'Allocations, redis- / counts and loans ...'); the panel takes the title above."""
    page = Page()
    page.centred("Uses of Funds of Certain Governmental Corporations", 1275, 200)
    _heads(page, 300, ["Administrative", "Loans"])
    y = _rows(
        page, 380, ["Central Bank for Cooperatives", "Commodity Credit"], ["56,582", "32,968"]
    )
    y += 4 * PITCH
    page.centred("counts and loans", COLS[1] - 90, y)
    _heads(page, y + PITCH, ["Investments", "(net)"])
    _rows(
        page,
        y + 3 * PITCH,
        ["Central Bank for Cooperatives", "Commodity Credit"],
        ["18,586", "320,342"],
    )
    tables, _ = build_tables(page.words(), page.pages())
    assert (
        tables["statement"].to_list() == ["Uses of Funds of Certain Governmental Corporations"] * 2
    )


def test_a_page_heading_in_capitals_is_not_part_of_the_title() -> None:
    """1984-06 p88: 'SUMMARY OF ACCOUNTS AND LOANS RECEIVABLE DUE FROM THE PUBLIC, AS OF
    SEPT. 30, 1983 AND 1982' over 'Accounts and Loans Receivable by Agency' and
    '[In billions]'; the lower table's title carries its date, on one line."""
    page = Page()
    page.centred("SUMMARY OF ACCOUNTS AND LOANS RECEIVABLE DUE FROM THE PUBLIC", 1275, 150)
    page.centred("Accounts and Loans Receivable by Agency", 1275, 195)
    page.centred("[In billions]", 1275, 250)
    _heads(page, 320, ["1983", "1982"])
    y = _rows(page, 400, ["Agriculture", "Commerce"], ["4.8", "3.7"])
    page.text("* Less than $100 million.", LEFT, y)
    y += 5 * PITCH
    page.centred(
        "Summary Reconciliation of Gross Accounts Receivable, as of Sept. 30, 1983", 1275, y
    )
    _heads(page, y + 4 * PITCH, ["Accounts", "Percent"])
    _rows(page, y + 6 * PITCH, ["Beginning balance", "New receivables"], ["53.7", "93.7"])
    tables, _ = build_tables(page.words(), page.pages())
    assert tables["statement"].to_list() == [
        "Accounts and Loans Receivable by Agency",
        "Summary Reconciliation of Gross Accounts Receivable, as of Sept. 30, 1983",
    ]


def test_a_dated_subtitle_under_the_title_is_not_part_of_it() -> None:
    """1940-05 p79: 'Vessels Cleared from the United States, ... / Classified by
    Nationality' and under it the subtitle 'Calendar Years 1938 and 1939, and first
    quarter, 1940'."""
    page = Page()
    page.centred("Vessels Cleared from the United States, Direct for Foreign Ports,", 1275, 200)
    page.centred("Classified by Nationality", 1275, 245)
    page.centred("Calendar Years 1938 and 1939, and first quarter, 1940", 1275, 310)
    _heads(page, 500, ["Number", "Tonnage"])
    _rows(page, 580, ["Grand total", "Belgian"], ["31,710", "34,192"])
    tables, _ = build_tables(page.words(), page.pages())
    assert tables["statement"].to_list() == [
        "Vessels Cleared from the United States, Direct for Foreign Ports,"
        " Classified by Nationality"
    ]


def test_a_continued_title_ends_at_its_continuation_mark() -> None:
    """1984-06 p39: 'Table PDO-4. — Allotments by Investor Classes on Subscriptions for
    Public Marketable Securities—Continued' then the part's subtitle 'Part B — Bills
    Other than Regular Weekly Series' and the unit line as OCR read it."""
    page = Page()
    page.centred("Table PDO-4. \u2014 Allotments by Investor Classes\u2014Continued", 1275, 200)
    page.centred("Part B \u2014 Bills Other than Regular Weekly Series", 1275, 240)
    page.centred(
        "Oo1lar amounts in mitlions. Source: Subscription and allotment reports", 1275, 280
    )
    _heads(page, 350, ["Total", "Banks"])
    _rows(page, 430, ["3/25/82", "4/22/82"], ["5,277", "1,000"])
    tables, _ = build_tables(page.words(), page.pages())
    t = tables.row(0, named=True)
    assert (t["statement"], t["continued"]) == ("Allotments by Investor Classes", True)
    assert t["unit"] == "millions of dollars"


@pytest.mark.parametrize(
    "line",
    [
        "Face amount outstanding as of December 31, 1940:",  # 1941-01 p29, a stub heading
        "Hote: Annual balance sheets for the years 1934 through 1940 may be found",  # 1948-05 p57
    ],
)
def test_headings_and_notes_are_no_titles(line: str) -> None:
    page = Page()
    page.centred("Statement of the Debt Position of the United States", 1275, 200)
    _heads(page, 270, ["Amount", "Total"])
    y = _rows(page, 350, ["Treasury notes", "Treasury bonds"], ["530,838", "4,000"])
    y += 5 * PITCH
    page.text(line, LEFT, y)
    _rows(page, y + 2 * PITCH, ["Interest-bearing", "Matured"], ["2,764", "309"])
    tables, _ = build_tables(page.words(), page.pages())
    assert (
        tables["statement"].to_list() == ["Statement of the Debt Position of the United States"] * 2
    )


def test_a_schedule_named_in_a_label_is_no_title() -> None:
    """1948-05 p57: 'Investments in United States Government securities (Schedule 2)
    20,000,000.00' is a row; 'Schedule 1.- Location of Gold ...' a title."""
    assert not is_numbered_title("(Schedule 2) 20,000,000.00 20,000,000.00")
    assert is_numbered_title("Schedule 1.- Location of Gold Held by the Stabilization Fund")


def test_a_unit_printed_as_a_column_head_is_read_from_the_column_heads() -> None:
    """The budget layout (and real tables of the 1960s): 'Millions of dollars' printed
    as the top head, centred over the value columns, no brackets; under it the years.
    It is the spanner of every column, and the unit comes from the column heads."""
    page = Page()
    page.centred("Table 3.- Budget Receipts by Source", 1275, 200)
    page.centred("Millions of dollars", (COLS[0] - 180 + COLS[-1]) / 2, 280)
    _heads(page, 340, ["1950", "1951", "1952", "1953"])
    page.text("Source", LEFT, 340)
    _rows(page, 420, ["Individual income tax", "Corporation income tax"], ["1,234", "567"])
    tables, _ = build_tables(page.words(), page.pages())
    t = tables.row(0, named=True)
    assert (t["unit"], t["unit_source"]) == ("millions of dollars", "column_head")
    assert t["col_labels"][0] == "Millions of dollars / 1950"


def test_a_unit_line_that_lost_its_opening_stays_a_unit_line() -> None:
    """1984-06 p50: '(In millions of dollars)' read 'millions of dollars)', centred
    under the title: still the unit line, not a head."""
    page = Page()
    page.centred("Table IFS-2. \u2014 Selected U.S. Liabilities to Foreigners", 1275, 200)
    page.centred("millions of dollars)", 1275, 260)
    _heads(page, 330, ["Total", "Official", "Banks", "Other"])
    _rows(page, 410, ["1980", "1981"], ["295,462", "156,947"])
    tables, _ = build_tables(page.words(), page.pages())
    t = tables.row(0, named=True)
    assert (t["unit"], t["unit_source"]) == ("millions of dollars", "unit_line")


def test_a_title_that_names_dollars_states_no_unit() -> None:
    """1984-06 p54 / 1997-09 p68: 'Total Liabilities by Type, Payable in Dollars' says
    what the liabilities are payable in, not the unit of the figures."""
    page = Page()
    page.centred("TABLE CM-I-2.--Total Liabilities by Type, Payable in Dollars", 1275, 200)
    _heads(page, 270, ["Total", "Official", "Banks", "Other"])
    _rows(page, 350, ["1995", "1996"], ["295,462", "156,947"])
    tables, _ = build_tables(page.words(), page.pages())
    assert tables["unit"].to_list() == ["unknown"]


def test_a_table_goes_on_past_stub_headings_set_off_by_blank_lines() -> None:
    """1940-05 p59: 'Short-Term Foreign Assets ...' with its unit line, weekly rows in
    groups under stub headings ('TOTAL ASSETS PAYABLE / IN FOREIGN CURRENCIES:') set
    off by a blank line each: one table (its title and unit for every group), not a
    table per group titled by its heading."""
    page = Page()
    page.centred("Short-Term Foreign Assets as Reported by Banks and Bankers", 1275, 200)
    page.centred("(In thousands of dollars)", 1275, 260)
    _heads(page, 330, ["Grand total", "United Kingdom", "France", "Canada"])
    y = 400.0
    for heading in ("TOTAL SHORT-TERM / FOREIGN ASSETS:", "TOTAL ASSETS PAYABLE / IN DOLLARS:"):
        for part in heading.split(" / "):
            page.text(part, LEFT, y)
            y += PITCH
        y = _rows(page, y + 0.5 * PITCH, ["Feb. 7", "Feb. 14"], ["535,780", "52,029"])
        y += 2.2 * PITCH  # a blank line before the next heading
    tables, _ = build_tables(page.words(), page.pages())
    assert tables.height == 1
    t = tables.row(0, named=True)
    assert t["n_rows"] == 4 and t["unit"] == "thousands of dollars"
    assert t["statement"] == "Short-Term Foreign Assets as Reported by Banks and Bankers"


# ---- units and titles of 1984-06, 1939-12 and born-digital pages ---------------------


def test_amounts_in_a_garbled_scale_state_the_scale() -> None:
    """1984-06 p39 (400-DPI OCR): "[Dollar amounts in millions. Source: ...]" read
    "Ooi1lar amounts in mitlions. Source: ..." - "Dollar" three edits away, the scale
    of the amounts still reads."""
    text = "Ooi1lar amounts in mitlions. Source: Subscription and allotment reports"
    assert read_unit(text) == ("millions", 1_000_000)
    assert is_unit_line(text)


def test_a_unit_line_whose_bracket_reads_as_a_letter_is_a_unit_line() -> None:
    """1984-06 p75: "[In billions of yen]" read "CIn biltions of yen Eee -": a unit line
    (the lexicon then reads its scale), not a body row under the title."""
    assert is_unit_line("CIn biltions of yen Eee -")
    assert not is_unit_line("Interest of the United States")


def _dollar_table(page: Page, y: float, first: list[str]) -> None:
    page.centred("TABLE USCC-1—Amounts Outstanding and in Circulation, June 30, 2022", 1275, y)
    _heads(page, y + 2 * PITCH, ["Total", "Notes"])
    _rows(page, y + 4 * PITCH, ["Amounts outstanding ....."], first)
    _rows(page, y + 5 * PITCH, ["The Treasury .....", "FRBs ....."], ["179,149,775", "96,549,775"])


def test_dollar_figures_of_a_text_layer_table_without_unit_are_dollars() -> None:
    """2022-09 p56 (born digital): no unit line, the first row prints "$2,584,316,862,092":
    dollars. A text layer drops no unit line; on an OCR page nothing over the table
    reads like a garbled unit line either (see the tests below), so dollars too."""
    page = Page()
    _dollar_table(page, 300, ["$2,584,316,862,092", "$2,533,881,300,586"])
    text_pages = page.pages().with_columns(pl.lit("text_layer").alias("word_source"))
    tables, _ = build_tables(page.words(), text_pages)
    assert tables["unit"].to_list() == ["dollars"] and tables["unit_multiplier"].to_list() == [1]
    tables, _ = build_tables(page.words(), page.pages())  # OCR
    assert tables["unit"].to_list() == ["dollars"] and tables["unit_multiplier"].to_list() == [1]


def test_dollar_figures_under_a_scale_word_are_not_taken_for_dollars() -> None:
    """A "$" first row under "(In millions of dollars)" or with a scale word in its rows
    ("$24,000 million" in prose) is not read as plain dollars."""
    page = Page()
    page.centred("(In millions of dollars)", 1275, 200)
    _dollar_table(page, 300, ["$2,584", "$2,533"])
    text_pages = page.pages().with_columns(pl.lit("text_layer").alias("word_source"))
    tables, _ = build_tables(page.words(), text_pages)
    assert tables["unit_multiplier"].to_list() == [1_000_000]
    page = Page()
    _dollar_table(page, 300, ["$2,584", "$2,533"])
    _rows(page, 300 + 7 * PITCH, ["Tenders accepted, million ....."], ["$24,000", "$9"])
    tables, _ = build_tables(page.words(), text_pages)
    assert tables["unit_multiplier"].to_list() == [None]


def test_a_wrapped_title_line_with_a_count_is_part_of_the_title() -> None:
    """1939-12 p68: "Ratios of Index of Wholesale Prices / in 39 Countries to Index of
    Wholesale / Prices in the United States" over an untitled-by-number table: the
    second line carries a figure but goes on from the first; the whole is the title."""
    page = Page()
    page.centred("Ratios of Index of Wholesale Prices", 1275, 150)
    page.centred("in 39 Countries to Index of Wholesale", 1275, 150 + PITCH)
    page.centred("Prices in the United States", 1275, 150 + 2 * PITCH)
    _heads(page, 150 + 5 * PITCH, ["Unweighted", "Weighted"])
    _rows(page, 150 + 7 * PITCH, ["1935 .....", "1936 .....", "1937 ....."], ["100", "105"])
    tables, _ = build_tables(page.words(), page.pages())
    assert tables["statement"].to_list() == [
        "Ratios of Index of Wholesale Prices in 39 Countries to Index of Wholesale"
        " Prices in the United States"
    ]


def test_a_title_line_with_a_count_is_no_head_line() -> None:
    """1939-12 p68, right table: "Ratios of Index of Wholesale Prices in 39 Countries" is
    one phrase (words a word-space apart) with a figure among its words - title text,
    not column heads with head figures ("Within 1 year" spread over the columns)."""
    from pipeline.tables.line_kinds import classify_line
    from pipeline.tables.lines import assign_lines, page_lines

    page = Page()
    first = "Ratios of Index of Wholesale Prices in"
    page.text(first, 1000, 150)
    # OCR set the count a little more than a word-space after "in" (23 px, 24 px type)
    page.text("39 Countries", 1000 + len(first) * CW + 32, 150)
    page.text("Maturity", LEFT, 300)
    page.right("Within", 1100, 300)
    page.right("1", 1400, 300)
    page.right("year", 1700, 300)
    title, head = page_lines(assign_lines(page.words()))
    assert classify_line(title, LEFT, 30.0).kind != "header"
    assert classify_line(head, LEFT, 30.0).kind == "header"


def test_a_table_code_garbled_in_its_middle_still_opens_a_numbered_title() -> None:
    """1984-06 p60 (400-DPI OCR): "Table CM—ltiI—1. — Dollar Claims on Nonbank Foreigners"
    (for CM-III-1) under the section head "Section III. — Supplementary Liabilities ...":
    the numbered line is the title, its name what follows the code."""
    text = "Table CM\u2014ltiI\u20141. \u2014 Dollar Claims on Nonbank Foreigners"
    assert is_numbered_title(text)
    assert split_title(text).name == "Dollar Claims on Nonbank Foreigners"
    assert split_title("Table CM\u2014III\u20141. \u2014 Dollar Claims").number == "Table CM-III-1"
    assert not is_numbered_title("Table 4 under the heading of claims")


def test_a_number_of_spanner_over_every_value_column_states_a_count() -> None:
    """1940-05 p79: "Number of Vessels" printed as the spanner over every value column
    (the years and months under it), no unit line: the figures are counts. The heads
    as that OCR page reads them; a "Number of" head over some columns only ("Number
    of loans" beside "Amount") states no unit, nor does a count head naming a scale."""
    heads = [
        "Calendar Years 1938 and 1939 / Number of Veccele / 1938",
        "Number of Veccele / 193 / June",
        "Number of Veccele wov.",
        "Number of Veccele / Jan.",
    ]
    unit = table_unit("Vessels Cleared from the United States", [], heads, [])
    assert (unit.words, unit.multiplier, unit.source) == ("number", 1, "column_head")
    heads = ["Number of loans", "Amount", "Number of loans", "Amount"]
    assert table_unit("Loans Closed, by State", [], heads, []) == UNKNOWN
    heads = ["Number of holders (in thousands) / 1939", "Number of holders (in thousands) / 1940"]
    assert table_unit("Holders", [], heads, []).multiplier == 1_000


def _vessel_panels(page: Page, unit_x: float) -> None:
    """A titled upper panel, then a lower panel with no title whose unit line stands at
    ``unit_x`` (centred there), its heads and its rows."""
    page.centred("Vessels Cleared from the United States, by Nationality", 1275, 200)
    _heads(page, 330, ["1938", "1939", "1940", "1941"])
    y = _rows(page, 400, ["Belgian .....", "British ....."], ["81", "102"])
    y += 4 * PITCH
    page.centred("(in thousands)", unit_x, y)
    _heads(page, y + 2 * PITCH, ["1938", "1939", "1940", "1941"])
    _rows(page, y + 4 * PITCH, ["Danish .....", "Dutch ....."], ["1,324", "2,449"])


def test_a_lower_panel_whose_unit_stands_over_its_value_columns_keeps_the_title() -> None:
    """1940-05 p79: the lower panel prints no title; its spanner "Net Registered Tonnage
    (in thousands)" stands inside its head box over the value columns, and OCR kept only
    "(in thousand)": the panel is the table above's (its title), with its own unit. A
    unit line reaching over the stub (1939-12 p31, whose lower table's title OCR lost)
    stands under a title of its own: no title is taken from the table above."""
    page = Page()
    _vessel_panels(page, (COLS[0] - 180 + COLS[-1]) / 2)
    tables, _ = build_tables(page.words(), page.pages())
    assert tables.height == 2
    assert (
        tables["statement"].to_list()
        == ["Vessels Cleared from the United States, by Nationality"] * 2
    )
    assert tables["unit"].to_list()[1] == "thousands"
    page = Page()
    _vessel_panels(page, LEFT + 200)
    tables, _ = build_tables(page.words(), page.pages())
    assert tables.height == 2 and tables["statement"].to_list()[1] in ("", None)


@pytest.mark.parametrize(
    ("note", "multiplier"),
    [
        # 1939-12 p45: the note in the unit line's place names no scale: whole dollars
        ("(Compiled from latest reporte received by the Treasury - checks issued)", 1),
        # no note and no trace of a unit line: dollars (1939-12 p22, 1941-01 p40)
        (None, 1),
        # a bracketed line OCR garbled past reading may be the unit line (1940-05 p73,
        # "(In millions)" read "(To militens)")
        ("(To militens)", None),
        ("(Ta xyzq)", None),
        # a note whose scale word OCR garbled past reading may be the unit line itself
        ("(Compiled from reports, in thcvsaads of dollars - checks issued)", None),
        ("(In thcvsaads of dollars - on basis of checks issued)", None),
    ],
)
def test_dollar_figures_under_a_note_naming_no_scale_are_dollars(
    note: str | None, multiplier: int | None
) -> None:
    """1939-12 p45 (OCR): "Uses of Funds of Certain Governmental Corporations ..." with
    "(Compiled from latest reports received by the Treasury - Expenditures on basis of
    checks issued)" set under the title where the unit line stands, and "$3,028,439" on
    the first row: the unit line's place is taken by a note that names no scale, so no
    unit line was lost; the figures are dollars."""
    page = Page()
    if note:
        page.centred(note, 1275, 240)
    _dollar_table(page, 300, ["$3,028,439", "$512,979"])
    tables, _ = build_tables(page.words(), page.pages())  # OCR
    assert tables["unit_multiplier"].to_list() == [multiplier]


def test_dollar_figures_set_apart_or_to_one_decimal() -> None:
    """1941-01 p40 (OCR): "Central Bank for Cooperatives ... $ 56,582 - - $ 31,741,968":
    the "$" set apart before the figure marks it as dollars (no unit line, no scale on
    the page). 1984-06 p88: "$53.7" printed to one decimal is a rounded amount in a
    scale ("[In billions]", which OCR garbled): never plain dollars."""
    page = Page()
    _dollar_table(page, 300, ["-", "-"])
    y = 300 + 4 * PITCH  # the first row: "$" set apart before two of its figures
    page.text("$", COLS[0] - 12 * CW, y)
    page.right("56,582", COLS[0], y)
    page.text("$", COLS[2] - 12 * CW, y)
    page.right("31,741,968", COLS[2], y)
    tables, _ = build_tables(page.words(), page.pages())  # OCR
    assert tables["unit"].to_list() == ["dollars"]
    page = Page()
    _dollar_table(page, 300, ["$53.7", "$40.5"])
    tables, _ = build_tables(page.words(), page.pages())  # OCR
    assert tables["unit_multiplier"].to_list() == [None]


def test_an_index_base_under_a_title_wrapped_over_three_lines() -> None:
    """1939-12 p68 (left table): "Ratios of Index of Wholesale Prices / in 39 Countries
    to Index of Wholesale / Prices in the United States", then "1935 = 100" centred where
    the unit line stands: the figures are index numbers on that base (two figures on the
    line, but no row), and the title is all three lines (the two under the first go on
    from it; the unit line once took only the two lines right above it)."""
    page = Page()
    page.centred("Ratios of Index of Wholesale Prices", 1275, 200)
    page.centred("in 39 Countries to Index of Wholesale", 1275, 245)
    page.centred("Prices in the United States", 1275, 290)
    page.centred("1935 = 100", 1275, 380)
    _heads(page, 470, ["Unweighted", "Weighted", "Weighted", "Weighted"])
    _rows(page, 560, ["1935 .....", "1936 .....", "1937 ....."], ["100", "105"])
    tables, _ = build_tables(page.words(), page.pages())
    assert tables["unit"].to_list() == ["index, 1935 = 100"]
    assert tables["unit_source"].to_list() == ["unit_line"]
    assert tables["statement"].to_list() == [
        "Ratios of Index of Wholesale Prices in 39 Countries to Index of Wholesale Prices"
        " in the United States"
    ]


@pytest.mark.parametrize(
    ("text", "unit"),
    [
        ("1935 = 100", "index, 1935 = 100"),
        ("(1947-49 = 100)", "index, 1947-49 = 100"),
        ("1935 = 100 1935 = 100", None),  # two tables' bases on one line: no unit line
        ("1935 - 100", None),
    ],
)
def test_index_base_lines(text: str, unit: str | None) -> None:
    found = read_unit(text)
    assert (found[0] if found else None) == unit


def _count_table(page: Page, spanner: str, mid: float) -> None:
    page.centred("Vessels Cleared from the United States, Direct for Foreign Ports,", 1275, 200)
    page.centred("Classified by Port from which Cleared", 1275, 245)
    page.centred(spanner, mid, 400)
    _heads(page, 400 + 3 * PITCH, ["1938", "1939", "Nov.", "Dec."])
    _rows(page, 400 + 5 * PITCH, ["Ashtabula .....", "Baltimore .....", "Boston ....."], ["242"])


def test_a_count_spanner_over_the_heads_states_counts() -> None:
    """1941-01 p69 (OCR): "Number of vessels" centred over all the value columns, a rule
    and the year heads under it; OCR read "Humber of" (the lexicon reads "Number") and
    lost the noun, and the spanner stands too far above the years to be read as a head
    line: the figures are counts all the same. Over one column only it says nothing of
    the others."""
    page = Page()
    _count_table(page, "Number of", 1500)
    tables, _ = build_tables(page.words(), page.pages())
    assert tables["unit"].to_list() == ["number"]
    page = Page()
    _count_table(page, "Number of", 2000)
    tables, _ = build_tables(page.words(), page.pages())
    assert tables["unit_multiplier"].to_list() == [None]


def test_a_title_line_with_a_count_above_an_index_base() -> None:
    """1939-12 p67 (left table): "Indexes of Prices of 40 Foreign / Currencies in New
    York" over "1935 = 100": the first line, set at the stub's edge, words and one
    figure, reads like a head line, but one phrase of words above the unit line is a
    title line."""
    page = Page()
    x = LEFT  # typewriter spacing: the words stand more than a word-space apart
    for word in "Indexes of Prices of 40 Foreign".split():
        page.text(word, x, 200)
        x += len(word) * CW + 40
    page.text("Currencies in New York", LEFT + 100, 245)
    page.centred("1935 = 100", 1275, 330)
    _heads(page, 420, ["Unweighted", "Weighted", "Weighted", "Weighted"])
    _rows(page, 510, ["1935 .....", "1936 .....", "1937 ....."], ["100", "97"])
    tables, _ = build_tables(page.words(), page.pages())
    assert tables["statement"].to_list() == [
        "Indexes of Prices of 40 Foreign Currencies in New York"
    ]


def test_a_note_paragraph_above_a_title_is_not_taken_into_it() -> None:
    """1941-01 p27: a footnote of the table above ("1/ The 2 percent Postal savings bonds
    ... / held by Government agencies and trust funds.") over the title "Net Market
    Purchases or Sales of Government Securities ..." and its unit line: a line closing a
    sentence does not run on into the title (a title wraps over more than two lines only
    as one phrase going on in small letters)."""
    page = Page()
    page.text("The 2 percent Postal savings bonds have been classified as in the", LEFT, 150)
    page.text("securities held by Government agencies and trust funds.", LEFT, 195)
    page.centred("Net Market Purchases or Sales of Government Securities", 1275, 240)
    page.centred("(In millions of dollars)", 1275, 320)
    _heads(page, 440, ["Total", "Bonds", "Notes", "Bills"])
    _rows(page, 530, ["1938 .....", "1939 .....", "1940 ....."], ["12.5", "3.1"])
    tables, _ = build_tables(page.words(), page.pages())
    assert "Postal" not in tables["title"].to_list()[0]


def test_a_lower_panel_with_a_scale_in_its_heads_takes_no_unit_from_above() -> None:
    """1984-06 p96: "CURRENCY IN CIRCULATION BY DENOMINATION" ("$3,607,846,625") read
    with the table beside it, whose column is "Amount (in millions)", as a lower panel
    of the dollar table above: a head of its own naming a scale says its columns are
    not all in the unit of the table above; no unit is carried over."""
    page = Page()
    _dollar_table(page, 300, ["$199,054,502,783", "$183,720,451,805"])
    _heads(page, 300 + 10 * PITCH, ["Total", "Notes", "Amount (in millions)", "Per capita"])
    _rows(page, 300 + 12 * PITCH, ["$1 .....", "$2 ....."], ["3,607,846,625", "697,292"])
    tables, _ = build_tables(page.words(), page.pages())
    assert tables.height == 2
    assert tables["unit"].to_list()[0] == "dollars"
    assert tables["unit_multiplier"].to_list()[1] is None


def test_dollar_figures_under_a_scale_head_or_with_a_comma_read_as_a_stop() -> None:
    """A "$" first row whose table has a head naming a scale ("Amount (in millions)")
    is not plain dollars; "$2,326.248" (OCR read a comma as a stop, 1940-05 p49) is no
    one-decimal figure and does not rule dollars out."""
    page = Page()
    page.centred("TABLE USCC-1—Amounts Outstanding and in Circulation, June 30, 2022", 1275, 300)
    _heads(page, 300 + 2 * PITCH, ["Total", "Notes", "Amount (in millions)", "Per capita"])
    _rows(page, 300 + 4 * PITCH, ["Amounts outstanding ....."], ["$2,584", "$2,533"])
    _rows(page, 300 + 5 * PITCH, ["The Treasury .....", "FRBs ....."], ["179,149", "96,549"])
    tables, _ = build_tables(page.words(), page.pages())
    assert tables["unit_multiplier"].to_list() == [None]
    page = Page()
    _dollar_table(page, 300, ["$2,326.248", "$56,582"])
    tables, _ = build_tables(page.words(), page.pages())
    assert tables["unit"].to_list() == ["dollars"]
