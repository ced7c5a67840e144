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
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field, replace
from decimal import Decimal

import numpy as np

MONTHS = (
    "Jan.",
    "Feb.",
    "Mar.",
    "Apr.",
    "May",
    "June",
    "July",
    "Aug.",
    "Sept.",
    "Oct.",
    "Nov.",
    "Dec.",
)
MONTH_NAMES = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)

# Digit pairs OCR confuses; a misprint must never look like one of these misreads.
OCR_CONFUSABLE = frozenset(
    frozenset(p) for p in [("8", "6"), ("8", "9"), ("3", "8"), ("1", "7"), ("5", "6"), ("0", "8")]
)


@dataclass(frozen=True)
class Template:
    """Categories of one kind of statement: groups of members with a subtotal, and singles."""

    title: str
    stub_head: str
    groups: tuple[tuple[str, tuple[str, ...], str], ...]  # (group name, members, subtotal label)
    singles: tuple[str, ...]
    deductions: tuple[str, ...] = ()  # singles printed as negative amounts
    signed: bool = False  # every figure may take either sign (net changes)
    total_label: str = "Total"


TEMPLATES: tuple[Template, ...] = (
    Template(
        "Budget Receipts by Source",
        "Source",
        (
            (
                "Internal revenue",
                (
                    "Individual income tax",
                    "Corporation income tax",
                    "Employment taxes",
                    "Excise taxes",
                    "Estate and gift taxes",
                ),
                "Total internal revenue",
            ),
        ),
        ("Customs", "Miscellaneous receipts"),
        ("Less: Refunds of receipts",),
        total_label="Total receipts",
    ),
    Template(
        "Budget Expenditures by Function",
        "Function",
        (
            (
                "National defense",
                ("Military services", "Atomic energy", "Stockpiling"),
                "Total national defense",
            ),
        ),
        ("International affairs", "Veterans' services", "Interest", "Agriculture", "Other"),
        total_label="Total expenditures",
    ),
    Template(
        "Public Debt Outstanding by Type of Security",
        "Type of security",
        (
            (
                "Marketable",
                ("Treasury bills", "Certificates", "Treasury notes", "Treasury bonds"),
                "Total marketable",
            ),
            (
                "Nonmarketable",
                ("Savings bonds", "Depositary bonds", "Special issues"),
                "Total nonmarketable",
            ),
        ),
        ("Noninterest-bearing",),
        total_label="Total gross debt",
    ),
    Template(
        "Net Change in Public Debt by Type",
        "Type of security",
        (),
        ("Bills", "Certificates", "Notes", "Bonds", "Savings bonds", "Special issues"),
        signed=True,
        total_label="Net change",
    ),
    Template(
        "Trust Account Receipts",
        "Account",
        (
            (
                "Social security",
                ("Old-age insurance", "Unemployment trust", "Railroad retirement"),
                "Total social security",
            ),
        ),
        ("Civil service retirement", "Veterans' life insurance", "Other trust accounts"),
        total_label="Total receipts",
    ),
    Template(
        "Internal Revenue Collections by Principal Sources",
        "Source",
        (
            ("Income taxes", ("Withheld", "Not withheld", "Corporation"), "Total income taxes"),
            ("Excise taxes", ("Alcohol", "Tobacco", "Manufacturers'"), "Total excise taxes"),
        ),
        ("Estate and gift", "Other"),
        total_label="Total collections",
    ),
    Template(
        "Sales and Redemptions of Savings Bonds",
        "Transaction",
        (("Sales", ("Series E", "Series F", "Series G"), "Total sales"),),
        ("Accrued discount",),
        ("Less: Redemptions",),
        total_label="Net amount outstanding",
    ),
    Template(
        "Customs Collections by District",
        "District",
        (),
        (
            "New York",
            "Boston",
            "Philadelphia",
            "Baltimore",
            "New Orleans",
            "San Francisco",
            "Chicago",
        ),
        total_label="Total",
    ),
    Template(
        "Treasury Cash Balances by Account",
        "Account",
        (),
        ("Federal Reserve Banks", "Tax and loan accounts", "Other depositaries", "Gold", "Coin"),
        total_label="Total balance",
    ),
    Template(
        "Interest on the Public Debt",
        "Class of debt",
        (("Public issues", ("Marketable", "Nonmarketable"), "Total public issues"),),
        ("Special issues", "Other"),
        total_label="Total interest",
    ),
)

