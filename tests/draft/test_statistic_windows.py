"""A statistic over a range of periods only over periods one same step apart."""

from __future__ import annotations

from datetime import date
from types import SimpleNamespace

from pipeline.draft.kinds import evenly_spaced
from pipeline.tables.periods import Period


def _fact(y: int, m: int, d: int):
    return SimpleNamespace(period=Period("as_of_date", date(y, m, d), date(y, m, d), ""))


def test_quarter_ends_and_year_ends_are_evenly_spaced():
    assert evenly_spaced([_fact(2005, 12, 31), _fact(2006, 3, 31), _fact(2006, 6, 30)])
    assert evenly_spaced([_fact(2003, 12, 31), _fact(2004, 12, 31), _fact(2005, 12, 31)])


def test_a_window_stitched_from_quarters_and_a_year_end_is_not():
    # audit 2026-12-02, task 37b0764493001889: Brazil, CM-III-2, Dec. 2005, Mar. 2006,
    # June 2006 (2006-12 bulletin) and the end of 2006 (2011-09 bulletin), Sept. 2006 in
    # neither: "averaged ... per period" has no fixed set of periods
    window = [_fact(2005, 12, 31), _fact(2006, 3, 31), _fact(2006, 6, 30), _fact(2006, 12, 31)]
    assert not evenly_spaced(window)
    # a year end, then quarters: a gap of two quarters
    assert not evenly_spaced([_fact(2004, 12, 31), _fact(2005, 9, 30), _fact(2005, 12, 31)])
    assert not evenly_spaced(
        [_fact(2005, 12, 31), SimpleNamespace(period=Period("year", None, None, ""))]
    )
