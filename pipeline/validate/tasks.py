"""Validation: every draft becomes a task, accepted or rejected with every reason kept.

Rules (ARCHITECTURE.md, "Validation"), each reason starting with its rule name:
``no_oracle``; ``oracle_failed`` (error, timeout, memory, killed, or rejected by the
sandbox's static rules); ``no_known_wrong``; ``known_wrong_inside_interval``;
``key_outside_interval``; ``duplicate`` (same kind and source cells) and
``near_duplicate`` (near-identical question, same key); ``ambiguous_question`` (the
same question as another draft with a different key: it cannot be answered exactly);
``contaminated`` (the key is
printed elsewhere in the archive); ``unconfirmed_input`` (a source cell no total of its
table confirms). Two more guard the drafter itself: ``interval_too_wide`` (wider than
one unit of the asked precision) and ``drafter_key_mismatch`` (the oracle's key differs
from the key the drafter computed). ``question_mismatch``: the question, read on its own
(``pipeline.validate.reading``), cannot be read or disagrees with the cells its oracle reads.

Workbook QA drafts (kinds ``pipeline.draft.workbook_qa.WORKBOOK_KINDS``) read workbook
cells, not printed table cells: the rules about printed tables (``unconfirmed_input``,
``unreadable_label``, ``question_mismatch``, ``contaminated``: a workbook total's key is
printed in the workbook by design) do not apply to them; every other rule does.
"""

from __future__ import annotations

import json
from decimal import Decimal, InvalidOperation
from pathlib import Path

import polars as pl

from oracles.sandbox import OracleResult, run_oracles
from pipeline.draft.formulas import quantum
from pipeline.draft.schemas import DRAFTS_SCHEMA
from pipeline.draft.workbook_qa import WORKBOOK_KINDS
from pipeline.store import check_schema, run_sql
from pipeline.validate.connection import connect
from pipeline.validate.contamination import contamination_hits
from pipeline.validate.dedupe import (
    ambiguous_questions,
    duplicate_sources,
    near_duplicate_questions,
)
from pipeline.validate.labels import label_problem
from pipeline.validate.reading import ReadingContext, question_reasons
from pipeline.validate.schemas import TASKS_SCHEMA


def _decimal(text: object) -> Decimal | None:
    try:
        return Decimal(str(text)) if text is not None else None
    except InvalidOperation:
        return None


def oracle_reasons(result: OracleResult | None) -> list[str]:
    """Why an oracle run gives no usable key (empty when it emitted one)."""
    if result is None:
        return []
    if result.status != "ok":
        detail = result.rule or result.error or result.stderr[-200:]
        return [f"oracle_failed: {result.status}: {detail}".strip()]
    out = result.output or {}
    if _decimal(out.get("answer")) is None or len(out.get("interval") or []) != 2:
        return ["oracle_failed: ok: emitted no answer and interval"]
    return []


def interval_reasons(draft: dict, result: OracleResult | None) -> list[str]:
    """Rules on the emitted key and interval against the draft's known-wrong answers."""
    if result is None or oracle_reasons(result):
        return []
    out = result.output or {}
    key = _decimal(out["answer"])
    lo, hi = (_decimal(v) for v in out["interval"])
    reasons = []
    if lo is None or hi is None or not lo <= key <= hi:
        reasons.append(f"key_outside_interval: key {key} not in [{lo}, {hi}]")
    elif hi - lo > quantum(draft["precision"] or 0):
        reasons.append(
            f"interval_too_wide: [{lo}, {hi}] is wider than one unit of {draft['precision']} places"
        )
    for wrong in draft["known_wrong"] or []:
        value = _decimal(wrong["value"])
        if value is None or (lo is not None and hi is not None and lo <= value <= hi):
            reasons.append(
                f"known_wrong_inside_interval: {wrong['value']} ({wrong['family']}) in [{lo}, {hi}]"
            )
    expected = _decimal(draft.get("expected_answer"))
    if expected is not None and key is not None and expected != key:
        reasons.append(f"drafter_key_mismatch: oracle {key}, drafter {expected}")
    return reasons


