"""Periods read from real bulletin heads: kind, start, end and wording (table-driven),
and a reader that never raises on whatever OCR makes of a header."""

from __future__ import annotations

from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.tables.periods import NOT_A_PERIOD, Period, parse_period
from pipeline.tables.stub_periods import carry_years

D = date
JUNE_2016 = Period("month", D(2016, 6, 1), D(2016, 6, 30), "June 2016")

CASES = [
    # header, context, reference -> kind, start, end, text (None: no period at all)
    (
        "1963",
        "Fiscal years",
        None,
        ("fiscal_year", D(1962, 7, 1), D(1963, 6, 30), "fiscal year 1963"),
    ),
    (
        "1984",
        "Fiscal year",
        None,
        ("fiscal_year", D(1983, 10, 1), D(1984, 9, 30), "fiscal year 1984"),
    ),
    (
        "Calendar year 2005 r (1)",
        "",
        None,
        ("calendar_year", D(2005, 1, 1), D(2005, 12, 31), "calendar year 2005"),
    ),
    ("1963", "", None, ("year", None, D(1963, 12, 31), "1963")),
    # "due from" names a debtor, not a maturity (1984-06 p88, a title over "Accounts
    # receivable", "Percent of total")
    (
        "Summary Aging Schedule of Gross Accounts and Loans Receivable Due from the Public,"
        " as of Sept. 30, 1983",
        "",
        None,
        ("as_of_date", D(1983, 9, 30), D(1983, 9, 30), "September 30, 1983"),
    ),
    (
        "2010 / Oct.-Dec.",
        "",
        None,
        ("quarter", D(2010, 10, 1), D(2010, 12, 31), "the October–December 2010 quarter"),
    ),
    (
        "Third quarter 2016, April-June",
        "",
        None,
        ("quarter", D(2016, 4, 1), D(2016, 6, 30), "the April–June 2016 quarter"),
    ),
    (
        "2006 / July through Sept. p (12)",
        "",
        None,
        ("quarter", D(2006, 7, 1), D(2006, 9, 30), "the July–September 2006 quarter"),
    ),
    (
        "2006 / Jan. through Sept. (11)",
        "",
        None,
        ("year_to_date", D(2006, 1, 1), D(2006, 9, 30), "January–September 2006"),
    ),
    (
        "This fiscal year to date / Trust funds (3)",
        "",
        JUNE_2016,
        ("year_to_date", D(2015, 10, 1), D(2016, 6, 30), "fiscal year 2016 through June 2016"),
    ),
    (
        "Prior fiscal year to date / Trust funds (7)",
        "",
        JUNE_2016,
        ("year_to_date", D(2014, 10, 1), D(2015, 6, 30), "fiscal year 2015 through June 2015"),
    ),
    (
        "From inception to Oct. 31, 1939",
        "",
        None,
        ("cumulative_to_date", None, D(1939, 10, 31), "cumulative to October 31, 1939"),
    ),
    (
        "Sept. 30, 1940",
        "",
        None,
        ("as_of_date", D(1940, 9, 30), D(1940, 9, 30), "September 30, 1940"),
    ),
    ("06/28/06", "", None, ("as_of_date", D(2006, 6, 28), D(2006, 6, 28), "June 28, 2006")),
    (
        "2009 / Sept.",
        "Total Claims by Country [Position at end of period]",
        None,
        ("as_of_date", D(2009, 9, 30), D(2009, 9, 30), "the end of September 2009"),
    ),
    (
        "2020",
        "End of fiscal year or month",
        None,
        (
            "as_of_date",
            D(2020, 9, 30),
            D(2020, 9, 30),
            "the end of fiscal year 2020 (September 30, 2020)",
        ),
    ),
    (
        "1968 estimate",
        "Fiscal year",
        None,
        ("estimate", D(1967, 7, 1), D(1968, 6, 30), "the fiscal year 1968 estimate"),
    ),
    (
        "1967-January",
        "Fiscal year or month",
        None,
        ("month", D(1967, 1, 1), D(1967, 1, 31), "January 1967"),
    ),
    ("Loans", "", None, None),
    # 1939-12 p45, 2011-09 FD-5, 1997-09 FCP, 1940-05 p73: real heads added with the gold set
    (
        "Uses of Funds of Certain Governmental Corporations for the First 4 Months, Fiscal Year 1940",  # noqa: E501
        "",
        None,
        ("year_to_date", D(1939, 7, 1), D(1939, 10, 31), "fiscal year 1940 through October 1939"),
    ),
    (
        "1996 - Oct.",
        "Monthly Report of Major Market Participants Report Purchased date (1)",
        None,
        ("as_of_date", D(1996, 10, 31), D(1996, 10, 31), "the end of October 1996"),
    ),
    (
        "1939-Apr.",
        "Components of Silver Monetary Stock",
        None,
        ("as_of_date", D(1939, 4, 30), D(1939, 4, 30), "the end of April 1939"),
    ),
    (
        "1950",
        "Fiecal yoer or manth",
        None,
        ("fiscal_year", D(1949, 7, 1), D(1950, 6, 30), "fiscal year 1950"),
    ),
    (
        "Corporate bonds / 2006 / 2006 / Jan. through Sept.",
        "",
        None,
        ("year_to_date", D(2006, 1, 1), D(2006, 9, 30), "January–September 2006"),
    ),
]


@pytest.mark.parametrize(("header", "context", "reference", "want"), CASES)
def test_real_heads_read_as_periods(header, context, reference, want) -> None:
    got = parse_period(header, context, reference)
    if want is None:
        assert got is None
        return
    assert (got.kind, got.start, got.end, got.text) == want


@pytest.mark.parametrize(
    "header",
    [
        "2-3/4% Treasury bonds 1960-65",
        "Feb. 30, 1940",
        "Notes due 1951",
        "1939 1941",
        # a month under a spanner naming several years: which one is not printed
        "Calendar Years 1938 and 1939, and first quarter 1940 / Number of Vessels / Apr.",
        "Calendar Years 1938 and 1939, and first quarter 1940",
    ],
)
def test_years_that_are_not_periods(header: str) -> None:
    assert parse_period(header) is NOT_A_PERIOD


def test_wording_states_the_kind() -> None:
    assert parse_period("1963", "Fiscal years").when == "in fiscal year 1963"
    assert parse_period("Sept. 30, 1940").when == "as of September 30, 1940"
    assert parse_period("From inception to Oct. 31, 1939").when == "cumulative to October 31, 1939"
    fy, month = parse_period("1963", "Fiscal years"), parse_period("1963-January")
    assert not fy.comparable(month) and fy.comparable(parse_period("1964", "Fiscal years"))
    assert not parse_period("1963").statable  # fiscal or calendar: the page does not say


def test_month_rows_take_the_year_printed_above() -> None:
    assert carry_years(["1966", "1967-January", "February", "Total"]) == [
        "1966",
        "1967-January",
        "February 1967",
        "Total",
    ]


@settings(max_examples=400, deadline=None)
@given(
    st.text(
        alphabet=st.sampled_from(list("0123456789 ./-–,()%JanFebMarSeptOctDecthroughtoFiscal")),
        max_size=40,
    ),
    st.text(max_size=20),
)
def test_never_raises_on_ocr_noise(header: str, context: str) -> None:
    got = parse_period(header, context, JUNE_2016)
    assert got is None or isinstance(got, Period)


