"""The statement model behind the synthetic Treasury-style bulletins.

A *series* is one statement table that every volume reprints (same title, same
categories) over a window of periods that slides forward from volume to volume,
so consecutive volumes print overlapping periods. Values live in integer minor
units (value x 10**decimals) so every identity is exact; subtotals and totals are
always derived from the member values, so revising a member in a later volume
moves every total it feeds and keeps every identity true.

A printed table differs from the true one in two recorded ways only: "r" marks on
figures revised since their previous printing, and (about one table in ten) one
member figure misprinted so that it contradicts its total.

Besides the classic layout (fiscal years under a "Fiscal year" spanner, a unit line
under the title), series are printed in layouts taken from real bulletins (a
:class:`Layout` per series, see :data:`RECIPES`): the unit inside the title, in a
column head over the amount columns, once at the head of the page, or nowhere;
quarter, fiscal-year-to-date, cumulative and estimate columns; several value columns
per period; month rows under a year row; stub labels wrapped over two lines (some
hyphenated), group heading lines and footnote marks on labels; a chart above the
table; a table continued on the next page; and a securities table whose maturity
years are not periods; fiscal-year rows followed by month rows under "Fiscal year or
month"; stub headings "Fiscal years:", "Calendar years:", "Months:" over the rows they
date; a year-to-date column "1950 through February" among calendar-year and month
columns; positions on the days of one month; two narrow tables side by side; month grids
(:mod:`pipeline.synth.month_grid`) and report dates whose quarter ends print three rows
(:mod:`pipeline.synth.date_groups`), the two layouts the default cycle (``CYCLE_ROUNDS``)
leaves out. Every printed period carries its true kind and dates (:class:`Per`),
recorded in the truth; stock statements print positions on dates.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from pipeline.synth.catalog import (  # noqa: F401
    CLASSIC,
    CYCLE_RECIPES,
    CYCLE_ROUNDS,
    HYPHENATION,
    LABEL_MARKS,
    LABEL_NOTES,
    LONG_LABELS,
    MONTH_NAMES,
    MONTHS,
    OCR_CONFUSABLE,
    PAIRED_RECIPES,
    QUARTERS,
    RECIPE_CYCLE,
    RECIPE_ROUND,
    RECIPES,
    SECURITIES,
    SECURITY_COLUMNS,
    TEMPLATES,
    TITLE_QUALIFIERS,
    UNIT_WORDS,
    UNITS,
    Layout,
    Template,
)
from pipeline.synth.date_groups import build_date_groups_table
from pipeline.synth.dates import (  # noqa: F401
    SECTION_HEADS,
    _ordinal,
    asof_per,
    column_pers,
    day_text,
    fiscal_bounds,
    fy_per,
    last_fiscal_year,
    last_month,
    month_end,
    month_per,
    month_row_labels,
    period_row_labels,
    row_pers,
)
from pipeline.synth.model import (
    Cell,
    Identity,
    Per,
    PrintLine,
    Revision,
    SeriesSpec,
    StatementTable,
    decimal_text,
    format_amount,
    line_columns,
    printed_title,
    stable_key,
)
from pipeline.synth.month_grid import build_grid_table
from pipeline.synth.series import (  # noqa: F401
    _fits,
    _pick_lines,
    _template_for,
    _wrap_lines,
    assign_recipes,
    line_values,
    make_series,
    member_value,
    wrap_label,
)


def _stub_print_lines(spec: SeriesSpec) -> tuple[list[PrintLine], list[str]]:
    """The stub as printed for category rows: headings, wrapped lines, marks; and each
    row's parent (the heading it sits under)."""
    out: list[PrintLine] = []
    parents: list[str] = []
    group = ""
    for r, ln in enumerate(spec.lines):
        if spec.layout.headings and ln.group and ln.group != group:
            out.append(PrintLine(f"{ln.group}:", 0, None))
        group = ln.group
        parents.append(ln.group if spec.layout.headings else "")
        texts = list(ln.printed or (ln.label,))
        if ln.mark:
            texts[-1] = f"{texts[-1]} {ln.mark}"
        for i, text in enumerate(texts):
            last = i == len(texts) - 1
            indent = ln.indent + (0.5 if i else 0)
            out.append(PrintLine(text, indent, r if last else None))
    return out, parents


