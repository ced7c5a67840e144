"""The ``documents`` and ``pages`` stages on generated PDFs (and two real bulletins)."""

from __future__ import annotations

import numpy as np
import polars as pl
import pymupdf
import pytest

from pipeline.ingest.scans import (
    CLEAR_MIN_SCORE,
    MAX_SCAN_RENDER_DPI,
    blur_score,
    build_pages,
    ingest_documents,
    parse_volume,
    quality_tag,
    sharpness,
)
from pipeline.store import INTAKE_SCHEMA, QUARANTINE_SCHEMA
from pipeline.synth.malformed import write_malformed_pdfs
from pipeline.synth.scans import generate_scans
from tests.ingest.scan_fixtures import (
    gray_array,
    image_pdf,
    scanned_with_hidden_text,
    statement_numbers,
    statement_page,
    text_pdf,
)


def test_parse_volume_from_file_names():
    assert parse_volume("treasury_bulletin_1939_01.pdf") == "1939-01"
    assert parse_volume("synth_bulletin_1950_03.pdf") == "1950-03"
    assert parse_volume("TREASURY-2011-09.PDF") == "2011-09"
    assert parse_volume("report_final.pdf") is None
    assert parse_volume("bulletin_1939_13.pdf") is None  # no month 13


def test_malformed_files_are_quarantined_and_the_rest_ingests(store, tmp_path):
    warehouse, blobs = store
    src = tmp_path / "src"
    reasons = write_malformed_pdfs(src / "bad")
    # the word each case's quarantine reason must carry
    expected = {
        "empty.pdf": "zero-byte",
        "truncated.pdf": "truncated",
        "encrypted.pdf": "encrypted",
        "not_a_pdf.pdf": "not a PDF",
        "zero_pages.pdf": "zero pages",
        "huge_page.pdf": "absurd",
    }
    assert set(reasons) == set(expected), "the generator's malformed cases changed"
    (src / "good" / "nested").mkdir(parents=True)
    image_pdf(src / "good" / "synth_bulletin_1950_03.pdf", [statement_page(statement_numbers(2))])
    text_pdf(src / "good" / "nested" / "REPORT_2011_09.PDF", ["Summary of receipts 2011"])
    (src / "good" / "notes.txt").write_text("not discovered: not a .pdf")

    result = ingest_documents([("test", src)], warehouse, blobs)

    assert result.discovered == len(expected) + 2
    assert result.ingested == 2 and result.quarantined == len(expected)
    quarantine = warehouse.read("quarantine", QUARANTINE_SCHEMA)
    by_file = {row["path"].rsplit("/", 1)[1]: row["reason"] for row in quarantine.to_dicts()}
    assert set(by_file) == set(expected)
    for name, word in expected.items():
        assert name in by_file[name], f"reason does not name the file: {by_file[name]}"
        assert word in by_file[name], f"{name}: {by_file[name]!r} lacks {word!r}"
    docs = warehouse.read("documents").sort("file_name")
    assert docs["file_name"].to_list() == ["REPORT_2011_09.PDF", "synth_bulletin_1950_03.pdf"]
    assert docs["volume"].to_list() == ["2011-09", "1950-03"]
    assert docs["has_text_layer"].to_list() == [True, False]
    assert all(blobs.exists(sha) for sha in docs["blob_sha256"])
    # discovered = ingested + quarantined, checkable from the warehouse alone
    intake = warehouse.read("intake", INTAKE_SCHEMA).filter(pl.col("stage") == "documents")
    assert intake["status"].value_counts().sort("status").rows() == [
        ("ingested", 2),
        ("quarantined", len(expected)),
    ]


def test_duplicate_bytes_are_quarantined_not_dropped(store, tmp_path):
    warehouse, blobs = store
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    pdf = text_pdf(tmp_path / "a" / "one.pdf", ["x"])
    (tmp_path / "b" / "copy.pdf").write_bytes(pdf.read_bytes())
    result = ingest_documents([("a", tmp_path / "a"), ("b", tmp_path / "b")], warehouse, blobs)
    assert (result.ingested, result.quarantined) == (1, 1)
    assert "duplicate" in result.intake.quarantined[0]["reason"]


def test_require_policy_quarantines_image_only_documents(store, tmp_path):
    warehouse, blobs = store
    image_pdf(tmp_path / "scan.pdf", [statement_page(statement_numbers(3))])
    text_pdf(tmp_path / "digital.pdf", ["Receipts 1,234"])
    result = ingest_documents([("t", tmp_path)], warehouse, blobs, text_layer_policy="require")
    assert result.documents["file_name"].to_list() == ["digital.pdf"]
    assert "scan.pdf" in result.intake.quarantined[0]["reason"]
    assert "no text layer" in result.intake.quarantined[0]["reason"]