def test_year_stub_misreads_restored_from_their_neighbours() -> None:
    from pipeline.tables.stub_periods import repair_year_run

    read = ["1958.", "", "1960", "19EL.", "", "T9OB.", "W96hervcc", "1965.", "1966-July", "Aug."]
    assert repair_year_run(read)[:8] == [
        "1958.",
        "1959",
        "1960",
        "1961",
        "1962",
        "1963",
        "1964",
        "1965.",
    ]
    assert repair_year_run(read)[8:] == ["1966-July", "Aug."]
    # months between years, a total row, and item stubs are left alone
    assert repair_year_run(["1958", "1959", "Jan.", "Feb.", "1962"])[2:4] == ["Jan.", "Feb."]
    assert repair_year_run(["1958", "1959", "Total", "1961"])[2] == "Total"
    assert repair_year_run(["Customs", "Excise", "Total"]) == ["Customs", "Excise", "Total"]


def test_a_unit_in_one_column_head_is_not_the_tables_unit() -> None:
    from pipeline.tables.units import table_unit

    heads = ["Total coin", "Silver dollars", "Per capita (in dollars)"]
    assert not table_unit("Money in Circulation", [], heads, []).known
    spanned = ["Millions of dollars / Coin", "Millions of dollars / Currency"]
    assert table_unit("Money in Circulation", [], spanned, []).words == "millions of dollars"


def test_a_month_row_whose_month_ocr_garbled_dates_the_months_below_it() -> None:
    """1953-09 p15 Table 2 prints "1953-January" over "February" ... "July"; OCR read
    "1953-Jenuery". 1984-06 p60 (CM-II-1) prints "1984-Jan." over "Feb.", read
    "1984-JdJan. p". The row itself names no period (never the year 1953 or 1984), and the
    months below it keep their year."""
    from pipeline.tables.stub_periods import unread_month_row

    assert carry_years(["1953", "1953-Jenuery", "February", "March"])[2:] == [
        "February 1953",
        "March 1953",
    ]
    assert carry_years(["1984-JdJan. p", "Feb. p"])[1] == "Feb. p 1984"
    assert unread_month_row("1953-Jenuery") and unread_month_row("1948\u2014Jamary")
    assert not unread_month_row("1953-January") and not unread_month_row("1953")
    assert not unread_month_row("1941-1945") and not unread_month_row("1968-Est.")


def test_ocr_debris_in_a_month_run_does_not_end_it() -> None:
    """1984-06 p60: the "Apr." row came back as "¢"; "May" below it is still May 1983."""
    got = carry_years(["1983-Feb. r", "Mar. r", "\u00a2", "May \u00a2", "June r"])
    assert got[3:] == ["May \u00a2 1983", "June r 1983"]
    assert got[2] == "April 1983"  # the month its place between Mar. and May implies
    # an item label still ends the run
    assert carry_years(["1983-Feb.", "Total", "Mar."])[2] == "Mar."


def test_rows_of_an_unread_month_are_no_period_and_the_months_after_are_dated() -> None:
    """1984-06 p60 Table CM-II-1, stub head "End of year or month": the annual rows stay
    of unknown kind (the page does not say calendar), the month rows are month-end
    positions, and "1984-JdJan. p" is no period (it was read as the year 1984)."""
    from datetime import date

    from pipeline.tables.axes import axis_periods

    labels = ["1982", "1983", "1983-Feb. r", "Mar. r", "\u00a2", "May \u00a2", "Dec",
              "1984-JdJan. p", "Feb. p"]  # fmt: skip
    axis, periods, _ = axis_periods(["Total claims", "Banks"], labels, "Dollar Claims",
                                    "End of year or month")  # fmt: skip
    assert axis == "row"
    assert [p.kind for p in periods[:2]] == ["year", "year"]
    assert periods[5] == Period("as_of_date", date(1983, 5, 31), date(1983, 5, 31),
                                "the end of May 1983")  # fmt: skip
    assert periods[4].end == date(1983, 4, 30)  # "¢" stands where April falls
    assert periods[7] is NOT_A_PERIOD
    assert periods[8].kind == "as_of_date" and periods[8].end == date(1984, 2, 29)


def test_year_stubs_spelled_with_letters_for_digits_and_years_one_digit_off() -> None:
    """1953-09 p15 Table 1 prints 1946 ... 1953 in a typewriter face whose 4 OCR reads as
    "h" or "k": "19h6", "", "19k8", "19k9", "1950", ... 1948-05 p55 Table 4 prints
    1939 ... 1947, read "1939", "1980", "1941", ..., "1946", "19h7"."""
    from pipeline.tables.stub_periods import repair_year_run

    read = ["19h6", "", "19k8", "19k9", "1950", "1951", "1952", "1953", "1954 (Eet )"]
    assert repair_year_run(read) == [str(y) for y in range(1946, 1954)] + ["1954 (Eet )"]
    read = ["1939", "1980", "1941", "1942", "1943", "1944", "1945", "1946", "19h7", "1947-July"]
    assert repair_year_run(read)[:9] == [str(y) for y in range(1939, 1948)]
    # a letter that does not spell the position's year, a year with a mark after it
    # ("1943 8%" for "1948 (Estimated)"), and a year outside the run are left alone
    assert repair_year_run(["19h9", "1947", "1948", "1949"])[0] == "19h9"
    read = ["1944", "1945", "1946", "1947", "1943 8%", "1949"]
    assert repair_year_run(read)[4] == "1943 8%"
    assert repair_year_run(["1935", "1941", "1942", "1943"])[0] == "1935"
    # 1948-05 p25 Table 3: "1940" read "1gho" (9 as g, 4 as h, 0 as o) above 1941 ...
    assert repair_year_run(["1gho", "1941", "1942", "1943"])[0] == "1940"
    assert repair_year_run(["logo", "1941", "1942", "1943"])[0] == "logo"


def test_a_year_stub_read_after_the_stubs_rule_read_as_a_digit() -> None:
    """1941-01 p66 Net Movement of Silver: the stub's left rule is read as a "1" before
    1934 and 1935 ("11934", "11935" over "1936", "1937 o i", "1938"): the run gives
    those rows their years. A ruled year off the run, or a five-digit figure that is no
    year at all, stays as read."""
    from pipeline.tables.stub_periods import repair_year_run

    read = ["11934", "11935", "1936", "1937 o i", "1938", "", "19", "1939-December"]
    want = ["1934", "1935", "1936", "1937", "1938", "", "19", "1939-December"]
    assert repair_year_run(read) == want
    assert repair_year_run(["11930", "1935", "1936", "1937"])[0] == "11930"
    assert repair_year_run(["12345", "1935", "1936", "1937"])[0] == "12345"


def test_a_stray_year_does_not_anchor_the_row_order() -> None:
    """1953-09 p16 Table 4 prints 1946 ... 1953 down a "Fiscal year or month" stub; OCR
    read "1947" as "1987". Trusted as the first annual row, it made every row after it
    "out of order" and stood itself as fiscal year 1987."""
    from pipeline.tables.axes import axis_periods

    labels = ["1946 LT", "1987", "1948", "1949", "1950", "1951", "1952", "1953"]
    axis, periods, _ = axis_periods(["Total", "Other"], labels, "Cash Trust Account",
                                    "Fiscal year or month")  # fmt: skip
    assert axis == "row"
    assert periods[1] is NOT_A_PERIOD
    assert [p.kind for p in periods[2:]] == ["fiscal_year"] * 6
    assert [p.end.year for p in periods[2:]] == list(range(1948, 1954))


