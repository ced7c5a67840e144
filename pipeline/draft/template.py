"""The offline template drafter (``template-v2``): the default, deterministic drafter.

``draft_tasks`` walks every statement table of the anchored archive, asks every
registered task kind for tasks, renders one oracle program per task, computes the key
itself to derive the known-wrong answers of every registered family, and returns one
row per draft (``DRAFTS_SCHEMA``). It never calls a model: tokens and cost are 0.
"""

from __future__ import annotations

import hashlib
import random
from decimal import Decimal

import polars as pl

from pipeline.draft.archive import QUALITY_ORDER, Archive, Fact, build_archive
from pipeline.draft.formulas import FORMULAS, evaluate, interval
from pipeline.draft.kinds import TASK_KINDS, TaskSpec
from pipeline.draft.known_wrong import KNOWN_WRONG_FAMILIES, WrongContext
from pipeline.draft.schemas import DRAFTS_SCHEMA

DRAFTER_ID = "template-v2"
SCANNED_ROUNDS = 3  # sampling rounds per kind for a table read by OCR (text layer: 1)
MAX_KNOWN_WRONG_PER_FAMILY = 6


def task_id_for(kind: str, inputs: tuple[Fact, ...]) -> str:
    """Stable id: a hash of the kind and the sorted cell positions it reads."""
    refs = sorted(":".join(str(x) for x in f.position) for f in inputs)
    return hashlib.sha256("|".join([kind, *refs]).encode()).hexdigest()[:16]


def cell_call(fact: Fact, archive: Archive) -> str:
    """The ``table_cell`` call for a fact; positions when its labels are not unique."""
    unique = (fact.table_id, fact.row_label, fact.col_label) in archive.unique_labels
    row = repr(fact.row_label) if unique else str(fact.row_idx)
    col = repr(fact.col_label) if unique else str(fact.col_idx)
    return (
        f"table_cell(doc={fact.doc_id!r}, page={fact.page_no}, table={fact.table_no}, "
        f"row={row}, col={col})"
    )


def oracle_source(task_id: str, spec: TaskSpec, archive: Archive) -> str:
    """The oracle program of a task: read through ``oracles.api``, compute, emit once."""
    names = [f"x{i + 1}" for i in range(len(spec.inputs))]
    lines = [
        f'"""Oracle for task {task_id} ({spec.kind}, {spec.formula}); drafted by {DRAFTER_ID}."""',
        "",
        "from oracles.api import emit, table_cell",
        "",
    ]
    for name, fact in zip(names, spec.inputs, strict=True):
        lines.append(f"# {fact.item} | {fact.period.text}")
        lines.append(f"{name} = {cell_call(fact, archive)}")
    expression = FORMULAS[spec.formula].code(names)
    lines += ["", f"emit(answer={expression}, places={spec.places}, unit={spec.unit!r})", ""]
    return "\n".join(lines)


def known_wrong_answers(spec: TaskSpec, archive: Archive, key: Decimal) -> list[dict[str, str]]:
    """Every family's slips, rounded to the precision, outside the key's interval, deduplicated."""
    lo, hi = interval(key, spec.places)
    tables = {t.table_id: t for t in archive.tables}
    exact = FORMULAS[spec.formula].evaluate([f.value for f in spec.inputs])
    ctx = WrongContext(spec, exact, archive, tables)
    seen: set[Decimal] = set()
    out: list[dict[str, str]] = []
    for family, propose in KNOWN_WRONG_FAMILIES.items():
        kept = 0
        for slip in propose(ctx):
            finite = slip.value is not None and slip.value.is_finite()
            wrong = evaluate("value", [slip.value], spec.places) if finite else None
            # a slip that rounds to the key is not wrong at the asked precision
            if wrong is None or lo <= wrong <= hi or wrong in seen:
                continue
            seen.add(wrong)
            out.append({"value": str(wrong), "reason": slip.reason, "family": family})
            kept += 1
            if kept >= MAX_KNOWN_WRONG_PER_FAMILY:
                break
    return out


