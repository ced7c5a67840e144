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
years are not periods. Stock statements (debt outstanding, cash balances) print
positions on dates ("June 30, 1950"). Every printed period carries its true kind and
dates (:class:`Per`), recorded in the truth.
"""

from __future__ import annotations

import calendar
import zlib
from dataclasses import dataclass, field, replace
from datetime import date
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
QUARTERS = ("Jan.-Mar.", "Apr.-June", "July-Sept.", "Oct.-Dec.")

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
    stock: bool = False  # positions on dates (outstanding, balances), not flows over periods
    dims: tuple[str, str] = ("Gross", "Net")  # value columns per period in the "dims" layout


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
        dims=("Obligations", "Expenditures"),
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
        stock=True,
    ),
    Template(
        "Net Change in Public Debt by Type",
        "Type of security",
        (),
        ("Bills", "Certificates", "Notes", "Bonds", "Savings bonds", "Special issues"),
        signed=True,
        total_label="Net change",
        dims=("Issues", "Retirements"),
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
        dims=("Receipts", "Investments"),
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
        dims=("Issue price", "Redemption value"),
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
        dims=("Duties", "Refunds"),
    ),
    Template(
        "Treasury Cash Balances by Account",
        "Account",
        (),
        ("Federal Reserve Banks", "Tax and loan accounts", "Other depositaries", "Gold", "Coin"),
        total_label="Total balance",
        stock=True,
    ),
    Template(
        "Interest on the Public Debt",
        "Class of debt",
        (("Public issues", ("Marketable", "Nonmarketable"), "Total public issues"),),
        ("Special issues", "Other"),
        total_label="Total interest",
        dims=("Accrued", "Paid"),
    ),
)

# A securities statement: rows are bond issues named by coupon and maturity years
# ("2-3/4% bonds of 1960-65"); its years are maturities, not periods.
SECURITIES = Template(
    "Treasury Bonds Outstanding by Issue",
    "Issue",
    (),
    (
        "2% bonds of 1951-53",
        "2-1/4% bonds of 1952-55",
        "2-1/2% bonds of 1956-58",
        "2-3/4% bonds of 1960-65",
        "2-1/2% bonds of 1962-67",
        "2-1/2% bonds of 1967-72",
        "3% bonds of 1995",
    ),
    total_label="Total Treasury bonds",
    stock=True,
)
SECURITY_COLUMNS = (("Held by", "Commercial banks"), ("Held by", "Other investors"))

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
UNIT_WORDS = {
    1_000: "thousands of dollars",
    1_000_000: "millions of dollars",
    1_000_000_000: "billions of dollars",
}

# Long stub labels of the "wrapped" layout (printed over two lines, figures on the last).
LONG_LABELS = {
    "Individual income tax": "Individual income tax withheld by employers and not withheld",
    "Corporation income tax": "Corporation income and excess profits taxes",
    "Employment taxes": "Employment taxes for old-age and survivors insurance",
    "Excise taxes": "Excise taxes on manufacturers and retailers",
    "Estate and gift taxes": "Estate and gift taxes including transfers in trust",
    "Customs": "Customs duties collected at ports of entry",
    "Miscellaneous receipts": "Miscellaneous receipts of departments and agencies",
    "Military services": "Military services including military assistance",
    "Atomic energy": "Atomic energy development and production",
    "Stockpiling": "Stockpiling of strategic and critical materials",
    "International affairs": "International affairs and foreign economic assistance",
    "Veterans' services": "Veterans' services and benefits including readjustment",
    "Agriculture": "Agriculture and agricultural resources",
    "Old-age insurance": "Federal old-age and survivors insurance trust fund",
    "Unemployment trust": "Unemployment trust fund deposits by States",
    "Railroad retirement": "Railroad retirement account appropriations",
    "Civil service retirement": "Civil service retirement and disability fund",
    "Veterans' life insurance": "National service life insurance and Government life insurance",
    "Withheld": "Individual income tax withheld by employers",
    "Not withheld": "Individual income tax not withheld at the source",
    "Corporation": "Corporation income and excess profits taxes",
    "Alcohol": "Alcohol taxes on distilled spirits and fermented malt liquors",
    "Tobacco": "Tobacco taxes on cigarettes and cigars",
    "Manufacturers'": "Manufacturers' excise taxes on automobiles and gasoline",
    "Estate and gift": "Estate and gift taxes on transfers",
    "Series E": "Series E savings bonds sold to individuals",
    "Series F": "Series F savings bonds at issue price",
    "Series G": "Series G current income bonds at par",
    "Accrued discount": "Accrued discount on outstanding bonds",
    "Marketable": "Marketable issues including bills and certificates",
    "Nonmarketable": "Nonmarketable issues including savings bonds",
    "Special issues": "Special issues to Government trust funds",
}
# Where a word may be broken at a line end ("em-" / "ployers").
HYPHENATION = {
    w.replace("-", ""): w
    for w in (
        "em-ployers",
        "prof-its",
        "sur-vivors",
        "manufac-turers",
        "trans-fers",
        "depart-ments",
        "mili-tary",
        "pro-duction",
        "mate-rials",
        "eco-nomic",
        "assis-tance",
        "read-justment",
        "agri-cultural",
        "in-surance",
        "depos-its",
        "appro-priations",
        "dis-ability",
        "Govern-ment",
        "with-held",
        "dis-tilled",
        "fer-mented",
        "ciga-rettes",
        "auto-mobiles",
        "indi-viduals",
        "sav-ings",
        "cur-rent",
        "out-standing",
        "certif-icates",
        "re-sources",
        "col-lected",
        "agen-cies",
        "retail-ers",
    )
}
LABEL_MARKS = ("3/", "4/")
LABEL_NOTES = {
    "3/": "3/ Includes collections for other agencies.",
    "4/": "4/ Excludes transfers to trust accounts.",
}


@dataclass(frozen=True)
class Layout:
    """How a series is printed beyond the classic layout (real bulletin layouts)."""

    recipe: str = ""  # "" (classic) or a key of RECIPES
    unit_place: str = "line"  # line | title | column_head | page_head | none
    columns: str = "years"  # years | quarters | budget | dims | securities (cat_rows tables)
    month_rows: str = "dated"  # dated ("Jan. 1950") | year_row ("1949-July", "August", ...)
    wrap: bool = False  # long stub labels wrapped over two lines, some hyphenated
    headings: bool = False  # a heading line "Internal revenue:" over each group's rows
    label_marks: bool = False  # footnote marks "3/" after some stub labels
    chart: bool = False  # a bar chart with a legend line printed above the table
    continued: bool = False  # split over two pages, the second titled "(Continued)"


CLASSIC = Layout()
RECIPES: dict[str, Layout] = {
    "quarters": Layout(
        "quarters", unit_place="title", columns="quarters", wrap=True, headings=True, chart=True
    ),
    "budget": Layout("budget", unit_place="column_head", columns="budget", label_marks=True),
    "dims": Layout("dims", unit_place="page_head", columns="dims"),
    "months": Layout("months", month_rows="year_row", continued=True),
    "securities": Layout("securities", unit_place="none", columns="securities"),
}
# Series are laid out in cycles of RECIPE_CYCLE: each full cycle prints every recipe
# once and the classic layout on the remaining series.
RECIPE_CYCLE = 8


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
        if self.chart:
            tags.append("chart")
        if self.continued:
            tags.append("continued")
        if not lay.recipe:
            tags.append("classic")
        return tags

    def printed_label(self, row: int) -> str:
        """A row's label as printed: its lines (joined by a newline) with any mark."""
        if self.spec.orientation != "cat_rows":
            return self.row_labels[row]
        ln = self.spec.lines[row]
        texts = list(ln.printed or (ln.label,))
        if ln.mark:
            texts[-1] = f"{texts[-1]} {ln.mark}"
        return "\n".join(texts)

    def holds_as_printed(self, identity: Identity) -> bool:
        """Whether the printed figures satisfy the identity."""
        total = self.cells[identity.total[0]][identity.total[1]].printed
        return total == sum(self.cells[r][c].printed for r, c in identity.members)


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


