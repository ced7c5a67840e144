"""The validation rule ``question_mismatch``: read every draft's question and check it.

Part of :mod:`pipeline.validate.reading`; see its docstring for the whole.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from pipeline.store import Warehouse
from pipeline.validate.reading.cells import (
    SourceCell,
    check_reading,
)
from pipeline.validate.reading.questions import (
    ReadingError,
    parse_question,
)

# ---------------------------------------------------------------------------------------
# The validation rule
# ---------------------------------------------------------------------------------------

_CELL_KEY = ["doc_id", "page_no", "table_no", "row_idx", "col_idx"]
_TABLE_KEY = ["doc_id", "page_no", "table_no"]


@dataclass
class ReadingContext:
    """What the table and anchor stages know of the cells drafts read: statement and unit
    of each table, period, axis, parent and dimension of each cell, and which cells each
    total adds up (empty where not built)."""

    tables: dict[tuple, dict] = field(default_factory=dict)
    cells: dict[tuple, dict] = field(default_factory=dict)
    # table key -> total (row_idx, col_idx) -> member positions (directly)
    totals: dict[tuple, dict[tuple[int, int], set[tuple[int, int]]]] = field(default_factory=dict)

    @classmethod
    def load(cls, warehouse_dir: Path, drafts: pl.DataFrame) -> ReadingContext:
        """The tables and cells of ``warehouse_dir`` that ``drafts`` read."""
        sources = (
            drafts.select("sources")
            .explode("sources", empty_as_null=True)
            .drop_nulls("sources")
            .unnest("sources")
        )
        context = cls()
        if sources.is_empty():
            return context
        wanted = sources.select(_CELL_KEY).unique()
        # parts listed by the warehouse, each read as itself: the folder's path may hold
        # [ ] * ? (a data root like 'da[ta] {v1}'), which polars would take as a pattern
        warehouse = Warehouse.at(warehouse_dir)
        tables = warehouse.scan("tables")
        if tables is not None:
            numbered = ["table_number"] if "table_number" in tables.collect_schema() else []
            tables = (
                tables.select("table_id", *_TABLE_KEY, "statement", "unit", *numbered)
                .collect()
                .join(wanted.select(_TABLE_KEY).unique(), on=_TABLE_KEY)
            )
            for t in tables.iter_rows(named=True):
                context.tables[tuple(t[k] for k in _TABLE_KEY)] = t
            context._load_totals(warehouse, tables)
        cells = warehouse.scan("table_cells")
        if cells is not None:
            columns = [
                "row_parent",
                "period_kind",
                "period_start",
                "period_end",
                "period_axis",
                "dimension",
            ]
            cells = (
                cells.select(*_CELL_KEY, *columns)
                .join(wanted.lazy(), on=_CELL_KEY, how="semi")
                .collect()
            )
            for c in cells.iter_rows(named=True):
                context.cells[tuple(c[k] for k in _CELL_KEY)] = c
        return context

    def _load_totals(self, warehouse: Warehouse, tables: pl.DataFrame) -> None:
        identities = warehouse.scan("identities")
        if identities is None:
            return
        columns = ["table_id", "total_row_idx", "total_col_idx", "member_rows", "member_cols"]
        keys = {
            t["table_id"]: tuple(t[k] for k in _TABLE_KEY) for t in tables.iter_rows(named=True)
        }
        identities = (
            identities.select(columns).filter(pl.col("table_id").is_in(list(keys))).collect()
        )
        for i in identities.iter_rows(named=True):
            totals = self.totals.setdefault(keys[i["table_id"]], {})
            members = zip(i["member_rows"] or [], i["member_cols"] or [], strict=True)
            totals.setdefault((i["total_row_idx"], i["total_col_idx"]), set()).update(members)

    def adds_up(self, table: tuple, total: tuple[int, int]) -> frozenset[tuple[int, int]]:
        """Every cell the total adds up, through subtotals (none for a cell no identity
        totals)."""
        direct = self.totals.get(table, {})
        seen: set[tuple[int, int]] = set()
        todo = list(direct.get(total, ()))
        while todo:
            cell = todo.pop()
            if cell not in seen and cell != total:
                seen.add(cell)
                todo += direct.get(cell, ())
        return frozenset(seen)

    def cells_of(self, sources: list[dict]) -> list[SourceCell]:
        out = []
        for s in sources:
            known: dict[str, object] = {}
            table_key = tuple(s.get(k) for k in _TABLE_KEY)
            table = self.tables.get(table_key)
            if table is not None:
                known.update(statement=table["statement"] or "", unit=table["unit"] or "")
                known["table_number"] = table.get("table_number") or ""
                if self.totals:
                    known["adds_up"] = self.adds_up(table_key, (s["row_idx"], s["col_idx"]))
            cell = self.cells.get(tuple(s.get(k) for k in _CELL_KEY))
            if cell is not None:
                kind = cell["period_kind"]
                known.update(
                    period_key=(kind, cell["period_start"], cell["period_end"]) if kind else None,
                    period_axis=cell["period_axis"] or None,
                    row_parent=cell["row_parent"] or "",
                    dimension=cell["dimension"] or "",
                )
            out.append(SourceCell.from_source(s, **known))
        return out


def question_reasons(draft: dict, context: ReadingContext | None = None) -> list[str]:
    """``question_mismatch``: the question cannot be read, or what it asks disagrees with
    the cells its oracle reads (:func:`check_reading`, every rule)."""
    try:
        reading = parse_question(draft.get("question") or "")
    except ReadingError as error:
        return [f"question_mismatch: cannot read the question: {error}"]
    cells = (context or ReadingContext()).cells_of(list(draft.get("sources") or []))
    problems = check_reading(
        reading,
        cells,
        unit=draft.get("unit"),
        places=draft.get("precision"),
        oracle_source=draft.get("oracle_source"),
    )
    return [f"question_mismatch: {p}" for p in dict.fromkeys(problems)]
