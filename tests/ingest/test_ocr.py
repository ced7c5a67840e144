"""The ``words`` stage: tesseract TSV parsing, OCR accuracy, the cache, the text layer."""

from __future__ import annotations

from collections import Counter

import polars as pl
import pymupdf
import pytest

from pipeline.ingest import ocr
from pipeline.ingest.ocr import build_words, parse_tsv
from pipeline.ingest.scans import build_pages, ingest_documents
from pipeline.ingest.schemas import WORDS_SCHEMA
from pipeline.store import INTAKE_SCHEMA, QUARANTINE_SCHEMA
from tests.ingest.scan_fixtures import image_pdf, statement_numbers, statement_page, text_pdf

TSV = (
    "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n"
    "1\t1\t0\t0\t0\t0\t0\t0\t2550\t3300\t-1\t\n"
    "4\t1\t1\t1\t1\t0\t200\t150\t900\t40\t-1\t\n"
    "5\t1\t1\t1\t1\t1\t200\t150\t120\t40\t96.5\tTable\n"
    '5\t1\t1\t1\t1\t2\t330\t150\t20\t40\t91\t"\n'
    "5\t1\t1\t1\t1\t3\t360\t150\t20\t40\t95\t \n"
    "5\t1\t1\t1\t2\t1\t200\t220\t160\t40\t88.25\t1,234\n"
    "5\t1\t2\t1\t1\t1\t900\t150\t100\t40\t70\t(56)\n"
)


def test_parse_tsv_keeps_words_with_boxes_and_line_ids():
    words = parse_tsv(TSV)
    assert words["text"].to_list() == ["Table", '"', "1,234", "(56)"]  # blank word dropped
    assert words["word_no"].to_list() == [0, 1, 2, 3]
    assert words["line_no"].to_list() == [0, 0, 1, 2]  # (block, par, line) in reading order
    assert words["block_no"].to_list() == [1, 1, 1, 2]
    first = words.row(0, named=True)
    assert (first["x0"], first["y0"], first["x1"], first["y1"]) == (200, 150, 320, 190)
    assert words["conf"].to_list() == [96.5, 91.0, 88.25, 70.0]
    assert set(words["source"]) == {"ocr"}
    assert parse_tsv("").is_empty()


def _ingest(warehouse, blobs, folder, render_dpi=200):
    ingest_documents([("test", folder)], warehouse, blobs)
    return build_pages(warehouse, blobs, render_dpi=render_dpi, workers=1)


def test_ocr_of_a_clear_page_reads_back_the_printed_numbers(store, tmp_path):
    warehouse, blobs = store
    numbers = statement_numbers(21, rows=20)
    image_pdf(tmp_path / "synth_bulletin_1950_03.pdf", [statement_page(numbers, dpi=150)])
    _ingest(warehouse, blobs, tmp_path, render_dpi=300)
    result = build_words(warehouse, blobs, workers=1, progress=False)
    assert (result.pages, result.ocrd, result.cached, result.failed) == (1, 1, 0, 0)
    words = warehouse.read("words", WORDS_SCHEMA)
    assert len(words) == result.words
    read = Counter(words["text"])
    printed = [n for row in numbers for n in row]
    exact = sum(read[n] > 0 for n in printed) / len(printed)
    assert exact >= 0.97, f"only {exact:.0%} of printed numbers read exactly"  # measured 79/80
    # boxes sit inside the page image and numbers of one table row share a line
    assert words["x1"].max() <= 2550 and words["y1"].max() <= 3300
    row0 = words.filter(pl.col("text").is_in(numbers[0]))
    assert row0["line_no"].n_unique() == 1


