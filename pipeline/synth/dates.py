"""The generator's calendar: fiscal years, month ends, and the periods a volume prints
in its columns and rows (kept apart from the pipeline's own period reader, so the
truth shares none of its code).

Part of :mod:`pipeline.synth.statements`.
"""

from __future__ import annotations

import calendar
from dataclasses import replace
from datetime import date

from pipeline.synth.catalog import (
    MONTH_NAMES,
    MONTHS,
    QUARTERS,
    SECURITY_COLUMNS,
)
from pipeline.synth.model import (
    Per,
    SeriesSpec,
)

# -- periods -------------------------------------------------------------------------


def month_end(year: int, month: int) -> date:
    return date(year, month, calendar.monthrange(year, month)[1])


def fiscal_bounds(fy: int) -> tuple[date, date]:
    """U.S. federal fiscal year: July-June through FY 1976, October-September after."""
    if fy <= 1976:
        return date(fy - 1, 7, 1), date(fy, 6, 30)
    return date(fy - 1, 10, 1), date(fy, 9, 30)


def estimate_per(fy: int) -> Per:
    """The budget estimate of fiscal year ``fy``, printed "1954 (Est.)"."""
    start, end = fiscal_bounds(fy)
    return Per(
        ("est", fy),
        "estimate",
        start,
        end,
        f"the fiscal year {fy} estimate",
        (f"{fy} (Est.)",),
        scale=1.05,
        ordinal=_ordinal(end),
    )


def day_text(d: date) -> str:
    """A date as a bulletin prints it: "Feb. 28, 1950"."""
    return f"{MONTHS[d.month - 1]} {d.day}, {d.year}"


def _ordinal(d: date) -> int:
    return d.year * 12 + d.month - 1


def last_month(year: int, month: int) -> int:
    """Ordinal (year*12 + month0) of the last complete month before an issue."""
    return year * 12 + (month - 1) - 1


