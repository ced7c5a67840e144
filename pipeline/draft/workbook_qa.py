"""Workbook QA drafts: questions on formula-anchored totals, with oracles and known-wrongs.

Each anchor of :mod:`pipeline.detect.workbook_anchors` (a ``=SUM`` total whose members
are on its sheet) becomes one question: the total of those members, named by their
labels and cell range. The oracle reads every member through
``oracles.api.workbook_cell`` and adds them with ``Decimal``, so the key never comes from
the total's own cached value. Known-wrong answers are the slips a reader of the sheet
makes: the stale cached value (when the total was not recalculated), the off-by-one
range (one row or column fewer at either end, one more where the neighbour is a
number) and the value of the same total in the previous version of the workbook (when a
version chain gives one).

The drafts have the scanned drafts' schema (``DRAFTS_SCHEMA``) so validation and the
release's ``qa`` config take them: a source is (``doc_id`` = workbook sha256,
``page_no`` = sheet index, ``table_no`` = 0, ``row_idx``/``col_idx`` = the 1-based cell
position, its row label and column header); kind ``workbook_total``.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping
from decimal import Decimal

import polars as pl
from openpyxl.utils.cell import coordinate_to_tuple

from pipeline.detect.workbook_anchors import WORKBOOK_ANCHORS_SCHEMA, decimal_of
from pipeline.draft.formulas import decimal_places, interval, round_half_up
from pipeline.draft.schemas import DRAFTS_SCHEMA
from pipeline.store import check_schema

DRAFTER_ID = "workbook-sum-v1"
KIND = "workbook_total"
WORKBOOK_KINDS = frozenset({KIND})
MAX_PLACES = 2
MAX_PER_WORKBOOK = 25
STATUSES = ("confirmed", "stale")


def previous_versions(version_chains: pl.DataFrame) -> dict[str, str]:
    """workbook_id -> the workbook_id of its previous version (``VERSION_CHAINS_SCHEMA``)."""
    links = version_chains.drop_nulls("prev_workbook_id")
    return dict(zip(links["workbook_id"], links["prev_workbook_id"], strict=True))


def task_id_for(anchor: dict) -> str:
    text = f"{KIND}|{anchor['workbook_id']}|{anchor['sheet']}|{anchor['range']}"
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def oracle_source(task_id: str, anchor: dict, places: int, unit: str) -> str:
    """The oracle: read each member through ``workbook_cell``, add, emit once."""
    lines = [
        f'"""Oracle for task {task_id} ({KIND}): the sum of {anchor["sheet"]}!{anchor["range"]}',
        f"recomputed from its cells (the total {anchor['address']} is never read); "
        f'drafted by {DRAFTER_ID}."""',
        "",
        "from oracles.api import D, emit, workbook_cell",
        "",
        f"WORKBOOK = {anchor['workbook_id']!r}",
        f"SHEET = {anchor['sheet']!r}",
        f"MEMBERS = {list(anchor['members'])!r}",
        "",
        "total = D(0)",
        "for address in MEMBERS:",
        "    total += workbook_cell(WORKBOOK, SHEET, address)",
        "",
        f"emit(answer=total, places={places}, unit={unit!r})",
        "",
    ]
    return "\n".join(lines)


def _span(labels: list[str]) -> str:
    named = [x for x in labels if x]
    if len(named) != len(labels) or len(set(named)) != len(named):
        return ""  # a label missing or repeated: the range says it exactly, labels would not
    return f"'{named[0]}' through '{named[-1]}'"


def release_file(workbook_sha256: str) -> str:
    """Where a release ships the workbook a QA task reads (``files/<sha256>.xlsx``): a
    file name alone does not name a workbook (versions share names)."""
    return f"files/{workbook_sha256}.xlsx"


