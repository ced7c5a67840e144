"""Find a task under review and the table cells its oracle reads.

A task is looked up in a release (``data/qa/test.parquet`` with
``private/qa_answers.parquet``, or ``data/qa_examples/dev.parquet``; the cells it reads
come from ``oracles/<task_id>.py``, the program that defines the key) or, without a
release, in the warehouse ``tasks`` table, then ``drafts``. Either way the cells are
resolved against the warehouse (``anchored_cells``, ``table_cells``) the way
``oracles.api.table_cell`` resolves them, so what is shown is what the oracle reads.
"""

from __future__ import annotations

import ast
import json
import random
from dataclasses import dataclass, field, replace
from pathlib import Path

import polars as pl

from pipeline.config import DataPaths, data_paths
from pipeline.store import Warehouse

# Which anchored_cells column holds the number an oracle gets, by status (oracles.api).
USABLE_COLUMN = {"confirmed": "value_str", "repaired": "value_str", "contradicted": "implied_str"}
# Task-row fields that say when the figures are for; printed when a source has them.
PERIOD_FIELDS = ("period", "periods", "fiscal_year", "year", "years", "as_of", "date")


class TaskNotFound(LookupError):
    """The task id is in none of the places searched; the message names them."""


@dataclass(frozen=True)
class CellRef:
    """One cell an oracle reads: as the oracle addresses it, and where it is in the warehouse."""

    doc_id: str
    page_no: int
    table_no: int
    row: str | int  # label or 0-based index, as the oracle wrote it
    col: str | int
    row_idx: int | None = None  # resolved position; None when the warehouse has no such cell
    col_idx: int | None = None
    row_label: str = ""
    col_label: str = ""
    note: str = ""  # the oracle's comment above the read, e.g. "Customs | fiscal year 1948"
    period: str = ""  # the source's own period field, where the task row records one

    @property
    def table_id(self) -> str:
        return f"{self.doc_id}:{self.page_no}:{self.table_no}"


@dataclass
class ReviewTask:
    """Everything the evidence sheet prints about one task."""

    task_id: str
    found_in: str  # e.g. "release /r/v1 (test split)" or "warehouse tasks (/d/warehouse)"
    kind: str
    question: str
    unit: str
    precision: int | None
    quality: str
    answer: str | None
    lo: str | None
    hi: str | None
    known_wrong: list[dict] = field(default_factory=list)
    sources: list[CellRef] = field(default_factory=list)
    reads: list[dict] = field(default_factory=list)  # per source: status, value, printed
    status: str = ""  # accepted | rejected (warehouse tasks); "" when not recorded
    reasons: list[str] = field(default_factory=list)
    period: dict[str, str] = field(default_factory=dict)
    source_docs: list[str] = field(default_factory=list)


def resolve_data_root(data_root: Path | None, release_dir: Path | None) -> DataPaths:
    """The data root given, else the one a release sits in (``<root>/releases/<v>``), else
    ``LEDGERFORGE_DATA`` / ``data/``."""
    if data_root is not None:
        return data_paths(data_root)
    if release_dir is not None:
        candidate = Path(release_dir).resolve().parent.parent
        if (
            Path(release_dir).resolve().parent.name == "releases"
            and (candidate / "warehouse").is_dir()
        ):
            return data_paths(candidate)
    return data_paths()


# --------------------------------------------------------------------------- oracles


def oracle_reads(source: str) -> list[CellRef]:
    """The ``table_cell(...)`` calls of an oracle program, in order, with the comment above each.

    Only literal arguments are understood (the drafters write literals); a call whose
    arguments are computed is skipped, since no evidence can be drawn for it statically.
    """
    lines = source.splitlines()
    refs = []
    for node in ast.walk(ast.parse(source)):
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "table_cell"
        ):
            continue
        names = ("doc", "page", "table", "row", "col")
        args = dict(zip(names, node.args, strict=False))
        args.update({k.arg: k.value for k in node.keywords if k.arg in names})
        try:
            values = {name: ast.literal_eval(args[name]) for name in names}
        except (KeyError, ValueError):
            continue
        above = lines[node.lineno - 2].strip() if node.lineno >= 2 else ""
        refs.append(
            (
                node.lineno,
                node.col_offset,
                CellRef(
                    doc_id=str(values["doc"]),
                    page_no=int(values["page"]),
                    table_no=int(values["table"]),
                    row=values["row"],
                    col=values["col"],
                    note=above[1:].strip() if above.startswith("#") else "",
                ),
            )
        )
    return [ref for _, _, ref in sorted(refs, key=lambda r: (r[0], r[1]))]


