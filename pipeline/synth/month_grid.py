"""The month grid layout: a heading line per category over one row per calendar year,
"Jan." ... "Dec." and the year's "Total" across.

1940-05 p20, "Monthly Receipts, Expenditures and Excess of Expenditures", prints its
three series this way: "Receipts" (a stub line with no figures), then "1935 ......",
"1936", ... "1940", each year's twelve months and its total; then "Expenditures" over
the same years, and so on. Neither axis dates a cell alone: the row gives the year, the
column the month, and the Total column the calendar year. The last year is printed
through the latest complete month only, with no Total (the year is not over), as the
1940 rows of that page stop at April.

The generator prints every line of a series (members, subtotals, the total) as one such
block. Each month cell is the fact (line, month), each Total cell the fact (line,
calendar year) whose value is the sum of its row's twelve months (a ``row_total``
identity); a subtotal or total line's cell sums its members' cells of the same year and
month (``subtotal`` or ``col_total``: they share the column). The read side is
pipeline.tables.month_grid.

Part of :mod:`pipeline.synth.statements`.
"""

from __future__ import annotations

from pipeline.synth.catalog import MONTHS
from pipeline.synth.dates import cy_per
from pipeline.synth.model import (
    Cell,
    Identity,
    Per,
    PrintLine,
    SeriesSpec,
    StatementTable,
    printed_title,
)

COL_PATHS = [(m,) for m in MONTHS] + [("Total",)]
TOTAL_COL = len(MONTHS)
YEAR_INDENT = 0.5  # the year rows stand a little in from their heading (1940-05 p20)


def build_grid_table(
    spec: SeriesSpec, volume: str, pers: list[Per], values: dict[tuple, dict[str, int]]
) -> StatementTable:
    """Lay one printing of a series out as a month grid (true values, no marks).

    ``pers`` are the months printed, in order (:func:`pipeline.synth.dates.grid_months`);
    ``values[(dim, key)]`` holds every line's value for one of them.
    """
    years: dict[int, list[Per]] = {}
    for p in pers:
        years.setdefault(p.start.year, []).append(p)
    row_labels: list[str] = []
    parents: list[str] = []
    print_lines: list[PrintLine] = []
    grid: list[list[Cell]] = []
    identities: list[Identity] = []
    row_of: dict[tuple[str, int], int] = {}  # (line label, year) -> body row
    for ln in spec.lines:
        is_total = ln.kind != "member"
        print_lines.append(PrintLine(ln.label, 0, None))
        for year, months in years.items():
            r = len(grid)
            row_of[(ln.label, year)] = r
            label = str(year)
            row = []
            for p in months:
                v = values[(p.dim, p.key)][ln.label]
                c = p.start.month - 1
                row.append(
                    Cell(r, c, label, MONTHS[c], v, v, is_total, (ln.label, p.dim, p.key), period=p)
                )
            if len(months) == len(MONTHS):  # a complete year prints its total
                total = cy_per(year, ("Total",))
                v = sum(cell.true for cell in row)
                fact = (ln.label, "", total.key)
                row.append(Cell(r, TOTAL_COL, label, "Total", v, v, True, fact, period=total))
                members = tuple((r, cell.col_idx) for cell in row[:-1])
                identities.append(Identity("row_total", (r, TOTAL_COL), members))
            grid.append(row)
            row_labels.append(label)
            parents.append(ln.label)
            print_lines.append(PrintLine(label, YEAR_INDENT, r))
    for ln in spec.lines:
        if ln.kind == "member":
            continue
        kind = "subtotal" if ln.kind == "subtotal" else "col_total"
        for year in years:
            r = row_of[(ln.label, year)]
            for cell in grid[r]:
                members = tuple((row_of[(m, year)], cell.col_idx) for m in ln.members)
                identities.append(Identity(kind, (r, cell.col_idx), members))
    title = printed_title(spec, spec.title)
    return StatementTable(
        spec=spec,
        volume=volume,
        title=title,
        unit=spec.unit if spec.layout.unit_place == "line" else "",
        row_labels=row_labels,
        row_indents=[1] * len(row_labels),
        row_kinds=["period"] * len(row_labels),
        col_paths=list(COL_PATHS),
        cells=grid,
        identities=identities,
        statement=spec.title,
        stub_text="",  # 1940-05 p20 leaves the stub head blank: the headings say it all
        row_parents=parents,
        print_lines=print_lines,
        unit_place=spec.layout.unit_place,
    )
