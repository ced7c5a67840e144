"""The anchored archive as the drafter sees it: facts, statement tables and series.

A *fact* is one anchored cell read as (item, period): in a table whose columns are
periods the row label names the item, and the other way round. A *series* is one item of
one statement (table title without its number) followed across volumes: the same series
and period printed in several volumes is a reprint, and the latest volume's printing is
the latest revision. Only anchored cells become facts, so every number a draft reads is
confirmed by its table's totals.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from decimal import Decimal

import polars as pl

from pipeline.draft.formulas import decimal_places

QUALITY_ORDER = {"clear": 0, "blurry": 1, "very_blurry": 2}

_YEAR = re.compile(r"\b(1[89]\d\d|20\d\d)\b")
_MONTHS = (
    "january february march april may june july august september october november december"
).split()
_MONTH = re.compile(r"\b(" + "|".join(m[:3] for m in _MONTHS) + r")[a-z]*\.?", re.IGNORECASE)
_TABLE_NUMBER = re.compile(r"^\s*table\s+[\w.]+?\s*[.:\-\u2013\u2014]+\s*", re.IGNORECASE)
_TOTAL = re.compile(r"\btotal\b", re.IGNORECASE)
_BARE_TOTAL = re.compile(r"(grand )?total", re.IGNORECASE)


@dataclass(frozen=True)
class Period:
    """A period label read from a header: sortable key and the words a question uses."""

    key: tuple[int, int]  # (year, month or 0)
    text: str  # e.g. "fiscal year 1948", "March 1950", "1948"


def parse_period(label: str, context: str = "") -> Period | None:
    """The period a row or column label names, or None when it names no year."""
    years = _YEAR.findall(label or "")
    if len(years) != 1:
        return None
    year = int(years[0])
    month = _MONTH.search(label)
    if month:
        index = [m[:3] for m in _MONTHS].index(month.group(1).lower()[:3]) + 1
        return Period((year, index), f"{_MONTHS[index - 1].capitalize()} {year}")
    fiscal = "fiscal" in (label + " " + context).lower()
    return Period((year, 0), f"fiscal year {year}" if fiscal else str(year))


def statement_name(title: str) -> str:
    """The table title without its number ("Table 3.- Budget receipts" -> "Budget receipts")."""
    return _TABLE_NUMBER.sub("", title or "").strip(" .") or (title or "").strip()


def series_key(title: str, item: str) -> str:
    """Match a series across volumes by statement title and item label."""

    def norm(text: str) -> str:
        return re.sub(r"[^a-z0-9]+", " ", text.lower()).strip()

    return f"{norm(statement_name(title))}|{norm(item)}"


def unit_words(unit_line: str, multiplier: int) -> str:
    """The unit a question states: "(In millions of dollars)" -> "millions of dollars"."""
    text = re.sub(r"[()]", "", unit_line or "").strip()
    text = re.sub(r"^in\s+", "", text, flags=re.IGNORECASE).strip().rstrip(".")
    if text:
        return text[0].lower() + text[1:]
    names = {1: "dollars", 1_000: "thousands of dollars", 1_000_000: "millions of dollars"}
    return names.get(multiplier, f"units of {multiplier:,}")


def item_words(label: str) -> str:
    """A header path as a noun phrase.

    "Internal revenue / Income tax" -> "Income tax (internal revenue)".
    """
    levels = [p.strip() for p in (label or "").split(" / ") if p.strip()]
    if not levels:
        return label or ""
    head, parents = levels[-1], levels[:-1]
    if parents:
        return f"{head} ({', '.join(p[0].lower() + p[1:] for p in parents)})"
    return head


@dataclass(frozen=True)
class Fact:
    """One anchored cell as (series item, period)."""

    doc_id: str
    page_no: int
    table_no: int
    row_idx: int
    col_idx: int
    row_label: str
    col_label: str
    value_str: str  # anchored value: printed, repaired, or implied by the total
    printed_str: str | None
    status: str
    is_total: bool
    item: str
    period: Period
    statement: str
    unit: str
    volume: str
    file_name: str
    quality: str
    table_id: str

    @property
    def value(self) -> Decimal:
        return Decimal(self.value_str)

    @property
    def places(self) -> int:
        return decimal_places(self.value_str)

    @property
    def series(self) -> str:
        return series_key(self.statement, self.item)

    @property
    def position(self) -> tuple[str, int, int, int, int]:
        return (self.doc_id, self.page_no, self.table_no, self.row_idx, self.col_idx)


@dataclass
class StatementTable:
    """The facts of one printed table, arranged by item and period."""

    table_id: str
    statement: str
    period_axis: str  # "col" (columns are periods) or "row"
    items: list[str]  # in printed order
    periods: list[Period]  # in printed order
    grid: dict[tuple[str, tuple[int, int]], Fact] = field(default_factory=dict)
    total_items: set[str] = field(default_factory=set)

    def fact(self, item: str, period: Period) -> Fact | None:
        return self.grid.get((item, period.key))

    def members(self) -> list[str]:
        """Items that are not totals, in printed order."""
        return [i for i in self.items if i not in self.total_items]

    def grand_total(self) -> str | None:
        """The last total item (the grand total of a statement is printed last)."""
        totals = [i for i in self.items if i in self.total_items]
        return totals[-1] if totals else None

    def at(self, row_idx: int, col_idx: int) -> Fact | None:
        """The fact printed at a body position of this table, if it is anchored."""
        for fact in self.grid.values():
            if fact.row_idx == row_idx and fact.col_idx == col_idx:
                return fact
        return None


@dataclass
class Archive:
    """Every statement table plus the series index across volumes."""

    tables: list[StatementTable]
    # series -> period key -> printings, oldest volume first
    printings: dict[str, dict[tuple[int, int], list[Fact]]]
    unique_labels: set[tuple[str, str, str]]  # (table_id, row_label, col_label) unique pairs

    def latest(self, fact: Fact) -> Fact:
        """The latest printing of the fact's series and period (the latest revision)."""
        return self.printings[fact.series][fact.period.key][-1]

    def is_latest(self, fact: Fact) -> bool:
        return self.latest(fact).position == fact.position

    def earlier_printings(self, fact: Fact) -> list[Fact]:
        """Older printings of the same series and period whose value differs (revised)."""
        older = self.printings[fact.series][fact.period.key][:-1]
        return [f for f in older if f.value != fact.value and f.volume < fact.volume]

    def series_periods(self, fact: Fact) -> list[Fact]:
        """The latest printing of every period of the fact's series, in period order."""
        by_period = self.printings[fact.series]
        return [by_period[k][-1] for k in sorted(by_period)]


