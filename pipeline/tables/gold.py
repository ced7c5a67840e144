"""Score a build's table semantics against hand-labelled gold tables of real pages.

The gold set (``tests/gold/treasury/*.jsonl``, format in its README) says, for tables a
person read on the page image, the title, the unit, each value column's (or row's)
period, each row's label and parent, and which rows are totals. A gold table is matched
to the built table on the same page whose rows best align with it (by the first figure
printed on each row, then by label); fields are then compared one by one:

- ``title``: the built statement name equals the gold title (case, spacing and edge
  punctuation ignored; a near-identical OCR reading, rapidfuzz ratio >= 92, counts);
- ``unit``: the same scale and kind (dollars, thousands, millions, billions, percent,
  unknown);
- ``period``: per gold period slot (a value column, or a row where rows are periods), the
  built cell's period has the same kind, start and end. In a cross table (column heads
  that name a period without its year, "Jan." ... "Dec.", "Total", over rows of years:
  the gold column period has a kind and no dates) a cell's period comes from its row and
  column together: a column slot wants the column's kind on a cell within its row's
  period, and a row slot is read on the column of the row's own kind ("Total" for a
  calendar-year row);
- ``column_header``: per gold column, the built column's header path (levels joined by
  " / ", period words included) equals the gold ``header`` after the normalisation labels
  get (case, spacing, footnote marks, column numbers, words broken at a hyphen);
- ``column_header_safe``: per gold column, the path is right, or empty, or the build
  marked it uncertain (``col_label_doubt``): no question names the column by a wrong path;
- ``dimension``: per gold column, the built cell's dimension equals the gold one (both
  empty counts as equal);
- ``row_label`` (exact after normalising case and spacing), ``row_parent``, ``is_total``:
  per matched row.

Missing tables, columns and rows count as wrong for every field they carry.
"""

from __future__ import annotations

import difflib
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl
from rapidfuzz import fuzz

FIELDS = (
    "table",
    "title",
    "unit",
    "period",
    "column_header",
    "column_header_safe",
    "dimension",
    "row_label",
    "row_parent",
    "is_total",
)


def load_gold(path: str | Path) -> list[dict]:
    """Every gold table of a ``.jsonl`` file or of every ``*.jsonl`` in a folder."""
    path = Path(path)
    files = sorted(path.glob("*.jsonl")) if path.is_dir() else [path]
    out = []
    for f in files:
        for n, line in enumerate(f.read_text(encoding="utf-8").splitlines(), start=1):
            if line.strip():
                try:
                    out.append({**json.loads(line), "_source": f"{f.name}:{n}"})
                except json.JSONDecodeError as exc:
                    raise ValueError(f"{f}:{n}: not a JSON object ({exc})") from exc
    return out


def norm_label(text: str | None) -> str:
    """A label as compared: case, spacing, edge punctuation and the typographic forms
    of one mark ignored. Dashes fold to a hyphen; the curly apostrophe to the straight
    one: tesseract reads the straight apostrophe of "Veterans'" as a curly one, and the
    gold set transcribes either ("Respondents\u2019 own claims", 2006-12)."""
    text = (text or "").lower().replace("\u2014", "-").replace("\u2013", "-")
    text = text.replace("\u2019", "'")
    text = re.sub(r"\s+", " ", text)
    return text.strip(" .,:;-*")


def norm_header(path: str | None) -> str:
    """A column header path compared level by level as labels are: footnote marks and
    column numbers dropped, words broken at a hyphen joined, case and spacing ignored."""
    from pipeline.tables.labels import clean_header_path

    return " / ".join(norm_label(level) for level in clean_header_path(path or "").split(" / "))


def _digits(text: str | None) -> str:
    return re.sub(r"\D", "", text or "")


def unit_scale(unit: str | None) -> str:
    """A unit reduced to what a key depends on: its scale (and percent / unknown)."""
    u = (unit or "unknown").lower()
    for word in ("billion", "million", "thousand", "percent", "unknown"):
        if word in u:
            return word
    return "ones" if "dollar" in u else u