def build_table(
    spec: SeriesSpec, volume: str, pers: list[Per], values: dict[tuple, dict[str, int]]
) -> StatementTable:
    """Lay one printing out as a grid of cells with its identities (true values, no marks).

    ``pers`` are the value columns (cat_rows) or the period rows (period_rows);
    ``values[(dim, key)]`` holds every line's value for one of them.
    """
    if spec.layout.month_rows == "grid":
        return build_grid_table(spec, volume, pers, values)
    if spec.layout.month_rows == "report_dates":
        return build_date_groups_table(spec, volume, pers, values)
    lines = spec.lines
    is_line_total = [ln.kind != "member" for ln in lines]
    identities: list[Identity] = []
    unit_level = (spec.column_unit,) if spec.column_unit else ()
    if spec.orientation == "cat_rows":
        row_labels = [ln.label for ln in lines]
        row_indents = [ln.indent for ln in lines]
        row_kinds = [ln.kind for ln in lines]
        col_paths: list[tuple[str, ...]] = [unit_level + p.path for p in pers]
        col_per: list[Per | None] = list(pers)
        if spec.period_total:
            col_paths.append(unit_level + ("Total",))
            col_per.append(None)
        if spec.layout.columns == "securities":
            col_paths.append(unit_level + ("Total outstanding",))
            col_per.append(pers[0])
        grid: list[list[Cell]] = []
        for r, ln in enumerate(lines):
            row = []
            for c, p in enumerate(pers):
                v = values[(p.dim, p.key)][ln.label]
                fact = (ln.label, p.dim, p.key) if p.kind != "not_a_period" else None
                row.append(
                    Cell(
                        r,
                        c,
                        ln.label,
                        " / ".join(col_paths[c]),
                        v,
                        v,
                        is_line_total[r],
                        fact,
                        period=p,
                        dimension=p.dim,
                    )
                )
            if len(col_paths) > len(pers):
                v = sum(cell.true for cell in row)
                c = len(pers)
                row.append(
                    Cell(
                        r,
                        c,
                        ln.label,
                        " / ".join(col_paths[c]),
                        v,
                        v,
                        True,
                        None,
                        period=col_per[c],
                    )
                )
            grid.append(row)
        n_cols = len(col_paths)
        index = {ln.label: r for r, ln in enumerate(lines)}
        for r, ln in enumerate(lines):
            if ln.kind == "member":
                continue
            kind = "subtotal" if ln.kind == "subtotal" else "col_total"
            for c in range(n_cols):
                members = tuple((index[m], c) for m in ln.members)
                identities.append(Identity(kind, (r, c), members))
        if n_cols > len(pers):
            for r in range(len(lines)):
                members = tuple((r, c) for c in range(len(pers)))
                identities.append(Identity("row_total", (r, len(pers)), members))
        print_lines, parents = _stub_print_lines(spec)
        stub = spec.stub_head
    else:
        if spec.layout.month_rows == "year_row":
            row_labels = month_row_labels(pers)
        elif spec.layout.month_rows != "dated":
            row_labels = period_row_labels(pers)
        else:
            row_labels = [p.path[-1] for p in pers]
        row_indents = [0] * len(pers)
        row_kinds = ["period"] * len(pers)
        col_paths = line_columns(spec)
        grid = []
        for r, p in enumerate(pers):
            vals = values[(p.dim, p.key)]
            row = [
                Cell(
                    r,
                    c,
                    row_labels[r],
                    " / ".join(col_paths[c]),
                    vals[ln.label],
                    vals[ln.label],
                    is_line_total[c],
                    (ln.label, p.dim, p.key),
                    period=p,
                )
                for c, ln in enumerate(lines)
            ]
            grid.append(row)
        if spec.period_total:
            label = "Total"
            row = []
            for c in range(len(lines)):
                v = sum(grid[r][c].true for r in range(len(pers)))
                row.append(Cell(len(pers), c, label, " / ".join(col_paths[c]), v, v, True, None))
            grid.append(row)
            row_labels.append(label)
            row_indents.append(0)
            row_kinds.append("total")
        index = {ln.label: c for c, ln in enumerate(lines)}
        for c, ln in enumerate(lines):
            if ln.kind == "member":
                continue
            kind = "subtotal" if ln.kind == "subtotal" else "row_total"
            for r in range(len(grid)):
                members = tuple((r, index[m]) for m in ln.members)
                identities.append(Identity(kind, (r, c), members))
        if spec.period_total:
            for c in range(len(lines)):
                members = tuple((r, c) for r in range(len(pers)))
                identities.append(Identity("col_total", (len(pers), c), members))
        print_lines = [PrintLine(lb, 0, r) for r, lb in enumerate(row_labels)]
        parents = [""] * len(row_labels)
        if spec.layout.month_rows == "sections":
            print_lines, parents = _section_print_lines(pers, row_labels)
            stub = "Period"
        elif spec.layout.month_rows == "fy_then_months":
            stub = "Fiscal year or month"
        elif spec.layout.month_rows == "days":
            stub = "As of following dates"
        elif spec.period_kind == "fy":
            stub = "End of fiscal year" if spec.stock else "Fiscal year"
        else:
            stub = "End of month" if spec.stock else "Month"
    statement = spec.title
    if spec.layout.month_rows == "days":  # the month the day rows fall in
        end = pers[-1].end
        statement = f"{spec.title} for {MONTH_NAMES[end.month - 1]} {end.year}"
    title = printed_title(spec, statement)
    return StatementTable(
        spec=spec,
        volume=volume,
        title=title,
        unit=spec.unit if spec.layout.unit_place == "line" else "",
        row_labels=row_labels,
        row_indents=row_indents,
        row_kinds=row_kinds,
        col_paths=col_paths,
        cells=grid,
        identities=identities,
        statement=statement,
        stub_text=stub,
        row_parents=parents,
        print_lines=print_lines,
        unit_place=spec.layout.unit_place,
    )