def _worst_quality(inputs: tuple[Fact, ...]) -> str:
    return max((f.quality for f in inputs), key=lambda q: QUALITY_ORDER.get(q, 3))


def draft_row(spec: TaskSpec, archive: Archive) -> dict | None:
    """One draft row, or None when the formula is undefined for these inputs."""
    key = evaluate(spec.formula, [f.value for f in spec.inputs], spec.places)
    if key is None:
        return None
    task_id = task_id_for(spec.kind, spec.inputs)
    docs = sorted({f.doc_id for f in spec.inputs})
    return {
        "task_id": task_id,
        "kind": spec.kind,
        "question": spec.question,
        "oracle_source": oracle_source(task_id, spec, archive),
        "known_wrong": known_wrong_answers(spec, archive, key),
        "unit": spec.unit,
        "precision": spec.places,
        "sources": [
            {
                "doc_id": f.doc_id,
                "page_no": f.page_no,
                "table_no": f.table_no,
                "row_idx": f.row_idx,
                "col_idx": f.col_idx,
                "row_label": f.row_label,
                "col_label": f.col_label,
                "period": f.period.text,
            }
            for f in spec.inputs
        ],
        "source_docs": sorted({f.file_name or f.doc_id for f in spec.inputs}),
        "multi_document": len(docs) > 1,
        "quality": _worst_quality(spec.inputs),
        "expected_answer": str(key),
        "problems": list(spec.problems),
        "drafter": DRAFTER_ID,
        "tokens": 0,
        "cost": 0.0,
    }


def template_candidates(
    anchored_cells: pl.DataFrame,
    tables: pl.DataFrame,
    documents: pl.DataFrame,
    seed: int = 0,
    table_cells: pl.DataFrame | None = None,
) -> tuple[Archive, list[tuple[TaskSpec, dict]]]:
    """The archive and every candidate the template drafts: ``(spec, draft row)`` pairs in
    drafting order, one per task id. The LLM drafter (``pipeline.draft.llm``) drafts the
    same candidates, so both drafters propose the same cells and kinds."""
    archive, _notes = build_archive(anchored_cells, tables, documents, table_cells)
    rows: dict[str, tuple[TaskSpec, dict]] = {}
    for table in archive.tables:
        # a scanned table confirms fewer cells and old volumes print fewer tables a
        # question can name exactly: draft it in more rounds so old volumes are not starved
        rounds = SCANNED_ROUNDS if table.scanned else 1
        for kind, propose in TASK_KINDS.items():
            for n in range(rounds):
                suffix = f":{n}" if n else ""
                rng = random.Random(f"{seed}:{kind}:{table.table_id}{suffix}")
                for spec in propose(archive, table, rng):
                    row = draft_row(spec, archive)
                    if row is not None and row["task_id"] not in rows:
                        rows[row["task_id"]] = (spec, row)
    return archive, list(rows.values())


def draft_tasks(
    anchored_cells: pl.DataFrame,
    tables: pl.DataFrame,
    documents: pl.DataFrame,
    pages: pl.DataFrame | None = None,
    seed: int = 0,
    table_cells: pl.DataFrame | None = None,
) -> pl.DataFrame:
    """Draft tasks of every registered kind from the anchored cells (``DRAFTS_SCHEMA``).

    ``pages`` is accepted for the asset signature; page quality already travels on
    ``anchored_cells``. The same inputs and seed give the same drafts, byte for byte.
    A task proposed twice (same kind and cells, e.g. from two reprints) is drafted once.
    """
    _archive, candidates = template_candidates(
        anchored_cells, tables, documents, seed=seed, table_cells=table_cells
    )
    return pl.DataFrame([row for _spec, row in candidates], schema=DRAFTS_SCHEMA)