@dataclass
class GoldScores:
    """Per-field correct / total counts, and every mismatch for inspection."""

    counts: dict[str, list[int]] = field(default_factory=lambda: {f: [0, 0] for f in FIELDS})
    by_volume: dict[str, dict[str, list[int]]] = field(default_factory=dict)
    mismatches: list[dict] = field(default_factory=list)

    def add(self, volume: str, name: str, ok: bool, where: str, gold: object, got: object) -> None:
        for bucket in (self.counts, self.by_volume.setdefault(volume, {f: [0, 0] for f in FIELDS})):
            bucket[name][0] += int(ok)
            bucket[name][1] += 1
        if not ok:
            self.mismatches.append(
                {"field": name, "where": where, "gold": str(gold), "built": str(got)}
            )

    def accuracy(self, name: str) -> float:
        right, total = self.counts[name]
        return right / total if total else float("nan")

    def summary(self) -> str:
        lines = [f"  {f}: {self.accuracy(f):.3f} ({c[0]}/{c[1]})" for f, c in self.counts.items()]
        lines.append("  per volume (title / unit / period / column_header / row_label):")
        for volume, c in sorted(self.by_volume.items()):
            cols = []
            for f in ("title", "unit", "period", "column_header", "row_label"):
                cols.append(f"{c[f][0]}/{c[f][1]}")
            lines.append(f"    {volume}: " + "  ".join(cols))
        return "\n".join(lines)

    def mismatch_frame(self) -> pl.DataFrame:
        schema = {"field": pl.String, "where": pl.String, "gold": pl.String, "built": pl.String}
        return pl.DataFrame(self.mismatches, schema=schema)


def _period_tuple(p: dict | None) -> tuple[str, str, str] | None:
    if not p or p.get("kind") in (None, "not_a_period"):
        return None
    return (p["kind"], p.get("start") or "", p.get("end") or "")


def _undated(p: tuple[str, str, str]) -> bool:
    """A period slot whose dates the other axis gives ("Jan." over rows of years)."""
    return not p[1] and not p[2]


def _cross_ok(
    got: tuple[str, str, str] | None,
    want: tuple[str, str, str],
    row_period: tuple[str, str, str] | None,
) -> bool:
    """A cross table's column slot: the cell has the column's kind and dates that lie
    within its row's period (a month of the row's year); without a dated row, the kind."""
    if got is None or got[0] != want[0]:
        return False
    if row_period is None or not row_period[1] or not row_period[2]:
        return True
    return _within(got, row_period)


def _within(got: tuple[str, str, str] | None, period: tuple[str, str, str]) -> bool:
    """The built period's dates lie within ``period``'s."""
    return (
        got is not None
        and bool(got[1] and got[2] and period[1] and period[2])
        and period[1] <= got[1] <= got[2] <= period[2]
    )


def _built_period(cell: dict | None) -> tuple[str, str, str] | None:
    if cell is None or cell.get("period_kind") in (None, "not_a_period"):
        return None
    start, end = cell.get("period_start"), cell.get("period_end")
    return (cell["period_kind"], start.isoformat() if start else "", end.isoformat() if end else "")


def _align_rows(gold_rows: list[dict], built_rows: list[dict]) -> dict[int, int]:
    """gold row index -> built row index, aligned by first figure then by label."""
    g_keys = [_digits(r.get("first_value")) or norm_label(r.get("label")) for r in gold_rows]
    b_keys = [r["first_digits"] or norm_label(r["label"]) for r in built_rows]
    pairs: dict[int, int] = {}
    matcher = difflib.SequenceMatcher(a=g_keys, b=b_keys, autojunk=False)
    for block in matcher.get_matching_blocks():
        for k in range(block.size):
            pairs[block.a + k] = block.b + k
    # rows whose figure was misread: pair by label, in order, a row in the gap between
    # the built rows paired to the gold rows around it first (a stub that repeats its
    # labels, "Feb. 7" ... "Feb. 28" under each heading, pairs a row of its own group);
    # a row outside the gap only by a label the built table prints once (side-by-side
    # panels may be read in another order than the gold lists them)
    counts = Counter(norm_label(b["label"]) for b in built_rows)
    used = set(pairs.values())
    for gi, row in enumerate(gold_rows):
        if gi in pairs or row.get("first_value") is None:
            continue
        lo = max((pairs[g] for g in pairs if g < gi), default=-1)
        hi = min((pairs[g] for g in pairs if g > gi), default=len(built_rows))
        best, score = None, (False, 85.0)
        for bi, b in enumerate(built_rows):
            if bi in used or (not lo < bi < hi and counts[norm_label(b["label"])] > 1):
                continue
            s = (lo < bi < hi, fuzz.ratio(norm_label(row.get("label")), norm_label(b["label"])))
            if s[1] >= 85.0 and s >= score:
                best, score = bi, s
        if best is not None:
            pairs[gi] = best
            used.add(best)
    return pairs