# --------------------------------------------------------------------------- warehouse


def scan(wh: Warehouse, asset: str) -> pl.LazyFrame | None:
    """A lazy scan over every part of an asset (None when it has none), each part read as
    itself (the data root's path may hold [ ] * ?, which polars would expand)."""
    return wh.scan(asset)


def _table_frame(wh: Warehouse, asset: str, doc_id: str, page_no: int, table_no: int):
    lazy = scan(wh, asset)
    if lazy is None:
        return None
    return lazy.filter(
        (pl.col("doc_id") == doc_id)
        & (pl.col("page_no") == page_no)
        & (pl.col("table_no") == table_no)
    ).collect()


def _matches(frame: pl.DataFrame, row: str | int, col: str | int) -> pl.DataFrame:
    row_test = pl.col("row_idx") == row if isinstance(row, int) else pl.col("row_label") == row
    col_test = pl.col("col_idx") == col if isinstance(col, int) else pl.col("col_label") == col
    return frame.filter(row_test & col_test)


def resolve_cells(wh: Warehouse, refs: list[CellRef]) -> tuple[list[CellRef], list[dict]]:
    """Each ref with its row/column position and labels, and what the oracle gets from it.

    The position is looked up in ``anchored_cells`` (the only cells an oracle is served),
    then in ``table_cells``. The read is ``{status, value, printed}``: the anchored value
    the oracle uses (the implied value for a contradicted cell), or status ``unanchored``
    / ``missing`` when the warehouse would refuse the read.
    """
    resolved, reads = [], []
    for ref in refs:
        found, read = None, {"status": "missing", "value": None, "printed": None}
        anchored = _table_frame(wh, "anchored_cells", ref.doc_id, ref.page_no, ref.table_no)
        if anchored is not None:
            hits = _matches(anchored, ref.row, ref.col)
            if hits.height == 1:
                found = hits.row(0, named=True)
                column = USABLE_COLUMN.get(found["status"])
                read = {
                    "status": found["status"],
                    "value": found[column] if column else None,
                    "printed": found["printed_str"],
                }
            elif hits.height > 1:
                read["status"] = f"ambiguous ({hits.height} cells match)"
        if found is None:
            cells = _table_frame(wh, "table_cells", ref.doc_id, ref.page_no, ref.table_no)
            hits = _matches(cells, ref.row, ref.col) if cells is not None else None
            if hits is not None and hits.height == 1:
                found = hits.row(0, named=True)
                read = {"status": "unanchored", "value": None, "printed": found["value_str"]}
        if found is not None:
            ref = replace(
                ref,
                row_idx=int(found["row_idx"]),
                col_idx=int(found["col_idx"]),
                row_label=found["row_label"] or "",
                col_label=found["col_label"] or "",
            )
        resolved.append(ref)
        reads.append(read)
    return resolved, reads


# --------------------------------------------------------------------------- lookup


def _period(row: dict) -> dict[str, str]:
    return {k: str(row[k]) for k in PERIOD_FIELDS if row.get(k) not in (None, "", [])}


def _from_row(row: dict, found_in: str) -> ReviewTask:
    return ReviewTask(
        task_id=row["task_id"],
        found_in=found_in,
        kind=row.get("kind") or "",
        question=row.get("question") or "",
        unit=row.get("unit") or "",
        precision=row.get("precision"),
        quality=row.get("quality") or "",
        answer=row.get("answer"),
        lo=row.get("lo"),
        hi=row.get("hi"),
        known_wrong=list(row.get("known_wrong") or []),
        status=row.get("status") or "",
        reasons=list(row.get("reasons") or []),
        period=_period(row),
        source_docs=list(row.get("source_docs") or []),
    )


def _release_row(release_dir: Path, task_id: str) -> tuple[dict, str] | None:
    test = release_dir / "data" / "qa" / "test.parquet"
    dev = release_dir / "data" / "qa_examples" / "dev.parquet"
    answers = release_dir / "private" / "qa_answers.parquet"
    for path, split in ((test, "test"), (dev, "dev")):
        if not path.exists():
            continue
        # glob=False here and below: the release's path may hold [ ] * ?
        rows = pl.read_parquet(path, glob=False).filter(pl.col("task_id") == task_id).to_dicts()
        if not rows:
            continue
        row = rows[0]
        if split == "test" and answers.exists():
            keys = pl.read_parquet(answers, glob=False).filter(pl.col("task_id") == task_id)
            keys = keys.to_dicts()
            row.update(keys[0] if keys else {})
        return row, f"release {release_dir} ({split} split)"
    return None