def question_for(anchor: dict, file_name: str, places: int, shipped: str | None = None) -> str:
    """The question a colleague would ask, naming the cells exactly: "What is the total of
    'Amount' for 'item 1' through 'item 4' (cells B2:B5 of sheet 'Budget' in workbook
    'budget.xlsx', file files/<sha256>.xlsx)?" (a total row) or "What is the total of 'Q1'
    through 'Q4' for 'Rent' (cells ...)?" (a total column)."""
    book = f"'{file_name}', file {shipped}" if shipped else f"'{file_name}'"
    where = f"cells {anchor['range']} of sheet '{anchor['sheet']}' in workbook {book}"
    span = _span(list(anchor["member_labels"]))
    header = f"'{anchor['header']}'" if anchor["header"] else ""
    if anchor["axis"] == "column":
        parts = [f"of {header}" if header else "", f"for {span}" if span else ""]
    else:
        parts = [f"of {span}" if span else "", f"for {header}" if header else ""]
    what = " ".join(["the total", *[p for p in parts if p]]) if any(parts) else "the sum"
    unit = "a whole number" if places == 0 else f"{places} decimal place(s)"
    return f"What is {what} ({where})? Give the answer to {unit}."


def _unit(number_format: str | None) -> str:
    fmt = number_format or ""
    if "$" in fmt:
        return "dollars"
    return "unknown"


class _Values:
    """Numeric values of the cells frame by (workbook, sheet, row, col), for the
    workbooks the drafts read (and their previous versions)."""

    def __init__(self, cells: pl.DataFrame | None, workbooks: set[str]):
        self.by_cell: dict[tuple, Decimal] = {}
        self.formats: dict[tuple, str] = {}
        if cells is None:
            return
        part = cells.filter(pl.col("workbook_id").is_in(list(workbooks)))
        for wid, sheet, row, col, value, kind, fmt in part.select(
            "workbook_id", "sheet", "row", "col", "value", "type", "number_format"
        ).iter_rows():
            self.formats[(wid, sheet, row, col)] = fmt
            number = decimal_of(value) if kind in ("I", "F") else None
            if number is not None:
                self.by_cell[(wid, sheet, row, col)] = number

    def get(self, wid: str, sheet: str, row: int, col: int) -> Decimal | None:
        return self.by_cell.get((wid, sheet, row, col))


def _slips(anchor: dict, values: _Values, previous: Mapping[str, str]) -> list[tuple]:
    """(value, reason, family) of every slip, before rounding and filtering."""
    wid, sheet = anchor["workbook_id"], anchor["sheet"]
    members = [Decimal(v) for v in anchor["member_values"]]
    positions = _member_positions(anchor)
    out: list[tuple] = []
    cached = decimal_of(anchor["cached"])
    if anchor["status"] == "stale" and cached is not None:
        out.append((cached, f"the stale cached value of {anchor['address']}", "stale_cached_value"))
    if len(members) > 2:
        out.append(
            (
                sum(members[1:], Decimal(0)),
                "the range one cell short at its start",
                "off_by_one_range",
            )
        )
        out.append(
            (
                sum(members[:-1], Decimal(0)),
                "the range one cell short at its end",
                "off_by_one_range",
            )
        )
    down = anchor["axis"] == "column"
    r1, c1, r2, c2 = (
        anchor["first_row"],
        anchor["first_col"],
        anchor["last_row"],
        anchor["last_col"],
    )
    before = (r1 - 1, c1) if down else (r1, c1 - 1)
    after = (r2 + 1, c2) if down else (r2, c2 + 1)
    total = sum(members, Decimal(0))
    for (r, c), side in ((before, "start"), (after, "end")):
        if (r, c) == (anchor["row"], anchor["col"]) or (r, c) in positions or min(r, c) < 1:
            continue
        extra = values.get(wid, sheet, r, c)
        if extra is not None:
            out.append(
                (total + extra, f"the range one cell longer at its {side}", "off_by_one_range")
            )
    prev = previous.get(wid)
    if prev is not None:
        then = values.get(prev, sheet, anchor["row"], anchor["col"])
        if then is not None:
            out.append((then, f"{anchor['address']} in the previous version", "previous_version"))
    return out


def _member_positions(anchor: dict) -> list[tuple[int, int]]:
    """(row, col) of each member, in the order of ``members``."""
    return [coordinate_to_tuple(a) for a in anchor["members"]]


def known_wrong(anchor: dict, key: Decimal, places: int, values: _Values, previous) -> list[dict]:
    """Every slip rounded to the precision, outside the key's interval, deduplicated."""
    lo, hi = interval(key, places)
    seen: set[Decimal] = set()
    out = []
    for value, reason, family in _slips(anchor, values, previous):
        wrong = round_half_up(value, places)
        if lo <= wrong <= hi or wrong in seen:
            continue
        seen.add(wrong)
        out.append({"value": str(wrong), "reason": reason, "family": family})
    return out