@pytest.mark.parametrize(
    ("policy", "expected"),
    [
        ("auto", {"digital.pdf": "text_layer", "scan.pdf": "ocr", "archive_ocr.pdf": "ocr"}),
        ("ignore", {"digital.pdf": "ocr", "scan.pdf": "ocr", "archive_ocr.pdf": "ocr"}),
    ],
)
def test_text_layer_policy_per_page(store, tmp_path, policy, expected):
    warehouse, blobs = store
    png = statement_page(statement_numbers(4, rows=6), dpi=120)
    text_pdf(tmp_path / "digital.pdf", ["Table 2.- Outlays", "Total 12,345"])
    image_pdf(tmp_path / "scan.pdf", [png])
    scanned_with_hidden_text(tmp_path / "archive_ocr.pdf", png, "Tab1e 2 0utlays l2,345")
    ingest_documents([("t", tmp_path)], warehouse, blobs, text_layer_policy=policy)
    pages = build_pages(warehouse, blobs, render_dpi=150, workers=1)
    docs = warehouse.read("documents").select("doc_id", "file_name", "has_text_layer")
    got = pages.join(docs, on="doc_id")
    assert dict(zip(got["file_name"], got["word_source"], strict=True)) == expected
    # the archive layer is a text layer, it is just not trusted on a scan
    assert dict(zip(got["file_name"], got["has_text_layer"], strict=True))["archive_ocr.pdf"]
    row = got.filter(pl.col("file_name") == "scan.pdf").row(0, named=True)
    assert (row["width_px"], row["height_px"]) == (1275, 1650)  # letter at 150 DPI
    assert row["dpi"] == pytest.approx(120, abs=0.5)  # the embedded image's resolution
    assert got.filter(pl.col("file_name") == "digital.pdf")["dpi"].item() == 150.0
    png_back = gray_array(blobs.get(row["image_sha256"]))
    assert png_back.shape == (1650, 1275)


def test_sharpness_is_comparable_across_render_dpi():
    png = statement_page(statement_numbers(5), dpi=300)
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_image(page.rect, stream=png)
    scores = []
    for dpi in (150, 200, 300):
        pix = page.get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY)
        gray = np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.h, pix.w)
        scores.append(sharpness(gray, dpi))
    assert max(scores) / min(scores) < 1.3, scores


def test_quality_tags_follow_blur_and_resolution(store, tmp_path):
    warehouse, blobs = store
    numbers = statement_numbers(6)
    cases = {"clear": (150, 0.5), "blurry": (120, 1.5), "very_blurry": (80, 1.8)}
    pngs = [statement_page(numbers, dpi=d, blur=b) for d, b in cases.values()]
    image_pdf(tmp_path / "synth_bulletin_1950_01.pdf", pngs)
    ingest_documents([("t", tmp_path)], warehouse, blobs)
    pages = build_pages(warehouse, blobs, render_dpi=200, workers=1).sort("page_no")
    assert pages["quality"].to_list() == list(cases)
    assert pages["blur_score"].is_sorted(descending=True)
    assert quality_tag(blur_score(2.0, 80), 80) == "blurry"  # crisp but 80 DPI


def test_pages_are_cached_by_pdf_and_render_dpi(store, tmp_path):
    warehouse, blobs = store
    image_pdf(tmp_path / "a_1950_01.pdf", [statement_page(statement_numbers(7, rows=4), dpi=100)])
    ingest_documents([("t", tmp_path)], warehouse, blobs)
    first = build_pages(warehouse, blobs, render_dpi=100, workers=1)
    cache = warehouse.paths.cache / "pages"
    stamp = {p: p.stat().st_mtime_ns for p in cache.glob("*.parquet")}
    text_pdf(tmp_path / "b_1950_02.pdf", ["New volume"])
    ingest_documents([("t", tmp_path)], warehouse, blobs)
    second = build_pages(warehouse, blobs, render_dpi=100, workers=1)
    assert {p: p.stat().st_mtime_ns for p in stamp} == stamp  # not re-rendered
    assert len(list(cache.glob("*.parquet"))) == 2
    assert len(second) == len(first) + 1
    assert first.row(0) in second.rows()


@pytest.mark.real_data
def test_real_bulletins_documents_and_pages(real_excerpts, store):
    warehouse, blobs = store
    result = ingest_documents([("treasury", real_excerpts)], warehouse, blobs)
    assert result.ingested == 2
    pages = build_pages(warehouse, blobs, render_dpi=200, workers=2)
    got = pages.join(warehouse.read("documents").select("doc_id", "volume"), on="doc_id")
    sources = got.group_by("volume").agg(pl.col("word_source").unique()).sort("volume")
    assert sources.rows() == [("1939-01", ["ocr"]), ("2011-09", ["text_layer"])]
    scan = got.filter(pl.col("volume") == "1939-01")
    assert (scan["text_layer_chars"] > 0).all()  # the archive OCR layer that auto ignores
    # 300 DPI scans are rendered at their own density, never down to the build's 200
    assert scan["dpi"].to_list() == [300.0, 300.0]
    assert set(got["quality"]) <= {"clear", "blurry"}


