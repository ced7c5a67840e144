"""The anchored archive as the drafter sees it: facts, statement tables and series.

A *fact* is one anchored cell read as (item, period). The table stage has already
decided each cell's structured period (``period_kind``/``period_start``/``period_end``,
see :mod:`pipeline.tables.periods`), its column dimension and its row's parent; here an
item is the row label (or, where the rows are periods, the column's header path), with
the dimension and, for a label the table repeats, the parent heading. A *series* is one
item of one statement (title without number or "(Continued)") in one unit followed
across volumes: the same series and period printed in several volumes is a reprint, and
the latest volume's printing is the latest revision. Only anchored cells become facts,
so every number a draft reads is confirmed by its table's totals.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field, replace
from datetime import date
from decimal import Decimal
from functools import cache, lru_cache

import polars as pl

from pipeline.draft.formulas import decimal_places
from pipeline.draft.sections import repeated_labels
from pipeline.draft.spanner_years import misdated_columns
from pipeline.draft.twins import named_statement, statements_in_volume, twinned_names
from pipeline.tables.labels import label_problems
from pipeline.tables.periods import Period, month_end
from pipeline.tables.titles import statement_name

QUALITY_ORDER = {"clear": 0, "blurry": 1, "very_blurry": 2}

_TOTAL = re.compile(r"\btotal\b", re.IGNORECASE)
_BARE_TOTAL = re.compile(r"(grand )?total", re.IGNORECASE)
UNKNOWN_UNIT = "unknown"


def period_of(row: dict) -> Period | None:
    """The structured period the table stage gave a cell (None when it names none)."""
    kind = row.get("period_kind")
    if not kind or kind == "not_a_period":
        return None
    return Period(
        kind, row.get("period_start"), row.get("period_end"), row.get("period_text") or ""
    )


@cache
def series_key(statement: str, item: str, unit: str = "") -> str:
    """Match a series across volumes by statement name, item label and unit."""

    def norm(text: str) -> str:
        return re.sub(r"[^a-z0-9]+", " ", text.lower()).strip()

    return f"{norm(statement)}|{norm(item)}|{norm(unit)}"


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
    unit: str  # "millions of dollars", ...; "unknown" when the page prints none
    volume: str
    file_name: str
    quality: str
    table_id: str
    label: str = ""  # the label a question names (row label or header path), as read
    identity_ids: tuple[str, ...] = ()
    doubt: tuple[str, ...] = ()  # label words the archive's lexicon does not confirm (OCR)
    ambiguity: str = ""  # why the names a question would use may point at another cell
    dimension: str = ""  # the column head a question names beside the row label

    @property
    def value(self) -> Decimal:
        return Decimal(self.value_str)

    @property
    def places(self) -> int:
        return decimal_places(self.value_str)

    @property
    def series(self) -> str:
        return series_key(self.statement, self.item, self.unit)

    @property
    def position(self) -> tuple[str, int, int, int, int]:
        return (self.doc_id, self.page_no, self.table_no, self.row_idx, self.col_idx)


@dataclass
class StatementTable:
    """The facts of one printed table, arranged by item and period."""

    table_id: str
    statement: str
    period_axis: str  # "col", "row", "title" (one period for the whole table) or "grid"
    items: list[str]  # in printed order
    periods: list[Period]  # in printed order
    grid: dict[tuple[str, tuple], Fact] = field(default_factory=dict)
    total_items: set[str] = field(default_factory=set)
    unit: str = UNKNOWN_UNIT
    scanned: bool = False  # words from OCR of a page image, not a text layer

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
    printings: dict[str, dict[tuple, list[Fact]]]
    unique_labels: set[tuple[str, str, str]]  # (table_id, row_label, col_label) unique pairs
    # series -> every period printed for it (anchored or not): a range must not skip one
    printed_periods: dict[str, dict[tuple, Period]] = field(default_factory=dict)
    _latest: set | None = field(default=None, repr=False)  # positions of latest printings

    def latest(self, fact: Fact) -> Fact:
        """The latest printing of the fact's series and period (the latest revision)."""
        return self.printings[fact.series][fact.period.key][-1]

    def is_latest(self, fact: Fact) -> bool:
        if self._latest is None:
            self._latest = {
                facts[-1].position
                for by_period in self.printings.values()
                for facts in by_period.values()
            }
        return fact.position in self._latest

    def earlier_printings(self, fact: Fact) -> list[Fact]:
        """Older printings of the same series and period whose value differs (revised)."""
        older = self.printings[fact.series][fact.period.key][:-1]
        return [f for f in older if f.value != fact.value and f.volume < fact.volume]

    def series_periods(self, fact: Fact) -> list[Fact]:
        """The latest printing of every period of the fact's series, in period order."""
        by_period = self.printings[fact.series]
        latest = [facts[-1] for facts in by_period.values()]
        return sorted(latest, key=lambda f: f.period.order)

    def missing_in_range(self, facts: tuple[Fact, ...]) -> list[Period]:
        """Periods of the same kind the archive prints for this series between the
        first and last of ``facts`` that ``facts`` leave out."""
        first, last = facts[0].period, facts[-1].period
        have = {f.period.key for f in facts}
        printed = self.printed_periods.get(facts[0].series, {})
        return sorted(
            (
                p
                for k, p in printed.items()
                if p.kind == first.kind and first.order <= p.order <= last.order and k not in have
            ),
            key=lambda p: p.order,
        )