def _release_places(release_dir: Path) -> list[str]:
    return [str(release_dir / p) for p in ("data/qa/test.parquet", "data/qa_examples/dev.parquet")]


def find_task(task_id: str, paths: DataPaths, release_dir: Path | None = None) -> ReviewTask:
    """The task ``task_id`` with its cells resolved; raises ``TaskNotFound`` naming the places."""
    wh = Warehouse(paths)
    if release_dir is not None:
        release_dir = Path(release_dir)
        hit = _release_row(release_dir, task_id)
        if hit is None:
            raise TaskNotFound(
                f"task {task_id!r} not found in release {release_dir} "
                f"(looked in {', '.join(_release_places(release_dir))})"
            )
        row, found_in = hit
        task = _from_row(row, found_in)
        task.status = "accepted"  # a release publishes accepted tasks only
        oracle = release_dir / "oracles" / f"{task_id}.py"
        if not oracle.exists():
            raise TaskNotFound(
                f"task {task_id!r} is in {found_in} but its oracle {oracle} is missing, "
                "so the cells it reads are unknown"
            )
        task.sources, task.reads = resolve_cells(wh, oracle_reads(oracle.read_text()))
        return task
    looked = []
    for asset in ("tasks", "drafts"):
        lazy = scan(wh, asset)
        looked.append(str(wh.folder(asset)) + ("" if lazy is not None else " (absent)"))
        if lazy is None:
            continue
        rows = lazy.filter(pl.col("task_id") == task_id).collect().to_dicts()
        if rows:
            row = rows[0]
            task = _from_row(row, f"warehouse {asset} ({wh.root})")
            task.sources, task.reads = _warehouse_sources(wh, row)
            return task
    raise TaskNotFound(
        f"task {task_id!r} not found: no release given (--release-dir), "
        f"and not in the warehouse tables {', '.join(looked)}"
    )


def _warehouse_sources(wh: Warehouse, row: dict) -> tuple[list[CellRef], list[dict]]:
    """The task row's ``sources``, with the oracle's notes and, when it ran, its reads."""
    notes = [r.note for r in oracle_reads(row["oracle_source"])] if row.get("oracle_source") else []
    refs = [
        CellRef(
            s["doc_id"], s["page_no"], s["table_no"], s["row_idx"], s["col_idx"],
            note=notes[i] if len(notes) == len(row["sources"]) else "",
            period=s.get("period") or "",
        )
        for i, s in enumerate(row.get("sources") or [])
    ]  # fmt: skip
    refs, reads = resolve_cells(wh, refs)
    ran = json.loads(row["oracle_reads"]) if row.get("oracle_reads") else []
    by_cell = {(r.get("table_id"), r.get("row_idx"), r.get("col_idx")): r for r in ran}
    for i, ref in enumerate(refs):
        made = by_cell.get((ref.table_id, ref.row_idx, ref.col_idx))
        if made is not None:  # what the oracle actually got when validation ran it
            reads[i] = {k: made.get(k) for k in ("status", "value", "printed")}
    return refs, reads


def accepted_task_ids(paths: DataPaths, release_dir: Path | None = None) -> list[str]:
    """Every accepted task read from printed pages (the evidence is drawn on page images;
    workbook QA tasks have none): all such tasks of a release, or warehouse tasks with
    status accepted."""
    from pipeline.draft.workbook_qa import WORKBOOK_KINDS

    on_pages = ~pl.col("kind").is_in(list(WORKBOOK_KINDS))
    if release_dir is not None:
        ids: set[str] = set()
        for path in _release_places(Path(release_dir)):
            if Path(path).exists():
                frame = pl.read_parquet(path, columns=["task_id", "kind"], glob=False)
                ids.update(frame.filter(on_pages)["task_id"])
        return sorted(ids)
    lazy = scan(Warehouse(paths), "tasks")
    if lazy is None:
        return []
    accepted = lazy.filter((pl.col("status") == "accepted") & on_pages).select("task_id").collect()
    return sorted(accepted["task_id"])


def sample_task_ids(ids: list[str], n: int, seed: int) -> list[str]:
    """``n`` of ``ids`` chosen with ``seed`` (all of them when there are fewer)."""
    return sorted(random.Random(seed).sample(sorted(ids), min(n, len(ids))))