def draft_row(
    anchor: dict,
    file_name: str,
    sheet_index: int,
    values: _Values,
    previous,
    shipped: str | None = None,
) -> dict | None:
    members = [Decimal(v) for v in anchor["member_values"]]
    if sum(m != 0 for m in members) < 2:
        return None  # a sum of zeros (an empty template) asks nothing
    places = min(max(decimal_places(v) for v in anchor["member_values"]), MAX_PLACES)
    exact = sum(members, Decimal(0))
    if exact == 0:
        return None
    key = round_half_up(exact, places)
    task_id = task_id_for(anchor)
    fmt = values.formats.get((anchor["workbook_id"], anchor["sheet"], anchor["row"], anchor["col"]))
    unit = _unit(fmt)
    positions = _member_positions(anchor)
    header_is_column = anchor["axis"] == "column"
    sources = []
    for (row, col), label in zip(positions, anchor["member_labels"], strict=True):
        sources.append(
            {
                "doc_id": anchor["workbook_id"],
                "page_no": sheet_index,
                "table_no": 0,
                "row_idx": row,
                "col_idx": col,
                "row_label": label if header_is_column else anchor["header"],
                "col_label": anchor["header"] if header_is_column else label,
                "period": "",
            }
        )
    return {
        "task_id": task_id,
        "kind": KIND,
        "question": question_for(anchor, file_name, places, shipped),
        "oracle_source": oracle_source(task_id, anchor, places, unit),
        "known_wrong": known_wrong(anchor, key, places, values, previous),
        "unit": unit,
        "precision": places,
        "sources": sources,
        "source_docs": [shipped or file_name],
        "multi_document": False,
        "quality": "clear",
        "expected_answer": str(key),
        "problems": [],
        "drafter": DRAFTER_ID,
        "tokens": 0,
        "cost": 0.0,
    }


def draft_workbook_qa(
    anchors: pl.DataFrame,
    workbooks: pl.DataFrame,
    sheets: pl.DataFrame,
    cells: pl.DataFrame | None = None,
    previous: Mapping[str, str] | None = None,
    *,
    seed: int = 0,
    max_per_workbook: int = MAX_PER_WORKBOOK,
) -> pl.DataFrame:
    """One draft (``DRAFTS_SCHEMA``) per usable anchor, at most ``max_per_workbook`` per
    workbook (a seeded sample). ``cells`` gives the off-by-one neighbours and the
    previous versions' totals; ``previous`` maps a workbook_id to its previous version's
    (see :func:`previous_versions`). Same inputs and seed, same drafts."""
    anchors = check_schema(anchors, WORKBOOK_ANCHORS_SCHEMA, "workbook_anchors")
    previous = dict(previous or {})
    names = dict(zip(workbooks["workbook_id"], workbooks["file_name"], strict=True))
    readable = {  # the .xlsx a solver opens: LibreOffice's conversion of an .xls
        w: c or w for w, c in workbooks.select("workbook_id", "converted_sha256").iter_rows()
    }
    index = {
        (w, s): i for w, s, i in sheets.select("workbook_id", "sheet", "sheet_index").iter_rows()
    }
    usable = anchors.filter(pl.col("status").is_in(list(STATUSES)))
    wanted = set(usable["workbook_id"]) | {
        previous[w] for w in usable["workbook_id"] if w in previous
    }
    values = _Values(cells, wanted)
    rows = []
    for (wid,), part in usable.partition_by(
        "workbook_id", as_dict=True, maintain_order=True
    ).items():
        drafted = []
        for anchor in part.iter_rows(named=True):
            row = draft_row(
                anchor,
                names.get(wid) or wid,
                index.get((wid, anchor["sheet"]), 0),
                values,
                previous,
                release_file(readable.get(wid, wid)),
            )
            if row is not None:
                drafted.append(row)
        if len(drafted) > max_per_workbook:
            picked = sorted(
                random.Random(f"{seed}:{wid}").sample(range(len(drafted)), max_per_workbook)
            )
            drafted = [drafted[i] for i in picked]
        rows += drafted
    return pl.DataFrame(rows, schema=DRAFTS_SCHEMA)