TITLE_QUALIFIERS = (
    "",
    ", Summary",
    ", Detail",
    ", Adjusted Basis",
    ", Cash Basis",
    ", Monthly Statement",
    ", Federal Funds",
    ", Trust Funds",
)

UNITS = (
    # (unit line as printed, multiplier, decimals)
    ("(In thousands of dollars)", 1_000, 0),
    ("In thousands of dollars", 1_000, 0),
    ("(In millions of dollars)", 1_000_000, 0),
    ("In millions of dollars", 1_000_000, 1),
    ("(In millions of dollars)", 1_000_000, 1),
    ("(In billions of dollars)", 1_000_000_000, 1),
)


@dataclass(frozen=True)
class Line:
    """One category line of a series: a member figure, a subtotal or the grand total."""

    label: str
    kind: str  # member | subtotal | total
    indent: int
    members: tuple[str, ...] = ()  # labels of the lines it sums (subtotal and total)
    sign: int = 1  # -1 for deductions, which are printed as negatives


@dataclass(frozen=True)
class SeriesSpec:
    """One statement series: its categories and how every volume prints it."""

    series_id: str
    table_no: int  # "Table N" in every volume
    title: str
    stub_head: str
    unit: str
    unit_multiplier: int
    decimals: int
    orientation: str  # cat_rows (categories down, periods across) | period_rows
    period_kind: str  # fy | month
    window: int  # periods printed per volume
    period_total: bool  # a total over the printed periods (Total column / Total row)
    lines: tuple[Line, ...]
    signed: bool
    base: dict[str, int]  # typical magnitude per member, minor units
    neg_style: str  # paren | minus
    rev_style: str  # prefix | suffix
    footnote_rate: float
    footnote_marks: tuple[str, ...]


@dataclass
class Cell:
    """One value cell of a printed table (grid over body rows x value columns)."""

    row_idx: int
    col_idx: int
    row_label: str
    col_label: str
    true: int  # minor units
    printed: int  # minor units; differs from true only on a misprint
    is_total: bool
    fact: tuple[str, int] | None  # (category label, period) when the cell is a dated fact
    revised: bool = False
    misprint: bool = False
    footnote: str = ""
    text: str = ""


@dataclass(frozen=True)
class Identity:
    """A total (or subtotal) cell and the member cells it sums."""

    kind: str  # col_total | row_total | subtotal
    total: tuple[int, int]
    members: tuple[tuple[int, int], ...]


@dataclass
class StatementTable:
    """One printing of a series in one volume."""

    spec: SeriesSpec
    volume: str  # "1950-03"
    title: str
    unit: str
    row_labels: list[str]
    row_indents: list[int]
    row_kinds: list[str]  # member | subtotal | total | period
    col_paths: list[tuple[str, ...]]  # header levels per value column
    cells: list[list[Cell]]
    identities: list[Identity]
    footnote_lines: list[str] = field(default_factory=list)

    @property
    def col_labels(self) -> list[str]:
        return [" / ".join(p) for p in self.col_paths]

    @property
    def stub_head(self) -> str:
        """The head of the label column as printed: what the rows are."""
        if self.spec.orientation == "cat_rows":
            return self.spec.stub_head
        return "Fiscal year" if self.spec.period_kind == "fy" else "Month"

    @property
    def has_misprint(self) -> bool:
        return any(c.misprint for row in self.cells for c in row)

    def holds_as_printed(self, identity: Identity) -> bool:
        """Whether the printed figures satisfy the identity."""
        total = self.cells[identity.total[0]][identity.total[1]].printed
        return total == sum(self.cells[r][c].printed for r, c in identity.members)