def _section_print_lines(
    pers: list[Per], row_labels: list[str]
) -> tuple[list[PrintLine], list[str]]:
    """A stub of sections: the heading line ("Calendar years:") over the rows it dates,
    each row's parent that heading."""
    out: list[PrintLine] = []
    parents: list[str] = []
    head = ""
    for r, (p, label) in enumerate(zip(pers, row_labels, strict=True)):
        kind = {"month": "m", "calendar_year": "cy"}.get(p.kind, "fy")  # an estimate: "fy"
        section = SECTION_HEADS[kind]
        if section != head:
            out.append(PrintLine(f"{section}:", 0, None))
            head = section
        out.append(PrintLine(label, 0, r))
        parents.append(section)
    return out, parents


def split_continued(table: StatementTable) -> list[StatementTable]:
    """A period_rows table printed over two pages: the rows split in half, the second
    part titled "(Continued)", its first month row printing its year again."""
    n = len(table.cells)
    k = (n + 1) // 2
    parts = []
    for part, rows in ((1, range(0, k)), (2, range(k, n))):
        r0 = rows.start
        pers = [table.cells[r][0].period for r in rows]
        if table.spec.layout.month_rows == "year_row":
            labels = month_row_labels([p for p in pers if p is not None])
        else:
            labels = [table.row_labels[r] for r in rows]
        cells = []
        for i, r in enumerate(rows):
            row = []
            for c in table.cells[r]:
                row.append(replace(c, row_idx=i, row_label=labels[i]))
            cells.append(row)
        identities = [
            Identity(
                ident.kind,
                (ident.total[0] - r0, ident.total[1]),
                tuple((mr - r0, mc) for mr, mc in ident.members),
            )
            for ident in table.identities
            if ident.total[0] in rows and all(mr in rows for mr, _ in ident.members)
        ]
        title = table.title + (" (Continued)" if part == 2 else "")
        parts.append(
            replace(
                table,
                title=title,
                row_labels=labels,
                row_indents=[table.row_indents[r] for r in rows],
                row_kinds=[table.row_kinds[r] for r in rows],
                cells=cells,
                identities=identities,
                row_parents=[table.row_parents[r] for r in rows],
                print_lines=[PrintLine(lb, 0, i) for i, lb in enumerate(labels)],
                continued=part == 2,
                part=part,
                footnote_lines=[],
            )
        )
    return parts


