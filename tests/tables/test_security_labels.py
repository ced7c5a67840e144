"""Row labels that name a security by coupon, maturity month and year (Survey of
Ownership tables of federal agency securities), on layouts taken from real pages."""

from __future__ import annotations

from pipeline.tables.lines import clean_label
from tests.tables.test_layout import COLS, LEFT, PITCH, Page, _table


def _agency_securities_page(rows: list[tuple[str, str, str, str, str]]) -> Page:
    page = Page()
    page.centred("Section II - Securities Issued by Federal Agencies", 1275, 300)
    page.centred("(Par values - in millions of dollars)", 1275, 360)
    page.centred("Total", COLS[1] - 60, 430)
    page.centred("Banks", COLS[2] - 60, 430)
    y = 500
    for coupon, month, years, rest, fig in rows:
        # typed at tab stops: the coupon, the month, the years a gutter past the month
        page.text(coupon, LEFT, y)
        page.text(month, LEFT + 140, y)
        page.text(years, LEFT + 420, y)
        page.text(rest, LEFT + 520, y)
        page.right(fig, COLS[1], y)
        page.right("1", COLS[2], y)
        y += PITCH
    return page


def test_the_maturity_years_after_a_coupon_and_month_are_part_of_the_label() -> None:
    """1948-05 p43 (Federal Land Banks: "1-1/4% May 1950-52 (Bonds)...(taxable)", 154 ...)
    and 1953-09 p41 ("2-5/8 May 1956 (taxable)"): the years stand at their own tab stop,
    several word-spaces past a short month. They are the security's maturity, not a
    first figure: the label keeps them, the leaders between its parts read as a space,
    and no column of years is made."""
    page = _agency_securities_page(
        [
            ("1-1/2%", "October", "1948-50", "(Bonds)...(taxable)", "154"),
            ("1-1/4%", "May", "1950-52", "(Bonds)...(taxable)", "209"),
            ("2-5/8", "May", "1956", "(taxable)", "157"),
        ]
    )
    tables, cells = _table(page)
    labels = cells.sort("row_idx")["row_label"].unique(maintain_order=True).to_list()
    assert labels == [
        "1-1/2% October 1948-50 (Bonds) (taxable)",
        "1-1/4% May 1950-52 (Bonds) (taxable)",
        "2-5/8 May 1956 (taxable)",
    ]
    assert tables["n_cols"][0] == 2
    assert sorted(cells.filter(cells["row_idx"] == 1)["text"].to_list()) == ["1", "209"]


def test_leaders_inside_a_label_read_as_a_space() -> None:
    """1948-05 p43: "1948 (Notes)...(taxable)" — the name, its leaders and the tax status
    typed at their end; a trailing run of leaders is still dropped."""
    assert clean_label("1-1/4% September 1948 (Notes)...(taxable)") == (
        "1-1/4% September 1948 (Notes) (taxable)"
    )
    assert clean_label("Debentures .......... (taxable)") == "Debentures (taxable)"
    assert clean_label("Total Federal Land Bank bonds......") == "Total Federal Land Bank bonds"


def test_year_stubs_cut_short_or_misread_at_a_runs_ends_take_their_positions_year() -> None:
    """1940-05 p20 (three panels of calendar years 1935-1940 stacked in one stub, read
    "1935", "193", "1937", "1938", "1959", "19") and 1941-01 p21 ("1937", "1938", "1909",
    "19"): a stub that opens like its position's year, or a year slipped in its decade
    past the run's end, is that year. A blank, a word, a jump in the last digit or a
    lone year stop the walk."""
    from pipeline.tables.stub_periods import extend_year_runs

    panel = ["1935", "193", "1937", "1938", "1959", "19"]
    assert extend_year_runs(panel) == ["1935", "1936", "1937", "1938", "1939", "1940"]
    assert extend_year_runs(["1937", "1938", "1909", "19", "1940-July"]) == [
        "1937", "1938", "1939", "1940", "1940-July"
    ]  # fmt: skip
    # a real jump (last digit differs), a blank, a word or a single year: left as read
    assert extend_year_runs(["1937", "1938", "1930"]) == ["1937", "1938", "1930"]
    assert extend_year_runs(["1937", "1938", "1948"]) == ["1937", "1938", "1948"]
    assert extend_year_runs(["1937", "1938", "", "Total"]) == ["1937", "1938", "", "Total"]
    assert extend_year_runs(["Expenditures 193", "1937", "1938"])[0] == "Expenditures 193"
    assert extend_year_runs(["193", "1937", "19"]) == ["193", "1937", "19"]