@dataclass(frozen=True)
class Revision:
    """A dated fact printed with one value and reprinted later with another."""

    series_id: str
    row_label: str
    col_label: str
    first_volume: str
    first_value_str: str
    revised_volume: str
    revised_value_str: str


def decimal_text(minor: int, decimals: int) -> str:
    """Exact decimal text of a value held in minor units, e.g. -12345, 1 -> "-1234.5"."""
    if minor == 0:
        return "0"
    return str(Decimal(minor).scaleb(-decimals))


def format_amount(minor: int, decimals: int, neg_style: str) -> str:
    """The figure as a statement prints it: separators, a dash for zero, negatives styled."""
    if minor == 0:
        return "-"
    body = f"{abs(minor) / 10**decimals:,.{decimals}f}" if decimals else f"{abs(minor):,}"
    if minor > 0:
        return body
    return f"({body})" if neg_style == "paren" else f"-{body}"


def stable_key(*parts: object) -> int:
    """A process-independent integer for seeding (Python's hash() is salted per process)."""
    return zlib.crc32("|".join(map(str, parts)).encode())


def period_label(kind: str, period: int) -> str:
    """Printed label of a fiscal year (the year) or a month ordinal (year*12 + month0)."""
    if kind == "fy":
        return str(period)
    return f"{MONTHS[period % 12]} {period // 12}"


def periods_for_volume(spec: SeriesSpec, year: int, month: int) -> list[int]:
    """The periods a volume dated (year, month) prints: the latest complete ones."""
    if spec.period_kind == "fy":
        # The fiscal year ends June 30; it is complete in issues from July on.
        last = year if month > 6 else year - 1
        return list(range(last - spec.window + 1, last + 1))
    last = year * 12 + (month - 1) - 1
    return list(range(last - spec.window + 1, last + 1))


def make_series(seed: int, table_no: int) -> SeriesSpec:
    """Draw one series (categories, orientation, unit, styles) from the seed."""
    rng = np.random.default_rng([seed, stable_key("series", table_no)])
    # Each template once per round so a volume's titles differ; later rounds get a qualifier.
    order = np.random.default_rng([seed, stable_key("templates")]).permutation(len(TEMPLATES))
    round_no, slot = divmod(table_no - 1, len(TEMPLATES))
    template = TEMPLATES[int(order[slot])]
    title = template.title + TITLE_QUALIFIERS[round_no % len(TITLE_QUALIFIERS)]
    if round_no >= len(TITLE_QUALIFIERS):
        title += f" ({round_no // len(TITLE_QUALIFIERS) + 1})"
    orientation = "cat_rows" if rng.random() < 0.55 else "period_rows"
    lines = _pick_lines(template, orientation, rng)
    unit, multiplier, decimals = UNITS[int(rng.integers(len(UNITS)))]
    if orientation == "cat_rows":
        period_kind = "fy"
        window = int(rng.integers(4, 6))
        period_total = bool(rng.random() < 0.35)
    else:
        period_kind = "month" if rng.random() < 0.5 else "fy"
        window = 8 if period_kind == "month" else int(rng.integers(5, 8))
        period_total = bool(rng.random() < 0.5)
    members = [ln for ln in lines if ln.kind == "member"]
    # Magnitudes chosen so totals print in at most ~7 digits and tables fit the page.
    scale = 10 ** float(rng.uniform(2.3, 4.3))
    base = {ln.label: int(scale * rng.uniform(0.2, 1.6) * 10**decimals) + 1 for ln in members}
    if rng.random() < 0.5:
        footnote_rate, marks = 0.05, ("1/", "2/") if rng.random() < 0.5 else ("*",)
    else:
        footnote_rate, marks = 0.0, ()
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
    )