def test_a_to_date_row_under_the_years_it_sums_is_no_year_to_date() -> None:
    """1967-08 p24 Table 9 (Federal Disability Insurance Trust Fund) ends its stub of
    fiscal years 1957 ... 1967 and months with "1957 to date p": the total since fiscal
    1957, not fiscal year 1957 to date."""
    from pipeline.tables.axes import axis_periods

    labels = ["1957", "1958", "1959", "1966-July", "Aug.", "1957 to date p"]
    _, periods, _ = axis_periods(["Total"], labels, "Federal Disability Insurance Trust Fund",
                                 "Fiscal year or month")  # fmt: skip
    assert periods[0].kind == "fiscal_year" and periods[5] is NOT_A_PERIOD
    # a year to date after the last whole year is one
    labels = ["1965", "1966", "1967 to date"]
    _, periods, _ = axis_periods(["Total"], labels, "Receipts", "Fiscal year")
    assert periods[2].kind == "year_to_date"


def test_a_good_year_next_to_a_stray_keeps_its_period() -> None:
    """1940-05 p73 Table 4 prints 1934, 1935, 1936, ...; OCR read "1934", "1993", "1936".
    "1993" is the stray; "1934" above it is not."""
    from pipeline.tables.axes import axis_periods

    labels = ["1934", "1993", "1936", "1937", "1938"]
    _, periods, _ = axis_periods(["Total"], labels, "Silver", "Calendar year or month")
    assert periods[1] is NOT_A_PERIOD
    assert [p.end.year for i, p in enumerate(periods) if i != 1] == [1934, 1936, 1937, 1938]


def test_a_calendar_year_spanner_that_landed_on_one_column_dates_its_run() -> None:
    """2011-09 p72 CM-III-2 prints "Calendar year" over 2006 ... 2009 and "2010" over its
    quarters; the text layer gives "Calendar year" to the column "2007" alone. 1984-06 p62
    CM-IV-1: OCR split it, "Calendar" on 1979 and "year" on 1980. Under "Position at end of
    period" every year of the run is a year-end position."""
    from datetime import date

    from pipeline.tables.axes import axis_periods

    cols = ["2006", "Calendar year 2007", "2008", "2009", "2010 / Mar. r", "2010 / June r"]
    axis, periods, _ = axis_periods(cols, ["China", "Japan"], "Total Liabilities", "Country",
                                    "Position at end of period in millions of dollars")  # fmt: skip
    assert axis == "col"
    assert [p.kind for p in periods[:4]] == ["as_of_date"] * 4
    assert [p.end for p in periods[:4]] == [date(y, 12, 31) for y in range(2006, 2010)]
    cols = ["Calendar 1979", "year 1980", "1981", "1982 Dec.r", "1983 r / June"]
    _, periods, _ = axis_periods(cols, ["Total"], "Total Liabilities and Claims", "",
                                 "Position at end of period")  # fmt: skip
    assert [p.end for p in periods[:3]] == [date(y, 12, 31) for y in (1979, 1980, 1981)]
    assert {p.kind for p in periods[:3]} == {"as_of_date"}
    # a bare year between a calendar and a fiscal run, or with no kind beside it, stays
    cols = ["Calendar year 2007", "2008", "Fiscal year 2009"]
    _, periods, _ = axis_periods(cols, ["Total"], "Receipts", "")
    assert periods[1].kind == "year"
    _, periods, _ = axis_periods(["2007", "2008"], ["Total"], "Receipts", "")
    assert [p.kind for p in periods] == ["year", "year"]


def test_year_columns_under_a_title_naming_one_day_of_each_year() -> None:
    """1984-06 p88: "Summary of Accounts and Loans Receivable Due from the Public, as of
    Sept. 30, 1983 and 1982" over "Accounts receivable / 1983", ".. / 1982": each column
    is a position on Sept. 30 of its year, and the item spanner is its dimension."""
    from datetime import date

    from pipeline.tables.axes import cell_periods

    title = "Accounts and Loans Receivable Due from the Public, as of Sept. 30, 1983 and 1982"
    cols = ["Accounts receivable / 1983", "Accounts receivable / 1982",
            "Loans receivable / 1983", "Loans receivable / 1982"]  # fmt: skip
    got = cell_periods(cols, ["Legislative branch", "Judiciary"], title, "Agency")
    assert [got[(0, c)].period.end for c in range(4)] == [
        date(1983, 9, 30), date(1982, 9, 30), date(1983, 9, 30), date(1982, 9, 30)
    ]  # fmt: skip
    assert {got[(0, c)].period.kind for c in range(4)} == {"as_of_date"}
    assert got[(0, 2)].dimension == "Loans receivable"
    # a year the title does not name keeps its own reading
    got = cell_periods(["1983", "1981"], ["Total"], "Loans as of Sept. 30, 1983 and 1982", "")
    assert got[(0, 0)].period.kind == "as_of_date" and got[(0, 1)].period.kind == "year"


def test_a_heading_naming_one_day_of_several_years_dates_the_year_columns_under_it() -> None:
    """1984-06 p88: the capitals heading over the page, "SUMMARY OF ACCOUNTS AND LOANS
    RECEIVABLE DUE FROM THE PUBLIC, AS OF SEPT. 30, 1983 AND 1982", stands over the
    table "Accounts and Loans Receivable by Agency", whose heads are "Accounts
    receivable / 1983", ".. / 1982": each column is a position on Sept. 30 of its year.
    A table with a title that names its own period keeps it; a year the heading does
    not name keeps its own (undecided) reading."""

    from pipeline.tables.axes import cell_periods, position_heading

    heading = "SUMMARY OF ACCOUNTS AND LOANS RECEIVABLE DUE FROM THE PUBLIC, AS OF SEPT. 30, 1983 AND 1982"  # noqa: E501
    assert position_heading(["76", heading]) == heading
    cols = ["Accounts receivable / 1983", "Accounts receivable / 1982",
            "Loans receivable / 1983", "Loans receivable / 1981"]  # fmt: skip
    title = "Accounts and Loans Receivable by Agency"
    got = cell_periods(
        cols, ["Legislative branch", "Judiciary"], title, "Agency", page_heading=heading
    )
    assert [got[(0, c)].period.key for c in range(3)] == [
        ("as_of_date", "1983-09-30", "1983-09-30"),
        ("as_of_date", "1982-09-30", "1982-09-30"),
        ("as_of_date", "1983-09-30", "1983-09-30"),
    ]
    assert got[(0, 3)].period.kind == "year"
    # a title with a period of its own is not dated by the heading
    got = cell_periods(
        ["1983", "1982"], ["Total"], "Receipts, fiscal years", "", page_heading=heading
    )
    assert {got[(0, c)].period.kind for c in range(2)} == {"fiscal_year"}


def test_a_month_rows_year_misread_by_one_digit_is_read_from_the_annual_rows() -> None:
    """1967-08 p24 Table 10 (Federal Hospital Insurance Trust Fund): fiscal years 1966,
    "1967p", "1968 (Est.)", then months; OCR read "1967-Jan." as "1947-Jan". 1967 is the
    one year of the table's span one digit from 1947, so Jan. ... June are 1967."""
    from datetime import date

    from pipeline.tables.axes import axis_periods

    labels = ["1966", "1967p", "1968 (Est. )", "Nov", "Dec", "1947-Jan", "Feb", "June p"]
    _, periods, _ = axis_periods(["Total"], labels, "Trust Fund", "Fiscal year or month")
    assert [p.end for p in periods[5:]] == [date(1967, 1, 31), date(1967, 2, 28),
                                            date(1967, 6, 30)]  # fmt: skip
    # two years of the span one digit away (1941 from 1961 or 1971?): left as read
    labels = ["1960", "1970", "1941-Jan", "Feb"]
    _, periods, _ = axis_periods(["Total"], labels, "Trust Fund", "Fiscal year or month")
    assert periods[2] is NOT_A_PERIOD and periods[3] is NOT_A_PERIOD