def paren_unit(unit: str) -> str:
    """The unit line in parentheses, as a title prints it: "(In millions of dollars)"."""
    return unit if unit.startswith("(") else f"({unit})"


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


# -- periods -------------------------------------------------------------------------


def month_end(year: int, month: int) -> date:
    return date(year, month, calendar.monthrange(year, month)[1])


def fiscal_bounds(fy: int) -> tuple[date, date]:
    """U.S. federal fiscal year: July-June through FY 1976, October-September after."""
    if fy <= 1976:
        return date(fy - 1, 7, 1), date(fy, 6, 30)
    return date(fy - 1, 10, 1), date(fy, 9, 30)


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
            Per(
                ("est", cur),
                "estimate",
                start,
                end,
                f"the fiscal year {cur} estimate",
                (f"{cur} (Est.)",),
                scale=1.05,
                ordinal=_ordinal(end),
            ),
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


# -- series ----------------------------------------------------------------------------


def _template_for(seed: int, table_no: int) -> tuple[Template, int]:
    """Each template once per round so a volume's titles differ (round number too)."""
    order = np.random.default_rng([seed, stable_key("templates")]).permutation(len(TEMPLATES))
    round_no, slot = divmod(table_no - 1, len(TEMPLATES))
    return TEMPLATES[int(order[slot])], round_no