def _item(r: dict, axis: str, repeated: set[str]) -> tuple[str, str]:
    """(item a question names, the printed label it comes from) for one cell row."""
    if axis == "grid":
        # a month grid's row label is the year its cells are dated by: the item is the
        # stub heading the year rows sit under ("Receipts", 1940-05 p20), or none
        parent = r.get("row_parent") or ""
        return parent, parent
    if axis == "row":
        item = item_words(r["col_label"])
        parent = r.get("row_parent") or ""
        if parent and not _PERIOD_HEADING.fullmatch(parent):
            # the panel the period rows sit in ("Series E and EE"); a heading that only
            # names the rows' kind ("Calendar years:", "Months") is said by the period
            # itself, and under it a stub may continue into another kind (audit v6: a
            # December 2005 month row asked as "... (calendar years)", 2006-12 SBN-3)
            item = f"{item} ({parent[0].lower()}{parent[1:]})"
        return item, r["col_label"] or ""
    label = r["row_label"] or ""
    item = label
    parent = r.get("row_parent") or ""
    if parent and _label_key(label) in repeated:
        item = f"{label} ({parent[0].lower()}{parent[1:]})"
    if r.get("dimension"):
        item = f"{item} ({r['dimension']})"
    return item, label


_PERIOD_HEADING = re.compile(
    r"\W*((fiscal|calendar)\s+(years?|year\s+or\s+month)|months?|quarters?)\W*", re.IGNORECASE
)


def _period_key(r: dict) -> tuple:
    return (r.get("period_kind"), r.get("period_start"), r.get("period_end"))


def _garbled_head(table: dict, cells: list[dict]) -> str:
    """Why a table's header block cannot name its columns, or "".

    On a scanned page a column head the reader doubts (unconfirmed words, a head that
    opens in lower case: its upper lines lost) means the block was misread, and the
    spanners over the other columns may be lost as well (1939-12 "Public Debt
    Accounts": "Special Series" under both Receipts and Expenditures, the spanners gone,
    beside heads read as "total", "cone"; 1953-09 "Summary of Cash Transactions":
    "Cash trust" for "Cash trust account expenditures" beside "wot cost / Clearing").
    On a text layer the words are right but their grouping can fail: when most heads
    of a block are in doubt, the others are no better placed (1997-09 CM-V-4: nine of
    fourteen heads in doubt, and the undoubted last one read "Foreign Bonds Stocks
    securities", two heads spliced)."""
    heads: dict[int, str] = {}
    doubtful: dict[int, str] = {}
    scanned = table.get("word_source") == "ocr"
    for c in cells:
        label = c["col_label"] or ""
        heads[int(c["col_idx"])] = label
        if c.get("col_label_doubt") or (scanned and re.match(r"\W*[a-z]", label)):
            doubtful[int(c["col_idx"])] = label
    if not doubtful or (not scanned and 2 * len(doubtful) < len(heads)):
        return ""
    first = doubtful[min(doubtful)]
    return f"header block misread ({first!r}, {len(doubtful)} of {len(heads)} heads in doubt)"


def _label_key(label: str | None) -> str:
    """A row label as a reader tells rows apart: without a trailing footnote number the
    text layer kept ("Oil exporting countries 10", 2006-12 p73, under Africa, beside the
    same line under Asia), case and spacing."""
    text = re.sub(r"(\s+\d{1,2}/?|\s*\d{1,2}/)+\s*$", "", label or "")
    return " ".join(text.lower().split())