def last_fiscal_year(year: int, month: int) -> int:
    """The last fiscal year complete when a volume dated (year, month) goes to press."""
    m = last_month(year, month)
    fy = m // 12 + 1
    while fiscal_bounds(fy)[1] > month_end(m // 12, m % 12 + 1):
        fy -= 1
    return fy


def fy_per(fy: int, path: tuple[str, ...], dim: str = "") -> Per:
    start, end = fiscal_bounds(fy)
    return Per(
        ("fy", fy), "fiscal_year", start, end, f"fiscal year {fy}", path, dim, ordinal=_ordinal(end)
    )


def asof_per(d: date, path: tuple[str, ...], text: str = "") -> Per:
    return Per(
        ("asof", d.isoformat()), "as_of_date", d, d, text or day_text(d), path, ordinal=_ordinal(d)
    )


def month_per(m: int, path: tuple[str, ...], stock: bool) -> Per:
    y, mo = m // 12, m % 12 + 1
    if stock:
        end = month_end(y, mo)
        return Per(
            ("asof", end.isoformat()),
            "as_of_date",
            end,
            end,
            f"the end of {MONTH_NAMES[mo - 1]} {y}",
            path,
            scale=1.0,
            ordinal=m,
        )
    return Per(
        ("m", m),
        "month",
        date(y, mo, 1),
        month_end(y, mo),
        f"{MONTH_NAMES[mo - 1]} {y}",
        path,
        scale=1.0,
        ordinal=m,
    )


def column_pers(spec: SeriesSpec, year: int, month: int, volume: str) -> list[Per]:
    """The value columns a cat_rows printing has, left to right (no Total column)."""
    lay = spec.layout
    last_fy = last_fiscal_year(year, month)
    m = last_month(year, month)
    through = month_end(m // 12, m % 12 + 1)
    if lay.columns == "quarters":
        q_last = (m - 2) // 3
        out = []
        for q in range(q_last - spec.window + 1, q_last + 1):
            y, qi = q // 4, q % 4
            start, end = date(y, 3 * qi + 1, 1), month_end(y, 3 * qi + 3)
            m0, m1 = MONTH_NAMES[3 * qi], MONTH_NAMES[3 * qi + 2]
            out.append(
                Per(
                    ("q", q),
                    "quarter",
                    start,
                    end,
                    f"the {m0}–{m1} {y} quarter",
                    (str(y), QUARTERS[qi]),
                    scale=0.25,
                    ordinal=_ordinal(end),
                )
            )
        return out
    if lay.columns == "budget":
        cur = last_fy + 1
        start, end = fiscal_bounds(cur)
        elapsed = max(1, m - _ordinal(start) + 1)
        return [
            fy_per(last_fy - 1, ("Fiscal years", str(last_fy - 1))),
            fy_per(last_fy, ("Fiscal years", str(last_fy))),
            Per(
                ("ytd", cur, m),
                "year_to_date",
                start,
                None,
                f"fiscal year {cur} to date",
                (f"Fiscal year {cur} to date",),
                scale=elapsed / 12,
                ordinal=m,
            ),
            estimate_per(cur),
            Per(
                ("cum", through.isoformat()),
                "cumulative_to_date",
                None,
                through,
                f"cumulative to {MONTH_NAMES[through.month - 1]} {through.day}, {through.year}",
                (f"From inception to {day_text(through)}",),
                scale=6.0,
                ordinal=m,
            ),
        ]
    if lay.columns == "through":
        return through_pers(m)
    if lay.columns == "dims":
        return [
            fy_per(fy, (f"Fiscal year {fy}", d), dim=d)
            for fy in range(last_fy - spec.window + 1, last_fy + 1)
            for d in spec.dims
        ]
    if lay.columns == "securities":
        return [
            Per(("sec", volume, *path), "not_a_period", None, None, "", path)
            for path in SECURITY_COLUMNS
        ]
    fys = range(last_fy - spec.window + 1, last_fy + 1)
    if spec.stock:
        return [asof_per(fiscal_bounds(fy)[1], (day_text(fiscal_bounds(fy)[1]),)) for fy in fys]
    return [fy_per(fy, ("Fiscal year", str(fy))) for fy in fys]


def row_pers(spec: SeriesSpec, year: int, month: int) -> list[Per]:
    """The period rows a period_rows printing has, top to bottom (no Total row)."""
    if spec.layout.month_rows == "days":
        return day_pers(last_month(year, month))
    if spec.layout.month_rows == "grid":
        return grid_months(last_month(year, month), spec.window)
    if spec.layout.month_rows == "report_dates":
        return report_date_pers(last_month(year, month), spec.window)
    if spec.layout.month_rows in ("fy_then_months", "sections"):
        return [p for _, pers in row_sections(spec, year, month) for p in pers]
    if spec.period_kind == "fy":
        last = last_fiscal_year(year, month)
        fys = range(last - spec.window + 1, last + 1)
        if spec.stock:
            return [asof_per(fiscal_bounds(fy)[1], (day_text(fiscal_bounds(fy)[1]),)) for fy in fys]
        return [fy_per(fy, (str(fy),)) for fy in fys]
    last = last_month(year, month)
    months = range(last - spec.window + 1, last + 1)
    return [month_per(m, (f"{MONTHS[m % 12]} {m // 12}",), spec.stock) for m in months]


def month_row_labels(pers: list[Per]) -> list[str]:
    """Month rows under a year row: the year only on the first row and where it changes
    ("1949-July", "August", ..., "1950-January")."""
    out, year = [], None
    for p in pers:
        m = p.ordinal
        y, name = m // 12, MONTH_NAMES[m % 12]
        out.append(f"{y}-{name}" if y != year else name)
        year = y
    return out


SECTION_HEADS = {"fy": "Fiscal years", "cy": "Calendar years", "m": "Months"}


def cy_per(y: int, path: tuple[str, ...]) -> Per:
    return Per(
        ("cy", y),
        "calendar_year",
        date(y, 1, 1),
        date(y, 12, 31),
        f"calendar year {y}",
        path,
        ordinal=y * 12 + 11,
    )


def row_sections(spec: SeriesSpec, year: int, month: int) -> list[tuple[str, list[Per]]]:
    """The period rows of a layout that prints years and months in one stub, by section
    (a key of :data:`SECTION_HEADS`): fiscal years, then (``sections``) calendar years,
    then the last months. ``fy_then_months`` prints four fiscal years; ``sections`` three
    and the current fiscal year's estimate ("1954 (Est.)"), three calendar years."""
    last_fy = last_fiscal_year(year, month)
    m = last_month(year, month)
    months = [month_per(k, (MONTH_NAMES[k % 12],), stock=False) for k in range(m - 5, m + 1)]
    if spec.layout.month_rows == "fy_then_months":
        fys = [fy_per(fy, (str(fy),)) for fy in range(last_fy - 3, last_fy + 1)]
        return [("fy", fys), ("m", months)]
    cur = last_fy + 1
    estimate = estimate_per(cur)
    fys = [fy_per(fy, (str(fy),)) for fy in range(last_fy - 2, last_fy + 1)] + [estimate]
    last_cy = m // 12 - 1 if m % 12 < 11 else m // 12
    cys = [cy_per(y, (str(y),)) for y in range(last_cy - 2, last_cy + 1)]
    return [("fy", fys), ("cy", cys), ("m", months)]


def period_row_labels(pers: list[Per]) -> list[str]:
    """Row labels of a stub of years and months: a year row prints its path, a run of
    month rows prints its year on its first row and where it changes ("1953-January",
    "February", ...)."""
    out: list[str] = []
    i = 0
    while i < len(pers):
        if pers[i].kind != "month":
            out.append(pers[i].path[-1])
            i += 1
            continue
        j = i
        while j < len(pers) and pers[j].kind == "month":
            j += 1
        out += month_row_labels(pers[i:j])
        i = j
    return out


def through_pers(m: int) -> list[Per]:
    """Columns of calendar years, the current year to date and its months (1967-08 p107:
    "Calendar year" over 1964, 1965, 1966 and "1967 through June", then "1967" over
    January ... June). ``m`` is the last complete month; at most its last three months of
    the year are printed (four, with the year columns, the year to date and wide figures,
    leave a table too wide for the page at the smallest type)."""
    y, last = m // 12, m % 12
    out = [cy_per(k, ("Calendar year", str(k))) for k in range(y - 3, y)]
    name = MONTH_NAMES[last]
    out.append(
        Per(
            ("ytd_cy", y, m),
            "year_to_date",
            date(y, 1, 1),
            month_end(y, last + 1),
            f"calendar year {y} through {name}",
            ("Calendar year", f"{y} through {name}"),
            scale=(last + 1) / 12,
            ordinal=m,
        )
    )
    for k in range(max(y * 12, m - 2), m + 1):
        out.append(month_per(k, (str(y), MONTH_NAMES[k % 12]), stock=False))
    return out


def grid_months(m: int, years: int) -> list[Per]:
    """The months a month grid prints (1940-05 p20): every month of the ``years - 1``
    calendar years before the last complete month ``m``'s, then its year through ``m``
    (all twelve when ``m`` is a December). Each is printed under its month's head."""
    first = (m // 12 - years + 1) * 12
    return [month_per(k, (MONTHS[k % 12],), stock=False) for k in range(first, m + 1)]


def day_pers(m: int) -> list[Per]:
    """Positions on the 7th, 14th, 21st and 28th of month ``m`` (weekly figures), each
    row printing its day only: "Feb. 7" (the year is in the title)."""
    y, mo = m // 12, m % 12 + 1
    return [
        asof_per(date(y, mo, d), (f"{MONTHS[mo - 1]} {d}",), day_text(date(y, mo, d)))
        for d in (7, 14, 21, 28)
    ]


HELD_IN = ("Abroad", "United States", "Worldwide")  # where a position is held (1984-06 p75)


def report_date(m: int) -> date:
    """The report date of month ``m``: its last weekday (1984-06 p75 reports July 1983 on
    "7/29/83", a Friday, and December on "12/30/83")."""
    d = month_end(m // 12, m % 12 + 1)
    while d.weekday() >= 5:
        d = date.fromordinal(d.toordinal() - 1)
    return d


def report_date_text(d: date) -> str:
    """A report date as a stub of them prints it: "7/29/83"."""
    return f"{d.month}/{d.day}/{d.year % 100:02d}"


def report_date_pers(m: int, months: int) -> list[Per]:
    """The positions a stub of report dates prints, top to bottom, through the last
    complete month ``m``: one a month, held in the United States; a quarter end's held
    abroad, then in the United States (its worldwide total, their sum, is no drawn
    figure: :mod:`pipeline.synth.date_groups` adds it). Each is dimensioned by where it
    is held, so the two positions of one date are two facts."""
    out = []
    for k in range(m - months + 1, m + 1):
        d = report_date(k)
        per = asof_per(d, (report_date_text(d),))
        held = HELD_IN[:2] if k % 3 == 2 else HELD_IN[1:2]
        out += [replace(per, dim=h, scale=1.0 if h == "Abroad" else 0.25) for h in held]
    return out