def _built_tables(tables: pl.DataFrame, cells: pl.DataFrame, anchored: pl.DataFrame | None):
    totals = set()
    if anchored is not None and not anchored.is_empty():
        for r in anchored.filter(pl.col("is_total")).select("table_id", "row_idx").iter_rows():
            totals.add(r)
    by_table: dict[str, dict] = {}
    for t in tables.iter_rows(named=True):
        by_table[t["table_id"]] = {**t, "rows": {}, "cells": {}}
    for c in cells.iter_rows(named=True):
        t = by_table.get(c["table_id"])
        if t is None:
            continue
        t["cells"][(c["row_idx"], c["col_idx"])] = c
        row = t["rows"].setdefault(
            c["row_idx"],
            {"label": c["row_label"], "parent": c.get("row_parent") or "", "first_digits": ""},
        )
        if not row["first_digits"] and c["is_number"]:
            row["first_digits"] = _digits(c["text"])
        row["is_total"] = (c["table_id"], c["row_idx"]) in totals or bool(
            re.match(r"^\W*(grand\s+)?total\b", c["row_label"] or "", re.IGNORECASE)
        )
    return by_table


def score_gold(
    gold: list[dict],
    documents: pl.DataFrame,
    tables: pl.DataFrame,
    cells: pl.DataFrame,
    anchored: pl.DataFrame | None = None,
) -> GoldScores:
    """Score the built ``tables``/``table_cells`` (warehouse schemas) against ``gold``."""
    doc_of = {r["file_name"]: r["doc_id"] for r in documents.iter_rows(named=True)}
    volume_of = {
        r["file_name"]: r.get("volume") or r["file_name"] for r in documents.iter_rows(named=True)
    }
    built = _built_tables(tables, cells, anchored)
    by_page: dict[tuple[str, int], list[dict]] = {}
    for t in built.values():
        by_page.setdefault((t["doc_id"], t["page_no"]), []).append(t)
    scores = GoldScores()
    for g in gold:
        volume = volume_of.get(g["file"], g["file"])
        where = f"{g['file']} p{g['page']} t{g.get('table_no', 0)}"
        value_rows = [r for r in g["rows"] if not r.get("heading")]
        candidates = by_page.get((doc_of.get(g["file"], ""), g["page"]), [])
        best, pairs, best_key = None, {}, (0, 0)
        for t in candidates:
            rows = [t["rows"][k] for k in sorted(t["rows"])]
            p = _align_rows(value_rows, rows)
            # the table whose rows carry the gold figures, then the most rows paired:
            # two panels of one page can share every row label ("2013 - Dec", "Dec")
            same_figures = sum(
                bool(rows[b]["first_digits"])
                and rows[b]["first_digits"] == _digits(value_rows[g].get("first_value"))
                for g, b in p.items()
            )
            if (same_figures, len(p)) > best_key:
                best, pairs, best_key = t, p, (same_figures, len(p))
        scores.add(
            volume,
            "table",
            best is not None and len(pairs) >= 2,
            where,
            "table",
            best and best["table_id"],
        )
        if best is None or len(pairs) < 2:
            best, pairs = None, {}
        _score_table(scores, volume, where, g, value_rows, best, pairs)
    return scores