def test_second_run_does_no_ocr_for_unchanged_pages(store, tmp_path, monkeypatch):
    warehouse, blobs = store
    pngs = [statement_page(statement_numbers(s, rows=4), dpi=120) for s in (31, 32)]
    image_pdf(tmp_path / "vol_1950_01.pdf", pngs)
    _ingest(warehouse, blobs, tmp_path, render_dpi=150)
    first = build_words(warehouse, blobs, workers=2, progress=False)
    assert (first.ocrd, first.cached) == (2, 0)
    first_words = warehouse.read("words", WORDS_SCHEMA)

    # a new volume arrives: only its page is OCR'd
    image_pdf(tmp_path / "vol_1950_02.pdf", [statement_page(statement_numbers(33, rows=4))])
    _ingest(warehouse, blobs, tmp_path, render_dpi=150)
    log: list[str] = []
    second = build_words(warehouse, blobs, workers=2, progress=False, log=log.append)
    assert (second.pages, second.ocrd, second.cached) == (3, 1, 2)
    # the run log says what is to do and how far it got (Dagster's run log in an asset)
    assert log[0] == "words: 3 page images to OCR (2 cached), 0 pages from text layers"
    assert any(line.startswith("OCR: 1/1 pages (100.0%)") for line in log)
    # then the head-band pass over the new page (a synthetic page prints no ruled heads)
    assert log[-1] == "head bands: 0 garbled ruled head bands read again on 1 pages"

    # nothing changed: zero tesseract calls
    def no_tesseract(*args, **kwargs):
        raise AssertionError("tesseract called for a cached page")

    monkeypatch.setattr(ocr.ocr_worker, "ocr_image", no_tesseract)
    monkeypatch.setattr(ocr, "ocr_page_to_cache", no_tesseract)
    third = build_words(warehouse, blobs, workers=2, progress=False)
    assert (third.ocrd, third.cached, third.words) == (0, 3, second.words)
    doc1 = first_words["doc_id"][0]
    again = warehouse.read("words", WORDS_SCHEMA).filter(pl.col("doc_id") == doc1)
    assert again.equals(first_words)


def test_text_layer_words_are_scaled_to_page_pixels(store, tmp_path):
    warehouse, blobs = store
    lines = ["Table FFO-1.- Summary", "Total receipts 2,303,470"]
    text_pdf(tmp_path / "digital_2011_09.pdf", lines)
    _ingest(warehouse, blobs, tmp_path, render_dpi=144)  # 2 px per point
    result = build_words(warehouse, blobs, progress=False)
    assert (result.text_layer, result.ocrd) == (1, 0)
    words = warehouse.read("words", WORDS_SCHEMA)
    assert words["text"].to_list() == " ".join(lines).split()
    assert set(words["source"]) == {"text_layer"} and set(words["conf"]) == {100.0}
    assert words["line_no"].to_list() == [0, 0, 0, 1, 1, 1]
    with pymupdf.open(tmp_path / "digital_2011_09.pdf") as doc:
        x0_pt = doc[0].get_text("words")[0][0]
    assert words["x0"][0] == pytest.approx(2 * x0_pt)


def test_failed_ocr_is_quarantined_and_the_run_goes_on(store, tmp_path, monkeypatch):
    warehouse, blobs = store
    image_pdf(tmp_path / "vol_1950_01.pdf", [statement_page(statement_numbers(41, rows=3))])
    text_pdf(tmp_path / "digital.pdf", ["Receipts 12"])
    _ingest(warehouse, blobs, tmp_path, render_dpi=100)
    # an unknown language makes tesseract exit non-zero on every page
    monkeypatch.setattr(ocr, "TESSERACT_LANG", "xx_missing")
    result = build_words(warehouse, blobs, workers=1, progress=False)
    assert (result.failed, result.ocrd, result.words) == (1, 0, 2)
    reason = warehouse.read("quarantine", QUARANTINE_SCHEMA).filter(pl.col("stage") == "words")
    assert reason["reason"].item() == "vol_1950_01.pdf#page=1: OCR failed"
    assert "tesseract exited" in reason["detail"].item()
    intake = warehouse.read("intake", INTAKE_SCHEMA).filter(pl.col("stage") == "words")
    assert intake["status"].value_counts().sort("status").rows() == [
        ("ingested", 1),
        ("quarantined", 1),
    ]


@pytest.mark.real_data
def test_real_bulletins_words(real_excerpts, store):
    warehouse, blobs = store
    _ingest(warehouse, blobs, real_excerpts, render_dpi=300)
    result = build_words(warehouse, blobs, workers=2, progress=False)
    assert (result.ocrd, result.text_layer, result.failed) == (2, 1, 0)
    words = warehouse.read("words", WORDS_SCHEMA).join(
        warehouse.read("documents").select("doc_id", "volume"), on="doc_id"
    )
    scan = words.filter(pl.col("volume") == "1939-01")
    assert set(scan["source"]) == {"ocr"}
    scan_text = {w.strip(".,:").lower() for w in scan["text"]}
    # the contents page and the introduction, read by tesseract, not the archive layer
    assert {"contents", "introduction", "treasury", "bulletin"} <= scan_text
    assert scan.filter(pl.col("conf") >= 80).height / scan.height > 0.86  # measured 0.884 of 337
    digital = words.filter(pl.col("volume") == "2011-09")
    assert set(digital["source"]) == {"text_layer"}
    assert {"September", "2011", "Contents"} <= set(digital["text"])
