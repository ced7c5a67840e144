"""What a model solving a QA task reads: the question, and the text of its source pages or cells.

A task's oracle is the only exact statement of what it reads: ``table_cell(doc, page, ...)``
calls name the scanned pages, and a workbook oracle names its workbook and sheet
(``WORKBOOK = '…'``, ``SHEET = '…'``, read through ``workbook_cell``). So the sources are
parsed from the oracle (``oracles/<task_id>.py`` of a release, or the ``oracle_source``
column of the warehouse ``tasks``), never from the public ``source_docs`` names alone.

A page is given as its text in reading order, one printed line per line, the way OCR
read it (``words``); a page without words falls back to its rebuilt tables
(``tables`` / ``table_cells``). A sheet is given in the workbook judge's tuple encoding,
``(Address, Value, Type, Formula)`` under a ``## Sheet: name (range)`` header
(:mod:`pipeline.judge.render`). The model gets what a reader of the archive sees, not the
anchored values the oracle uses: the misprints and revisions are part of the task.

Without a warehouse (or for a task whose oracle is unknown) a task has no context, and
the model answers from the question alone.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from pipeline.config import DataPaths
from pipeline.review.lookup import oracle_reads
from pipeline.store import Warehouse

MAX_CONTEXT_CHARS = 60_000  # per task; a longer context is cut with a note saying so


@dataclass(frozen=True)
class TaskSources:
    """The pages and sheets one task's oracle reads."""

    pages: tuple[tuple[str, int], ...] = ()  # (doc_id, page_no), in reading order
    sheets: tuple[tuple[str, str], ...] = ()  # (workbook_id, sheet name)

    @property
    def empty(self) -> bool:
        return not self.pages and not self.sheets


def _module_constants(tree: ast.Module) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name):
                try:
                    found[target.id] = ast.literal_eval(node.value)
                except ValueError:
                    continue
    return found


def _literal_or_constant(node: ast.expr, constants: Mapping[str, Any]) -> Any:
    if isinstance(node, ast.Name):
        return constants.get(node.id)
    try:
        return ast.literal_eval(node)
    except ValueError:
        return None


def oracle_sources(source: str | None) -> TaskSources:
    """The pages (``table_cell`` calls) and sheets (``workbook_cell`` calls) an oracle reads.

    Arguments may be literals or module-level constants (the workbook drafter writes
    ``WORKBOOK``/``SHEET``); calls with computed arguments are skipped. An oracle that
    does not parse has no sources.
    """
    if not source:
        return TaskSources()
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return TaskSources()
    pages = list(dict.fromkeys((r.doc_id, r.page_no) for r in oracle_reads(source)))
    constants = _module_constants(tree)
    sheets: list[tuple[str, str]] = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "workbook_cell"
            and len(node.args) >= 2
        ):
            workbook = _literal_or_constant(node.args[0], constants)
            sheet = _literal_or_constant(node.args[1], constants)
            if isinstance(workbook, str) and isinstance(sheet, str):
                sheets.append((workbook, sheet))
    return TaskSources(tuple(pages), tuple(dict.fromkeys(sheets)))


def release_sources(release_dir: Path, task_ids: Iterable[str]) -> dict[str, TaskSources]:
    """The sources of each task of a release, from ``oracles/<task_id>.py`` (empty if absent)."""
    out = {}
    for task_id in task_ids:
        path = Path(release_dir) / "oracles" / f"{task_id}.py"
        out[task_id] = oracle_sources(path.read_text()) if path.is_file() else TaskSources()
    return out