def test_the_change_between_two_month_end_balances_is_the_quarter_after_the_first() -> None:
    """2022-09 p73 ESF-1 prints "Mar. 31, 2022", "Mar. 31, 2022, through June 30, 2022",
    "June 30, 2022": the middle column is the April-June quarter. Two dates joined by
    "and" (its title, "Balances as of Mar. 31, 2022, and June 30, 2022") are no span."""
    got = parse_period("Mar. 31,2022, through June 30,2022")
    assert (got.kind, got.start, got.end) == ("quarter", D(2022, 4, 1), D(2022, 6, 30))
    assert parse_period("Balances as of Mar. 31, 2022, and June 30, 2022") is NOT_A_PERIOD
    assert parse_period("Mar. 15, 2022, through June 30, 2022") is NOT_A_PERIOD
    # a question names the change, not the quarter alone: over a table of balances "in
    # the January-March 1997 quarter" reads as the balance at its end as well (audit
    # 2026-12-02, 1997-09 ESF-1); a span from a first day is the quarter's flow
    assert got.text == (
        "the change from March 31, 2022 to June 30, 2022 (the April–June 2022 quarter)"
    )
    assert parse_period("Apr. 1, 2016, through June 30, 2016").text == "the April–June 2016 quarter"


def test_an_item_spanner_starting_like_a_month_is_not_part_of_the_span() -> None:
    """2006-12 p92 CM-IV-3: "Marketable Treasury bonds and notes" over "2006" over
    "Jan. through Sept.": "Marketable" opens like "Mar", but names no month, so the span
    is read from "2006" on, and the spanner's "bonds and notes" do not make it a bond."""
    got = parse_period("Marketable Treasury bonds and notes / 2006 / 2006 / Jan. through Sept.")
    assert (got.kind, got.start, got.end) == ("year_to_date", D(2006, 1, 1), D(2006, 9, 30))
    got = parse_period("Marketable Treasury bonds and notes / 2006 / July through Sept. p")
    assert (got.kind, got.start, got.end) == ("quarter", D(2006, 7, 1), D(2006, 9, 30))


def test_a_dashed_span_of_months_is_never_read_as_its_first_month() -> None:
    """2011-09 p85 prints "Calendar years" over 2008, 2009, 2010, "2011 / Jan. - June" and
    "2011 / Apr. - June": January-June 2011 (it was read as January 2011) and the
    April-June quarter. A span that is neither a quarter nor a year to date is no
    period."""
    got = parse_period("Calendar years / 2011 Jan. - June")
    assert (got.kind, got.start, got.end) == ("year_to_date", D(2011, 1, 1), D(2011, 6, 30))
    got = parse_period("Calendar years / 2011 Apr. - June")
    assert (got.kind, got.start, got.end) == ("quarter", D(2011, 4, 1), D(2011, 6, 30))
    assert parse_period("Feb.-May 1940") is NOT_A_PERIOD
    assert parse_period("1983-Oct.").kind == "month"


def test_a_month_row_near_the_annual_years_keeps_the_year_it_prints() -> None:
    """1948-05 p47 (Average Yields of Long-Term Bonds) prints annual rows 1933-1938, then
    "1942-Jan." in the first of three side-by-side panels: 1942 is three years past the
    annual rows, not a misread 1932."""
    from pipeline.tables.row_order import month_row_years

    labels = ["1933", "1934", "1935", "1936", "1937", "1938", "1942\u2014Jan", "Feb"]
    assert month_row_years(labels) == labels
    assert month_row_years(["1966", "1968 (Est.)", "1947-Jan", "Feb"])[2] == "1967-Jan"


def test_a_numeric_date_on_a_security_is_a_maturity_and_two_digit_years_take_the_context() -> None:
    """1953-09 p23 lists "2-1/2% Bond - 6/15/64-69" (a maturity, no date of the table);
    1953-09 p25 "6/20/49" is June 20, 1949 in a 1953 table, not 2049."""
    assert parse_period("2-1/2% Bond - 6/15/64-69") is NOT_A_PERIOD
    got = parse_period("6/20/49", "Offerings of Treasury Bills, fiscal years 1949 through 1953")
    assert got.end == D(1949, 6, 20)
    assert parse_period("7/29/83").end == D(1983, 7, 29)
    assert parse_period("9/30/06").end == D(2006, 9, 30)


def test_an_index_base_is_no_period() -> None:
    """1939-12 p68 (Ratios of Index of Wholesale Prices): "1935 = 100" printed over the
    value columns is the base of the index, not the period of its figures; the rows
    ("1935", "1938-Sept.", "Oct.") carry the periods."""
    from pipeline.tables.axes import cell_periods

    assert parse_period("1935 = 100") is None
    assert parse_period("1935-39 = 100 / Unweighted") is None
    # 1941-01 p66 (Value of Selected Currencies in Terms of Gold)
    assert parse_period("(1928 average of daily quotations = 100) / United Kingdom") is None
    heads = ["1935 = 100 / Weighted by U. S. exports", "1935 = 100 / Weighted by U. S. imports"]
    rows = ["1935", "1936", "1938-Sept", "Oct"]
    got = cell_periods(heads, rows, "", "Ratios of in 39 =", "", stub_doubt=True)
    assert [got[(r, 0)].period.key for r in range(4)] == [
        ("year", "", "1935-12-31"),
        ("year", "", "1936-12-31"),
        ("month", "1938-09-01", "1938-09-30"),
        ("month", "1938-10-01", "1938-10-31"),
    ]
    # a doubtful stub head that names the rows' kind still voids them
    doubted = cell_periods(heads, rows, "", "mato caleadar year or month", "", stub_doubt=True)
    assert doubted[(0, 0)].period is NOT_A_PERIOD


def test_a_month_row_whose_month_ocr_garbled_names_no_period() -> None:
    """1939-12 p63 ("1938-Bov.." for "1938-Nov."), 1940-05 p73 ("1939-Har" for
    "1939-Mar."), 1948-05 p25 ("1948-Jamary"): a year joined to a word that is no month
    is a month row whose month is lost, never the year itself (as_of the end of fiscal
    year 1948 was read for "1948-Jamary")."""
    for label in ("1938-Bov", "1939-Har", "1938-5", "1948-Jamary", "1984-JdJan. p"):
        assert parse_period(label, "End of fiscal year or month") is NOT_A_PERIOD
    assert parse_period("1939-Sept.").kind == "month"
    assert parse_period("1984-Est.", "Fiscal years").kind == "estimate"