def test_quality_tags_on_the_synth_corpus_follow_its_recorded_scan_quality(store, tmp_path):
    warehouse, blobs = store
    corpus = generate_scans(
        tmp_path / "corpus", seed=5, volumes=2, tables_per_volume=4, dpi_choices=(150, 80, 60)
    )
    ingest_documents([("synth-scans", tmp_path / "corpus")], warehouse, blobs)
    pages = build_pages(warehouse, blobs, render_dpi=200, workers=2)
    got = pages.join(warehouse.read("documents").select("doc_id", "file_name"), on="doc_id")
    truth = corpus.truth("truth_pages").join(got, on=["file_name", "page_no"])
    assert len(truth) == len(pages) == corpus.truth("truth_pages").height
    expected = {150: "clear", 80: "blurry", 60: "very_blurry"}
    assert 150 in set(truth["dpi"]) and len(set(truth["dpi"])) >= 2
    for row in truth.iter_rows(named=True):
        assert row["quality"] == expected[row["dpi"]], row
        assert row["dpi_right"] == pytest.approx(row["dpi"], rel=0.02)


def test_blank_and_show_through_pages_have_no_blur_score():
    white = np.full((1100, 850), 255, dtype=np.uint8)
    # text from the verso showing through: faint (about 12 gray levels) and soft
    ghost = gray_array(statement_page(statement_numbers(8), dpi=100, blur=1.5))
    show_through = (225 + (ghost.astype(np.float64) / 255) * 15).astype(np.uint8)
    text = gray_array(statement_page(statement_numbers(8), dpi=100))
    assert sharpness(white, 100) is None
    assert sharpness(show_through, 100) is None
    assert sharpness(text, 100) > CLEAR_MIN_SCORE
    assert quality_tag(blur_score(None, 300), 300) == "clear"


def test_a_document_that_renders_blank_is_quarantined(store, tmp_path):
    """Like the 2003-06 sample bulletin: pages whose content only sets clipping paths
    draw nothing; its pages are quarantined with the reason, the other volume goes on."""
    warehouse, blobs = store
    image_pdf(tmp_path / "a_1950_01.pdf", [statement_page(statement_numbers(3, rows=4), dpi=100)])
    doc = pymupdf.open()
    for _ in range(3):
        page = doc.new_page()
        page.insert_text((72, 72), "x")  # gives the page a content stream to overwrite
        doc.update_stream(page.get_contents()[0], b"q 0 0 0 rg 100 700 50 10 re W n Q")
    doc.save(tmp_path / "stripped_2003_06.pdf")
    ingest_documents([("t", tmp_path)], warehouse, blobs)
    pages = build_pages(warehouse, blobs, render_dpi=100, workers=1)
    assert pages["doc_id"].n_unique() == 1 and len(pages) == 1
    quarantine = warehouse.read("quarantine", QUARANTINE_SCHEMA).filter(pl.col("stage") == "pages")
    assert quarantine.height == 3
    assert all("stripped_2003_06.pdf renders blank" in r for r in quarantine["reason"])
    intake = warehouse.read("intake", INTAKE_SCHEMA).filter(pl.col("stage") == "pages")
    assert intake.height == 4  # discovered pages = ingested 1 + quarantined 3


def test_a_scan_denser_than_the_render_is_rendered_at_its_own_density(store, tmp_path):
    """The 1953-09 bulletin is scanned at 501 DPI onto a page box smaller than the print,
    so its print is 13 px tall at 300 DPI; rendering the scan's own pixels (up to
    ``MAX_SCAN_RENDER_DPI``) is what tesseract needs. Scans at or near the render DPI,
    coarser scans and vector pages keep the build's render DPI."""
    warehouse, blobs = store
    numbers = statement_numbers(8, rows=3)
    densities = [500, 350, 310, 150]
    image_pdf(
        tmp_path / "synth_bulletin_1953_09.pdf", [statement_page(numbers, dpi=d) for d in densities]
    )
    text_pdf(tmp_path / "synth_bulletin_1997_09.pdf", ["Receipts 1,234"])
    ingest_documents([("t", tmp_path)], warehouse, blobs)
    pages = build_pages(warehouse, blobs, render_dpi=300, workers=1)
    docs = warehouse.read("documents").select("doc_id", "file_name")
    pages = pages.join(docs, on="doc_id").sort("file_name", "page_no")
    rendered = [round(w / 8.5) for w in pages["width_px"]]
    assert rendered == [MAX_SCAN_RENDER_DPI, 350, 300, 300, 300]
    assert [round(d) for d in pages["dpi"]] == [MAX_SCAN_RENDER_DPI, 350, 300, 150, 300]
    assert pages["quality"].to_list()[:3] == ["clear"] * 3
