"""Finance-looking workbook templates for the synthetic corpus: budgets, trading
positions, cost allocations and P&L by desk.

Each template builds a :class:`~pipeline.synth.workbook_model.Book` with a main
table (a header row, data rows, a total row of ``SUM`` formulas), a second sheet the
main one references (assumptions, a cost pool, a summary), and a date stamp in
``B2`` that people bump on every save. :class:`Layout` remembers where the table is
so the edit operations in :mod:`pipeline.synth.workbook_families` can insert rows and
columns and know which cells are inputs and which are formulas. Near-miss decoys are
the same template with another desk and other numbers: same sheet names, same
headers, different family.
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass, field

from pipeline.synth.workbook_model import Book, address

COMPANY = "Calder Energy"
DESKS = (
    "East Power",
    "West Power",
    "Gas Texas",
    "Gas Northeast",
    "Gas Central",
    "Crude",
    "NGL",
    "Weather",
    "Coal",
    "Emissions",
    "Canada Gas",
    "ERCOT Power",
)
COUNTERPARTIES = (
    "Tallgrass Utilities",
    "Bluestem Pipeline",
    "Red River Power",
    "Harbor Gas Supply",
    "Prairie Wind Co-op",
    "Cascade Municipal",
    "Granite Peak Energy",
    "Lone Oak Marketing",
    "Sabine Storage",
    "Northgate Refining",
)
PRODUCTS = ("NG Swap", "NG Basis", "Power Fwd", "Power Option", "Crude Swap", "Heat Rate")
BUDGET_LINES = (
    "Salaries",
    "Bonuses",
    "Office rent",
    "Travel",
    "IT systems",
    "Legal",
    "Consultants",
    "Market data",
    "Training",
)
DEPARTMENTS = ("Trading", "Risk", "Back office", "Legal", "IT", "Structuring", "Credit")
POOL_LINES = ("Rent", "Market data", "Systems", "Audit", "Insurance")
NUM = "#,##0.00"
INT = "#,##0"
DATE = r"yyyy\-mm\-dd"  # as LibreOffice writes it back, so .xls round trips keep it


@dataclass
class Layout:
    """Where the main table sits; kept up to date as rows and columns are inserted."""

    template: str
    sheet: str
    header_row: int
    first_row: int
    last_row: int
    total_row: int
    first_col: int  # first numeric column
    last_col: int  # last occupied column
    input_cols: list[int]  # constant numeric columns
    side_sheet: str
    side_inputs: list[str] = field(default_factory=list)  # addresses of constants on side sheet
    hardcoded: list[int] = field(default_factory=list)  # total-row columns typed as values
    desk: str = ""

    def shift(self, sheet: str, axis: str, at: int, n: int) -> None:
        if sheet != self.sheet:
            return
        if axis == "row":
            for name in ("first_row", "last_row", "total_row", "header_row"):
                v = getattr(self, name)
                if v >= at:
                    setattr(self, name, v + n)
        else:
            if self.first_col >= at:
                self.first_col += n
            if self.last_col >= at:
                self.last_col += n
            self.input_cols = [c + n if c >= at else c for c in self.input_cols]
            self.hardcoded = [c + n if c >= at else c for c in self.hardcoded]

    @property
    def data_rows(self) -> list[int]:
        return list(range(self.first_row, self.last_row + 1))


def _head(book: Book, sheet: str, title: str, stamp: dt.datetime) -> None:
    book.set(sheet, "A1", title, bold=True)
    book.set(sheet, "A2", "As of")
    book.set(sheet, "B2", stamp, fmt=DATE)


def _total_row(book: Book, lay: Layout, cols: list[int], rng: random.Random) -> None:
    sheet, r = lay.sheet, lay.total_row
    book.set(sheet, address(r, 1), "Total", bold=True)
    for c in cols:
        col = address(1, c)[:-1]
        book.set(sheet, address(r, c), f"=SUM({col}{lay.first_row}:{col}{lay.last_row})", bold=True)
    if rng.random() < 0.35:  # a total someone typed in: a value_to_formula fix later
        c = rng.choice(cols)
        book.sheets[sheet][(r, c)].formula = None
        book.sheets[sheet][(r, c)].value = 0.0  # filled with the sum below
        lay.hardcoded.append(c)


def fill_hardcoded(book: Book, lay: Layout) -> None:
    """Type the current sum into hard-coded total cells (as the person did)."""
    from pipeline.synth.workbook_model import evaluate_cell

    memo: dict = {}
    for c in lay.hardcoded:
        total = 0.0
        for r in lay.data_rows:
            v = evaluate_cell(book, lay.sheet, (r, c), memo)
            total += float(v) if isinstance(v, (int, float)) else 0.0
        book.sheets[lay.sheet][(lay.total_row, c)].value = round(total, 2)


def budget(rng: random.Random, desk: str, stamp: dt.datetime) -> tuple[Book, Layout]:
    book = Book(creator=COMPANY)
    s, side = "Budget", "Assumptions"
    _head(book, s, f"{COMPANY} - {desk} operating budget {stamp.year + 1}", stamp)
    for i, h in enumerate(("Line item", "Q1", "Q2", "Q3", "Total"), 1):
        book.set(s, address(4, i), h, bold=True)
    lines = rng.sample(BUDGET_LINES, rng.randint(4, 6)) + ["Fuel gas"]
    rng.shuffle(lines)
    first = 5
    for k, line in enumerate(lines):
        r = first + k
        book.set(s, f"A{r}", line)
        for c in (2, 3, 4):
            if line == "Fuel gas":
                book.set(
                    s, address(r, c), f"=Assumptions!$B$7*{rng.randint(8, 40) * 1000}", fmt=NUM
                )
            else:
                book.set(s, address(r, c), float(rng.randint(20, 900) * 100), fmt=NUM)
        book.set(s, f"E{r}", f"=SUM(B{r}:D{r})", fmt=NUM)
    last = first + len(lines) - 1
    lay = Layout("budget", s, 4, first, last, last + 1, 2, 5, [2, 3, 4], side, desk=desk)
    _total_row(book, lay, [2, 3, 4, 5], rng)
    book.set(side, "A1", "Assumptions", bold=True)
    facts = (
        ("Inflation", round(rng.uniform(0.02, 0.04), 3)),
        ("Headcount", float(rng.randint(8, 40))),
        ("FX CAD/USD", round(rng.uniform(1.45, 1.6), 4)),
        ("Power price ($/MWh)", round(rng.uniform(28, 60), 2)),
        ("Gas rate ($/MMBtu)", round(rng.uniform(2.4, 3.6), 2)),
        ("Transport ($/MMBtu)", round(rng.uniform(0.1, 0.4), 2)),
    )
    for k, (label, value) in enumerate(facts, 3):
        book.set(side, f"A{k}", label)
        book.set(side, f"B{k}", value)
    lay.side_inputs = ["B3", "B5", "B6", "B7", "B8"]
    fill_hardcoded(book, lay)
    return book, lay


def positions(rng: random.Random, desk: str, stamp: dt.datetime) -> tuple[Book, Layout]:
    book = Book(creator=COMPANY)
    s, side = "Positions", "Summary"
    _head(book, s, f"{COMPANY} - {desk} open positions", stamp)
    heads = ("Deal ID", "Counterparty", "Product", "Volume", "Price", "MTM")
    for i, h in enumerate(heads, 1):
        book.set(s, address(4, i), h, bold=True)
    n = rng.randint(5, 8)
    first = 5
    for k in range(n):
        r = first + k
        book.set(s, f"A{r}", f"{desk[:2].upper()}{rng.randint(10000, 99999)}")
        book.set(s, f"B{r}", rng.choice(COUNTERPARTIES))
        book.set(s, f"C{r}", rng.choice(PRODUCTS))
        book.set(s, f"D{r}", float(rng.randint(1, 60) * 2500), fmt=INT)
        book.set(s, f"E{r}", round(rng.uniform(1.8, 55.0), 3), fmt=NUM)
        book.set(s, f"F{r}", f"=D{r}*E{r}", fmt=NUM)
    last = first + n - 1
    lay = Layout("positions", s, 4, first, last, last + 1, 4, 6, [4, 5], side, desk=desk)
    _total_row(book, lay, [4, 6], rng)
    book.set(side, "A1", f"{desk} summary", bold=True)
    book.set(side, "A3", "Total volume")
    book.set(side, "B3", f"=Positions!D{lay.total_row}", fmt=INT)
    book.set(side, "A4", "Total MTM")
    book.set(side, "B4", f"=Positions!F{lay.total_row}", fmt=NUM)
    book.set(side, "A5", "Largest MTM")
    book.set(side, "B5", f"=MAX(Positions!F{first}:F{last})", fmt=NUM)
    book.set(side, "A7", "VaR limit")
    book.set(side, "B7", float(rng.randint(5, 40) * 100000), fmt=INT)
    lay.side_inputs = ["B7"]
    fill_hardcoded(book, lay)
    return book, lay


def allocation(rng: random.Random, desk: str, stamp: dt.datetime) -> tuple[Book, Layout]:
    book = Book(creator=COMPANY)
    s, side = "Allocation", "Pool"
    _head(book, s, f"{COMPANY} - {desk} cost allocation", stamp)
    for i, h in enumerate(("Department", "Headcount", "Share", "Allocated"), 1):
        book.set(s, address(4, i), h, bold=True)
    depts = rng.sample(DEPARTMENTS, rng.randint(4, 6))
    first = 5
    last = first + len(depts) - 1
    total = last + 1
    for k, d in enumerate(depts):
        r = first + k
        book.set(s, f"A{r}", d)
        book.set(s, f"B{r}", float(rng.randint(2, 45)), fmt=INT)
        book.set(s, f"C{r}", f"=B{r}/B${total}", fmt="0.0%")
        book.set(s, f"D{r}", f"=C{r}*Pool!$B$9", fmt=NUM)
    lay = Layout("allocation", s, 4, first, last, total, 2, 4, [2], side, desk=desk)
    _total_row(book, lay, [2, 3, 4], rng)
    book.set(side, "A1", "Shared cost pool", bold=True)
    for k, line in enumerate(POOL_LINES, 3):
        book.set(side, f"A{k}", line)
        book.set(side, f"B{k}", float(rng.randint(50, 900) * 1000), fmt=NUM)
    book.set(side, "A9", "Pool total", bold=True)
    book.set(side, "B9", "=SUM(B3:B7)", fmt=NUM)
    lay.side_inputs = ["B3", "B4", "B5", "B6", "B7"]
    fill_hardcoded(book, lay)
    return book, lay


def pnl(rng: random.Random, desk: str, stamp: dt.datetime) -> tuple[Book, Layout]:
    book = Book(creator=COMPANY)
    s, side = "P&L", "Notes"
    _head(book, s, f"{COMPANY} - {desk} P&L by desk ($000)", stamp)
    for i, h in enumerate(("Desk", "Realized", "Unrealized", "Fees", "Total"), 1):
        book.set(s, address(4, i), h, bold=True)
    kinds = ("Spot", "Term", "Options", "Basis", "Storage", "Transport", "Index")
    books_ = [f"{desk} {x}" for x in rng.sample(kinds, rng.randint(4, 6))]
    first = 5
    for k, name in enumerate(books_):
        r = first + k
        book.set(s, f"A{r}", name)
        book.set(s, f"B{r}", float(rng.randint(-400, 2500)), fmt=INT)
        book.set(s, f"C{r}", float(rng.randint(-900, 1800)), fmt=INT)
        book.set(s, f"D{r}", float(rng.randint(5, 120)), fmt=INT)
        book.set(s, f"E{r}", f"=B{r}+C{r}-D{r}", fmt=INT)
    last = first + len(books_) - 1
    lay = Layout("pnl", s, 4, first, last, last + 1, 2, 5, [2, 3, 4], side, desk=desk)
    _total_row(book, lay, [2, 3, 4, 5], rng)
    book.set(side, "A1", "Notes", bold=True)
    book.set(side, "A2", "Figures in $ thousands; fees include brokerage and clearing.")
    book.set(side, "A4", "Reserve rate")
    book.set(side, "B4", round(rng.uniform(0.02, 0.08), 3))
    lay.side_inputs = ["B4"]
    fill_hardcoded(book, lay)
    return book, lay


TEMPLATES = {"budget": budget, "positions": positions, "allocation": allocation, "pnl": pnl}
SIDE_LABELS = {  # what a person calls the side-sheet constants
    ("budget", "B3"): "inflation rate",
    ("budget", "B5"): "CAD/USD rate",
    ("budget", "B6"): "power price",
    ("budget", "B7"): "gas rate",
    ("budget", "B8"): "transport rate",
    ("positions", "B7"): "VaR limit",
    ("allocation", "B3"): "rent",
    ("allocation", "B4"): "market data cost",
    ("allocation", "B5"): "systems cost",
    ("allocation", "B6"): "audit fee",
    ("allocation", "B7"): "insurance cost",
    ("pnl", "B4"): "reserve rate",
}