def test_a_month_run_counts_rows_ocr_lost_or_garbled() -> None:
    """1939-12 p63 (Gold Assets; "Fed" for "Feb." ended the run and left Mar.-Nov.
    undated), 1941-01 p21 ("1940-January" read as "", so "February" took 1939 and was
    rejected), 1939-12 p63 t2 ("3 Dee", "M" between months)."""
    assert carry_years(["1939-Jan", "Fed", "Mar", "Apr"]) == [
        "1939-Jan",
        "February 1939",
        "Mar 1939",
        "Apr 1939",
    ]
    assert carry_years(["1939-December", "", "February", "March"]) == [
        "1939-December",
        "January 1940",
        "February 1940",
        "March 1940",
    ]
    # a month whose position does not fit is dated only by a plain carry, which a
    # garbled row ends; a month row whose month is garbled still dates the rows below
    assert carry_years(["1939-Apr", "M", "", "Sept", "Oct"])[3:] == ["Sept", "Oct"]
    assert carry_years(["1939-Har", "Apr", "May"]) == ["1939-Har", "Apr 1939", "May 1939"]
    # quarterly rows keep the plain carry; an item row ends the run
    assert carry_years(["1939-Mar.", "June", "Sept."]) == ["1939-Mar.", "June 1939", "Sept 1939"]
    assert carry_years(["1939-Jan", "Customs receipts", "Mar"])[2] == "Mar"
    assert carry_years(["1939-Jan", "Total", "Mar"])[1:] == ["Total", "Mar"]


def test_an_untitled_table_whose_heads_name_a_stock_has_no_flow_rows() -> None:
    """1940-05 p73: two tables side by side ("Components of Silver Monetary Stock" and
    "Silver ... Acquired by Mints") run into one block; the title went into the heads
    and the stub head lost its "End of". Rows read as calendar years and months were
    positions at their ends: without a title, flow or stock cannot be told."""
    from pipeline.tables.axes import cell_periods

    heads = ["Components of Silver Monetary Stock / Silver held in Treasury", "Total silver"]
    rows = ["1938", "1939", "1939-Apr", "May"]
    got = cell_periods(heads, rows, "", "calendar year or month")
    assert all(got[(r, 0)].period is NOT_A_PERIOD for r in range(4))
    titled = cell_periods(heads, rows, "Silver Production", "calendar year or month")
    assert titled[(2, 0)].period.kind == "month"


def test_a_year_read_twice_keeps_the_copy_on_the_run() -> None:
    """1940-05 p73 (Silver Production): OCR read the first stub "1933" as "1935", above
    the real "1935"; the copy off the one-year-a-row run is the misread."""
    from pipeline.tables.axes import cell_periods

    rows = ["1935", "", "1935", "1936", "1937", "1938"]
    got = cell_periods(["United States", "Canada"], rows, "Silver Production", "Calendar year")
    assert got[(0, 0)].period is NOT_A_PERIOD
    assert got[(2, 0)].period.key == ("calendar_year", "1935-01-01", "1935-12-31")
    assert got[(5, 0)].period.key == ("calendar_year", "1938-01-01", "1938-12-31")


def test_lost_month_rows_between_two_dated_months_are_the_months_between() -> None:
    """1939-12 p63 (Monetary Stocks of Gold and Silver): "Apr.", then "M" and three rows
    whose labels OCR lost, then "Sept." five rows down: May to August."""
    assert carry_years(["1939-Apr", "M", "", "", "", "Sept", "Oct"]) == [
        "1939-Apr",
        "May 1939",
        "June 1939",
        "July 1939",
        "August 1939",
        "Sept 1939",
        "Oct 1939",
    ]
    # rows that do not fit one month a row, or an item between, are left alone
    assert carry_years(["1939-Apr", "", "", "Sept"])[1:3] == ["", ""]
    assert carry_years(["1939-Apr", "Customs", "June"])[1] == "Customs"


def test_rows_of_a_position_table_with_flow_columns_state_no_month_end() -> None:
    """1967-08 p94 Table 5, "U.S. Position in the International Monetary Fund": heads of
    "Transactions affecting IMF holdings of dollars during period" beside "IMF holdings of
    dollars at end of period". "1966-July" is a flow in the first columns and a position
    in the last; no one period states both."""
    from pipeline.tables.axes import axis_periods

    cols = ["Transactions during period / Drawings", "IMF holdings at end of period / Amount"]
    labels = ["1965", "1966", "1966-July", "August", "September"]
    _, periods, _ = axis_periods(cols, labels, "U.S. Position in the International Monetary Fund",
                                 "Period")  # fmt: skip
    assert all(p is NOT_A_PERIOD for p in periods[2:])
    # without a flow head the month rows are month-end positions
    _, periods, _ = axis_periods(cols[1:], labels, "U.S. Position in the IMF", "Period")
    assert {p.kind for p in periods[2:]} == {"as_of_date"}


def test_columns_repeating_one_bare_year_are_months_whose_names_were_lost() -> None:
    """1940-05 p29 (Computed Duties Collected, by Countries) prints "Calendar year" over
    1938 and 1939, then "1939" over Mar. ... Dec.; OCR lost the month words, leaving ten
    columns "1939", "1939 ties", ... None of them is calendar year 1939."""
    from pipeline.tables.axes import axis_periods

    cols = ["Calendar year 1938", "Calendar year", "1939", "1939 ties", "1939", "1939 tov"]
    _, periods, _ = axis_periods(cols, ["Belgium", "France"], "Computed Duties Collected",
                                 "Country")  # fmt: skip
    assert all(p is NOT_A_PERIOD for p in periods[2:])
    # a year over several months, or a year repeated under item spanners, is not touched
    cols = ["2010 / Mar. r", "2010 / June r", "2010 / Sept. r", "2010 / Dec."]
    _, periods, _ = axis_periods(cols, ["China"], "Purchases", "Country")
    assert {p.kind for p in periods} == {"month"}


@pytest.mark.parametrize(
    ("head", "kind", "start", "end"),
    [
        ("Current quarter through Mar. 31, 1997", "quarter", date(1997, 1, 1), date(1997, 3, 31)),
        (
            "Fiscal year to date through Mar. 31, 1997",
            "year_to_date",
            date(1996, 10, 1),
            date(1997, 3, 31),
        ),
        (
            "Fiscal year to date Oct. 1, 1996, through Mar. 31, 1997",
            "year_to_date",
            date(1996, 10, 1),
            date(1997, 3, 31),
        ),
        ("Fiscal year to date Jan. 1, 1997, through June 30, 1997", "not_a_period", None, None),
        ("Total through Mar. 15, 1997", "not_a_period", None, None),
        ("As of Mar. 31, 1997", "as_of_date", date(1997, 3, 31), date(1997, 3, 31)),
    ],
)
def test_a_date_a_span_runs_to_ends_a_flow_not_a_position(head, kind, start, end) -> None:
    """1997-09 ESF-2 "Income and Expense": the columns "Current quarter through Mar. 31,
    1997" and "Fiscal year to date Oct. 1, 1996, through Mar. 31, 1997" hold flows; the
    first was read as the position at March 31, 1997 (the question asked "as of"), the
    second as no period."""
    p = parse_period(head)
    assert (p.kind, p.start, p.end) == (kind, start, end)


def test_a_numeric_date_on_no_day_of_its_month_is_no_period() -> None:
    """1984-06 p75 (FCP-IV-1, Nonbanking Firms' Positions, Japanese yen): OCR lost the
    "1" of "12/30/83" and read "2/30/83"; there is no February 30, and the row was made
    February 28, 1983. A misread date names no period."""
    assert parse_period("2/30/83") is NOT_A_PERIOD
    assert parse_period("2/29/84").end == D(1984, 2, 29)
    assert parse_period("4/31/83") is NOT_A_PERIOD
    assert parse_period("12/30/83").end == D(1983, 12, 30)