def misprint_digits(minor: int, rng: np.random.Generator) -> int:
    """A wrong figure that no single OCR digit confusion explains.

    Prefer swapping two adjacent different digits (a typesetter's transposition);
    otherwise move one digit by an amount that is not a confusable pair.
    """
    digits = str(abs(minor))
    swaps = [
        i
        for i in range(len(digits) - 1)
        if digits[i] != digits[i + 1] and not (i == 0 and digits[i + 1] == "0")
    ]
    if swaps:
        i = swaps[int(rng.integers(len(swaps)))]
        new = digits[:i] + digits[i + 1] + digits[i] + digits[i + 2 :]
    else:
        options = [
            (i, d)
            for i, old in enumerate(digits)
            for d in "0123456789"
            if d != old
            and frozenset((old, d)) not in OCR_CONFUSABLE
            and not (i == 0 and d == "0" and len(digits) > 1)
        ]
        i, d = options[int(rng.integers(len(options)))]
        new = digits[:i] + d + digits[i + 1 :]
    value = int(new)
    return -value if minor < 0 else value


def apply_misprint(table: StatementTable, rng: np.random.Generator) -> bool:
    """Misprint one member figure of the table (its totals stay right). False if none fits."""
    candidates = [
        cell
        for row in table.cells
        for cell in row
        if not cell.is_total and not cell.revised and abs(cell.true) >= 10
    ]
    if not candidates:
        return False
    cell = candidates[int(rng.integers(len(candidates)))]
    cell.printed = misprint_digits(cell.true, rng)
    cell.misprint = True
    return True


def dress_table(table: StatementTable, rng: np.random.Generator) -> None:
    """Set each cell's printed text: separators, sign style, dash, "r" and footnote marks."""
    spec = table.spec
    used_marks: set[str] = set()
    for row in table.cells:
        for cell in row:
            text = format_amount(cell.printed, spec.decimals, spec.neg_style)
            if cell.revised:
                text = f"r{text}" if spec.rev_style == "prefix" else f"{text}r"
            if spec.footnote_rate and cell.printed != 0 and rng.random() < spec.footnote_rate:
                mark = spec.footnote_marks[int(rng.integers(len(spec.footnote_marks)))]
                cell.footnote = mark
                used_marks.add(mark)
                text = f"{text} {mark}" if mark.endswith("/") else f"{text}{mark}"
            cell.text = text
    notes = {
        "1/": "1/ Includes adjustments to prior periods.",
        "2/": "2/ Partly estimated.",
        "*": "* Less than one-half unit.",
    }
    table.footnote_lines = [notes[m] for m in ("1/", "2/", "*") if m in used_marks]
    if spec.orientation == "cat_rows":
        table.footnote_lines += [LABEL_NOTES[ln.mark] for ln in spec.lines if ln.mark]
    if any(c.revised for row in table.cells for c in row):
        table.footnote_lines.append("r Revised.")


@dataclass
class Bulletin:
    """One volume: its date and the tables it prints, in table order."""

    year: int
    month: int
    tables: list[StatementTable]

    @property
    def volume(self) -> str:
        return f"{self.year:04d}-{self.month:02d}"

    @property
    def file_name(self) -> str:
        return f"synth_bulletin_{self.year:04d}_{self.month:02d}.pdf"

    @property
    def issue_title(self) -> str:
        return f"{MONTH_NAMES[self.month - 1]} {self.year}"