def _sources_frame(drafts: pl.DataFrame) -> pl.DataFrame:
    return (
        drafts.select("task_id", "sources")
        .explode("sources", empty_as_null=True)
        .drop_nulls("sources")
        .unnest("sources")
    )


def label_reasons(draft: dict) -> list[str]:
    """``unreadable_label``: a label the question names is OCR noise, not a label."""
    found = []
    for source in draft["sources"] or []:
        for axis in ("row_label", "col_label"):
            problem = label_problem(source[axis])
            if problem:
                found.append(f"unreadable_label: {axis} {source[axis]!r}: {problem}")
    return sorted(set(found))


def validate_drafts(
    drafts: pl.DataFrame,
    warehouse_dir: Path,
    contamination: pl.DataFrame,
    *,
    workers: int | None = None,
    timeout_s: float = 10,
    progress: bool = False,
) -> pl.DataFrame:
    """Validate every draft (``DRAFTS_SCHEMA``) and return the tasks (``TASKS_SCHEMA``).

    Every oracle runs in ``oracles.sandbox.run_oracles`` against ``warehouse_dir``;
    ``contamination`` is the index from ``build_contamination_index``. Each task keeps
    its oracle's answer, interval, reads and checks. Row order follows ``drafts``.
    """
    drafts = check_schema(drafts, DRAFTS_SCHEMA, "drafts")
    warehouse_dir = Path(warehouse_dir)
    rows = drafts.to_dicts()
    runnable = {
        r["task_id"]: r["oracle_source"] for r in rows if (r["oracle_source"] or "").strip()
    }
    results = (
        run_oracles(
            runnable, warehouse_dir, workers=workers, timeout_s=timeout_s, progress=progress
        )
        if runnable
        else {}
    )

    reasons: dict[int, list[str]] = {}
    on_tables = ~pl.col("kind").is_in(list(WORKBOOK_KINDS))
    read_cells = ReadingContext.load(warehouse_dir, drafts.filter(on_tables))
    for n, draft in enumerate(rows):
        result = results.get(draft["task_id"]) if draft["task_id"] in runnable else None
        found = (
            [] if draft["task_id"] in runnable else ["no_oracle: the draft has no oracle program"]
        )
        found += oracle_reasons(result)
        if not draft["known_wrong"]:
            found.append("no_known_wrong: the draft lists no known-wrong answer")
        found += interval_reasons(draft, result)
        if draft["kind"] not in WORKBOOK_KINDS:
            found += label_reasons(draft)
            found += question_reasons(draft, read_cells)
        found += list(draft.get("problems") or [])
        reasons[n] = found

    sources = _sources_frame(drafts.filter(on_tables))
    _unconfirmed(sources, warehouse_dir, rows, reasons)
    answers = [
        (results[r["task_id"]].output or {}).get("answer")
        if r["task_id"] in results and not oracle_reasons(results[r["task_id"]])
        else None
        for r in rows
    ]
    printed = [
        None if r["kind"] in WORKBOOK_KINDS else a for r, a in zip(rows, answers, strict=True)
    ]
    _contaminated(rows, printed, sources, contamination, warehouse_dir, reasons)
    _duplicates(drafts, rows, answers, reasons)

    out = []
    for n, draft in enumerate(rows):
        result = results.get(draft["task_id"]) if draft["task_id"] in runnable else None
        emitted = (result.output or {}) if result is not None and result.status == "ok" else {}
        interval = emitted.get("interval") or [None, None]
        out.append(
            {
                **draft,
                "status": "rejected" if reasons[n] else "accepted",
                "reasons": reasons[n],
                "answer": answers[n],
                "lo": interval[0] if answers[n] is not None else None,
                "hi": interval[1] if answers[n] is not None else None,
                "oracle_status": result.status if result is not None else "missing",
                "oracle_reads": json.dumps(emitted.get("reads", [])),
                "oracle_checks": json.dumps(emitted.get("checks", [])),
            }
        )
    return pl.DataFrame(out, schema=TASKS_SCHEMA)