def _score_table(scores, volume, where, g, value_rows, best, pairs) -> None:
    statement = best.get("statement") if best else None
    title_ok = best is not None and (
        norm_label(statement) == norm_label(g["title"])
        or fuzz.ratio(norm_label(statement), norm_label(g["title"])) >= 92
    )
    scores.add(volume, "title", title_ok, where, g["title"], statement)
    unit = best.get("unit") if best else None
    scores.add(
        volume,
        "unit",
        best is not None and unit_scale(unit) == unit_scale(g["unit"]),
        where,
        g["unit"],
        unit,
    )
    built_rows = [best["rows"][k] for k in sorted(best["rows"])] if best else []
    row_ids = sorted(best["rows"]) if best else []
    cols = _align_columns(g["columns"], best)
    col_periods = [_period_tuple(col.get("period")) for col in g["columns"]]
    # period slots: value columns with a period, then rows with a period
    for ci, col in enumerate(g["columns"]):
        gp = col_periods[ci]
        if gp is None:
            continue
        cell, row_period = None, None
        if best is not None and ci in cols and pairs:
            for gi, bi in sorted(pairs.items()):
                cell = best["cells"].get((row_ids[bi], cols[ci]))
                if cell is not None:
                    row_period = _period_tuple(value_rows[gi].get("period"))
                    break
        got = _built_period(cell)
        ok = _cross_ok(got, gp, row_period) if _undated(gp) else got == gp
        scores.add(volume, "period", ok, f"{where} col {ci} {col['header']!r}", gp, got)
    _score_columns(scores, volume, where, g, best, pairs, cols, row_ids)
    for gi, row in enumerate(value_rows):
        gp = _period_tuple(row.get("period"))
        if gp is None:
            continue
        cell, within = None, False
        if gi in pairs:
            b = row_ids[pairs[gi]]
            cell = next((c for (r, _), c in sorted(best["cells"].items()) if r == b), None)
            # a cross table: the row's period is the cell's under the column of its kind
            # ("Total" for a calendar-year row); where that column prints no figure (the
            # year not over), the row's first cell must lie within the row's period
            own = [k for k, cp in enumerate(col_periods) if cp and _undated(cp) and cp[0] == gp[0]]
            if own and own[0] in cols:
                total = best["cells"].get((b, cols[own[0]]))
                within = total is None
                cell = total or cell
        got = _built_period(cell)
        ok = got == gp or (within and _within(got, gp))
        scores.add(volume, "period", ok, f"{where} row {row['label']!r}", gp, got)
    for gi, row in enumerate(value_rows):
        b = built_rows[pairs[gi]] if gi in pairs else None
        label = b["label"] if b else None
        scores.add(
            volume,
            "row_label",
            b is not None and norm_label(label) == norm_label(row["label"]),
            where,
            row["label"],
            label,
        )
        parent = b["parent"] if b else None
        scores.add(
            volume,
            "row_parent",
            b is not None and norm_label(parent) == norm_label(row.get("parent")),
            f"{where} row {row['label']!r}",
            row.get("parent"),
            parent,
        )
        is_total = b.get("is_total") if b else None
        scores.add(
            volume,
            "is_total",
            b is not None and bool(is_total) == bool(row.get("is_total")),
            f"{where} row {row['label']!r}",
            row.get("is_total"),
            is_total,
        )


def _score_columns(scores, volume, where, g, best, pairs, cols, row_ids) -> None:
    labels = (best.get("col_labels") or []) if best else []
    for ci, col in enumerate(g["columns"]):
        j = cols.get(ci)
        got = labels[j] if j is not None and j < len(labels) else None
        ok = got is not None and norm_header(got) == norm_header(col["header"])
        scores.add(volume, "column_header", ok, f"{where} col {ci}", col["header"], got)
        cell = None
        if j is not None:
            for _gi, bi in sorted(pairs.items()):
                cell = best["cells"].get((row_ids[bi], j))
                if cell is not None:
                    break
        doubt = (cell or {}).get("col_label_doubt") or ""
        scores.add(
            volume,
            "column_header_safe",
            ok or bool(doubt) or not got,
            f"{where} col {ci}",
            col["header"],
            got,
        )
        dim = (cell.get("dimension") or "") if cell else None
        scores.add(
            volume,
            "dimension",
            dim is not None and norm_header(dim) == norm_header(col.get("dimension")),
            f"{where} col {ci} {col['header']!r}",
            col.get("dimension"),
            dim,
        )


def _align_columns(gold_cols: list[dict], best: dict | None) -> dict[int, int]:
    """gold column index -> built column index (by position when the counts agree,
    else by header similarity)."""
    if best is None:
        return {}
    labels = best.get("col_labels") or []
    if len(labels) == len(gold_cols):
        return {i: i for i in range(len(gold_cols))}
    out: dict[int, int] = {}
    for i, col in enumerate(gold_cols):
        scored = [
            (fuzz.token_set_ratio(norm_label(col["header"]), norm_label(b)), j)
            for j, b in enumerate(labels)
        ]
        if scored:
            s, j = max(scored)
            if s >= 70:
                out[i] = j
    return out
