"""Series: which template and layout each series takes, its lines (wrapped, hyphenated,
headed) and its values.

Part of :mod:`pipeline.synth.statements`.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from pipeline.synth.catalog import (
    CLASSIC,
    CYCLE_ROUNDS,
    HYPHENATION,
    LABEL_MARKS,
    LONG_LABELS,
    PAIRED_RECIPES,
    RECIPE_ROUND,
    RECIPES,
    SECURITIES,
    TEMPLATES,
    TITLE_QUALIFIERS,
    UNIT_WORDS,
    UNITS,
    Layout,
    Template,
)
from pipeline.synth.model import (
    Line,
    Per,
    SeriesSpec,
    stable_key,
)

# -- series ----------------------------------------------------------------------------


def _template_for(seed: int, table_no: int) -> tuple[Template, int]:
    """Each template once per round so a volume's titles differ (round number too)."""
    order = np.random.default_rng([seed, stable_key("templates")]).permutation(len(TEMPLATES))
    round_no, slot = divmod(table_no - 1, len(TEMPLATES))
    return TEMPLATES[int(order[slot])], round_no


def _fits(recipe: str, template: Template) -> bool:
    if recipe in ("days", "date_groups"):  # positions on dates
        return template.stock
    if recipe == "quarters":
        return not template.stock and bool(template.groups)
    if recipe in (
        "month_grid",  # flows: a month's figure and the year's total over its months
        "budget",
        "dims",
        "securities",
        "fiscal_months",
        "sections",
        "through",
        "side_by_side",  # flows: both tables of a pair print their rows at the same heights
    ):
        return not template.stock
    return True


def assign_recipes(seed: int, n_series: int) -> list[str]:
    """The layout recipe of each series ("" for the classic layout).

    Series come in rounds of :data:`RECIPE_ROUND`, round r taking the recipe set
    ``CYCLE_ROUNDS[r % len(CYCLE_ROUNDS)]``; a full round prints each recipe of its set
    once (on a series whose statement suits it: quarters need groups, day rows a
    statement of positions, the other recipes flows, so stock statements keep their
    dated positions; a paired recipe on two neighbouring series), a partial round of k
    series prints about ``len(set) * k / RECIPE_ROUND`` of its recipes.
    """
    templates = [_template_for(seed, t + 1)[0] for t in range(n_series)]
    out = [""] * n_series
    for round_no, c0 in enumerate(range(0, n_series, RECIPE_ROUND)):
        names = list(CYCLE_ROUNDS[round_no % len(CYCLE_ROUNDS)])
        idx = list(range(c0, min(c0 + RECIPE_ROUND, n_series)))
        # the first round draws as it always did (one generator per round, keyed by c0)
        rng = np.random.default_rng([seed, stable_key("recipes", c0)])
        k = len(names) if len(idx) == RECIPE_ROUND else round(len(names) * len(idx) / RECIPE_ROUND)
        chosen = [names[i] for i in sorted(rng.choice(len(names), size=k, replace=False))]
        order = [idx[int(i)] for i in rng.permutation(len(idx))]
        for name in chosen:  # each set is ordered most constrained first
            width = 2 if name in PAIRED_RECIPES else 1
            for i in order:
                slots = range(i, i + width)
                if all(j in idx and not out[j] and _fits(name, templates[j]) for j in slots):
                    for j in slots:
                        out[j] = name
                    break
    return out


