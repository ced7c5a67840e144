"""Rows that state a balance on a day, in a stub too few of whose rows name periods to be
dated by its rows, and the flows between an opening and a closing balance (1984-06 p88)."""

from __future__ import annotations

from datetime import date

import pytest

from pipeline.tables.axes import cell_periods
from pipeline.tables.balances import span_after

TITLE = (
    "Summary Reconciliation of Gross Accounts and Loans Receivable Due from the Public, "
    "as of Sept. 30, 1983"
)
COLS = ["J / Accounts receivable", "J / Percent of total", "J / Loans receivable"]


LABELS = [
    "Beginning balance, Sept. 30, 1982",
    "New receivables",
    "Repayments and reclassifications",
    "Amounts written off",
    "Ending balance, Sept. 30, 1983",
]


def test_a_balance_row_is_a_position_on_the_day_it_prints() -> None:
    """1984-06 p88, the stub as OCR read it: the two balance rows are positions on the
    days their labels print. Before, none of the five rows had one (two dated rows of
    five are too few to date the stub by rows, and the day-dated labels kept the title's
    day off them)."""
    got = cell_periods(COLS, LABELS, TITLE, "", "")
    periods = [got[(r, 0)].period for r in range(len(LABELS))]
    assert periods[0].kind == periods[4].kind == "as_of_date"
    assert (periods[0].end, periods[4].end) == (date(1982, 9, 30), date(1983, 9, 30))


def test_the_rows_between_two_balances_are_flows_over_the_span_between() -> None:
    """1984-06 p88: the rows that carry the Sept. 30, 1982 balance to the Sept. 30, 1983
    one are flows from Oct. 1, 1982 through Sept. 30, 1983, fiscal year 1983 by its dates
    (the gold's period), though the table prints neither "fiscal" nor "calendar"."""
    got = cell_periods(COLS, LABELS, TITLE, "", "")
    flows = [got[(r, 0)].period for r in (1, 2, 3)]
    assert {(p.kind, p.start, p.end) for p in flows} == {
        ("fiscal_year", date(1982, 10, 1), date(1983, 9, 30))
    }
    assert flows[0].text == "fiscal year 1983"


@pytest.mark.parametrize(
    ("first", "last", "expected"),
    [
        (date(1982, 12, 31), date(1983, 12, 31), ("calendar_year", date(1983, 1, 1))),
        (date(1983, 3, 31), date(1983, 6, 30), ("quarter", date(1983, 4, 1))),
        (date(1983, 5, 31), date(1983, 6, 30), ("month", date(1983, 6, 1))),
        (date(1975, 6, 30), date(1976, 6, 30), ("fiscal_year", date(1975, 7, 1))),
        (date(1982, 9, 30), date(1983, 6, 30), None),  # nine months: no period of the kinds
        (date(1982, 6, 30), date(1983, 6, 30), None),  # July-June after 1976: no fiscal year
        (date(1982, 9, 15), date(1983, 9, 30), None),  # not from the first of a month
    ],
)
def test_the_span_after_a_balance_is_named_only_when_it_is_one_period(
    first: date, last: date, expected: tuple | None
) -> None:
    got = span_after(first, last)
    assert (got and (got.kind, got.start)) == expected
    assert got is None or got.end == last


def test_rows_after_an_opening_balance_without_a_closing_one_stay_undated() -> None:
    """A second balance that does not close the first ("Balance, Sept. 30, 1983" without
    "Ending"), or none at all: what the rows between cover is not shown by the stub."""
    labels = [*LABELS[:4], "Balance, Sept. 30, 1983"]
    got = cell_periods(COLS, labels, TITLE, "", "")
    assert [got[(r, 0)].period for r in (1, 2, 3)] == [None, None, None]
    assert cell_periods(COLS, LABELS[:4], TITLE, "", "")[(1, 0)].period is None


def test_an_item_row_printing_a_day_is_not_a_balance() -> None:
    """A row naming a security that matures on a day ("Notes due Sept. 30, 1983") among
    item rows is no position of the table: without a balance row the stub stays undated."""
    labels = ["Notes due Sept. 30, 1983", "New receivables", "Amounts written off"]
    assert cell_periods(COLS, labels, TITLE, "", "") == {}