def test_a_blank_year_stub_is_crossed_when_the_stub_past_it_opens_its_year() -> None:
    """1939-12 p63 (Net Movement of Gold, calendar years 1933-1938 read "193", "",
    "1935" ... "1938"): the blank row between the run and a cut-short stub (down to its
    first digit) is 1934."""
    from pipeline.tables.stub_periods import extend_year_runs

    read = ["193", "", "1935", "1936", "1937", "1938", "1938-Nov."]
    assert extend_year_runs(read)[:2] == ["1933", "1934"]
    # 1940-05 p20 (Receipts 1935-1940 read "1935" ... "1938", "", "1"): the first digit
    # alone still opens the year past the blank
    assert extend_year_runs(["1936", "1937", "1938", "", "1"])[3:] == ["1939", "1940"]
    # a blank with nothing past it that opens a year is left
    assert extend_year_runs(["", "", "1935", "1936"])[:2] == ["", ""]
    assert extend_year_runs(["1935", "1936", "", "Total"])[2:] == ["", "Total"]


def test_several_month_stubs_lost_between_two_months_as_far_apart_take_their_months() -> None:
    """1939-12 p63 (third panel: "Apr.", "M", "", "", "", "Sept." for April to
    September 1939): four rows lost between months five apart are May to August. A gap
    that does not match the months' distance, a January inside it, or a stub that reads
    as something else is left as read."""
    from pipeline.tables.labels import repair_period_stub

    read = ["1939-Jan.", "Feb.", "Mar.", "Apr.", "M", "", "", "", "Sept.", "Oct."]
    assert repair_period_stub(read)[0][4:8] == ["May", "June", "July", "Aug."]
    assert repair_period_stub(["Apr.", "", "", "Sept."])[0] == ["Apr.", "", "", "Sept."]
    assert repair_period_stub(["Nov.", "", "", "Feb."])[0] == ["Nov.", "", "", "Feb."]
    assert repair_period_stub(["Apr.", "Total", "", "July"])[0][1] == "Total"


def test_a_month_rows_year_with_its_4_read_as_h_is_restored_when_the_run_vouches() -> None:
    """1940-05 p73 ("1939-Apr." ... "Dec.", "19h0-Jan."): the typewriter 4 read as "h";
    the month rows above date 1939, so the January row is 1940. With no dated month row
    above of that year or the one before, it stays as read."""
    from pipeline.tables.labels import repair_period_stub

    read = ["1938", "1939", "1939-Apr.", "May", "Nov.", "Dec.", "19h0-Jan.", "Feb."]
    assert repair_period_stub(read)[0][6] == "1940-Jan."
    assert repair_period_stub(["1934", "19h0-Jan.", "Feb."])[0][1] == "19h0-Jan."


def test_a_row_opening_on_a_coupon_and_a_month_names_no_period() -> None:
    """1967-08 p77-p78 (Interest-Bearing Public Marketable Securities by Issues): "4-3/4
    May 1968 B", "4 Aug. 1970", "3-1/2 Nov. 1980" name a security by its coupon and
    maturity; read as months they dated the holdings by when the notes mature."""
    from pipeline.tables.security_rows import names_a_security

    for label in ("4-3/4 May 1968 B", "4 Aug. 1970", "3-1/2 Nov. 1980", "2-1/2% Dec. 1967-72"):
        assert names_a_security(label), label
    for label in ("1967-July", "Feb. 7", "May", "1953-Jan.", "1954 (Est.)", "Sept. 30, 1940"):
        assert not names_a_security(label), label
