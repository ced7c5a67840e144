"""Rows that state a balance on a day, in a stub too few of whose rows name periods to be
dated by its rows (1984-06 p88)."""

from __future__ import annotations

from datetime import date

from pipeline.tables.axes import cell_periods

TITLE = (
    "Summary Reconciliation of Gross Accounts and Loans Receivable Due from the Public, "
    "as of Sept. 30, 1983"
)
COLS = ["J / Accounts receivable", "J / Percent of total", "J / Loans receivable"]


def test_a_balance_row_is_a_position_on_the_day_it_prints() -> None:
    """1984-06 p88, the stub as OCR read it: the two balance rows are positions on the
    days their labels print; the flows between them name no kind of year (the table
    prints neither "fiscal" nor "calendar"), so they get no period. Before, none of the
    five rows had one (two dated rows of five are too few to date the stub by rows, and
    the day-dated labels kept the title's day off them)."""
    labels = [
        "Beginning balance, Sept. 30, 1982",
        "New receivables",
        "Repayments and reclassifications",
        "Amounts written off",
        "Ending balance, Sept. 30, 1983",
    ]
    got = cell_periods(COLS, labels, TITLE, "", "")
    periods = [got[(r, 0)].period for r in range(len(labels))]
    assert periods[0].kind == periods[4].kind == "as_of_date"
    assert (periods[0].end, periods[4].end) == (date(1982, 9, 30), date(1983, 9, 30))
    assert periods[1:4] == [None, None, None]


def test_an_item_row_printing_a_day_is_not_a_balance() -> None:
    """A row naming a security that matures on a day ("Notes due Sept. 30, 1983") among
    item rows is no position of the table: without a balance row the stub stays undated."""
    labels = ["Notes due Sept. 30, 1983", "New receivables", "Amounts written off"]
    assert cell_periods(COLS, labels, TITLE, "", "") == {}