def _pick_lines(template: Template, orientation: str, rng: np.random.Generator) -> tuple[Line, ...]:
    """Choose a subset of the template's categories that fits the orientation's width."""
    lines: list[Line] = []
    top: list[str] = []
    # Categories across (period_rows) must fit ~6 value columns; down (cat_rows) ~14 rows.
    max_groups, max_members, max_singles = (2, 4, 4) if orientation == "cat_rows" else (1, 2, 0)
    groups = list(template.groups)[:max_groups]
    if orientation == "period_rows" and groups and rng.random() < 0.4:
        groups = []
    for _group, members, subtotal in groups:
        k = int(rng.integers(2, min(max_members, len(members)) + 1))
        chosen = [members[i] for i in sorted(rng.choice(len(members), size=k, replace=False))]
        for m in chosen:
            lines.append(Line(m, "member", 1))
        lines.append(Line(subtotal, "subtotal", 0, tuple(chosen)))
        top.append(subtotal)
    if orientation == "period_rows":
        # Six value columns at most: members, subtotal, deductions and the total.
        n_singles = 5 - len(lines) - len(template.deductions)
    else:
        n_singles = max_singles + (2 if not groups else 0)
    pool = list(template.singles)
    hi = max(1, min(n_singles, len(pool)))
    k = int(rng.integers(min(2, hi), hi + 1))
    singles = [pool[i] for i in sorted(rng.choice(len(pool), size=k, replace=False))]
    for s in singles:
        lines.append(Line(s, "member", 0))
        top.append(s)
    for d in template.deductions:
        lines.append(Line(d, "member", 0, sign=-1))
        top.append(d)
    lines.append(Line(template.total_label, "total", 0, tuple(top)))
    return tuple(lines)


def member_value(seed: int, spec: SeriesSpec, label: str, period: int) -> int:
    """First-printed value of one member figure for one period (minor units)."""
    rng = np.random.default_rng([seed, spec.table_no, stable_key(label), period])
    line = next(ln for ln in spec.lines if ln.label == label)
    if rng.random() < 0.06:
        return 0  # printed as a dash
    base = spec.base[label]
    if spec.signed:
        value = int(base * rng.uniform(-0.8, 1.0))
    else:
        t = period if spec.period_kind == "month" else period * 12
        growth = 1.0 + 0.0025 * (t % 97) / 12  # slow drift so reprinted years look alike
        value = int(base * growth * rng.uniform(0.85, 1.15))
        value = max(value, 1)
    return value * line.sign


def line_values(
    spec: SeriesSpec, members: dict[tuple[str, int], int], period: int
) -> dict[str, int]:
    """Every line's value for one period: members as given, subtotals and totals summed."""
    values: dict[str, int] = {}
    for line in spec.lines:
        if line.kind == "member":
            values[line.label] = members[(line.label, period)]
    for line in spec.lines:
        if line.kind == "subtotal":
            values[line.label] = sum(values[m] for m in line.members)
    for line in spec.lines:
        if line.kind == "total":
            values[line.label] = sum(values[m] for m in line.members)
    return values