def _period_axis(labels_by_axis: dict[str, list[str]], context: str) -> str | None:
    """The axis whose labels are mostly periods."""
    best, best_share = None, 0.0
    for axis, labels in labels_by_axis.items():
        if not labels:
            continue
        share = sum(parse_period(lbl, context) is not None for lbl in labels) / len(labels)
        if share > best_share:
            best, best_share = axis, share
    return best if best_share >= 0.5 else None


def build_archive(
    anchored_cells: pl.DataFrame, tables: pl.DataFrame, documents: pl.DataFrame
) -> tuple[Archive, list[str]]:
    """Arrange anchored cells into statement tables and series.

    Returns the archive and one note per table left out, with the reason (a table
    whose labels name no period cannot yield a question that states its period).
    """
    docs = {
        r["doc_id"]: (r.get("volume") or r["file_name"] or r["doc_id"], r["file_name"] or "")
        for r in documents.iter_rows(named=True)
    }
    meta = {r["table_id"]: r for r in tables.iter_rows(named=True)}
    notes: list[str] = []
    out: list[StatementTable] = []
    printings: dict[str, dict[tuple[int, int], list[Fact]]] = defaultdict(lambda: defaultdict(list))
    label_counts: dict[tuple[str, str, str], int] = defaultdict(int)
    cells = anchored_cells.sort(["table_id", "row_idx", "col_idx"])
    for (table_id,), group in cells.group_by(["table_id"], maintain_order=True):
        t = meta.get(table_id)
        if t is None:
            notes.append(f"{table_id}: anchored cells without a row in `tables`")
            continue
        rows = group.to_dicts()
        for r in rows:
            label_counts[(table_id, r["row_label"], r["col_label"])] += 1
        title = t["title"] or ""
        axis = _period_axis(
            {
                "col": sorted({r["col_label"] for r in rows}),
                "row": sorted({r["row_label"] for r in rows}),
            },
            title,
        )
        if axis is None:
            notes.append(f"{table_id}: no row or column labels name a period")
            continue
        volume, file_name = docs.get(t["doc_id"], (t["doc_id"], ""))
        table = StatementTable(table_id, statement_name(title), axis, [], [])
        unit = unit_words(t["unit"], t["unit_multiplier"] or 1)
        for r in rows:
            period_label, item_label = (
                (r["col_label"], r["row_label"])
                if axis == "col"
                else (r["row_label"], r["col_label"])
            )
            period = parse_period(period_label, title)
            if period is None or not item_label:
                continue  # e.g. a "Total" column of a table whose columns are years
            item = item_words(item_label)
            if _BARE_TOTAL.fullmatch(item.strip()):
                # a bare "Total" says nothing on its own in a question
                item = f"{item.strip()} {table.statement[:1].lower()}{table.statement[1:]}"
            fact = Fact(
                doc_id=r["doc_id"],
                page_no=int(r["page_no"]),
                table_no=int(r["table_no"]),
                row_idx=int(r["row_idx"]),
                col_idx=int(r["col_idx"]),
                row_label=r["row_label"],
                col_label=r["col_label"],
                value_str=r["value_str"],
                printed_str=r["printed_str"],
                status=r["status"],
                is_total=bool(r["is_total"]),
                item=item,
                period=period,
                statement=table.statement,
                unit=unit,
                volume=volume,
                file_name=file_name,
                quality=r["quality"] or t["quality"] or "clear",
                table_id=table_id,
            )
            if (fact.item, period.key) in table.grid:
                continue  # a repeated label pair: keep the first printing in reading order
            table.grid[(fact.item, period.key)] = fact
            if fact.item not in table.items:
                table.items.append(fact.item)
            if period.key not in [p.key for p in table.periods]:
                table.periods.append(period)
            if _TOTAL.search(item_label):
                table.total_items.add(fact.item)
            printings[fact.series][period.key].append(fact)
        # a total column/row the anchor stage flagged but whose label does not say so
        for item in table.items:
            facts = [f for (i, _), f in table.grid.items() if i == item]
            if facts and all(f.is_total for f in facts):
                table.total_items.add(item)
        out.append(table)
    for by_period in printings.values():
        for facts in by_period.values():
            facts.sort(key=lambda f: (f.volume, f.doc_id))
    unique = {k for k, n in label_counts.items() if n == 1}
    return Archive(out, printings, unique), notes