def _leaf(label: str | None) -> str:
    levels = [p.strip() for p in (label or "").split(" / ") if p.strip()]
    return levels[-1].lower() if levels else ""


def _ambiguity(
    r: dict,
    axis: str,
    shaky: set[str],
    twins: set[int],
    page: int,
    garbled_head: str = "",
    twin_periods: frozenset = frozenset(),
    periods_misread: str = "",
) -> str:
    """Why a question naming this cell may be read as naming another one.

    ``garbled_head``: why the table's header block as a whole cannot be trusted to name
    its columns (an OCR page where some column head is doubtful: the spanners over the
    others may be lost too). ``twin_periods``: the period keys printed over more than one
    column of the table.
    """
    names_column = axis == "row" or bool(r.get("dimension"))
    if names_column and garbled_head:
        return garbled_head
    if axis == "col" and periods_misread:
        return periods_misread
    if axis == "col" and not r.get("dimension") and _period_key(r) in twin_periods:
        # 1967-08 "Foreign Credit and Debit Balances": "December 1966" under the credit
        # and the debit spanners, the spanner read over one of them only
        period = r.get("period_text")
        return f"{period!r} heads several columns and this one's dimension is unread"
    if (axis == "row" or r.get("dimension")) and r.get("col_label_doubt"):
        # the column's header path (its spanners) could not be read unambiguously, and
        # a question names the column by it (periods in the rows, or several columns a
        # period): it may name another column. Where the columns are periods the path
        # only dates the cell, which the period reader checks on its own.
        return f"column head {r['col_label']!r}: {r['col_label_doubt']}"
    if (axis == "row" or r.get("dimension")) and _leaf(r["col_label"]) in shaky:
        return f"column head {_leaf(r['col_label'])!r} repeats under several spanners"
    if any(abs(p - page) > 1 for p in twins):
        return "the volume prints other tables under the same title"
    return ""