def _fits(recipe: str, template: Template) -> bool:
    if recipe == "quarters":
        return not template.stock and bool(template.groups)
    if recipe in ("budget", "dims", "securities"):
        return not template.stock
    return True


def assign_recipes(seed: int, n_series: int) -> list[str]:
    """The layout recipe of each series ("" for the classic layout).

    Series come in cycles of :data:`RECIPE_CYCLE`; a full cycle prints each recipe once
    (on a series whose statement suits it: quarters need groups, flows only for the
    budget, dims and securities layouts, so stock statements keep their dated
    positions), a partial cycle of k series prints about 5k/8 of them.
    """
    templates = [_template_for(seed, t + 1)[0] for t in range(n_series)]
    names = list(RECIPES)
    out = [""] * n_series
    for c0 in range(0, n_series, RECIPE_CYCLE):
        idx = list(range(c0, min(c0 + RECIPE_CYCLE, n_series)))
        rng = np.random.default_rng([seed, stable_key("recipes", c0)])
        k = len(names) if len(idx) == RECIPE_CYCLE else round(len(names) * len(idx) / RECIPE_CYCLE)
        chosen = [names[i] for i in sorted(rng.choice(len(names), size=k, replace=False))]
        order = [idx[int(i)] for i in rng.permutation(len(idx))]
        for name in chosen:  # RECIPES is ordered most constrained first
            for i in order:
                if not out[i] and _fits(name, templates[i]):
                    out[i] = name
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
    if layout.month_rows == "year_row":
        orientation = "period_rows"
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
    if layout.columns == "quarters":
        window = 4
    elif layout.columns == "dims":
        window = 2
    if layout.recipe or template.stock:
        period_total = False  # a total over quarters, estimates or positions means nothing
    members = [ln for ln in lines if ln.kind == "member"]
    # Magnitudes chosen so totals print in at most ~7 digits and tables fit the page.
    scale = 10 ** float(rng.uniform(2.3, 4.3))
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
    if layout.wrap:
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
        else:
            row_labels = [p.path[-1] for p in pers]
        row_indents = [0] * len(pers)
        row_kinds = ["period"] * len(pers)
        col_paths = []
        group_of = {m: ln for ln in lines if ln.kind == "subtotal" for m in ln.members}
        for ln in lines:
            if ln.kind == "member" and ln.label in group_of:
                col_paths.append(unit_level + (_group_name(group_of[ln.label]), ln.label))
            elif ln.kind == "subtotal":
                col_paths.append(unit_level + (_group_name(ln), "Total"))
            else:
                col_paths.append(unit_level + (ln.label,))
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
        if spec.period_kind == "fy":
            stub = "End of fiscal year" if spec.stock else "Fiscal year"
        else:
            stub = "End of month" if spec.stock else "Month"
    title = f"Table {spec.table_no}.- {spec.title}"
    if spec.layout.unit_place == "title":
        title = f"{title} {paren_unit(spec.unit)}"
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
        statement=spec.title,
        stub_text=stub,
        row_parents=parents,
        print_lines=print_lines,
        unit_place=spec.layout.unit_place,
    )


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


def make_specs(seed: int, tables_per_volume: int) -> list[SeriesSpec]:
    """Every series of a corpus, each with its layout recipe."""
    recipes = assign_recipes(seed, tables_per_volume)
    return [
        make_series(seed, t + 1, recipes[t], cycle=t // RECIPE_CYCLE)
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
) -> tuple[list[Bulletin], list[Revision]]:
    """Build every volume's tables (values, revisions, misprints, printed texts).

    Volumes are issued ``months_between_volumes`` apart from ``first_issue``. In each
    later printing of a series, with probability ``revision_rate`` one or two members
    of already printed periods are revised. ``round(misprint_rate * n_tables)``
    printings carry one misprinted member figure. A series continued on the next page
    is two printed tables per volume.
    """
    specs = make_specs(seed, tables_per_volume)
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
                                )
                            )
                        printed[cell.fact] = (
                            bulletin.volume,
                            cell.true,
                            cell.row_label,
                            cell.col_label,
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
