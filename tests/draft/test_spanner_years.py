"""A column dated by a year spanner whose placement is in doubt states no period.

1984-06 p65, Table CM-IV-4 "Total Claims by Country": "1982" is printed over "Dec.r"
alone, "1983" over "Mar.r June r Sept.r Dec.p". A junk OCR box moved the column
boundaries and the head reader put "1982" over Mar. and June; a drafted question asked
"March 1982" of the column printed under "1983". The head paths and doubts below are the
ones the table stage read on that page, before and after the column fix.
"""

from __future__ import annotations

from datetime import date

import polars as pl

from pipeline.draft.archive import build_archive, fact_problems
from pipeline.draft.sample import sample_frames
from pipeline.draft.spanner_years import misdated_columns, spanner_year


def _cell(col: int, label: str, doubt: str, kind: str | None, end: date | None) -> dict:
    return {
        "col_idx": col, "col_label": label, "col_label_doubt": doubt, "period_axis": "col",
        "period_kind": kind, "period_end": end,
    }  # fmt: skip


_CAL = "spanning head 'Calendar' is not centred over its columns"

# p65 as the real build read it (the junk box stretching the last column)
P65_BEFORE = [
    _cell(3, "1981", _CAL, "as_of_date", date(1981, 12, 31)),
    _cell(4, "", _CAL, None, None),
    _cell(5, "1982 / Mar.", "spanning head '1982' is not centred over its columns",
          "as_of_date", date(1982, 3, 31)),
    _cell(6, "June", "spanning head '1982' is not centred over its columns", None, None),
    _cell(7, "1983 / Sept.", "spanning head '1983' is not centred over its columns",
          "as_of_date", date(1983, 9, 30)),
    _cell(8, "1983", "spanning head '1983' is not centred over its columns", "year",
          date(1983, 12, 31)),
]  # fmt: skip

# p65 after the junk box is left out of the columns
P65_AFTER = [
    _cell(3, "1981", _CAL, "as_of_date", date(1981, 12, 31)),
    _cell(4, "1982", "", "as_of_date", date(1982, 12, 31)),
    _cell(5, "1983 / Mar.", "spanning head '1983' may or may not stand over it",
          "as_of_date", date(1983, 3, 31)),
    _cell(6, "1983 / June", "", "as_of_date", date(1983, 6, 30)),
    _cell(7, "1983 / Sept.", "", "as_of_date", date(1983, 9, 30)),
    _cell(8, "1983", "spanning head '1983' may or may not stand over it", "year",
          date(1983, 12, 31)),
]  # fmt: skip


def test_spanner_year_is_a_year_above_the_own_head() -> None:
    assert spanner_year("1983 / Mar.")
    assert not spanner_year("1983")
    assert not spanner_year("Calendar year / 1980")


def test_the_misread_p65_columns_are_misdated() -> None:
    out = misdated_columns(P65_BEFORE)
    assert set(out) == {5, 7, 8}
    assert "'1982'" in out[5]
    assert 3 not in out  # a calendar year under a doubtful "Calendar": its year is its own


def test_after_the_fix_a_column_the_1983_spanner_may_miss_keeps_its_year_by_its_months() -> None:
    """The spanner "1983" is centred over "Mar. June Sept. Dec." and over "June Sept."
    alike: Mar. and Dec. are in doubt. "1983 / Mar." keeps its year, June 1983 beside it continues
    its months; the last column, whose "Dec.p" OCR lost ("1983" alone), has no month to
    agree with and is misdated."""
    out = misdated_columns(P65_AFTER)
    assert set(out) == {8}
    assert "'1983'" in out[8]


def test_a_column_a_year_spanner_may_miss_is_misdated_when_the_months_do_not_agree() -> None:
    maybe = "spanning head '1983' may or may not stand over it"
    # the neighbour under the same year runs backwards: not a continued run of months
    cells = [
        _cell(5, "1983 / Mar.", maybe, "as_of_date", date(1983, 3, 31)),
        _cell(6, "1983 / Jan.", "", "as_of_date", date(1983, 1, 31)),
    ]
    assert set(misdated_columns(cells)) == {5}
    # a neighbour under another year only
    cells = [
        _cell(4, "1982 / Dec.", "", "as_of_date", date(1982, 12, 31)),
        _cell(5, "1983 / Mar.", maybe, "as_of_date", date(1983, 3, 31)),
    ]
    assert set(misdated_columns(cells)) == {5}
    # a continued run, but two other columns of the table disagree
    cells = [
        _cell(1, "1980 / Mar.", "", "as_of_date", date(1980, 3, 31)),
        _cell(2, "1983 / Sept.", "", "as_of_date", date(1983, 9, 30)),
        _cell(5, "1983 / Mar.", maybe, "as_of_date", date(1983, 3, 31)),
        _cell(6, "1983 / June", "", "as_of_date", date(1983, 6, 30)),
    ]
    assert set(misdated_columns(cells)) == {1, 2, 5}


def test_spanner_years_that_skip_a_year_between_neighbouring_months_disagree() -> None:
    """No doubt recorded, but Mar. 1982 beside Sept. 1983 where the months run by
    quarters: a spanner dated the wrong group of months."""
    cells = [
        _cell(4, "1982 / Mar.", "", "as_of_date", date(1982, 3, 31)),
        _cell(5, "1983 / Sept.", "", "as_of_date", date(1983, 9, 30)),
        _cell(6, "1983 / Dec.", "", "as_of_date", date(1983, 12, 31)),
    ]
    out = misdated_columns(cells)
    assert set(out) == {4, 5}
    assert "disagree" in out[4]
    # Dec. 1982 beside Mar. 1983, or a month beside the same month a year on, agree
    fine = [
        _cell(4, "1982 / Dec.", "", "as_of_date", date(1982, 12, 31)),
        _cell(5, "1983 / Mar.", "", "as_of_date", date(1983, 3, 31)),
        _cell(6, "1984 / Mar.", "", "as_of_date", date(1984, 3, 31)),
    ]
    assert misdated_columns(fine) == {}


def _facts(frames: dict[str, pl.DataFrame]):
    archive, _ = build_archive(
        frames["anchored_cells"], frames["tables"], frames["documents"], frames["table_cells"]
    )
    return [f for t in archive.tables for f in t.grid.values()]


def test_a_fact_under_a_doubtful_year_spanner_is_label_uncertain() -> None:
    frames = sample_frames(seed=3)
    cells = frames["table_cells"]
    target = cells.filter(pl.col("period_axis") == "col")["table_id"][0]
    hit_col = (pl.col("table_id") == target) & (pl.col("col_idx") == 1)
    frames["table_cells"] = cells.with_columns(
        col_label_doubt=pl.when(hit_col)
        .then(pl.lit("spanning head '1982' is not centred over its columns"))
        .otherwise(pl.col("col_label_doubt"))
    )
    facts = _facts(frames)
    hit = [f for f in facts if f.table_id == target and f.col_idx == 1]
    rest = [f for f in facts if f.table_id == target and f.col_idx != 1]
    assert hit and rest
    for f in hit:
        assert any(
            p.startswith("label_uncertain") and "year spanner" in p for p in fact_problems(f)
        )
    assert all("label_uncertain" not in " ".join(fact_problems(f)) for f in rest)
