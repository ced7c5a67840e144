"""A label printed once for two lines of figures, centred between them.

Where a series is restated from a new basis, a bulletin prints the period's figures
twice, before and after the change, on two lines, and sets the period's label once,
half-way between them (1967-08 p97, Banking Liabilities to and Claims on Foreigners:
"1966 12/" between 27,723.7 and 27,593.1, "December 13/" between the same two lines
of the monthly panel; the note: "Data on liabilities and claims below the line differ
from data above the line because of changes in reporting coverage"). OCR puts the
label on one of the two lines and leaves the other without one; both lines are that
period's.
"""

from __future__ import annotations

import re
from statistics import median

from pipeline.tables.labels import strip_marks
from pipeline.tables.line_kinds import RowLine
from pipeline.tables.lines import is_leader
from pipeline.tables.periods import MONTH_NAME, month_number


def _figures(row: RowLine) -> list[tuple[float, float]]:
    """(x centre, y centre) of the row's figures."""
    return [((c.x0 + c.x1) / 2, (c.y0 + c.y1) / 2) for c in row.values if c.is_number]


def _skew(body: list[RowLine]) -> float:
    """The slope of the printed lines on the page image (y per x): the median over rows of
    three figures or more of their least-squares slope. A scan set askew lifts a row's
    figures as they go right (1940-05 p23: 1146 to 1155 px over the row), so a row's
    height at its label is read off its figures along that slope."""
    slopes = []
    for row in body:
        points = _figures(row)
        if len(points) < 3:
            continue
        mx = sum(x for x, _ in points) / len(points)
        my = sum(y for _, y in points) / len(points)
        var = sum((x - mx) ** 2 for x, _ in points)
        if var > 0:
            slopes.append(sum((x - mx) * (y - my) for x, y in points) / var)
    return median(slopes) if slopes else 0.0


def _level_at(row: RowLine, x: float, skew: float) -> float | None:
    """The row's figures' height carried along the page's skew to ``x``."""
    points = _figures(row)
    return median(y - skew * (px - x) for px, y in points) if points else None


def _label_offset(row: RowLine, skew: float) -> float | None:
    """How far the row's label stands below its figures (negative: above)."""
    words = _label_words(row)
    if not words or not _figures(row):
        return None
    word = words[0].parts[0]
    level = _level_at(row, (word.x0 + word.x1) / 2, skew)
    return (word.y0 + word.y1) / 2 - level if level is not None else None


def _label_drift(body: list[RowLine], skew: float) -> float:
    """The median distance of the labels' offsets from their median: near zero where
    each label stands level with its figures; large where OCR set the stub off the
    figures' lines (1967-08 p36, a lower panel whose labels stand up to 20 px off
    their rows), and a label half-way between two rows says nothing there."""
    offsets = [o for row in body if (o := _label_offset(row, skew)) is not None]
    if len(offsets) < 3:
        return float("inf")
    mid = median(offsets)
    return median(abs(o - mid) for o in offsets)


_YEAR_STUB = re.compile(r"\W*((?:18|19|20)\d\d)\W*")
_MONTH_STUB = re.compile(r"\W*(?:(?:18|19|20)\d\d\s*[-\u2013\u2014]\s*)?([A-Za-z]{3,9})\.?\W*")


def _period_key(label: str) -> tuple[str, int] | None:
    """("year", 1966) of a bare year stub, ("month", 12) of a month stub ("December",
    "1967-January"), else None."""
    text = strip_marks(label)
    if m := _YEAR_STUB.fullmatch(text):
        return "year", int(m.group(1))
    if (m := _MONTH_STUB.fullmatch(text)) and MONTH_NAME.fullmatch(m.group(1)):
        return "month", month_number(m.group(1))
    return None


def _next_period(before: str, after: str) -> bool:
    """The stub ``after`` names the period right after the one ``before`` names (the
    next year, the next month): no row between them can name a period of its own."""
    a, b = _period_key(before), _period_key(after)
    if a is None or b is None or a[0] != b[0]:
        return False
    return b[1] - a[1] == 1 if a[0] == "year" else (b[1] - a[1]) % 12 == 1


def _label_words(row: RowLine) -> list:
    return [c for c in row.label if not is_leader(c.text)]


def shared_labels(body: list[RowLine], height: float, labels: list[str]) -> dict[int, int]:
    """Unlabelled body row -> the neighbouring row whose label it shares (``labels``:
    the rows' labels as the stub reader made them). The neighbour's label stands
    half-way between the two rows' figures, as high as they stand at the label along
    the page's skew (within a fifth of their distance, and a third of a text height
    clear of either), and names the period right after the one the row beyond the blank
    one names (so that the blank row can name none of its own); the labels of the table
    stand level with their figures; the two lines are set within two text heights of
    each other, and a figure of one stands over a figure of the other (a column they
    share)."""
    shared: dict[int, int] = {}
    skew = _skew(body)
    if _label_drift(body, skew) > 0.15 * height:
        return shared
    for i, row in enumerate(body):
        if (labels[i] or "").strip() or not _figures(row):
            continue
        for j in (i + 1, i - 1):
            k = i - (j - i)
            if not (0 <= j < len(body) and 0 <= k < len(body)) or j in shared:
                continue
            words = _label_words(body[j])
            if not words:
                continue
            # the row beyond the blank one names the period just before (after) the
            # label's: the blank row has no period of its own ("1965", "", "1966 12/"),
            # where a lost label leaves one ("March", "", "May": April, 1967-08 p39)
            before, after = (labels[k], labels[j])[:: 1 if j > i else -1]
            if not _next_period(before, after):
                continue
            word = words[0].parts[0]
            label_mid, label_x = (word.y0 + word.y1) / 2, (word.x0 + word.x1) / 2
            mid, other = _level_at(row, label_x, skew), _level_at(body[j], label_x, skew)
            if mid is None or other is None:
                continue
            lo, hi = sorted((mid, other))
            apart = hi - lo
            centred = abs(label_mid - (lo + hi) / 2) <= 0.2 * apart
            clear = min(label_mid - lo, hi - label_mid) >= height / 3
            same_column = any(
                min(a.x1, b.x1) > max(a.x0, b.x0)
                for a in row.values
                for b in body[j].values
                if a.is_number and b.is_number
            )
            if 0 < apart <= 2 * height and centred and clear and same_column:
                shared[i] = j
                break
    return shared


def share_centred_labels(
    body: list[RowLine],
    height: float,
    labels: list[str],
    read_labels: list[str],
    parents: list[str],
    periods: dict,
) -> None:
    """Give each unlabelled row of :func:`shared_labels` its neighbour's label, parent
    and cell periods (in place). The periods are read first, with the row blank as OCR
    left it: two rows printing one label would read as a year or month printed twice,
    which the stub's run checks take for a misread copy."""
    for i, j in shared_labels(body, height, labels).items():
        labels[i], read_labels[i], parents[i] = labels[j], read_labels[j], parents[j]
        for (row, col), period in list(periods.items()):
            if row == j:
                periods[(i, col)] = period