def test_stub_headings_naming_the_kind_of_year_date_the_rows_under_them() -> None:
    """1953-09 p29 (Sales and Redemptions by Periods, Series E through K): under the stub
    head "Period" the stub prints "Fiscal years:" over 1946 ... 1953, "Calendar years:"
    over 1946 ... 1952 and "Months:" over "1953-January" ... The calendar rows were read
    in the table's fiscal context and, each year printed twice, all made no period."""
    import polars as pl

    from tests.tables.test_layout import COLS, LEFT, PITCH, Page, _table

    page = Page()
    page.centred("Table 3.- Sales and Redemptions by Periods, Series E through K", 1275, 300)
    page.centred("(In millions of dollars)", 1275, 360)
    page.text("Period", LEFT + 100, 430)
    for x1, head in zip(COLS, ["Sales", "Accrued", "Total", "Outstanding"], strict=True):
        page.centred(head, x1 - 90, 430)
    y = 430 + 2 * PITCH
    stub = [("Fiscal years:", None), ("1950", 0), ("1951", 0), ("1952", 0), ("1953", 0),
            ("Calendar years:", None), ("1950", 0), ("1951", 0), ("1952", 0),
            ("Months:", None), ("1953-January", 0), ("February", 0)]  # fmt: skip
    for label, _ in stub:
        if label.endswith(":"):
            page.text(label, LEFT, y)
        else:
            page.text(label, LEFT + 40, y)
            for x1 in COLS:
                page.right("3,993", x1, y)
        y += PITCH
    _, cells = _table(page)
    rows = cells.filter(pl.col("col_idx") == 0).sort("row_idx")
    got = [(r["row_label"], r["period_kind"], str(r["period_end"])) for r in rows.to_dicts()]
    assert got == [
        ("1950", "fiscal_year", "1950-06-30"),
        ("1951", "fiscal_year", "1951-06-30"),
        ("1952", "fiscal_year", "1952-06-30"),
        ("1953", "fiscal_year", "1953-06-30"),
        ("1950", "calendar_year", "1950-12-31"),
        ("1951", "calendar_year", "1951-12-31"),
        ("1952", "calendar_year", "1952-12-31"),
        ("1953-January", "month", "1953-01-31"),
        ("February", "month", "1953-02-28"),
    ]


def test_a_kind_heading_overrides_the_tables_kind_only_for_its_rows() -> None:
    """The heading is nearer the row than the title: "Calendar year:" rows under a stub
    head "End of fiscal year" are calendar years; a heading that says more ("Fiscal
    years 1941-1945:") or names no kind ("Months:") decides nothing."""
    from pipeline.tables.axes import axis_periods

    labels = ["1951", "1952", "1952", "1953-Jan.", "Feb."]
    heads = ["", "", "Calendar year", "Months", "Months"]
    _, periods, _ = axis_periods(["Sales"], labels, "Savings Bonds", "Fiscal year", "", heads)
    assert [p.kind for p in periods] == ["fiscal_year", "fiscal_year", "calendar_year",
                                         "month", "month"]  # fmt: skip
    _, periods, _ = axis_periods(["Sales"], ["1951", "1952"], "Savings Bonds", "Period", "",
                                 ["Fiscal years 1941-1945", "Fiscal years 1941-1945"])  # fmt: skip
    assert {p.kind for p in periods} == {"year"}
    # a misspelt kind word is read ("Fisoal years:", 1953-09 p29 Series H)
    _, periods, _ = axis_periods(["Sales"], ["1952", "1953"], "Savings Bonds", "Period", "",
                                 ["Fisoal years", "Fisoal years"])  # fmt: skip
    assert {p.kind for p in periods} == {"fiscal_year"}


def test_years_that_do_not_step_one_a_row_over_garbled_rows_name_no_period() -> None:
    """1948-05 p36 (Sales and Redemptions, Series F): under "Calendar years:" the stub
    prints 1941 ... 1947; OCR read "1942", "192", "1983", "19", "1985", "19", "1947".
    "1942" stands six rows above "1947": one of the two is misread (it is "1941"), so
    neither names a period; "1983" and "1985" are strays among the 1940s."""
    from pipeline.tables.axes import axis_periods

    labels = ["1941", "1942", "1943", "1944", "1945", "1946", "1947",
              "1942", "192", "1983", "19", "1985", "19", "1947"]  # fmt: skip
    heads = ["Fiscal years"] * 7 + ["Calendar years"] * 7
    _, periods, _ = axis_periods(["Sales"], labels, "Sales and Redemptions", "Period", "", heads)
    assert [p.kind for p in periods[:7]] == ["fiscal_year"] * 7
    assert all(p is None or p is NOT_A_PERIOD for p in periods[7:])
    # a run with whole years between, or none, is not counted
    _, periods, _ = axis_periods(["Sales"], ["1930", "1935", "1940"], "Sales", "Calendar year")
    assert [p.end.year for p in periods] == [1930, 1935, 1940]


def test_a_stub_head_run_on_into_the_column_heads_keeps_its_stub_words() -> None:
    """1953-09 p16 Table 4 (Derivation of Cash Trust Account Transactions): OCR read the
    stub head "Fiscal year" with the rule after it as "year|" and ran it on into the
    first column's head ("Fiscal year| trust Interest on|Transfere ..."); the stub head
    kept only "er month" and the year rows were of unknown kind."""
    import polars as pl

    from tests.tables.test_layout import COLS, LEFT, PITCH, Page, _table

    page = Page()
    page.centred("Table 4.- Derivation of Cash Trust Account Transactions", 1275, 300)
    page.centred("(In millions of dollars)", 1275, 360)
    page.text("Fiscal year| trust account cash receipts", LEFT, 430)  # into column 1
    for x1, head in zip(COLS[1:], ["Interest", "Transfers", "Other"], strict=True):
        page.centred(head, x1 - 90, 430)
    page.text("or month", LEFT, 430 + PITCH)
    y = 430 + 3 * PITCH
    for year in ("1946", "1947", "1948"):
        page.text(year, LEFT, y)
        for x1 in COLS:
            page.right("3,993", x1, y)
        y += PITCH
    tables, cells = _table(page)
    assert tables["stub_head"].item().startswith("Fiscal year")
    first = cells.filter(pl.col("col_idx") == 0).sort("row_idx")
    assert first["period_kind"].to_list() == ["fiscal_year"] * 3


def test_a_heading_across_the_stub_edge_is_no_stub_head() -> None:
    """Only stub words that say what the rows are come from a phrase across the edge
    of the first value column (1997-09 p54: "MONTHLY SERIES--AVERAGES OF DAILY OR
    WEEKLY" over the whole table is no stub head)."""
    from pipeline.tables.axes import read_stub_head
    from pipeline.tables.lines import Chunk

    def chunk(words: list[tuple[str, float]]) -> Chunk:
        parts = tuple(Chunk(t, x, 0, x + 20 * len(t), 30, 90, 1) for t, x in words)
        text = " ".join(t for t, _ in words)
        return Chunk(text, parts[0].x0, 0, parts[-1].x1, 30, 90, len(parts), words=parts)

    heading = chunk([("MONTHLY", 200), ("SERIES--AVERAGES", 380), ("OF", 720), ("DAILY", 780)])
    stub = chunk([("Fiscal", 200), ("year|", 340), ("trust", 460), ("Interest", 580)])
    assert read_stub_head([[Chunk("Period", 200, 0, 320, 30, 90, 1)], [heading]], 560) == "Period"
    assert read_stub_head([[stub]], 560) == "Fiscal year|"