def build_archive(
    anchored_cells: pl.DataFrame,
    tables: pl.DataFrame,
    documents: pl.DataFrame,
    table_cells: pl.DataFrame | None = None,
) -> tuple[Archive, list[str]]:
    """Arrange anchored cells into statement tables and series.

    ``table_cells`` gives each cell's period, dimension and row parent (decided by the
    table stage); without it no cell has a period. Returns the archive and one note per
    table left out, with the reason (a table whose cells name no period cannot yield a
    question that states its period).
    """
    docs = {
        r["doc_id"]: (r.get("volume") or r["file_name"] or r["doc_id"], r["file_name"] or "")
        for r in documents.iter_rows(named=True)
    }
    meta = {r["table_id"]: r for r in tables.iter_rows(named=True)}
    printed_under = statements_in_volume(tables)
    twinned = twinned_names(printed_under)
    semantic_cols = [
        "row_parent",
        "period_kind",
        "period_start",
        "period_end",
        "period_text",
        "period_axis",
        "dimension",
        "label_doubt",
        "col_label_doubt",
    ]
    cells = anchored_cells
    all_cells = table_cells if table_cells is not None else pl.DataFrame()
    if table_cells is not None:
        if "col_label_doubt" not in table_cells.columns:  # a warehouse built before it
            table_cells = table_cells.with_columns(col_label_doubt=pl.lit(""))
        cells = cells.join(
            table_cells.select("table_id", "row_idx", "col_idx", *semantic_cols),
            on=["table_id", "row_idx", "col_idx"],
            how="left",
        )
    else:
        cells = cells.with_columns(pl.lit(None).alias(c) for c in semantic_cols)
    notes: list[str] = []
    out: list[StatementTable] = []
    printings: dict[str, dict[tuple, list[Fact]]] = defaultdict(lambda: defaultdict(list))
    printed: dict[str, dict[tuple, Period]] = defaultdict(dict)
    label_counts: dict[tuple[str, str, str], int] = defaultdict(int)
    by_table = (
        {k[0]: g for k, g in all_cells.group_by(["table_id"])} if not all_cells.is_empty() else {}
    )
    for (table_id,), group in cells.sort(["table_id", "row_idx", "col_idx"]).group_by(
        ["table_id"], maintain_order=True
    ):
        t = meta.get(table_id)
        if t is None:
            notes.append(f"{table_id}: anchored cells without a row in `tables`")
            continue
        rows = group.to_dicts()
        for r in rows:
            label_counts[(table_id, r["row_label"], r["col_label"])] += 1
        axes = {r["period_axis"] for r in rows if r["period_axis"]}
        if not axes:
            notes.append(f"{table_id}: no row, column or title names a period")
            continue
        axis = axes.pop()
        volume, file_name = docs.get(t["doc_id"], (t["doc_id"], ""))
        name = t.get("statement") or statement_name(t["title"] or "")
        # a title the volume prints over other tables too is named with the table's number
        named, twins = named_statement(
            name,
            t.get("table_number") or "",
            int(t["page_no"]),
            printed_under.get((t["doc_id"], name), []),
            name in twinned,
        )
        unit = t.get("unit") or UNKNOWN_UNIT
        table = StatementTable(table_id, named, axis, [], [], unit=unit)
        table.scanned = t.get("word_source") == "ocr"
        every = by_table.get(table_id, group).to_dicts()
        parents: dict[str, set[str]] = defaultdict(set)
        for r in every:
            parents[_label_key(r["row_label"])].add(r.get("row_parent") or "")
        repeated = {label for label, ps in parents.items() if len(ps) > 1}
        # the same label printed in two sections, read alike or OCR'd apart ("Paraffin and
        # other petroleum wax products" under Duty-free and Dutiable articles, 1939-12 p22)
        # needs its section named: a lost or fragmentary heading cannot name it
        unsure_sections = (
            repeated_labels(
                list(
                    {
                        r["row_idx"]: (r["row_label"] or "", r.get("row_parent") or "")
                        for r in every
                    }.values()
                )
            )
            if axis not in ("row", "grid")
            else {}
        )
        # a column head whose last level repeats over several columns ("Other", "Gross",
        # "Bonds" under different spanners) is only as good as the spanner the head
        # reader gave it, which OCR and tight heads often get wrong
        leaves = Counter(_leaf(c) for c in (t.get("col_labels") or []))
        shaky = {leaf for leaf, n in leaves.items() if n > 1 and leaf}
        garbled_head = _garbled_head(t, every)
        misdated = misdated_columns(every) if axis == "col" else {}
        columns_of: dict[tuple, set[int]] = defaultdict(set)
        dimensioned: set[tuple] = set()  # periods some column tells apart by a dimension
        for r in every:
            if r.get("period_kind") and r.get("period_axis") == "col":
                columns_of[_period_key(r)].add(int(r["col_idx"]))
            if r.get("dimension"):
                dimensioned.add(_period_key(r))
        twin_periods = frozenset(k for k, cols in columns_of.items() if len(cols) > 1)
        # on a scanned page, columns that print the same period with no dimension told
        # apart mean the head reader lost words of the heads, and no column's period is
        # sure (1967-08 p107: three columns read "Calendar year / 1967", and "1967
        # through June p", the January-June total, read as "1967 / June")
        bare_twins = twin_periods - dimensioned
        periods_misread = (
            f"scanned column heads repeat a period ({len(bare_twins)} over several columns): "
            "no column's period is sure"
            if bare_twins and t.get("word_source") == "ocr"
            else ""
        )
        for r in every:  # every printed period of every series, anchored or not
            period = period_of(r)
            item, _ = _item(r, axis, repeated)
            if period is not None and item:
                printed[series_key(named, item, unit)][period.key] = period
        ambiguous: set[str] = set()
        for r in rows:
            period = period_of(r)
            item, label = _item(r, axis, repeated)
            if period is None or not item:
                continue  # e.g. a "Total" column of a table whose columns are years
            if _BARE_TOTAL.fullmatch(item.strip()) and name:
                # a bare "Total" says nothing on its own in a question
                item = f"{item.strip()} {name[:1].lower()}{name[1:]}"
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
                statement=named,
                unit=unit,
                volume=volume,
                file_name=file_name,
                quality=r["quality"] or t["quality"] or "clear",
                table_id=table_id,
                label=label,
                identity_ids=tuple(r.get("identity_ids") or ()),
                doubt=tuple(r.get("label_doubt") or ()),
                ambiguity=_ambiguity(
                    r,
                    axis,
                    shaky,
                    twins,
                    int(r["page_no"]),
                    garbled_head,
                    twin_periods,
                    periods_misread,
                )
                or misdated.get(int(r["col_idx"]), "")
                or unsure_sections.get(r["row_label"] or "", ""),
                dimension=(r.get("dimension") or "") if axis != "row" else "",
            )
            if (fact.item, period.key) in table.grid:
                # two cells a question would name alike ("Market issues" under two
                # spanners the head lost, two panels): the name says neither
                ambiguous.add(fact.item)
                continue
            table.grid[(fact.item, period.key)] = fact
            if fact.item not in table.items:
                table.items.append(fact.item)
            if period.key not in [p.key for p in table.periods]:
                table.periods.append(period)
            if _TOTAL.search(label):
                table.total_items.add(fact.item)
        if ambiguous:
            notes.append(
                f"{table_id}: items named alike by two cells left out: {sorted(ambiguous)}"
            )
            table.grid = {k: f for k, f in table.grid.items() if k[0] not in ambiguous}
            table.items = [i for i in table.items if i not in ambiguous]
        for (_, key), fact in table.grid.items():
            printings[fact.series][key].append(fact)
        # a total column/row the anchor stage flagged but whose label does not say so
        for item in table.items:
            facts = [f for (i, _), f in table.grid.items() if i == item]
            if facts and all(f.is_total for f in facts):
                table.total_items.add(item)
        out.append(table)
    _mark_split_sections(out, printings)
    for by_period in printings.values():
        for facts in by_period.values():
            facts.sort(key=lambda f: (f.volume, f.doc_id))
    unique = {k for k, n in label_counts.items() if n == 1}
    return Archive(out, printings, unique, dict(printed)), notes


