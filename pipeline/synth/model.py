"""The statement model: series specs, lines, periods as printed (Per), cells,
identities and printed tables, with figure formatting.

Part of :mod:`pipeline.synth.statements`.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal

from pipeline.synth.catalog import (
    CLASSIC,
    UNIT_WORDS,
    Layout,
)


@dataclass(frozen=True)
class Line:
    """One category line of a series: a member figure, a subtotal or the grand total."""

    label: str
    kind: str  # member | subtotal | total
    indent: int
    members: tuple[str, ...] = ()  # labels of the lines it sums (subtotal and total)
    sign: int = 1  # -1 for deductions, which are printed as negatives
    group: str = ""  # the group (stub heading) a member or subtotal belongs to
    mark: str = ""  # footnote mark printed after the label ("3/")
    printed: tuple[str, ...] = ()  # the label's printed lines when it wraps


@dataclass(frozen=True)
class Per:
    """A printed period (or a non-period column) with its true meaning.

    ``key`` identifies the fact across printings (the same key in two volumes is a
    reprint); ``path`` is the header as printed (levels top-down; one level for a row).
    """

    key: tuple
    kind: str  # pipeline.tables.periods kinds, or not_a_period
    start: date | None
    end: date | None
    text: str  # how a question states it
    path: tuple[str, ...]
    dim: str = ""  # what the column measures where a period has several value columns
    scale: float = 1.0  # typical magnitude relative to a year's figure
    ordinal: int = 0  # month ordinal of the period's end (slow drift of values)


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
    period_kind: str  # fy | month | day
    window: int  # periods printed per volume
    period_total: bool  # a total over the printed periods (Total column / Total row)
    lines: tuple[Line, ...]
    signed: bool
    base: dict[str, int]  # typical magnitude per member, minor units
    neg_style: str  # paren | minus
    rev_style: str  # prefix | suffix
    footnote_rate: float
    footnote_marks: tuple[str, ...]
    layout: Layout = CLASSIC
    stock: bool = False
    dims: tuple[str, str] = ("Gross", "Net")
    column_unit: str = ""  # the column head naming the unit (column_head layout)


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
    fact: tuple | None  # (category label, dimension, period key) when a dated fact
    revised: bool = False
    misprint: bool = False
    footnote: str = ""
    text: str = ""
    period: Per | None = None  # the period a question about this cell states
    dimension: str = ""


@dataclass(frozen=True)
class Identity:
    """A total (or subtotal) cell and the member cells it sums."""

    kind: str  # col_total | row_total | subtotal
    total: tuple[int, int]
    members: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class PrintLine:
    """One printed line of the stub: a body row's (last) label line, or a text-only
    line (a group heading, the first line of a wrapped label)."""

    text: str
    indent: float  # in indent steps
    row: int | None  # the body row whose figures sit on this line; None for text only
    rule: bool = False  # a rule across the figure columns in place of text (a total's)


@dataclass
class StatementTable:
    """One printing of a series in one volume."""

    spec: SeriesSpec
    volume: str  # "1950-03"
    title: str  # as printed: number, unit (title layout) and "(Continued)" included
    unit: str  # the unit line printed under the title ("" when the unit is elsewhere)
    row_labels: list[str]  # clean labels: wrapped lines joined, marks dropped
    row_indents: list[int]
    row_kinds: list[str]  # member | subtotal | total | period
    col_paths: list[tuple[str, ...]]  # header levels per value column
    cells: list[list[Cell]]
    identities: list[Identity]
    footnote_lines: list[str] = field(default_factory=list)
    statement: str = ""  # the statement name (title without number, unit, "(Continued)")
    stub_text: str = ""  # the head of the label column as printed
    row_parents: list[str] = field(default_factory=list)
    print_lines: list[PrintLine] = field(default_factory=list)
    unit_place: str = "line"  # line | title | column_head | page_head | none
    continued: bool = False
    part: int = 0  # 0 whole; 1 / 2 the parts of a table continued on the next page
    type_pt: float = 0.0  # the type size shared with the table beside it; 0: fitted alone
    # a column of words right of the figures, its head and each body row's entry
    # ("Position held in:" / "Abroad", 1984-06 p75); "" for none. No value column.
    text_head: str = ""
    row_texts: list[str] = field(default_factory=list)
    # (row, column) printed "n.a.": no figure, so no cell of the grid
    unavailable: list[tuple[int, int]] = field(default_factory=list)

    @property
    def col_labels(self) -> list[str]:
        return [" / ".join(p) for p in self.col_paths]

    @property
    def stub_head(self) -> str:
        """The head of the label column as printed: what the rows are."""
        return self.stub_text

    @property
    def has_misprint(self) -> bool:
        return any(c.misprint for row in self.cells for c in row)

    @property
    def unit_printed(self) -> str:
        """The unit as printed wherever the page prints it ("" when it prints none)."""
        spec = self.spec
        if self.unit_place in ("line", "page_head"):
            return spec.unit
        if self.unit_place == "title":
            return paren_unit(spec.unit)
        if self.unit_place == "column_head":
            return spec.column_unit
        return ""

    @property
    def unit_words(self) -> str:
        return "unknown" if self.unit_place == "none" else UNIT_WORDS[self.spec.unit_multiplier]

    @property
    def unit_multiplier(self) -> int | None:
        return None if self.unit_place == "none" else self.spec.unit_multiplier

    @property
    def unit_source(self) -> str:
        return {"line": "unit_line", "none": "none"}.get(self.unit_place, self.unit_place)

    @property
    def chart(self) -> bool:
        return self.spec.layout.chart and self.part < 2

    def tags(self) -> list[str]:
        """The layouts this printing shows (what a per-layout score groups by)."""
        lay = self.spec.layout
        tags = ["unit_" + self.unit_source.removeprefix("unit_")]
        kinds = {c.period.kind for row in self.cells for c in row if c.period is not None}
        for kind, tag in (
            ("fiscal_year", "fiscal_years"),
            ("calendar_year", "calendar_years"),
            ("quarter", "quarters"),
            ("year_to_date", "year_to_date"),
            ("cumulative_to_date", "cumulative"),
            ("estimate", "estimates"),
            ("as_of_date", "as_of"),
            ("not_a_period", "not_a_period"),
        ):
            if kind in kinds:
                tags.append(tag)
        if "month" in kinds or (self.spec.period_kind == "month" and "as_of" in tags):
            tags.append("month_year_rows" if lay.month_rows == "year_row" else "months")
        if lay.month_rows == "fy_then_months":
            tags.append("fy_or_month")
        if lay.month_rows == "sections":
            tags.append("stub_sections")
        if lay.month_rows == "days":
            tags.append("day_rows")
        if lay.month_rows == "grid":
            tags.append("month_grid")
        if lay.month_rows == "report_dates":
            tags.append("date_groups")
        if lay.half:
            tags.append("side_by_side")
        if lay.columns == "through":
            tags.append("through_column")
        if lay.columns == "dims":
            tags.append("dims")
        if lay.wrap:
            tags.append("wrapped")
            if any(pl.text.endswith("-") and pl.row is None for pl in self.print_lines):
                tags.append("hyphenated")
        if lay.headings and any(self.row_parents):
            tags.append("headings")
        if lay.label_marks:
            tags.append("label_marks")
        if lay.leaders:
            tags.append("leaders")
        if self.chart:
            tags.append("chart")
        if self.continued:
            tags.append("continued")
        if not lay.recipe:
            tags.append("classic")
        return tags

    def printed_label(self, row: int) -> str:
        """A row's label as printed: its lines (joined by a newline) with any mark."""
        if self.spec.layout.month_rows == "report_dates":  # a date printed once per group
            return next(pl.text for pl in self.print_lines if pl.row == row)
        if self.spec.orientation != "cat_rows":
            return self.row_labels[row]
        ln = self.spec.lines[row]
        texts = list(ln.printed or (ln.label,))
        if ln.mark:
            texts[-1] = f"{texts[-1]} {ln.mark}"
        return "\n".join(texts)

    def cell_at(self, row: int, col: int) -> Cell:
        """The cell of value column ``col`` in body row ``row`` (a row may skip a column:
        a month grid's year in progress, an "n.a.")."""
        return next(c for c in self.cells[row] if c.col_idx == col)

    def holds_as_printed(self, identity: Identity) -> bool:
        """Whether the printed figures satisfy the identity."""
        total = self.cell_at(*identity.total).printed
        return total == sum(self.cell_at(r, c).printed for r, c in identity.members)