def make_specs(
    seed: int, tables_per_volume: int, recipes: tuple[str, ...] | None = None
) -> list[SeriesSpec]:
    """Every series of a corpus, each with its layout recipe: ``recipes`` in turn when
    given (a recipe that does not suit the series' statement, say month rows of flows for
    a statement of positions, leaves it classic), else the seeded cycle of
    :func:`assign_recipes`."""
    if recipes:
        unknown = set(recipes) - set(RECIPES) - {""}
        if unknown:
            raise ValueError(f"unknown layout recipes: {sorted(unknown)}")
        chosen = [recipes[t % len(recipes)] for t in range(tables_per_volume)]
        chosen = [
            r if _fits(r, _template_for(seed, t + 1)[0]) else "" for t, r in enumerate(chosen)
        ]
    else:
        chosen = assign_recipes(seed, tables_per_volume)
    return [
        make_series(seed, t + 1, chosen[t], cycle=t // RECIPE_CYCLE)
        for t in range(tables_per_volume)
    ]


def build_bulletins(
    seed: int,
    volumes: int,
    tables_per_volume: int,
    *,
    first_issue: tuple[int, int] = (1950, 3),
    months_between_volumes: int = 6,
    revision_rate: float = 0.6,
    misprint_rate: float = 0.1,
    recipes: tuple[str, ...] | None = None,
) -> tuple[list[Bulletin], list[Revision]]:
    """Build every volume's tables (values, revisions, misprints, printed texts).

    Volumes are issued ``months_between_volumes`` apart from ``first_issue``. In each
    later printing of a series, with probability ``revision_rate`` one or two members
    of already printed periods are revised. ``round(misprint_rate * n_tables)``
    printings carry one misprinted member figure. A series continued on the next page
    is two printed tables per volume.
    """
    specs = make_specs(seed, tables_per_volume, recipes)
    # Alternate the negative style over the series that print negatives, so that even a
    # small corpus has both "(1,234)" and "-1,234".
    negative = [i for i, s in enumerate(specs) if s.signed or any(ln.sign < 0 for ln in s.lines)]
    for k, i in enumerate(negative):
        specs[i] = replace(specs[i], neg_style=("minus", "paren")[(k + seed) % 2])
    current: dict[str, dict[tuple, int]] = {s.series_id: {} for s in specs}
    last_printed: dict[str, dict[tuple, tuple[str, int, str, str]]] = {
        s.series_id: {} for s in specs
    }
    bulletins: list[Bulletin] = []
    revisions: list[Revision] = []
    for v in range(volumes):
        months = first_issue[0] * 12 + first_issue[1] - 1 + v * months_between_volumes
        year, month = months // 12, months % 12 + 1
        bulletin = Bulletin(year, month, [])
        for spec in specs:
            rng = np.random.default_rng([seed, stable_key("revise", spec.series_id, v)])
            members = current[spec.series_id]
            printed = last_printed[spec.series_id]
            if spec.orientation == "cat_rows":
                pers = column_pers(spec, year, month, bulletin.volume)
            else:
                pers = row_pers(spec, year, month)
            leaves = [ln.label for ln in spec.lines if ln.kind == "member"]
            for p in pers:
                for leaf in leaves:
                    if (leaf, p.dim, p.key) not in members:
                        members[(leaf, p.dim, p.key)] = member_value(seed, spec, leaf, p)
            reprinted = [
                (leaf, p.dim, p.key)
                for p in pers
                for leaf in leaves
                if (leaf, p.dim, p.key) in printed and members[(leaf, p.dim, p.key)]
            ]
            if reprinted and rng.random() < revision_rate:
                k = min(len(reprinted), int(rng.integers(1, 3)))
                for i in rng.choice(len(reprinted), size=k, replace=False):
                    key = reprinted[int(i)]
                    old = members[key]
                    step = max(1, int(abs(old) * rng.uniform(0.01, 0.08)))
                    members[key] = (
                        old + step if rng.random() < 0.5 or abs(old) <= step else old - step
                    )
            values = {(p.dim, p.key): line_values(spec, members, (p.dim, p.key)) for p in pers}
            table = build_table(spec, bulletin.volume, pers, values)
            parts = split_continued(table) if spec.layout.continued else [table]
            for part in parts:
                for row in part.cells:
                    for cell in row:
                        if cell.fact is None:
                            continue
                        parent = part.row_parents[cell.row_idx]
                        before = printed.get(cell.fact)
                        if before is not None and before[1] != cell.true:
                            cell.revised = True
                            revisions.append(
                                Revision(
                                    spec.series_id,
                                    cell.row_label,
                                    cell.col_label,
                                    before[0],
                                    decimal_text(before[1], spec.decimals),
                                    bulletin.volume,
                                    decimal_text(cell.true, spec.decimals),
                                    before[2],
                                    before[3],
                                    parent,
                                    before[4],
                                )
                            )
                        printed[cell.fact] = (
                            bulletin.volume,
                            cell.true,
                            cell.row_label,
                            cell.col_label,
                            parent,
                        )
            bulletin.tables += parts
        bulletins.append(bulletin)
    all_tables = [t for b in bulletins for t in b.tables]
    rng = np.random.default_rng([seed, stable_key("misprints")])
    n_misprints = round(misprint_rate * len(all_tables))
    order = rng.permutation(len(all_tables))
    done = 0
    for i in order:
        if done >= n_misprints:
            break
        done += apply_misprint(all_tables[int(i)], rng)
    for t, table in enumerate(all_tables):
        dress_table(table, np.random.default_rng([seed, stable_key("dress", t)]))
    return bulletins, revisions
