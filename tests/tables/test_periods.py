"""Periods read from real bulletin heads: kind, start, end and wording (table-driven),
and a reader that never raises on whatever OCR makes of a header."""

from __future__ import annotations

from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.tables.periods import NOT_A_PERIOD, Period, carry_years, parse_period

D = date
JUNE_2016 = Period("month", D(2016, 6, 1), D(2016, 6, 30), "June 2016")

CASES = [
    # header, context, reference -> kind, start, end, text (None: no period at all)
    (
        "1963",
        "Fiscal years",
        None,
        ("fiscal_year", D(1962, 7, 1), D(1963, 6, 30), "fiscal year 1963"),
    ),  # noqa: E501
    (
        "1984",
        "Fiscal year",
        None,
        ("fiscal_year", D(1983, 10, 1), D(1984, 9, 30), "fiscal year 1984"),
    ),  # noqa: E501
    (
        "Calendar year 2005 r (1)",
        "",
        None,
        ("calendar_year", D(2005, 1, 1), D(2005, 12, 31), "calendar year 2005"),
    ),  # noqa: E501
    ("1963", "", None, ("year", None, D(1963, 12, 31), "1963")),
    (
        "2010 / Oct.-Dec.",
        "",
        None,
        ("quarter", D(2010, 10, 1), D(2010, 12, 31), "the October–December 2010 quarter"),
    ),  # noqa: E501
    (
        "Third quarter 2016, April-June",
        "",
        None,
        ("quarter", D(2016, 4, 1), D(2016, 6, 30), "the April–June 2016 quarter"),
    ),  # noqa: E501
    (
        "2006 / July through Sept. p (12)",
        "",
        None,
        ("quarter", D(2006, 7, 1), D(2006, 9, 30), "the July–September 2006 quarter"),
    ),  # noqa: E501
    (
        "2006 / Jan. through Sept. (11)",
        "",
        None,
        ("year_to_date", D(2006, 1, 1), D(2006, 9, 30), "January–September 2006"),
    ),  # noqa: E501
    (
        "This fiscal year to date / Trust funds (3)",
        "",
        JUNE_2016,
        ("year_to_date", D(2015, 10, 1), D(2016, 6, 30), "fiscal year 2016 through June 2016"),
    ),  # noqa: E501
    (
        "Prior fiscal year to date / Trust funds (7)",
        "",
        JUNE_2016,
        ("year_to_date", D(2014, 10, 1), D(2015, 6, 30), "fiscal year 2015 through June 2015"),
    ),  # noqa: E501
    (
        "From inception to Oct. 31, 1939",
        "",
        None,
        ("cumulative_to_date", None, D(1939, 10, 31), "cumulative to October 31, 1939"),
    ),  # noqa: E501
    (
        "Sept. 30, 1940",
        "",
        None,
        ("as_of_date", D(1940, 9, 30), D(1940, 9, 30), "September 30, 1940"),
    ),  # noqa: E501
    ("06/28/06", "", None, ("as_of_date", D(2006, 6, 28), D(2006, 6, 28), "June 28, 2006")),
    (
        "2009 / Sept.",
        "Total Claims by Country [Position at end of period]",
        None,
        ("as_of_date", D(2009, 9, 30), D(2009, 9, 30), "the end of September 2009"),
    ),  # noqa: E501
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
    ),  # noqa: E501
    (
        "1968 estimate",
        "Fiscal year",
        None,
        ("estimate", D(1967, 7, 1), D(1968, 6, 30), "the fiscal year 1968 estimate"),
    ),  # noqa: E501
    (
        "1967-January",
        "Fiscal year or month",
        None,
        ("month", D(1967, 1, 1), D(1967, 1, 31), "January 1967"),
    ),  # noqa: E501
    ("Loans", "", None, None),
    # 1939-12 p45, 2011-09 FD-5, 1997-09 FCP, 1940-05 p73: real heads added with the gold set
    (
        "Uses of Funds of Certain Governmental Corporations for the First 4 Months, Fiscal Year 1940",  # noqa: E501
        "",
        None,
        ("year_to_date", D(1939, 7, 1), D(1939, 10, 31), "fiscal year 1940 through October 1939"),
    ),  # noqa: E501
    (
        "1996 - Oct.",
        "Monthly Report of Major Market Participants Report Purchased date (1)",
        None,
        ("as_of_date", D(1996, 10, 31), D(1996, 10, 31), "the end of October 1996"),
    ),  # noqa: E501
    (
        "1939-Apr.",
        "Components of Silver Monetary Stock",
        None,
        ("as_of_date", D(1939, 4, 30), D(1939, 4, 30), "the end of April 1939"),
    ),  # noqa: E501
    (
        "1950",
        "Fiecal yoer or manth",
        None,
        ("fiscal_year", D(1949, 7, 1), D(1950, 6, 30), "fiscal year 1950"),
    ),  # noqa: E501
    (
        "Corporate bonds / 2006 / 2006 / Jan. through Sept.",
        "",
        None,
        ("year_to_date", D(2006, 1, 1), D(2006, 9, 30), "January–September 2006"),
    ),  # noqa: E501
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
    from pipeline.tables.periods import repair_year_run

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
    ]  # noqa: E501
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