@dataclass(frozen=True)
class Revision:
    """A dated fact printed with one value and reprinted later with another."""

    series_id: str
    row_label: str  # as in the revised printing
    col_label: str
    first_volume: str
    first_value_str: str
    revised_volume: str
    revised_value_str: str
    # as in the earlier printing (a month row prints its year only on a year's first row,
    # so the same month may be labelled "August" in one volume and "1950-August" later)
    first_row_label: str = ""
    first_col_label: str = ""
    # the stub heading over the row in each printing ("Calendar years"; "" for none): the
    # same year printed under two headings is two facts
    row_parent: str = ""
    first_row_parent: str = ""


def line_columns(spec: SeriesSpec) -> list[tuple[str, ...]]:
    """The value columns of a statement printed with its periods down the stub, a column
    per line: a group's members and its "Total" under the group's name (the subtotal's
    label without its leading "Total"), each under the column unit where it has one."""
    unit_level = (spec.column_unit,) if spec.column_unit else ()
    group_of = {m: ln for ln in spec.lines if ln.kind == "subtotal" for m in ln.members}
    out: list[tuple[str, ...]] = []
    for ln in spec.lines:
        if ln.kind == "member" and ln.label in group_of:
            out.append(unit_level + (_group_name(group_of[ln.label]), ln.label))
        elif ln.kind == "subtotal":
            out.append(unit_level + (_group_name(ln), "Total"))
        else:
            out.append(unit_level + (ln.label,))
    return out


def _group_name(subtotal: Line) -> str:
    """The spanning header of a group: its subtotal label without the leading 'Total'."""
    name = subtotal.label.removeprefix("Total ")
    return name[:1].upper() + name[1:]


def paren_unit(unit: str) -> str:
    """The unit line in parentheses, as a title prints it: "(In millions of dollars)"."""
    return unit if unit.startswith("(") else f"({unit})"


def printed_title(spec: SeriesSpec, statement: str) -> str:
    """The title as printed: "Table N.- <statement>", with the unit in parentheses where
    the layout prints it in the title."""
    title = f"Table {spec.table_no}.- {statement}"
    return f"{title} {paren_unit(spec.unit)}" if spec.layout.unit_place == "title" else title


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