def _mark_split_sections(
    tables: list[StatementTable], printings: dict[str, dict[tuple, list[Fact]]]
) -> None:
    """Two tables of one volume under one statement name that print the same item and
    period (the sections of a table continued over pages, their section heads lost:
    2006-12 SBN-3 "Series E and EE" and "Series I" on facing pages, the same columns
    and months) make the name point at either: both facts become ambiguous."""
    where: dict[tuple, set[str]] = defaultdict(set)
    for table in tables:
        for (item, key), fact in table.grid.items():
            where[(fact.doc_id, fact.statement, item, key)].add(table.table_id)
    split = {k for k, ids in where.items() if len(ids) > 1}
    if not split:
        return
    note = "the volume prints this item and period in another table under the same name"
    for table in tables:
        for (item, key), fact in list(table.grid.items()):
            if (fact.doc_id, fact.statement, item, key) in split and not fact.ambiguity:
                marked = replace(fact, ambiguity=note)
                table.grid[(item, key)] = marked
                facts = printings[fact.series][key]
                facts[:] = [marked if f is fact else f for f in facts]


@lru_cache(maxsize=200_000)
def _volume_end(volume: str) -> date | None:
    """The last day of a dated volume's month ("1948-05" -> 1948-05-31), else None."""
    m = re.fullmatch(r"(\d{4})-(\d{2})", volume or "")
    if not m or not 1 <= int(m.group(2)) <= 12:
        return None
    return month_end(int(m.group(1)), int(m.group(2)))


def fact_problems(fact: Fact) -> list[str]:
    """Why a question about this fact could not be stated exactly (empty when it can)."""
    problems = []
    if not fact.statement:
        problems.append("title_unknown: the table prints no title a question could name")
    elif "$" in fact.statement or len(fact.statement.split()) > 22:
        problems.append(f"title_unknown: {fact.statement[:60]!r}... reads as prose, not a title")
    if fact.ambiguity:
        problems.append(f"label_uncertain: {fact.item!r}: {fact.ambiguity}")
    if fact.doubt:
        problems.append(
            f"label_uncertain: {fact.item!r}: words the archive does not confirm {list(fact.doubt)}"
        )
    if _BARE_TOTAL.fullmatch((fact.label or "").split(" / ")[-1].strip()) and "(" in fact.item:
        problems.append(
            f"label_uncertain: {fact.item!r}: a bare 'Total' named by a heading above it"
        )
    if not fact.period.statable:
        problems.append(
            f"period_ambiguous: {fact.period.text!r} ({fact.period.kind}) does not say "
            "which kind of period it is"
        )
    issued = _volume_end(fact.volume)
    if (
        issued is not None
        and fact.period.kind not in ("estimate", "not_a_period")
        and fact.period.end is not None
        and fact.period.end > issued
    ):
        # a bulletin cannot print the actual figure of a period that had not ended when
        # it went out: the page marks an estimate there ("1949 (Estimated)") that OCR lost
        problems.append(
            f"period_ambiguous: {fact.period.text!r} ends after the volume's date "
            f"({fact.volume}): an estimate whose mark was not read"
        )
    for level in [*(fact.label or fact.item).split(" / "), *fact.dimension.split(" / ")]:
        if not level.strip():
            continue
        for problem in label_problems(level.strip()):
            problems.append(f"label_uncertain: {level.strip()!r}: {problem}")
    return problems