def test_month_rows_above_the_first_dated_month_take_the_year_of_their_position() -> None:
    """1967-08 p24 Table 10: the stub prints "1966-July" over "Aug." ... "Dec." and
    "1967-Jan."; OCR lost the year of "1966-July" ("July") and garbled "Oct." ("Get"),
    so July ... December were undated. Counted back from "1967-Jan." one month a row,
    they are July ... December 1966. A month out of step ends the count."""
    labels = ["1966", "1967", "1968 (Est.)", "July", "Aug.", "Sep", "Get", "Nov", "Dec",
              "1967-Jan", "Feb"]  # fmt: skip
    assert carry_years(labels)[3:9] == ["July 1966", "Aug 1966", "Sep 1966", "October 1966",
                                        "Nov 1966", "Dec 1966"]  # fmt: skip
    # quarterly rows (a month out of step) and an item row are left alone
    assert carry_years(["1966", "Mar.", "June", "Sept.", "Dec.", "1967-Mar."])[1:5] == [
        "Mar.", "June", "Sept.", "Dec."]  # fmt: skip
    assert carry_years(["Customs", "Dec.", "1967-Jan."])[:2] == ["Customs", "Dec 1966"]
    assert carry_years(["Nov.", "Customs", "1967-Jan."])[0] == "Nov."


def test_a_year_dashed_to_a_month_whose_first_letter_ocr_misread_is_a_month_row() -> None:
    """1940-05 p23 ("1939—4pr" for "1939-Apr."), 1984-06 p41 ("1983-¥ar" for
    "1983-Mar."): a month row whose month OCR garbled, never the year 1939."""
    from pipeline.tables.stub_periods import unread_month_row

    assert unread_month_row("1939—4pr") and unread_month_row("1983-¥ar")
    assert not unread_month_row("1939-12") and not unread_month_row("1935-57")
    assert carry_years(["1939—4pr", "May", "June"])[1:] == ["May 1939", "June 1939"]


def test_a_position_heading_over_the_page_dates_tables_whose_title_names_no_date() -> None:
    """1967-08 p76 ("SURVEY OF OWNERSHIP, JUNE 30,1967" over "Table 1.- Summary of All
    Securities"), 1953-09 p41, 1948-05 p43: the survey's date is printed once, in the
    capitals heading over the page; the tables' cells are holdings on that day. A
    "marine" or "marketable" in a head is no month, and a security's month ("2-5/8
    June") is its maturity: neither dates the cells more finely."""
    import polars as pl

    from pipeline.tables.axes import cell_periods, position_heading
    from tests.tables.test_layout import COLS, LEFT, PITCH, Page, _table

    assert position_heading(["68 Treasury Bulletin", "SURVEY OF OWNERSHIP, JUNE 30,1967"])
    assert not position_heading(["Survey of ownership, June 30, 1967"])  # not a heading
    assert not position_heading(["BUDGET RECEIPTS, JUNE 30, 1967"])  # no position
    # 1984-06 p88: one day of two years names no one date for the tables under it (see
    # test_a_heading_naming_one_day_of_several_years_dates_the_year_columns_under_it)
    two_years = "SUMMARY OF LOANS RECEIVABLE, AS OF SEPT. 30, 1983 AND 1982"
    got = cell_periods(
        ["Loans receivable"], ["Total"], "Aging Schedule", "", "", page_heading=two_years
    )
    assert got == {} or got[(0, 0)].period is None
    heads = ["Insurance companies / 469 fire, casualty, and marine"]
    rows = ["Public marketable", "Certificates", "2-5/8 June"]
    heading = "SURVEY OF OWNERSHIP, JUNE 30,1967"
    got = cell_periods(heads, rows, "Summary of All Securities", "", "", page_heading=heading)
    assert got[(0, 0)].period.key == ("as_of_date", "1967-06-30", "1967-06-30")
    # the layout: the heading above the page's first table reaches the table
    page = Page()
    page.centred("SURVEY OF OWNERSHIP, JUNE 30, 1967", 1275, 200)
    page.centred("Table 1.- Summary of All Securities", 1275, 300)
    page.centred("(Par values - in millions of dollars)", 1275, 360)
    for x1, head in zip(COLS, ["Total", "Banks", "Insurance", "Other"], strict=True):
        page.centred(head, x1 - 90, 430)
    y = 430 + 2 * PITCH
    for label in ("Public marketable", "Special issues", "Total"):
        page.text(label, LEFT, y)
        for x1 in COLS:
            page.right("3,993", x1, y)
        y += PITCH
    _, cells = _table(page)
    assert set(cells["period_end"].cast(pl.String).to_list()) == {"1967-06-30"}


def test_a_fiscal_year_ending_on_a_day_is_that_fiscal_year() -> None:
    """1940-05 p14-16 (Grants-in-aid to States, "Fiscal Year Ending June 30, 1939"):
    expenditures over the fiscal year, not a position on June 30, 1939."""
    got = parse_period("Expenditures for Grants-in-aid, Fiscal Year Ending June 30, 1939")
    assert got.key == ("fiscal_year", "1938-07-01", "1939-06-30")
    assert parse_period("Receipts, year ended December 31, 1966").kind == "calendar_year"
    assert parse_period("Fiscal Year Ending May 31, 1939") is NOT_A_PERIOD
    held = parse_period("Debt, fiscal year ended June 30, 1939", "Outstanding")
    assert held.key == ("as_of_date", "1939-06-30", "1939-06-30")


def test_a_december_whose_d_ocr_read_as_o_is_december() -> None:
    """1984-06 p62 (CM-IV-1): "1983 / Oec." is the end of December 1983, not year 1983."""
    got = parse_period("1983 / Oec.", "Position at end of period")
    assert got.key == ("as_of_date", "1983-12-31", "1983-12-31")
    assert parse_period("1983 / Oecumenical").kind == "year"  # only the abbreviation
    # 1984-06 p80 (FCP): "Year to date Oct. 1, 1983 through Dec. 31, 1983" garbled over two
    # head lines; a span whose first day is lost is no position on its last day
    assert parse_period("date Oct. 1983 / Year to 1, through Oec. 31, 1983") is NOT_A_PERIOD


@pytest.mark.parametrize(
    ("head", "context", "kind", "start", "end"),
    [
        ("1967 through June p", "", "not_a_period", None, None),
        (
            "1967 through June",
            "Calendar years",
            "year_to_date",
            date(1967, 1, 1),
            date(1967, 6, 30),
        ),
        (
            "Calendar year 1967 through June",
            "",
            "year_to_date",
            date(1967, 1, 1),
            date(1967, 6, 30),
        ),
    ],
)
def test_a_year_run_to_a_month_is_a_year_to_date_not_the_month(head, context, kind, start, end):
    """1967-08 p107 "Net Transactions in Foreign Stocks": the column "1967 through June p"
    (January-June) was read as June 1967, beside a separate "June p" column; a key took
    the half-year total as June's. With no fiscal or calendar word the start is unknown."""
    p = parse_period(head, context)
    assert (p.kind, p.start, p.end) == (kind, start, end)


