"""Column periods whose year comes from a year spanner set over the wrong columns.

Bulletin tables of positions print their latest quarters under year spanners ("1982"
over "Dec.", "1983" over "Mar. June Sept. Dec.", 1984-06 CM-IV-1 to CM-IV-4, pp 62-65).
The head reader dates each month column by the spanner it places over it. Where that
placement is in doubt, the year may be the next group's: an audit found "March 1982"
asked of the column printed under "1983 / Mar." on 1984-06 p65 (a junk OCR box had
moved the column boundaries, and "1982" was read over Mar. and June). A question must
then not state the period. A column is misdated when

- its head path is in doubt and the year that dates it was read from a spanner (a year
  in a level above the column's own head), or the doubt names a year spanner ("spanning
  head '1982' is not centred over its columns"); or
- the spanner years and the groups of month columns disagree: two neighbouring columns
  dated by spanners lie more than twelve months apart in different months (Mar. 1982
  next to Sept. 1983 where the columns run by quarters: a spanner took the wrong group).

A year spanner short enough to be centred over a narrower run as well ("1983" over "Mar.
June Sept. Dec." is centred over "June Sept." too) leaves the run's end columns in
doubt ("may or may not stand over it"); the other reading leaves them under no year at
all. Such a column keeps its year when the months agree: a neighbour under the same year
continues its months in calendar order, and no pair of the table's spanner-dated columns
disagrees (the text-layer CM tables of 2011-09 pp 70-74, "2010 / Mar." beside "2010 /
June").
"""

from __future__ import annotations

import re

_YEAR = re.compile(r"\b(?:18|19|20)\d\d\b")
_SPANNER_DOUBT = re.compile(r"spanning head '([^']*)'")
_MONTHLY = frozenset({"month", "as_of_date"})
MAX_MONTHS_APART = 12


def spanner_year(col_label: str | None) -> bool:
    """The head path holds a year in a level above the column's own head ("1983 / Mar.")."""
    levels = [p.strip() for p in (col_label or "").split(" / ") if p.strip()]
    return any(_YEAR.search(level) for level in levels[:-1])


def misdated_columns(cells: list[dict]) -> dict[int, str]:
    """col_idx -> why the year of its period may belong to other columns, for the cells of
    one table whose periods are read from its columns (empty when none is)."""
    out: dict[int, str] = {}
    maybe: dict[int, str] = {}  # columns a year spanner may or may not stand over
    dated: dict[int, tuple[int, int]] = {}  # col -> (year, month) of spanner-dated months
    for r in cells:
        if r.get("period_axis") != "col" or not r.get("period_kind"):
            continue
        col = int(r["col_idx"])
        label = r.get("col_label") or ""
        doubt = r.get("col_label_doubt") or ""
        named = _SPANNER_DOUBT.search(doubt)
        year_spanner = bool(named and _YEAR.search(named.group(1)))
        why = f"the year spanner over column {label!r} is in doubt ({doubt})"
        if year_spanner and doubt.endswith(_MAYBE):
            maybe.setdefault(col, why)
        elif year_spanner or (doubt and spanner_year(label)):
            out.setdefault(col, why)
        end = r.get("period_end")
        if r["period_kind"] in _MONTHLY and end is not None and spanner_year(label):
            dated[col] = (end.year, end.month)
    cols = sorted(dated)
    disagree = False
    for a, b in zip(cols, cols[1:], strict=False):
        (ya, ma), (yb, mb) = dated[a], dated[b]
        if ma != mb and abs((yb - ya) * 12 + mb - ma) > MAX_MONTHS_APART:
            why = (
                f"neighbouring columns dated {ma}/{ya} and {mb}/{yb} by their year spanners: "
                "the spanners and the groups of month columns disagree"
            )
            out.setdefault(a, why)
            out.setdefault(b, why)
            disagree = True
    for col, why in maybe.items():
        if disagree or not _continued(col, dated):
            out.setdefault(col, why)
    return out


_MAYBE = "may or may not stand over it"


def _continued(col: int, dated: dict[int, tuple[int, int]]) -> bool:
    """A column dated by a spanner whose neighbour under the same year continues its
    months in calendar order (left to right)."""
    if col not in dated:
        return False
    year, month = dated[col]
    left, right = dated.get(col - 1), dated.get(col + 1)
    return bool(
        (left and left[0] == year and left[1] < month)
        or (right and right[0] == year and month < right[1])
    )
