"""Score rebuilt tables against ground truth, and check real questions against real pages.

:func:`evaluate_tables` compares ``tables`` / ``table_cells`` with the synthetic
corpus's truth (``truth_tables``, ``truth_cells``): table detection recall and
precision, numeric cell accuracy (value *and* grid position) overall and per page
quality tag, and header / row-label match rates. Each wrong cell is attributed to OCR
(the printed figure is nowhere among the page's words) or to layout (it is, but the
table reader put something else at that grid position).

:func:`officeqa_presence` checks, for OfficeQA questions whose answer is one printed
figure, whether that figure is among the cells of the cited page.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path

import polars as pl

from pipeline.tables.numbers import parse_number

PDF_POINTS = (612.0, 792.0)  # US letter: truth boxes are in points on the unskewed page


@dataclass
class TableScores:
    """How well the rebuilt tables match the truth."""

    n_truth_tables: int
    n_found_tables: int
    n_matched: int
    recall: float  # truth tables found
    precision: float  # found tables (in the truth's documents) that are real
    n_cells: int  # truth cells with a printed figure
    cell_accuracy: float  # right figure at the right (row, col); a missed table counts wrong
    cell_accuracy_matched: float  # same, over matched tables only
    header_match: float  # column labels equal to the truth (normalised)
    row_label_match: float  # row labels equal to the truth (normalised)
    by_quality: pl.DataFrame  # quality, n_tables, recall, n_cells, cell_accuracy
    errors: pl.DataFrame  # one row per wrong cell, with its cause (ocr | layout | missed_table)
    matches: pl.DataFrame  # truth table -> found table

    def summary(self) -> str:
        """A short human-readable report."""
        lines = [
            f"tables: truth {self.n_truth_tables}, found {self.n_found_tables}, matched "
            f"{self.n_matched} (recall {self.recall:.3f}, precision {self.precision:.3f})",
            f"numeric cells: {self.n_cells}, accuracy {self.cell_accuracy:.4f} "
            f"(matched tables {self.cell_accuracy_matched:.4f})",
            f"headers {self.header_match:.3f}, row labels {self.row_label_match:.3f}",
        ]
        for r in self.by_quality.iter_rows(named=True):
            lines.append(
                f"  {r['quality']:<12} tables {r['n_tables']:>3} recall {r['recall']:.3f} "
                f"cells {r['n_cells']:>5} accuracy {r['cell_accuracy']:.4f}"
            )
        if self.errors.height:
            causes = self.errors.group_by("cause").len().sort("cause")
            lines.append(
                "  wrong cells by cause: " + ", ".join(f"{c}={n}" for c, n in causes.iter_rows())
            )
        return "\n".join(lines)


def evaluate_tables(
    tables: pl.DataFrame,
    table_cells: pl.DataFrame,
    truth_dir: str | Path,
    documents: pl.DataFrame,
    pages: pl.DataFrame,
    words: pl.DataFrame | None = None,
) -> TableScores:
    """Score ``tables``/``table_cells`` against ``truth_dir`` (the synth corpus truth).

    Truth files are tied to documents by ``documents.file_name``. A truth table is
    matched to the found table on the same page with the best box overlap (truth boxes
    are PDF points, found boxes page-image pixels scaled by ``pages.width_px``), falling
    back to the same ``table_no``. ``words`` (optional) lets each wrong cell be
    attributed to OCR or layout.
    """
    truth_dir = Path(truth_dir)
    docs = documents.select("doc_id", "file_name")
    # glob=False: the truth folder's path may hold [ ] * ?, which polars would expand
    truth_tables = pl.read_parquet(truth_dir / "truth_tables.parquet", glob=False)
    truth_tables = truth_tables.join(docs, on="file_name")
    truth_cells = pl.read_parquet(truth_dir / "truth_cells.parquet", glob=False)
    truth_cells = truth_cells.join(docs, on="file_name")
    page_info = pages.select("doc_id", "page_no", "quality", "width_px", "height_px")
    truth_tables = truth_tables.join(page_info, on=["doc_id", "page_no"], how="left")
    found = tables.filter(pl.col("doc_id").is_in(truth_tables["doc_id"].unique().implode()))
    found = found.join(page_info.drop("quality"), on=["doc_id", "page_no"], how="left")
    matches = match_tables(truth_tables, found)

    cells = _score_cells(truth_cells, table_cells, matches, words)
    matched_tables = matches.filter(pl.col("table_id").is_not_null())
    n_truth, n_matched = truth_tables.height, matched_tables.height
    header, rowlab = _label_match(truth_tables, tables, matches, table_cells)
    by_quality = _by_quality(truth_tables, matches, cells)
    matched_cells = cells.filter(pl.col("cause") != "missed_table")
    return TableScores(
        n_truth_tables=n_truth,
        n_found_tables=found.height,
        n_matched=n_matched,
        recall=n_matched / n_truth if n_truth else 0.0,
        precision=n_matched / found.height if found.height else 0.0,
        n_cells=cells.height,
        cell_accuracy=_mean(cells["correct"]),
        cell_accuracy_matched=_mean(matched_cells["correct"]),
        header_match=header,
        row_label_match=rowlab,
        by_quality=by_quality,
        errors=cells.filter(~pl.col("correct")),
        matches=matches,
    )


def match_tables(truth_tables: pl.DataFrame, found: pl.DataFrame) -> pl.DataFrame:
    """Truth table -> found ``table_id`` (null when none): best box overlap on the page."""
    rows = []
    found_by_page: dict[tuple[str, int], list[dict]] = {}
    for r in found.iter_rows(named=True):
        found_by_page.setdefault((r["doc_id"], r["page_no"]), []).append(r)
    for (doc_id, page_no), group in truth_tables.group_by(
        ["doc_id", "page_no"], maintain_order=True
    ):
        candidates = found_by_page.get((doc_id, page_no), [])
        pairs = []
        for t in group.iter_rows(named=True):
            for f in candidates:
                pairs.append(
                    (_overlap(t, f), t["table_no"] == f["table_no"], t["table_no"], f["table_id"])
                )
        taken_t: set[int] = set()
        taken_f: set[str] = set()
        chosen: dict[int, str] = {}
        for ov, same_no, t_no, f_id in sorted(pairs, key=lambda p: (-p[0], not p[1])):
            if t_no in taken_t or f_id in taken_f or (ov < 0.2 and not same_no):
                continue
            chosen[t_no] = f_id
            taken_t.add(t_no)
            taken_f.add(f_id)
        for t in group.iter_rows(named=True):
            rows.append(
                {
                    "doc_id": doc_id,
                    "page_no": page_no,
                    "table_no": t["table_no"],
                    "table_id": chosen.get(t["table_no"]),
                }
            )
    return pl.DataFrame(
        rows,
        schema={
            "doc_id": pl.String,
            "page_no": pl.Int32,
            "table_no": pl.Int32,
            "table_id": pl.String,
        },
    )


def _overlap(truth: dict, found: dict) -> float:
    """Intersection over the smaller box, both in PDF points."""
    sx = PDF_POINTS[0] / found["width_px"] if found.get("width_px") else 72 / 300
    sy = PDF_POINTS[1] / found["height_px"] if found.get("height_px") else 72 / 300
    fx0, fy0, fx1, fy1 = found["x0"] * sx, found["y0"] * sy, found["x1"] * sx, found["y1"] * sy
    w = min(truth["x1"], fx1) - max(truth["x0"], fx0)
    h = min(truth["y1"], fy1) - max(truth["y0"], fy0)
    if w <= 0 or h <= 0:
        return 0.0
    smaller = min(
        (truth["x1"] - truth["x0"]) * (truth["y1"] - truth["y0"]), (fx1 - fx0) * (fy1 - fy0)
    )
    return w * h / smaller if smaller > 0 else 0.0


def _score_cells(
    truth_cells: pl.DataFrame,
    table_cells: pl.DataFrame,
    matches: pl.DataFrame,
    words: pl.DataFrame | None,
) -> pl.DataFrame:
    """One row per truth figure: the found cell at its grid position and whether it is right."""
    found = table_cells.select(
        "table_id",
        "row_idx",
        "col_idx",
        pl.col("text").alias("found_text"),
        "value_str",
        "is_number",
    )
    scored = (
        truth_cells.join(matches, on=["doc_id", "page_no", "table_no"], how="left")
        .join(found, on=["table_id", "row_idx", "col_idx"], how="left")
        .with_columns(
            pl.struct("printed_value_str", "value_str")
            .map_elements(
                lambda s: _same_value(s["printed_value_str"], s["value_str"]),
                return_dtype=pl.Boolean,
            )
            .alias("correct")
        )
    )
    scored = scored.with_columns(pl.col("correct").fill_null(False))
    return scored.with_columns(_causes(scored, words).alias("cause"))


def _same_value(expected: str | None, got: str | None) -> bool:
    if expected is None or got is None:
        return False
    try:
        return Decimal(expected) == Decimal(got)
    except InvalidOperation:
        return False


def _causes(scored: pl.DataFrame, words: pl.DataFrame | None) -> pl.Series:
    """ok | missed_table | ocr (figure not among the page's words) | layout (it is)."""
    page_figures: dict[tuple[str, int], set[str]] = {}
    if words is not None:
        for (doc_id, page_no), g in words.group_by(["doc_id", "page_no"]):
            figs = set()
            for text in g["text"].to_list():
                n = parse_number(text)
                if n is not None:
                    figs.add(str(n.decimal.copy_abs()))
            page_figures[(doc_id, page_no)] = figs
    out = []
    for r in scored.select(
        "doc_id", "page_no", "table_id", "correct", "printed_value_str"
    ).iter_rows():
        doc_id, page_no, table_id, correct, printed = r
        if correct:
            out.append("ok")
        elif table_id is None:
            out.append("missed_table")
        elif words is None:
            out.append("unknown")
        else:
            target = str(Decimal(printed).copy_abs()) if printed else ""
            out.append("layout" if target in page_figures.get((doc_id, page_no), set()) else "ocr")
    return pl.Series(out, dtype=pl.String)


def _norm(text: str | None) -> str:
    return re.sub(r"\s+", " ", (text or "").strip().casefold())


def _label_match(
    truth_tables: pl.DataFrame,
    tables: pl.DataFrame,
    matches: pl.DataFrame,
    table_cells: pl.DataFrame,
) -> tuple[float, float]:
    """Share of column labels and of row labels equal to the truth (case and spacing aside)."""
    found_cols = dict(zip(tables["table_id"], tables["col_labels"].to_list(), strict=True))
    row_labels: dict[str, dict[int, str]] = {}
    for tid, ridx, label in (
        table_cells.select("table_id", "row_idx", "row_label").unique().iter_rows()
    ):
        row_labels.setdefault(tid, {})[ridx] = label
    keyed = truth_tables.join(matches, on=["doc_id", "page_no", "table_no"])
    col_hits = col_total = row_hits = row_total = 0
    for t in keyed.iter_rows(named=True):
        col_total += len(t["col_labels"])
        row_total += len(t["row_labels"])
        if t["table_id"] is None:
            continue
        got_cols = found_cols.get(t["table_id"], [])
        col_hits += sum(
            _norm(a) == _norm(b) for a, b in zip(t["col_labels"], got_cols, strict=False)
        )
        got_rows = row_labels.get(t["table_id"], {})
        row_hits += sum(
            _norm(lab) == _norm(got_rows.get(i)) for i, lab in enumerate(t["row_labels"])
        )
    return (col_hits / col_total if col_total else 0.0, row_hits / row_total if row_total else 0.0)


def _by_quality(
    truth_tables: pl.DataFrame, matches: pl.DataFrame, cells: pl.DataFrame
) -> pl.DataFrame:
    tq = truth_tables.select("doc_id", "page_no", "table_no", "quality").join(
        matches, on=["doc_id", "page_no", "table_no"]
    )
    per_table = tq.group_by("quality").agg(
        pl.len().alias("n_tables"), pl.col("table_id").is_not_null().mean().alias("recall")
    )
    per_cell = (
        cells.join(
            truth_tables.select("doc_id", "page_no", "table_no", "quality"),
            on=["doc_id", "page_no", "table_no"],
        )
        .group_by("quality")
        .agg(pl.len().alias("n_cells"), pl.col("correct").mean().alias("cell_accuracy"))
    )
    return per_table.join(per_cell, on="quality", how="left").sort("quality")


def _mean(series: pl.Series) -> float:
    return float(series.cast(pl.Float64).mean()) if series.len() else 0.0


_MONTHS = {calendar.month_name[i].lower(): i for i in range(1, 13)}
_FRASER = re.compile(r"/(?P<month>[a-z]+)-(?P<year>\d{4})-\d+\?page=(?P<page>\d+)")

OFFICEQA_SCHEMA = {
    "uid": pl.String,
    "answer": pl.String,
    "file_name": pl.String,
    "page_no": pl.Int32,
    "doc_found": pl.Boolean,  # the cited volume is among the documents
    "n_page_cells": pl.Int32,  # numeric table cells on the cited page
    "match": pl.String,  # exact | scaled | rounded | none | not_a_number
    "matched_text": pl.String,  # the cell text that matched
    "in_words": pl.Boolean,  # the figure is among the page's OCR words (null without words)
}


def cited_pages(source_docs: str) -> list[tuple[str, int]]:
    """(PDF file name, 1-based page) per FRASER link: ``.../january-1941-6529?page=15``."""
    out = []
    for m in _FRASER.finditer(source_docs or ""):
        month = _MONTHS.get(m["month"])
        if month:
            out.append((f"treasury_bulletin_{m['year']}_{month:02d}.pdf", int(m["page"])))
    return out


def officeqa_presence(
    questions: pl.DataFrame,
    documents: pl.DataFrame,
    table_cells: pl.DataFrame,
    words: pl.DataFrame | None = None,
) -> pl.DataFrame:
    """Is each question's answer printed among the table cells of the page it cites?

    ``questions`` has the OfficeQA columns ``uid``, ``answer``, ``source_docs`` (FRASER
    links; ``?page=N`` is the 1-based PDF page). One row per cited page (see
    ``OFFICEQA_SCHEMA``). ``match`` is ``exact`` (same value), ``scaled`` (the same value
    in another base: x1,000 or /1,000, e.g. an answer in billions printed in millions),
    ``rounded`` (a printed figure that rounds to the answer at the answer's precision,
    in any of those bases), or ``none``. An answer that is a computed figure (a ratio, a
    difference) is expected to be ``none``; the check is meant for one-figure answers.
    """
    docs = dict(zip(documents["file_name"], documents["doc_id"], strict=True))
    numeric = table_cells.filter(pl.col("is_number"))
    by_page: dict[tuple[str, int], list[tuple[str, Decimal]]] = {}
    for doc_id, page_no, text, value_str in numeric.select(
        "doc_id", "page_no", "text", "value_str"
    ).iter_rows():
        by_page.setdefault((doc_id, page_no), []).append((text, Decimal(value_str)))
    page_words: dict[tuple[str, int], set[Decimal]] = {}
    if words is not None:
        for doc_id, page_no, text in words.select("doc_id", "page_no", "text").iter_rows():
            n = parse_number(text)
            if n is not None:
                page_words.setdefault((doc_id, page_no), set()).add(n.decimal.copy_abs())
    rows = []
    for q in questions.iter_rows(named=True):
        answer = _answer_value(q["answer"])
        for file_name, page_no in cited_pages(q["source_docs"]):
            doc_id = docs.get(file_name)
            cells = by_page.get((doc_id, page_no), []) if doc_id else []
            match, text = ("not_a_number", None) if answer is None else _find(answer, cells)
            in_words = None
            if words is not None and doc_id and answer is not None:
                found = page_words.get((doc_id, page_no), set())
                in_words = any(answer.copy_abs() * k in found for k in _BASES)
            rows.append(
                {
                    "uid": q["uid"],
                    "answer": q["answer"],
                    "file_name": file_name,
                    "page_no": page_no,
                    "doc_found": doc_id is not None,
                    "n_page_cells": len(cells),
                    "match": match,
                    "matched_text": text,
                    "in_words": in_words,
                }
            )
    return pl.DataFrame(rows, schema=OFFICEQA_SCHEMA)


_BASES = (Decimal(1), Decimal(1000), Decimal("0.001"))


def _answer_value(answer: str) -> Decimal | None:
    """The figure of an answer like "2,602", "1169.41 million" or "9.89%"."""
    text = re.sub(r"(?i)\b(million|billion|thousand)s?\b|%|\$", "", answer or "").strip()
    n = parse_number(text)
    return n.decimal if n is not None and not n.is_dash else None


def _find(answer: Decimal, cells: list[tuple[str, Decimal]]) -> tuple[str, str | None]:
    target = answer.copy_abs()
    for text, value in cells:
        if value.copy_abs() == target:
            return "exact", text
    for text, value in cells:
        if any(value.copy_abs() == target * k for k in _BASES[1:]):
            return "scaled", text
    places = max(-target.as_tuple().exponent, 0)
    quantum = Decimal(1).scaleb(-places)
    for text, value in cells:
        for k in _BASES:
            scaled = value.copy_abs() / k
            # Only figures of the answer's size can round to it (and quantize stays exact).
            if value != 0 and abs(scaled - target) < 1 and scaled.quantize(quantum) == target:
                return "rounded", text
    return "none", None