def make_series(seed: int, table_no: int, recipe: str = "", cycle: int = 0) -> SeriesSpec:
    """Draw one series (categories, orientation, unit, styles) from the seed."""
    rng = np.random.default_rng([seed, stable_key("series", table_no)])
    template, round_no = _template_for(seed, table_no)
    layout = RECIPES[recipe] if recipe else CLASSIC
    if layout.columns == "securities":
        template = SECURITIES
        round_no = cycle
    title = template.title + TITLE_QUALIFIERS[round_no % len(TITLE_QUALIFIERS)]
    if round_no >= len(TITLE_QUALIFIERS):
        title += f" ({round_no // len(TITLE_QUALIFIERS) + 1})"
    orientation = "cat_rows" if rng.random() < 0.55 else "period_rows"
    if layout.columns != "years":
        orientation = "cat_rows"
    if layout.month_rows != "dated":
        orientation = "period_rows"
    if layout.half:
        orientation = "cat_rows"
    lines = _pick_lines(template, orientation, rng, layout)
    unit, multiplier, decimals = UNITS[int(rng.integers(len(UNITS)))]
    if orientation == "cat_rows":
        period_kind = "fy"
        window = int(rng.integers(4, 6))
        period_total = bool(rng.random() < 0.35)
    else:
        period_kind = "month" if rng.random() < 0.5 else "fy"
        window = 8 if period_kind == "month" else int(rng.integers(5, 8))
        period_total = bool(rng.random() < 0.5)
    if layout.month_rows == "year_row":
        period_kind, window = "month", 8
    elif layout.month_rows == "days":
        period_kind, window = "day", 4
    elif layout.month_rows == "grid":  # three year rows under each heading
        period_kind, window = "month", 3
    elif layout.month_rows == "report_dates":  # eight report dates, two or three quarter ends
        period_kind, window = "day", 8
    elif layout.month_rows != "dated":  # years, then months (row_sections)
        period_kind, window = "fy", 0
    if layout.columns == "quarters":
        window = 4
    elif layout.half:
        window = 3  # three value columns on half the page
    elif layout.columns == "dims":
        window = 2
    if layout.recipe or template.stock:
        period_total = False  # a total over quarters, estimates or positions means nothing
    members = [ln for ln in lines if ln.kind == "member"]
    # Magnitudes chosen so totals print in at most ~7 digits and tables fit the page.
    scale = 10 ** float(rng.uniform(2.3, 4.3))
    if layout.month_rows == "grid":
        # thirteen value columns: months of three digits, year totals of four or five,
        # whole units, as 1940-05 p20 prints them ("3,857")
        scale, decimals = 10 ** float(rng.uniform(2.5, 2.7)), 0
    base = {ln.label: int(scale * rng.uniform(0.2, 1.6) * 10**decimals) + 1 for ln in members}
    if rng.random() < 0.5:
        footnote_rate, marks = 0.05, ("1/", "2/") if rng.random() < 0.5 else ("*",)
    else:
        footnote_rate, marks = 0.0, ()
    column_unit = ""
    if layout.unit_place == "column_head":
        words = UNIT_WORDS[multiplier]
        column_unit = words[0].upper() + words[1:]  # "Millions of dollars"
    return SeriesSpec(
        series_id=f"S{table_no:02d}",
        table_no=table_no,
        title=title,
        stub_head=template.stub_head,
        unit=unit,
        unit_multiplier=multiplier,
        decimals=decimals,
        orientation=orientation,
        period_kind=period_kind,
        window=window,
        period_total=period_total,
        lines=lines,
        signed=template.signed,
        base=base,
        neg_style="paren" if rng.random() < 0.5 else "minus",
        rev_style="prefix" if rng.random() < 0.5 else "suffix",
        footnote_rate=footnote_rate,
        footnote_marks=marks,
        layout=layout,
        stock=template.stock,
        dims=template.dims,
        column_unit=column_unit,
    )


def wrap_label(label: str, hyphenate: bool) -> tuple[str, ...]:
    """A long label's two printed lines; with ``hyphenate`` a word of the second half is
    broken at the line end ("... by em-" / "ployers and ...") where one can be."""
    words = label.split()
    if hyphenate:
        breaks = []
        for j in range(1, len(words)):
            if words[j] in HYPHENATION:
                first, rest = HYPHENATION[words[j]].split("-", 1)
                head = " ".join([*words[:j], first])
                breaks.append((abs(len(head) - 0.5 * len(label)), head, rest, j))
        if breaks:
            _, head, rest, j = min(breaks)
            if 0.3 <= len(head) / len(label) <= 0.75:
                return (f"{head}-", " ".join([rest, *words[j + 1 :]]))
    # a plain break at the word boundary nearest the middle
    cuts = [len(" ".join(words[:j])) for j in range(1, len(words))]
    j = 1 + min(range(len(cuts)), key=lambda i: abs(cuts[i] - 0.5 * len(label)))
    return (" ".join(words[:j]), " ".join(words[j:]))


