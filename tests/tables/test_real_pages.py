"""Tables from real Treasury Bulletin pages (skipped where ../shared/data is absent)."""

from __future__ import annotations

import shutil

import polars as pl
import pymupdf
import pytest

from pipeline.config import SHARED_DATA
from pipeline.ingest.ocr import parse_tsv, run_tesseract, tesseract_args, text_layer_words
from pipeline.tables.evaluate import officeqa_presence
from pipeline.tables.layout import build_tables

SCANS = SHARED_DATA / "treasury" / "scans"
QUESTIONS = SHARED_DATA / "treasury" / "officeqa_dev_questions.csv"

pytestmark = [
    pytest.mark.real_data,
    pytest.mark.skipif(not SCANS.exists(), reason=f"real Treasury scans not found under {SCANS}"),
]


def _page_frames(file_name: str, page_no: int, ocr: bool) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Words and a pages row for one real page: its text layer, or tesseract at 300 dpi."""
    doc = pymupdf.open(SCANS / file_name)
    page = doc[page_no - 1]
    pix = page.get_pixmap(dpi=300, colorspace=pymupdf.csGRAY)
    if ocr:
        words = parse_tsv(run_tesseract(pix.tobytes("png"), tesseract_args()))
    else:
        words = text_layer_words(page, pix.width, pix.height)
    words = words.with_columns(
        pl.lit(file_name).alias("doc_id"), pl.lit(page_no, pl.Int32).alias("page_no")
    )
    pages = pl.DataFrame(
        {"doc_id": [file_name], "page_no": [page_no], "quality": ["clear"]},
        schema={"doc_id": pl.String, "page_no": pl.Int32, "quality": pl.String},
    )
    return words, pages


def test_born_digital_currency_table() -> None:
    """2011-09 page 50: U.S. currency and coin outstanding, read from the text layer."""
    words, pages = _page_frames("treasury_bulletin_2011_09.pdf", 50, ocr=False)
    tables, cells = build_tables(words, pages)
    currency = tables.filter(pl.col("title").str.contains("Amounts Outstanding"))
    assert currency.height == 1
    t = currency.row(0, named=True)
    assert (t["n_rows"], t["n_cols"]) == (13, 4)
    grid = cells.filter(pl.col("table_id") == t["table_id"])
    assert grid["is_number"].sum() == 52
    total = grid.filter((pl.col("row_label") == "Total currency") & (pl.col("col_idx") == 0))
    assert total["value_str"].to_list() == ["987708828424"]
    dash = grid.filter((pl.col("row_label") == "$5,000") & (pl.col("col_idx") == 2))
    assert dash["is_dash"].to_list() == [True]


@pytest.mark.skipif(shutil.which("tesseract") is None, reason="tesseract is not installed")
def test_officeqa_answer_is_among_cells_of_cited_page() -> None:
    """UID0200: 66,855 (short-term assets in Germany) is printed on 1939-12 page 54."""
    words, _ = _page_frames("treasury_bulletin_1939_12.pdf", 54, ocr=True)
    pages = pl.DataFrame(
        {"doc_id": ["treasury_bulletin_1939_12.pdf"], "page_no": [54], "quality": ["clear"]},
        schema={"doc_id": pl.String, "page_no": pl.Int32, "quality": pl.String},
    )
    _, cells = build_tables(words, pages)
    questions = pl.read_csv(QUESTIONS).filter(pl.col("uid") == "UID0200")
    documents = pl.DataFrame(
        {
            "doc_id": ["treasury_bulletin_1939_12.pdf"],
            "file_name": ["treasury_bulletin_1939_12.pdf"],
        }
    )
    found = officeqa_presence(questions, documents, cells, words)
    assert found.height == 1
    row = found.row(0, named=True)
    assert row["page_no"] == 54 and row["n_page_cells"] > 50
    assert row["match"] == "exact" and row["in_words"]
