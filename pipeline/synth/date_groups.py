"""The report-date layout: positions on dates printed "7/29/83", a quarter end's date over
three rows that only a column of words right of the figures tells apart.

1984-06 p75, "Table FCP-IV-1, Nonbanking Firms' Positions", prints a row per report date
(the month's last weekday: "7/29/83", "8/31/83"), each a position held in the United
States, and at a quarter end three: "9/30/83" on the first row only, held "Abroad", then
in the "United States", then (under a rule, no label) "Worldwide", their sum. The column
"Position held in:" right of the figures names each row. The rows of a date share its
date, so a reader names them by it and the column, "9/30/83 (Abroad)", as the gold does;
each is a position on that date (as_of_date). Some figures are "n.a." (not available):
the first row's first columns, a quarter's exchange columns held abroad and at home,
while its worldwide total is printed.

The generator prints a stock series this way, its lines across as in any statement of
period rows. A position held abroad or at home is drawn like any figure (a dimension of
the date's fact, :func:`pipeline.synth.dates.report_date_pers`); the worldwide row sums
the two, column by column (a ``col_total`` identity, as a total row is). An "n.a." is
printed in place of a member's figure: no cell, no fact, and no identity over it (the
totals that include it still print their true sums). The read side is
pipeline.tables.report_dates.

Part of :mod:`pipeline.synth.statements`.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from pipeline.synth.dates import HELD_IN
from pipeline.synth.model import (
    Cell,
    Identity,
    Per,
    PrintLine,
    SeriesSpec,
    StatementTable,
    line_columns,
    printed_title,
    stable_key,
)

WORLDWIDE = HELD_IN[2]
TEXT_HEAD = "Position held in:"
STUB_HEAD = "Report date"
# How often a date prints an "n.a.": a month end in its first column (1984-06 p75,
# "7/29/83 .... n.a."), a quarter end in one member column of its rows held abroad and
# at home (p75's exchange columns of "9/30/83" and "12/30/83")
MONTH_END_NA = 0.25
QUARTER_END_NA = 0.5


def build_date_groups_table(
    spec: SeriesSpec, volume: str, pers: list[Per], values: dict[tuple, dict[str, int]]
) -> StatementTable:
    """Lay one printing of a stock series out over report dates (true values, no marks).

    ``pers`` are the positions printed, in order (:func:`~pipeline.synth.dates.
    report_date_pers`: one per month end, two per quarter end); ``values[(dim, key)]``
    holds every line's value for one of them.
    """
    lines = spec.lines
    col_paths = line_columns(spec)
    col_labels = [" / ".join(p) for p in col_paths]
    members = [c for c, ln in enumerate(lines) if ln.kind == "member"]
    dates: dict[tuple, list[Per]] = {}
    for p in pers:
        dates.setdefault(p.key, []).append(p)
    row_labels: list[str] = []
    row_texts: list[str] = []
    print_lines: list[PrintLine] = []
    grid: list[list[Cell]] = []
    identities: list[Identity] = []
    unavailable: list[tuple[int, int]] = []
    for n, held in enumerate(dates.values()):
        date_text = held[0].path[-1]
        group = len(held) > 1
        rows = [(p, values[(p.dim, p.key)]) for p in held]
        if group:
            world = {ln.label: sum(vals[ln.label] for _, vals in rows) for ln in lines}
            rows.append((replace(held[0], dim=WORLDWIDE), world))
        gone = _not_available(spec, held[0], members, group)
        if group and n:
            print_lines.append(PrintLine("", 0, None))  # a blank line sets the group off
        first = len(grid)
        for i, (p, vals) in enumerate(rows):
            r = len(grid)
            label = f"{date_text} ({p.dim})" if group else date_text
            total_row = p.dim == WORLDWIDE
            row = []
            for c, ln in enumerate(lines):
                if c in gone and not total_row:
                    unavailable.append((r, c))
                    continue
                fact = (ln.label, p.dim, p.key)
                is_total = total_row or ln.kind != "member"
                v = vals[ln.label]
                row.append(Cell(r, c, label, col_labels[c], v, v, is_total, fact, period=p))
            grid.append(row)
            row_labels.append(label)
            row_texts.append(p.dim)
            if total_row:
                print_lines.append(PrintLine("", 0, None, rule=True))
            print_lines.append(PrintLine(date_text if i == 0 else "", 0, r))
            identities += _row_identities(spec, r, set() if total_row else gone)
        if group:
            world = first + len(held)
            for c in range(len(lines)):
                if c not in gone:
                    parts = tuple((r, c) for r in range(first, world))
                    identities.append(Identity("col_total", (world, c), parts))
            if n < len(dates) - 1:
                print_lines.append(PrintLine("", 0, None))
    title = printed_title(spec, spec.title)
    return StatementTable(
        spec=spec,
        volume=volume,
        title=title,
        unit=spec.unit if spec.layout.unit_place == "line" else "",
        row_labels=row_labels,
        row_indents=[0] * len(row_labels),
        row_kinds=["period"] * len(row_labels),
        col_paths=col_paths,
        cells=grid,
        identities=identities,
        statement=spec.title,
        stub_text=STUB_HEAD,
        row_parents=[""] * len(row_labels),
        print_lines=print_lines,
        unit_place=spec.layout.unit_place,
        text_head=TEXT_HEAD,
        row_texts=row_texts,
        unavailable=unavailable,
    )


def _not_available(spec: SeriesSpec, per: Per, members: list[int], group: bool) -> set[int]:
    """The member columns a date prints "n.a." in (the same in every printing of it)."""
    rng = np.random.default_rng([stable_key("n.a.", spec.series_id, spec.title, *per.key)])
    if rng.random() >= (QUARTER_END_NA if group else MONTH_END_NA):
        return set()
    return {members[int(rng.integers(len(members)))] if group else members[0]}


def _row_identities(spec: SeriesSpec, r: int, gone: set[int]) -> list[Identity]:
    """A row's subtotals and total across its columns, but none over an "n.a."."""
    index = {ln.label: c for c, ln in enumerate(spec.lines)}
    out = []
    for c, ln in enumerate(spec.lines):
        if ln.kind == "member":
            continue
        parts = tuple(index[m] for m in ln.members)
        if gone.isdisjoint(parts):
            kind = "subtotal" if ln.kind == "subtotal" else "row_total"
            out.append(Identity(kind, (r, c), tuple((r, k) for k in parts)))
    return out