def _pick_lines(
    template: Template, orientation: str, rng: np.random.Generator, layout: Layout = CLASSIC
) -> tuple[Line, ...]:
    """Choose a subset of the template's categories that fits the orientation's width."""
    lines: list[Line] = []
    top: list[str] = []
    # Categories across (period_rows) must fit ~6 value columns; down (cat_rows) ~14 rows.
    max_groups, max_members, max_singles = (2, 4, 4) if orientation == "cat_rows" else (1, 2, 0)
    groups = list(template.groups)[:max_groups]
    if orientation == "period_rows" and groups and rng.random() < 0.4:
        groups = []
    if layout.wrap or layout.half:
        groups = groups[:1]  # wrapped labels take two lines each: keep the table on one page
    for group, members, subtotal in groups:
        k = int(rng.integers(2, min(max_members, len(members)) + 1))
        chosen = [members[i] for i in sorted(rng.choice(len(members), size=k, replace=False))]
        for m in chosen:
            lines.append(Line(m, "member", 1, group=group))
        lines.append(Line(subtotal, "subtotal", 0, tuple(chosen), group=group))
        top.append(subtotal)
    if orientation == "period_rows":
        # Six value columns at most: members, subtotal, deductions and the total.
        n_singles = 5 - len(lines) - len(template.deductions)
    else:
        n_singles = max_singles + (2 if not groups else 0)
    if layout.columns == "securities":
        n_singles = len(template.singles)
    pool = list(template.singles)
    hi = max(1, min(n_singles, len(pool)))
    k = int(rng.integers(min(2, hi), hi + 1)) if layout.columns != "securities" else hi
    singles = [pool[i] for i in sorted(rng.choice(len(pool), size=k, replace=False))]
    for s in singles:
        lines.append(Line(s, "member", 0))
        top.append(s)
    for d in template.deductions:
        lines.append(Line(d, "member", 0, sign=-1))
        top.append(d)
    lines.append(Line(template.total_label, "total", 0, tuple(top)))
    if layout.wrap:
        lines = _wrap_lines(lines)
    if layout.label_marks:
        plain = [i for i, ln in enumerate(lines) if ln.kind == "member" and ln.sign > 0]
        for mark, i in zip(LABEL_MARKS, plain[1::3] or plain[:1], strict=False):
            lines[i] = replace(lines[i], mark=mark)
    return tuple(lines)


def _wrap_lines(lines: list[Line]) -> list[Line]:
    """Long labels for the wrapped layout; every other wrapped label is hyphenated."""
    rename = {ln.label: LONG_LABELS[ln.label] for ln in lines if ln.label in LONG_LABELS}
    out, n = [], 0
    for ln in lines:
        label = rename.get(ln.label, ln.label)
        members = tuple(rename.get(m, m) for m in ln.members)
        printed: tuple[str, ...] = ()
        if ln.label in rename:
            printed = wrap_label(label, hyphenate=n % 2 == 0)
            n += 1
        out.append(replace(ln, label=label, members=members, printed=printed))
    return out


def member_value(seed: int, spec: SeriesSpec, label: str, per: Per) -> int:
    """First-printed value of one member figure for one printed period (minor units)."""
    rng = np.random.default_rng(
        [seed, spec.table_no, stable_key(label), stable_key(*per.key), stable_key(per.dim)]
    )
    line = next(ln for ln in spec.lines if ln.label == label)
    if rng.random() < 0.06:
        return 0  # printed as a dash
    base = spec.base[label] * per.scale
    if spec.signed:
        value = int(base * rng.uniform(-0.8, 1.0))
    else:
        growth = 1.0 + 0.0025 * (per.ordinal % 97) / 12  # slow drift: reprints look alike
        value = int(base * growth * rng.uniform(0.85, 1.15))
        value = max(value, 1)
    return value * line.sign


def line_values(spec: SeriesSpec, members: dict[tuple, int], col: tuple) -> dict[str, int]:
    """Every line's value for one column ``(dim, key)``: members as given, sums derived."""
    values: dict[str, int] = {}
    for line in spec.lines:
        if line.kind == "member":
            values[line.label] = members[(line.label, *col)]
    for kind in ("subtotal", "total"):
        for line in spec.lines:
            if line.kind == kind:
                values[line.label] = sum(values[m] for m in line.members)
    return values