@dataclass
class SourceTexts:
    """Texts of pages and sheets from one warehouse, read once for many tasks."""

    paths: DataPaths
    max_chars: int = MAX_CONTEXT_CHARS
    _pages: dict[tuple[str, int], str] = field(default_factory=dict)
    _sheets: dict[tuple[str, str], str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.wh = Warehouse(self.paths)

    # ------------------------------------------------------------------ loading

    def load(self, sources: Iterable[TaskSources]) -> None:
        """Read every page and sheet the given tasks need (one filtered scan per table)."""
        sources = list(sources)
        pages = {p for s in sources for p in s.pages} - set(self._pages)
        sheets = {s for src in sources for s in src.sheets} - set(self._sheets)
        if pages:
            self._pages.update(self._page_texts(pages))
        if sheets:
            self._sheets.update(self._sheet_texts(sheets))

    def _filter(self, asset: str, keys: set[tuple], names: tuple[str, str]) -> pl.DataFrame | None:
        lazy = self.wh.scan(asset)
        if lazy is None:
            return None
        wanted = pl.DataFrame(
            {names[0]: [k[0] for k in keys], names[1]: [k[1] for k in keys]},
            schema={names[0]: pl.String, names[1]: lazy.collect_schema()[names[1]]},
        )
        return lazy.join(wanted.lazy(), on=list(names), how="semi").collect()

    def _doc_names(self) -> dict[str, str]:
        docs = self.wh.scan("documents")
        if docs is None:
            return {}
        frame = docs.select("doc_id", "file_name").collect()
        return dict(zip(frame["doc_id"], frame["file_name"], strict=True))

    def _page_texts(self, pages: set[tuple[str, int]]) -> dict[tuple[str, int], str]:
        names = self._doc_names()
        words = self._filter("words", pages, ("doc_id", "page_no"))
        texts: dict[tuple[str, int], str] = {}
        if words is not None and words.height:
            lines = (
                words.sort("doc_id", "page_no", "line_no", "x0", "word_no")
                .group_by("doc_id", "page_no", "line_no", maintain_order=True)
                .agg(pl.col("y0").min().alias("top"), pl.col("text").str.join(" "))
                .sort("doc_id", "page_no", "top", "line_no")
                .group_by("doc_id", "page_no", maintain_order=True)
                .agg(pl.col("text").str.join("\n"))
            )
            for doc_id, page_no, text in lines.iter_rows():
                texts[(doc_id, page_no)] = text
        missing = pages - set(texts)
        if missing:
            texts.update(self._table_texts(missing))
        return {
            key: f"### {names.get(key[0], key[0])}, page {key[1]}\n{text}"
            for key, text in texts.items()
        }

    def _table_texts(self, pages: set[tuple[str, int]]) -> dict[tuple[str, int], str]:
        """Pages without words: their rebuilt tables, one printed row per line."""
        tables = self._filter("tables", pages, ("doc_id", "page_no"))
        cells = self._filter("table_cells", pages, ("doc_id", "page_no"))
        if tables is None or cells is None or not tables.height:
            return {}
        out: dict[tuple[str, int], list[str]] = {}
        for table in tables.sort("doc_id", "page_no", "table_no").iter_rows(named=True):
            key = (table["doc_id"], table["page_no"])
            lines = out.setdefault(key, [])
            lines.append(table.get("title") or "")
            if table.get("unit_printed"):
                lines.append(table["unit_printed"])
            lines.append(" | ".join(["", *(table.get("col_labels") or [])]))
            own = cells.filter(pl.col("table_no") == table["table_no"]).filter(
                (pl.col("doc_id") == key[0]) & (pl.col("page_no") == key[1])
            )
            for _, row in own.sort("row_idx", "col_idx").group_by("row_idx", maintain_order=True):
                label = row["row_label"][0] or ""
                lines.append(" | ".join([label, *(t or "" for t in row["text"])]))
        return {key: "\n".join(lines) for key, lines in out.items()}

    def _sheet_texts(self, sheets: set[tuple[str, str]]) -> dict[tuple[str, str], str]:
        cells = self._filter("cells", sheets, ("workbook_id", "sheet"))
        if cells is None:
            return {}
        names: dict[str, str] = {}
        books = self.wh.scan("workbooks")
        if books is not None:
            frame = books.select("workbook_id", "file_name").collect()
            names = dict(zip(frame["workbook_id"], frame["file_name"], strict=True))
        out = {}
        for (workbook, sheet), frame in cells.group_by("workbook_id", "sheet"):
            frame = frame.sort("row", "col")
            top = f"{frame['address'][0]}:{frame['address'][-1]}" if frame.height else "empty"
            lines = [f"### {names.get(workbook, workbook)}", f"## Sheet: {sheet} ({top})"]
            for _, row in frame.group_by("row", maintain_order=True):
                lines.append(" ".join(_encode_cell(c) for c in row.iter_rows(named=True)))
            out[(workbook, sheet)] = "\n".join(lines)
        return out

    # ------------------------------------------------------------------ text

    def text(self, sources: TaskSources) -> str:
        """The context of one task: its pages, then its sheets, cut at ``max_chars``."""
        self.load([sources])
        parts = [self._pages[p] for p in sources.pages if p in self._pages]
        parts += [self._sheets[s] for s in sources.sheets if s in self._sheets]
        text = "\n\n".join(parts)
        if len(text) > self.max_chars:
            text = text[: self.max_chars] + f"\n[... cut at {self.max_chars:,} characters ...]"
        return text


def _encode_cell(cell: Mapping[str, Any]) -> str:
    """``(Address, Value, Type, Formula)`` as :func:`pipeline.judge.render.encode_cell`."""
    value = cell.get("value")
    if value is None:
        shown = ""
    elif cell.get("type") == "T":
        shown = json.dumps(value, ensure_ascii=False)
    else:
        shown = str(value)
    return f"({cell['address']}, {shown}, {cell.get('type') or ''}, {cell.get('formula') or ''})"
