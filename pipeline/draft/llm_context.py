"""What the LLM drafter shows a model for one candidate, and the shape it asks back.

A candidate is what the template drafter proposes (``template_candidates``): a task kind,
a formula, the anchored cells it reads, the unit and the precision. The model sees the
printed table(s) those cells sit in (labels, printed text, parsed value, anchor status,
unit, page), the cells themselves with the exact ``oracles.api.table_cell`` call that
reads each one, the task kind and operation in words, the ``oracles.api`` functions an
oracle may call, and one worked example (question and oracle) drafted by the template for
*another* candidate of the same kind, so the wanted form is clear without handing over
this candidate's answer. The reference wording of this candidate's question is shown too:
validation reads every question back with its own grammar (``pipeline.validate.reading``),
so the period, unit, precision and sign sentences must keep the forms it reads.

The context is one JSON document inside the user message: models read JSON well, and the
prompt stays byte-stable for a candidate, which is what makes the response cache hit.
"""

from __future__ import annotations

import json
from decimal import Decimal

import polars as pl

from pipeline.draft.archive import Archive, Fact
from pipeline.draft.kinds import TaskSpec
from pipeline.draft.known_wrong import KNOWN_WRONG_FAMILIES
from pipeline.draft.template import cell_call

MAX_TABLE_ROWS = 60  # rows of a printed table shown (the cells read are always shown)
OTHER_FAMILY = "other"

# The operations of pipeline.draft.formulas, in words (variables in reading order).
OPERATION_WORDS = {
    "value": "the value of x1",
    "sum": "x1 + x2 + ... (every cell read)",
    "difference": "x1 - x2 (the first item minus the second, same period)",
    "change": "x2 - x1 (later period minus earlier period, same item)",
    "share": "x1 / x2 * 100 (the part as a percent of the total)",
    "percent_change": "(x2 - x1) / x1 * 100 (percent change from the earlier period)",
    "excess": "(x1 - x2) / x2 * 100 (by what percent x1 exceeds x2)",
    "mean": "(x1 + ... + xn) / n (average over the periods)",
    "max": "max([x1, ..., xn]) (highest over the periods)",
    "min": "min([x1, ..., xn]) (lowest over the periods)",
}

API_TEXT = """\
An oracle is a short Python program. It may import only decimal, math, fractions,
statistics and oracles.api. It reads every number with
    table_cell(doc: str, page: int, table: int, row: str | int, col: str | int) -> Decimal
(row/col are the printed labels, or 0-based positions when a label is repeated; use the
exact call given for each cell), computes with Decimal at full precision (never float),
and ends with exactly one call
    emit(answer=<Decimal>, places=<int decimal places>, unit=<str>)
which rounds once (half up), sets the acceptance interval and prints the JSON line.
It prints nothing else, opens no file and uses no network."""

SYSTEM = """\
You draft benchmark questions over scanned government finance statements. For one
candidate you write: the question (it states the period, the unit and the precision and
never names the document, page, volume or method), an oracle program that computes the
answer key from the table cells given, and known-wrong answers (plausible slips: a
misread digit, the adjacent row or column, another base such as thousands vs millions, a
flipped sign, the printed number where the total says otherwise, an earlier printing),
each with its reason. Known-wrong values are rounded to the asked precision and must
differ from the key at that precision. Answer with the JSON object the schema asks for."""


def answer_schema() -> dict:
    """The JSON Schema of one drafted task (strict: every field required, nothing else)."""
    families = sorted({*KNOWN_WRONG_FAMILIES, OTHER_FAMILY})
    return {
        "type": "object",
        "properties": {
            "question": {"type": "string"},
            "oracle": {"type": "string"},
            "known_wrong": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "value": {"type": "string"},
                        "reason": {"type": "string"},
                        "family": {"type": "string", "enum": families},
                    },
                    "required": ["value", "reason", "family"],
                    "additionalProperties": False,
                },
            },
        },
        "required": ["question", "oracle", "known_wrong"],
        "additionalProperties": False,
    }


def _printed_tables(table_cells: pl.DataFrame | None, table_ids: list[str]) -> dict[str, list]:
    """table_id -> rows of ``(row_idx, row_label, [(col_idx, text), ...])``."""
    if table_cells is None or table_cells.is_empty():
        return {}
    cells = table_cells.filter(pl.col("table_id").is_in(table_ids)).sort(
        "table_id", "row_idx", "col_idx"
    )
    out: dict[str, dict[int, tuple[str, list]]] = {}
    for c in cells.select("table_id", "row_idx", "col_idx", "row_label", "text").iter_rows():
        table_id, r, col, label, text = c
        row = out.setdefault(table_id, {}).setdefault(r, (label or "", []))
        row[1].append((col, text or ""))
    return {
        t: [(r, lab, cols) for r, (lab, cols) in sorted(rows.items())] for t, rows in out.items()
    }