def test_day_rows_under_a_title_naming_one_month_are_positions_on_those_days() -> None:
    """1940-05 p59 (Short-Term Foreign Assets as Reported by Banks and Bankers in the
    United States for February 1940): each panel ("TOTAL SHORT-TERM FOREIGN ASSETS:",
    "Banks own deposits abroad:", ...) prints the rows "Feb. 7", "Feb. 14", "Feb. 21",
    "Feb. 28" with no year; the title's year dates them. They named no period."""
    import polars as pl

    from pipeline.tables.stub_periods import title_month_days
    from tests.tables.test_layout import COLS, LEFT, PITCH, Page, _table

    page = Page()
    title = "Short-Term Foreign Assets as Reported by Banks for February 1940"
    page.centred(title, 1275, 300)
    page.centred("(In thousands of dollars)", 1275, 360)
    for x1, head in zip(COLS, ["Grand total", "France", "Italy", "Canada"], strict=True):
        page.centred(head, x1 - 90, 430)
    y = 430 + 2 * PITCH
    for heading in ("TOTAL ASSETS:", "Banks own deposits abroad:"):
        page.text(heading, LEFT, y)
        y += PITCH
        for day in (7, 14, 21, 28):
            page.text(f"Feb. {day}", LEFT + 40, y)
            for x1 in COLS:
                page.right("3,993", x1, y)
            y += PITCH
    _, cells = _table(page)
    rows = cells.filter(pl.col("col_idx") == 0).sort("row_idx")
    got = [(r["period_kind"], str(r["period_end"])) for r in rows.to_dicts()]
    days = [("as_of_date", f"1940-02-{d:02d}") for d in (7, 14, 21, 28)]
    assert got == days + days

    # a day of another month, a day the month lacks, a day no other panel prints (a
    # misread), a title naming two months, or a week's flow: no date
    week = ["Feb. 7", "Feb. 14", "Feb. 21", "Feb. 28"]
    assert title_month_days(week + ["Mar. 6"], title) == week + ["Mar. 6"]
    assert title_month_days(["Feb. 30"], title) == ["Feb. 30"]
    misread = ["Feb. 7", "Feb. 24", "Feb. 21", "Feb. 28"]
    got = title_month_days(week + misread, title)
    assert got[4:] == ["Feb. 7", "Feb. 24", "February 21, 1940", "February 28, 1940"]
    assert title_month_days(week, "Assets, January and February 1940") == week
    assert title_month_days(week, "Receipts for weeks of February 1940") == week


def test_a_cumulative_unit_line_makes_the_rows_running_totals_and_a_nil_year_row_is_a_row() -> None:
    """1941-01 p21 (Receipts and Expenditures, Federal Old-Age and Survivors Insurance
    Trust Fund, "(Cumulative - In millions of dollars)", stub head "End of fiscal year or
    month"): the first row "1936" prints only dashes. Read as a head line it put "1936"
    into the stub head (no row had a period); the rows are totals from the fund's start
    to the end of each fiscal year or month, never the year's or month's flow."""

    from pipeline.tables.periods import running_totals
    from tests.tables.test_layout import COLS, LEFT, PITCH, Page, _table

    page = Page()
    page.centred("Receipts and Expenditures, Federal Old-Age and Survivors Insurance", 1275, 300)
    page.centred("(Cumalative - In millions of dollars)", 1275, 360)  # as OCR read it
    page.text("End of", LEFT, 430)
    page.text("fiscal year", LEFT, 430 + PITCH)
    page.text("or month", LEFT, 430 + 2 * PITCH)
    for x1, head in zip(COLS, ["Receipts", "Expenditures", "Balance", "Investments"], strict=True):
        page.centred(head, x1 - 90, 430 + PITCH)
    y = 430 + 4 * PITCH
    page.text("1936", LEFT, y)
    page.text(":", LEFT + 300, y)  # the dashes as OCR read them: two rules as "="
    for x1, mark in zip(COLS, ["-", "=", "=", "-"], strict=True):
        page.right(mark, x1, y)
    for label in ("1937", "1938", "1940-July", "August"):
        y += PITCH
        page.text(label, LEFT, y)
        for x1 in COLS:
            page.right("267.3", x1, y)
    tables, cells = _table(page)
    assert tables["stub_head"][0] == "End of fiscal year or month"
    assert tables["col_labels"][0].to_list() == [
        "Receipts",
        "Expenditures",
        "Balance",
        "Investments",
    ]
    rows = cells.group_by("row_idx").first().sort("row_idx")  # the nil row: cells of marks
    got = [(r["row_label"], r["period_kind"], str(r["period_end"])) for r in rows.to_dicts()]
    assert got == [
        ("1936", "cumulative_to_date", "1936-06-30"),
        ("1937", "cumulative_to_date", "1937-06-30"),
        ("1938", "cumulative_to_date", "1938-06-30"),
        ("1940-July", "cumulative_to_date", "1940-07-31"),
        ("August", "cumulative_to_date", "1940-08-31"),
    ]
    # a year of unknown kind, a quarter: no end of their own to run to
    year = parse_period("1937")
    quarter = parse_period("First quarter 1940")
    assert running_totals([year, quarter, None], "(Cumulative)") == [
        NOT_A_PERIOD,
        NOT_A_PERIOD,
        None,
    ]
    assert running_totals([year], "(In millions of dollars)") == [year]


def test_a_month_rows_year_spelled_with_a_letter_for_a_digit_dates_the_months_below() -> None:
    """1948-05 p18 (Receipts and Expenditures by Major Classifications): "1g47-July" (the
    9 read as "g") under annual rows 1940 ... 1949 left July 1947 ... November undated;
    1940-05 p73 "19h0-Jan." (4 read as "h") the months of 1940."""
    from pipeline.tables.axes import axis_periods
    from pipeline.tables.stub_periods import spelled_month_rows

    labels = ["1945", "1946", "1947", "1g47-July", "August", "September"]
    _, periods, _ = axis_periods(["Net", "Receipts"], labels, "Receipts", "Fiscal year or month")
    assert [p.key for p in periods[3:]] == [
        ("month", "1947-07-01", "1947-07-31"),
        ("month", "1947-08-01", "1947-08-31"),
        ("month", "1947-09-01", "1947-09-30"),
    ]
    # far from the annual years, no month, or no annual years: left as read
    assert spelled_month_rows(["1945", "1946", "1g57-July"])[2] == "1g57-July"
    assert spelled_month_rows(["1945", "1946", "1g47-Total"])[2] == "1g47-Total"
    assert spelled_month_rows(["1g47-July", "August"]) == ["1g47-July", "August"]


def test_a_to_date_row_at_the_foot_of_a_stub_from_its_year_is_the_total_since() -> None:
    """1967-08 p24 (Table 9, Federal Disability Insurance Trust Fund): "1957 to date p"
    below 1957 ... 1967p, 1968 (Est.), 1966-July ... 1967-June is the total from the
    start of fiscal year 1957 through June 1967 (Table 10: "1966 to date" from 1966)."""
    from pipeline.tables.axes import axis_periods

    labels = ["1957", "1958", "1959", "1960 (Est.)", "1959-May", "June", "1957 to date"]
    _, periods, _ = axis_periods(
        ["Total", "Benefits"], labels, "Trust Fund", "Fiscal year or month"
    )
    assert periods[-1].key == ("cumulative_to_date", "1956-07-01", "1959-06-30")
    # a stub that does not start at its year, a to-date row above other rows, or months
    # that stop before the last year ends: no period
    later = ["1956", *labels[:-1], "1957 to date"]
    _, periods, _ = axis_periods(["Total", "Benefits"], later, "Trust Fund", "Fiscal year or month")
    assert periods[-1] is NOT_A_PERIOD
    above = ["1957", "1958", "1959", "1957 to date", "1959-May", "June"]
    _, periods, _ = axis_periods(["Total", "Benefits"], above, "Trust Fund", "Fiscal year or month")
    assert periods[3] is NOT_A_PERIOD
    short = ["1957", "1958", "1959", "1958-July", "Aug.", "1957 to date"]
    _, periods, _ = axis_periods(["Total", "Benefits"], short, "Trust Fund", "Fiscal year or month")
    assert periods[-1] is NOT_A_PERIOD
