"""Month grids: month heads over rows of years date a cell by row and column together."""

from __future__ import annotations

from datetime import date

from pipeline.tables.axes import cell_periods
from pipeline.tables.month_grid import grid_periods, head_months

CALENDAR_HEADS = [
    "Jan.", "Feb.", "Mar.", "Apr.", "May", "June",
    "July", "Aug.", "Sept.", "Oct.", "Nov.", "Dec.", "Total",
]  # fmt: skip
FISCAL_HEADS = CALENDAR_HEADS[6:12] + CALENDAR_HEADS[:6] + ["Total"]
# 1940-05 p20: three stub headings, six year rows under each
ROWS = ["Receipts", "1935", "1936", "1937", "Expenditures", "1935", "1936", "1937"]


def test_head_months_reads_a_calendar_and_a_fiscal_run():
    assert head_months(CALENDAR_HEADS) == [*range(1, 13), 0]
    assert head_months(FISCAL_HEADS) == [7, 8, 9, 10, 11, 12, 1, 2, 3, 4, 5, 6, 0]


def test_head_months_refuses_what_is_not_one_run():
    assert head_months(["Jan.", "Feb.", "Mar.", "Total"]) is None  # too short to be a grid
    assert head_months(["Jan.", "Mar.", "Feb.", "Apr.", "May", "June"]) is None  # out of order
    assert head_months(["Mar.", "Apr.", "May", "June", "July", "Aug."]) is None  # no year start
    assert head_months(["Total", *CALENDAR_HEADS[:12]]) is None  # the total before the months
    assert head_months([*CALENDAR_HEADS[:12], "Receipts"]) is None  # a head that is no month
    assert head_months(["1939 / Jan.", *CALENDAR_HEADS[1:]]) is None  # a dated head


def test_calendar_grid_dates_each_cell_by_its_row_year_and_column_month():
    grid = grid_periods(CALENDAR_HEADS, ROWS, "Monthly Receipts and Expenditures")
    assert grid is not None
    jan_1935 = grid[(1, 0)]
    assert (jan_1935.kind, jan_1935.start, jan_1935.end) == (
        "month",
        date(1935, 1, 1),
        date(1935, 1, 31),
    )
    assert jan_1935.text == "January 1935"
    feb_1936 = grid[(6, 1)]  # Expenditures, 1936, Feb.
    assert (feb_1936.start, feb_1936.end) == (date(1936, 2, 1), date(1936, 2, 29))
    total = grid[(3, 12)]
    assert (total.kind, total.start, total.end) == (
        "calendar_year",
        date(1937, 1, 1),
        date(1937, 12, 31),
    )
    assert (0, 0) not in grid and (4, 3) not in grid  # the stub headings print no figure


def test_fiscal_grid_puts_july_to_december_in_the_year_before():
    grid = grid_periods(FISCAL_HEADS, ["1939", "1940"], "")
    assert grid is not None
    july = grid[(0, 0)]
    assert (july.kind, july.start) == ("month", date(1938, 7, 1))
    june = grid[(0, 11)]
    assert june.start == date(1939, 6, 1)
    total = grid[(1, 12)]
    assert (total.kind, total.start, total.end) == (
        "fiscal_year",
        date(1939, 7, 1),
        date(1940, 6, 30),
    )


def test_a_grid_the_words_contradict_or_without_year_rows_is_none():
    assert grid_periods(CALENDAR_HEADS, ROWS, "Fiscal years") is None
    assert grid_periods(FISCAL_HEADS, ["1939", "1940"], "Calendar year") is None
    assert grid_periods(CALENDAR_HEADS, ["Receipts", "Customs", "1935"], "") is None
    # July-June heads cannot count fiscal years after 1976 (October-September)
    assert grid_periods(FISCAL_HEADS, ["1980", "1981"], "") is None


def test_cell_periods_marks_grid_cells_with_their_own_axis():
    periods = cell_periods(CALENDAR_HEADS, ROWS, "Monthly Receipts", "")
    cp = periods[(5, 12)]
    assert cp.axis == "grid"
    assert cp.period is not None and cp.period.text == "calendar year 1935"
    assert {c.axis for c in periods.values()} == {"grid"}


def test_misread_month_heads_take_their_place_in_the_run():
    # 1940-05 p20 as tesseract reads it: "Fed." for Feb., "Ang." for Aug.
    heads = [h.replace("Feb.", "Fed.").replace("Aug.", "Ang.") for h in CALENDAR_HEADS]
    assert head_months(heads) == [*range(1, 13), 0]
    # a word past recognition takes its place too; a word that is no month head does not
    assert head_months([*CALENDAR_HEADS[:6], "Jvly", *CALENDAR_HEADS[7:]]) == [*range(1, 13), 0]
    assert head_months([*CALENDAR_HEADS[:6], "Customs", *CALENDAR_HEADS[7:]]) is None


def test_a_year_out_of_step_with_its_section_dates_no_cell():
    # 1940-05 p20 as read: the "Expenditures" heading glued to a garbled 1935, then
    # "1398" for 1939 and "1934" for 1940; the next section's 1935 does not confirm 1934
    rows = ["1935", "1936", "Expenditures 193", "1936", "1937", "1398", "1934", "1935", "1936"]
    sections = ["", "", "", "", "", "", "", "Excess", "Excess"]
    grid = grid_periods(CALENDAR_HEADS, rows, "", sections)
    assert grid is not None
    dated = sorted({r for r, _ in grid})
    assert dated == [0, 1, 3, 4, 7, 8]
    assert grid[(4, 12)].text == "calendar year 1937"


def test_the_first_section_heading_read_as_a_stub_head_heads_the_first_rows():
    from pipeline.tables.month_grid import first_section

    # 1940-05 p20 as read: "Receipts" taken for the stub head, "Expenditures" glued to
    # its garbled first year; only the first run of years sits under "Receipts"
    labels = ["1935", "1936", "Expenditures 193", "1936", "1935", "1936"]
    parents = ["", "", "", "", "Excess", "Excess"]
    assert first_section(parents, labels, "Receipts", True) == (
        ["Receipts", "Receipts", "", "", "Excess", "Excess"],
        "",
    )
    assert first_section(parents, labels, "Receipts", False) == (parents, "Receipts")
    assert first_section(parents, labels, "", True) == (parents, "")