def _unconfirmed(
    sources: pl.DataFrame, warehouse_dir: Path, rows: list[dict], reasons: dict[int, list[str]]
) -> None:
    con = connect(warehouse_dir)
    con.register("task_sources", sources)
    bad = run_sql(con, "validate_sources")
    at = {r["task_id"]: n for n, r in enumerate(rows)}
    for b in bad.iter_rows(named=True):
        reasons[at[b["task_id"]]].append(
            f"unconfirmed_input: doc {b['doc_id']} page {b['page_no']} table {b['table_no']} "
            f"row {b['row_label']!r} col {b['col_label']!r} is {b['status']}"
        )


def _contaminated(
    rows: list[dict],
    answers: list[str | None],
    sources: pl.DataFrame,
    contamination: pl.DataFrame,
    warehouse_dir: Path,
    reasons: dict[int, list[str]],
) -> None:
    keys = pl.DataFrame(
        {"task_id": [r["task_id"] for r in rows], "answer": answers},
        schema={"task_id": pl.String, "answer": pl.String},
    ).drop_nulls("answer")
    if keys.is_empty():
        return
    hits = contamination_hits(keys, sources, contamination, warehouse_dir)
    at = {r["task_id"]: n for n, r in enumerate(rows)}
    for h in hits.iter_rows(named=True):
        reasons[at[h["task_id"]]].append(
            f"contaminated: key printed {h['n_hits']} time(s) elsewhere, e.g. "
            + "; ".join(h["examples"])
        )


def _duplicates(
    drafts: pl.DataFrame, rows: list[dict], answers: list[str | None], reasons: dict[int, list[str]]
) -> None:
    """Keep the first clean draft of each group; every other member is a duplicate."""
    order = pl.DataFrame(
        {
            "task_id": drafts["task_id"],
            "kind": drafts["kind"],
            "sources": drafts["sources"],
            "priority": [1 if reasons[n] else 0 for n in range(len(rows))],
            "ord": list(range(len(rows))),
        }
    )
    same = duplicate_sources(order)
    # several drafts may share a task_id (same kind and sources): mark by position
    by_id: dict[str, list[int]] = {}
    for n, r in enumerate(rows):
        by_id.setdefault(r["task_id"], []).append(n)
    kept_first = sorted(range(len(rows)), key=lambda n: (bool(reasons[n]), n))
    seen_ids: set[str] = set()
    for n in kept_first:
        task_id = rows[n]["task_id"]
        if task_id in seen_ids:
            reasons[n].append(f"duplicate: same kind and sources as task {task_id}")
        seen_ids.add(task_id)
    for task_id, kept in same.items():
        if task_id != kept:
            for n in by_id[task_id]:
                reasons[n].append(f"duplicate: same kind and sources as task {kept}")
    ranked = sorted(range(len(rows)), key=lambda n: (bool(reasons[n]), n))
    candidates = pl.DataFrame(
        {
            "task_id": [rows[n]["task_id"] for n in ranked],
            "question": [rows[n]["question"] for n in ranked],
            "answer": [answers[n] for n in ranked],
            "unit": [rows[n]["unit"] for n in ranked],
        },
        schema={
            "task_id": pl.String,
            "question": pl.String,
            "answer": pl.String,
            "unit": pl.String,
        },
    )
    near = near_duplicate_questions(candidates)
    # two drafts fit to publish that ask one question with two keys: neither is a task
    # (a draft rejected for its own faults does not make a good one ambiguous)
    clean = {rows[n]["task_id"] for n in range(len(rows)) if not reasons[n]}
    ambiguous = ambiguous_questions(candidates.filter(pl.col("task_id").is_in(list(clean))))
    for n, r in enumerate(rows):
        if r["task_id"] in ambiguous:
            reasons[n].append(
                f"ambiguous_question: task {ambiguous[r['task_id']]} asks the same question "
                "with a different key"
            )
        if r["task_id"] in near and near[r["task_id"]] != r["task_id"]:
            reasons[n].append(
                f"near_duplicate: question near-identical to task {near[r['task_id']]} "
                "with the same key"
            )
