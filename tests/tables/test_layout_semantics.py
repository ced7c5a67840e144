"""Table semantics through real OCR, layout by layout: the generated corpus that prints
every real bulletin layout (``layout_corpus``: 2 volumes, 150/120 dpi) is ingested, OCR'd
and rebuilt by the table stage, and each layout's statement, unit, period, dimension, row
labels and parents are scored against the truth (pipeline.synth.layout_scores).

The minimums are what the pipeline reached when the layouts were added, less a small
margin for cell and row counts; a layout printed in two tables counts 0.5 per table, so
its table-level scores (statement, unit, unit source) must stay as measured.
"""

from __future__ import annotations

import shutil

import polars as pl
import pytest

from pipeline.synth.layout_scores import METRICS, score_layouts

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tesseract") is None, reason="tesseract is not installed"),
]

# Measured (statement, unit, unit_source, period, dimension, row_label, row_parent).
# Known misses: tesseract drops the budget table's column head "Millions of dollars" in
# one volume (unit unknown, source none; in the other it is read from the column heads);
# "Manufacturers'", a label of one word, is lost (its curly apostrophe read at OCR
# confidence 0-17, under lines.MIN_WORD_CONF; "Veterans'" opening "Veterans' life
# insurance" is kept since lines._inside_phrase keeps a possessive opening a phrase).
MEASURED = {
    "all": (1, 0.944, 0.944, 0.998, 0.998, 0.992, 1),
    "as_of": (1, 1, 1, 1, 1, 1, 1),
    "chart": (1, 1, 1, 1, 1, 1, 1),
    "classic": (1, 1, 1, 0.996, 0.996, 0.979, 1),
    "continued": (1, 1, 1, 1, 1, 1, 1),
    "cumulative": (1, 0.5, 0, 1, 1, 1, 1),
    "dims": (1, 1, 1, 1, 1, 1, 1),
    "estimates": (1, 0.5, 0, 1, 1, 1, 1),
    "fiscal_years": (1, 0.833, 0.667, 0.996, 0.996, 0.98, 1),
    "headings": (1, 1, 1, 1, 1, 1, 1),
    "hyphenated": (1, 1, 1, 1, 1, 1, 1),
    "label_marks": (1, 0.5, 0, 1, 1, 1, 1),
    "leaders": (1, 1, 1, 1, 1, 1, 1),
    "month_year_rows": (1, 1, 1, 1, 1, 1, 1),
    "months": (1, 1, 1, 1, 1, 1, 1),
    "not_a_period": (1, 1, 1, 1, 1, 1, 1),
    "quarters": (1, 1, 1, 1, 1, 1, 1),
    "unit_column_head": (1, 0.5, 0.5, 1, 1, 1, 1),
    "unit_line": (1, 1, 1, 0.997, 0.997, 0.984, 1),
    "unit_none": (1, 1, 1, 1, 1, 1, 1),
    "unit_page_head": (1, 1, 1, 1, 1, 1, 1),
    "unit_title": (1, 1, 1, 1, 1, 1, 1),
    "wrapped": (1, 1, 1, 1, 1, 1, 1),
    "year_to_date": (1, 0.5, 0, 1, 1, 1, 1),
}
TABLE_LEVEL = ("statement", "unit", "unit_source")
MARGIN = 0.02  # for cell and row accuracies (periods, dimensions, labels, parents)


@pytest.fixture(scope="module")
def ocr_reading(layout_corpus, tmp_path_factory):
    """``layout_corpus`` through ingest, page rendering, OCR and the table stage."""
    from pipeline.config import data_paths
    from pipeline.ingest.ocr import build_words
    from pipeline.ingest.scans import build_pages, ingest_documents
    from pipeline.store import BlobStore, Warehouse
    from pipeline.tables.layout import build_tables

    paths = data_paths(tmp_path_factory.mktemp("layouts_ocr") / "data")
    warehouse, blobs = Warehouse(paths), BlobStore(paths.blobs_url)
    ingest_documents([("synth-scans", layout_corpus.root)], warehouse, blobs)
    pages = build_pages(warehouse, blobs, workers=2)
    build_words(warehouse, blobs, workers=2, progress=False)
    tables, cells = build_tables(warehouse.read("words"), pages)
    return tables, cells, warehouse.read("documents"), pages


@pytest.fixture(scope="module")
def scores(ocr_reading, layout_corpus) -> tuple[pl.DataFrame, pl.DataFrame]:
    tables, cells, documents, pages = ocr_reading
    return score_layouts(tables, cells, layout_corpus.truth_dir, documents, pages)


def _report(acc: pl.DataFrame, items: pl.DataFrame) -> str:
    wrong = items.filter(~pl.col("ok")).unique(["metric", "where"], maintain_order=True)
    lines = [str(acc)]
    for r in wrong.head(40).iter_rows(named=True):
        lines.append(f"{r['metric']} {r['where']}: truth {r['truth']!r}, read {r['got']!r}")
    return "\n".join(lines)


def test_every_layout_is_read_as_well_as_when_it_was_added(scores) -> None:
    acc, items = scores
    assert set(MEASURED) <= set(acc["layout"]), _report(acc, items)
    by_layout = {r["layout"]: r for r in acc.iter_rows(named=True)}
    slips = []
    for layout, measured in MEASURED.items():
        for metric, value in zip(METRICS, measured, strict=True):
            floor = value if metric in TABLE_LEVEL else value - MARGIN
            got = by_layout[layout][metric]
            if got < floor - 0.001:  # the measured values are rounded to 3 places
                slips.append(f"{layout}/{metric}: {got:.3f} < {floor:.3f}")
    assert not slips, "\n".join(slips) + "\n" + _report(acc, items)


def test_no_legend_becomes_a_title_and_continued_tables_keep_their_statement(scores) -> None:
    acc, items = scores
    statements = items.filter(pl.col("metric") == "statement")
    for layout in ("chart", "continued", "unit_title", "not_a_period", "unit_column_head"):
        mine = statements.filter(pl.col("layout").list.contains(layout))
        assert mine.height >= 2 and mine["ok"].all(), _report(acc, items)


def test_maturity_years_are_never_read_as_periods(scores) -> None:
    acc, items = scores
    periods = items.filter(
        (pl.col("metric") == "period") & pl.col("layout").list.contains("not_a_period")
    )
    assert periods.height > 20 and periods["ok"].all(), _report(acc, items)


def test_a_unit_in_a_column_head_is_read_as_a_column_head(scores) -> None:
    """'Millions of dollars' printed over the value columns is a column head, never the
    table's unit line; where tesseract drops that line (one volume) the unit is unknown
    (source none), not guessed."""
    acc, items = scores
    source = items.filter(
        (pl.col("metric") == "unit_source") & pl.col("layout").list.contains("unit_column_head")
    )
    assert source["ok"].any(), _report(acc, items)
    assert (source["ok"] | (source["got"] == "none")).all(), _report(acc, items)