class ContextBuilder:
    """Builds the prompt of every candidate of one archive (tables indexed once)."""

    def __init__(
        self,
        archive: Archive,
        candidates: list[tuple[TaskSpec, dict]],
        table_cells: pl.DataFrame | None = None,
    ) -> None:
        self.archive = archive
        self.tables = {t.table_id: t for t in archive.tables}
        wanted = sorted({f.table_id for spec, _ in candidates for f in spec.inputs})
        self.printed = _printed_tables(table_cells, wanted)
        # one worked example per kind: the first candidate of the kind
        self.examples: dict[str, list[dict]] = {}
        for spec, row in candidates:
            self.examples.setdefault(spec.kind, []).append(row)

    def _example(self, spec: TaskSpec, row: dict) -> dict:
        """A template draft of the same kind over other cells (any kind when none)."""
        own = {f.table_id for f in spec.inputs}
        pools = [self.examples.get(spec.kind, []), *self.examples.values()]
        for pool in pools:
            for other in pool:
                tables = {f"{s['doc_id']}:{s['page_no']}:{s['table_no']}" for s in other["sources"]}
                if other["task_id"] != row["task_id"] and not tables & own:
                    return {"question": other["question"], "oracle": other["oracle_source"]}
        for pool in pools:
            for other in pool:
                if other["task_id"] != row["task_id"]:
                    return {"question": other["question"], "oracle": other["oracle_source"]}
        return {}

    def _cell(self, name: str, fact: Fact) -> dict:
        return {
            "var": name,
            "row_label": fact.row_label,
            "col_label": fact.col_label,
            "item": fact.item,
            "period": fact.period.text,
            "value": fact.value_str,
            "printed": fact.printed_str,
            "status": fact.status,
            "is_total": fact.is_total,
            "call": cell_call(fact, self.archive),
        }

    def _table(self, table_id: str, read: set[tuple[int, int]]) -> dict:
        table = self.tables.get(table_id)
        doc, page, number = table_id.rsplit(":", 2)
        anchored = {(f.row_idx, f.col_idx): f.status for f in table.grid.values()} if table else {}
        heads: dict[int, str] = {}
        if table is not None:
            for f in table.grid.values():
                heads.setdefault(f.col_idx, f.col_label)
        rows = []
        printed = self.printed.get(table_id, [])
        shown = {r for r, _, _ in printed[:MAX_TABLE_ROWS]} | {r for r, _ in read}
        for r, label, cols in printed:
            if r not in shown:
                continue
            cells = []
            for c, text in cols:
                status = anchored.get((r, c))
                mark = "*" if (r, c) in read else ""
                cells.append(f"c{c}{mark}: {text}" + (f" [{status}]" if status else ""))
            rows.append(f"r{r} {label} | " + " | ".join(cells))
        return {
            "doc": doc,
            "page": int(page),
            "table": int(number),
            "statement": table.statement if table else "",
            "unit": table.unit if table else "",
            "columns": {f"c{c}": head for c, head in sorted(heads.items())},
            "rows": rows,
        }

    def context(self, spec: TaskSpec, row: dict) -> dict:
        names = [f"x{i + 1}" for i in range(len(spec.inputs))]
        by_table: dict[str, set[tuple[int, int]]] = {}
        for f in spec.inputs:
            by_table.setdefault(f.table_id, set()).add((f.row_idx, f.col_idx))
        return {
            "task": {
                "kind": spec.kind,
                "operation": spec.formula,
                "operation_in_words": OPERATION_WORDS.get(spec.formula, spec.formula),
                "unit": spec.unit,
                "precision": spec.places,
                "reference_question": spec.question,
            },
            "cells": [self._cell(n, f) for n, f in zip(names, spec.inputs, strict=True)],
            "tables": [self._table(t, read) for t, read in by_table.items()],
            "example": self._example(spec, row),
        }

    def prompt(self, spec: TaskSpec, row: dict) -> str:
        """The user message: instructions, the oracle API and the context as JSON."""
        context = json.dumps(self.context(spec, row), indent=1, ensure_ascii=False)
        return (
            "Draft one task for the candidate below.\n\n"
            "Rules for the question: keep the reference question's period phrase, unit "
            "sentence, precision sentence and sign sentence in the same forms (validation "
            "reads them back); name the table by its statement as the reference does; "
            "name each item by its label; never name the document, page or volume.\n\n"
            f"Oracle API:\n{API_TEXT}\n\n"
            "Read each cell with exactly the call given for it. Table rows are encoded as "
            "'r<row> <label> | c<col>: <printed text> [anchor status]', a '*' marks the "
            "cells this task reads.\n\n"
            f"```json\n{context}\n```\n"
        )


def repair_prompt(problems: list[str]) -> str:
    """The follow-up message of a repair round: every problem validation found."""
    listed = "\n".join(f"- {p}" for p in problems)
    return (
        "Your draft failed validation:\n"
        f"{listed}\n"
        "Return the whole corrected draft (question, oracle, known_wrong) as the same JSON object."
    )


def decimal_or_none(text: object) -> Decimal | None:
    try:
        value = Decimal(str(text).strip().replace(",", ""))
    except ArithmeticError:
        return None
    return value if value.is_finite() else None