def build_table(
    spec: SeriesSpec, volume: str, periods: list[int], values: dict[int, dict[str, int]]
) -> StatementTable:
    """Lay one printing out as a grid of cells with its identities (true values, no marks)."""
    p_labels = [period_label(spec.period_kind, p) for p in periods]
    lines = spec.lines
    is_line_total = [ln.kind != "member" for ln in lines]
    identities: list[Identity] = []
    if spec.orientation == "cat_rows":
        row_labels = [ln.label for ln in lines]
        row_indents = [ln.indent for ln in lines]
        row_kinds = [ln.kind for ln in lines]
        col_paths: list[tuple[str, ...]] = [("Fiscal year", lb) for lb in p_labels]
        if spec.period_total:
            col_paths.append(("Total",))
        grid: list[list[Cell]] = []
        for r, ln in enumerate(lines):
            row = []
            for c, p in enumerate(periods):
                v = values[p][ln.label]
                row.append(
                    Cell(
                        r,
                        c,
                        ln.label,
                        " / ".join(col_paths[c]),
                        v,
                        v,
                        is_line_total[r],
                        (ln.label, p),
                    )
                )
            if spec.period_total:
                v = sum(cell.true for cell in row)
                row.append(Cell(r, len(periods), ln.label, "Total", v, v, True, None))
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
        if spec.period_total:
            for r in range(len(lines)):
                members = tuple((r, c) for c in range(len(periods)))
                identities.append(Identity("row_total", (r, len(periods)), members))
    else:
        row_labels = list(p_labels)
        row_indents = [0] * len(periods)
        row_kinds = ["period"] * len(periods)
        col_paths = []
        group_of = {m: ln for ln in lines if ln.kind == "subtotal" for m in ln.members}
        for ln in lines:
            if ln.kind == "member" and ln.label in group_of:
                col_paths.append((_group_name(group_of[ln.label]), ln.label))
            elif ln.kind == "subtotal":
                col_paths.append((_group_name(ln), "Total"))
            else:
                col_paths.append((ln.label,))
        grid = []
        for r, p in enumerate(periods):
            row = [
                Cell(
                    r,
                    c,
                    p_labels[r],
                    " / ".join(col_paths[c]),
                    values[p][ln.label],
                    values[p][ln.label],
                    is_line_total[c],
                    (ln.label, p),
                )
                for c, ln in enumerate(lines)
            ]
            grid.append(row)
        if spec.period_total:
            label = "Total"
            row = []
            for c in range(len(lines)):
                v = sum(grid[r][c].true for r in range(len(periods)))
                row.append(Cell(len(periods), c, label, " / ".join(col_paths[c]), v, v, True, None))
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
                members = tuple((r, c) for r in range(len(periods)))
                identities.append(Identity("col_total", (len(periods), c), members))
    return StatementTable(
        spec=spec,
        volume=volume,
        title=f"Table {spec.table_no}.- {spec.title}",
        unit=spec.unit,
        row_labels=row_labels,
        row_indents=row_indents,
        row_kinds=row_kinds,
        col_paths=col_paths,
        cells=grid,
        identities=identities,
    )


def _group_name(subtotal: Line) -> str:
    """The spanning header of a group: its subtotal label without the leading 'Total'."""
    name = subtotal.label.removeprefix("Total ")
    return name[:1].upper() + name[1:]


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


def build_bulletins(
    seed: int,
    volumes: int,
    tables_per_volume: int,
    *,
    first_issue: tuple[int, int] = (1950, 3),
    months_between_volumes: int = 6,
    revision_rate: float = 0.6,
    misprint_rate: float = 0.1,
) -> tuple[list[Bulletin], list[Revision]]:
    """Build every volume's tables (values, revisions, misprints, printed texts).

    Volumes are issued ``months_between_volumes`` apart from ``first_issue``. In each
    later printing of a series, with probability ``revision_rate`` one or two members
    of already printed periods are revised. ``round(misprint_rate * n_tables)``
    printings carry one misprinted member figure.
    """
    specs = [make_series(seed, t + 1) for t in range(tables_per_volume)]
    # Alternate the negative style over the series that print negatives, so that even a
    # small corpus has both "(1,234)" and "-1,234".
    negative = [i for i, s in enumerate(specs) if s.signed or any(ln.sign < 0 for ln in s.lines)]
    for k, i in enumerate(negative):
        specs[i] = replace(specs[i], neg_style=("minus", "paren")[(k + seed) % 2])
    current: dict[str, dict[tuple[str, int], int]] = {s.series_id: {} for s in specs}
    last_printed: dict[str, dict[tuple[str, int], tuple[str, int]]] = {
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
            periods = periods_for_volume(spec, year, month)
            leaves = [ln.label for ln in spec.lines if ln.kind == "member"]
            for p in periods:
                for leaf in leaves:
                    if (leaf, p) not in members:
                        members[(leaf, p)] = member_value(seed, spec, leaf, p)
            reprinted = [
                (leaf, p)
                for p in periods
                for leaf in leaves
                if (leaf, p) in printed and members[(leaf, p)]
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
            values = {p: line_values(spec, members, p) for p in periods}
            table = build_table(spec, bulletin.volume, periods, values)
            for row in table.cells:
                for cell in row:
                    if cell.fact is None:
                        continue
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
                            )
                        )
                    printed[cell.fact] = (bulletin.volume, cell.true)
            bulletin.tables.append(table)
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
