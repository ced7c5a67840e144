"""Preprocessing of degraded page images before OCR (``pipeline.ingest.enhance``)."""

from __future__ import annotations

import io
from collections import Counter

import numpy as np
import pymupdf
import pytest
from PIL import Image

from pipeline.ingest.enhance import ENHANCE_VERSION, Enhancement, enhance_png, enhancement_for
from pipeline.ingest.ocr import parse_tsv, run_tesseract, tesseract_args
from pipeline.synth.render import ScanQuality, degrade
from pipeline.tables.numbers import parse_number
from tests.ingest.scan_fixtures import image_pdf, statement_numbers, statement_page


def _rendered_scan(tmp_path, numbers: list[list[str]], quality: ScanQuality) -> bytes:
    """A statement page scanned at ``quality`` (synth degradation), rendered at 300 DPI."""
    page = Image.open(io.BytesIO(statement_page(numbers, dpi=300)))
    scan = degrade(page, quality, np.random.default_rng(3))
    buf = io.BytesIO()
    scan.save(buf, "PNG")
    pdf = image_pdf(tmp_path / "scan.pdf", [buf.getvalue()])
    with pymupdf.open(pdf) as doc:
        return doc[0].get_pixmap(dpi=300, colorspace=pymupdf.csGRAY).tobytes("png")


def _numbers_read(png: bytes, printed: list[str]) -> float:
    """Share of the printed amounts tesseract reads back exactly (as a multiset)."""
    words = parse_tsv(run_tesseract(png, tesseract_args()))
    read = Counter(str(n.decimal) for t in words["text"] if (n := parse_number(t)) is not None)
    truth = Counter(str(parse_number(p).decimal) for p in printed)  # type: ignore[union-attr]
    return sum((truth & read).values()) / sum(truth.values())


def test_only_degraded_pages_get_a_recipe():
    assert enhancement_for("clear", 150.0) is None
    assert enhancement_for("clear", 60.0) is None  # the tag decides, not the DPI alone
    assert enhancement_for("blurry", 80.0) == Enhancement(native_dpi=80.0)
    assert enhancement_for("very_blurry", 62.5).native_dpi == 62.5
    # unknown DPI: sharpen at the render's resolution
    assert enhancement_for("very_blurry", None).native_dpi == 300.0


def test_cache_tag_changes_with_what_changes_the_image():
    tags = {
        Enhancement(80.0).cache_tag(),
        Enhancement(60.0).cache_tag(),
        Enhancement(80.0, native_percent=300).cache_tag(),
        Enhancement(80.0, render_radius=1.5).cache_tag(),
        Enhancement(80.0, digit_pass=False).cache_tag(),
    }
    assert len(tags) == 5
    assert all(f"v{ENHANCE_VERSION}" in t for t in tags)


def test_enhanced_image_keeps_size_and_pixel_density(tmp_path):
    png = _rendered_scan(tmp_path, statement_numbers(1, rows=3), ScanQuality(80, 1.2, 5.0, 0.0))
    out = Image.open(io.BytesIO(enhance_png(png, Enhancement(80.0))))
    src = Image.open(io.BytesIO(png))
    assert out.size == src.size and out.mode == "L"
    assert out.info["dpi"] == pytest.approx(src.info["dpi"], abs=0.01)
    # sharpening steepens the ink edges: more pixels near pure black and white
    a, b = np.asarray(src.convert("L")), np.asarray(out)
    assert ((b < 40) | (b > 215)).mean() > ((a < 40) | (a > 215)).mean()


def test_enhancement_recovers_numbers_of_an_80_dpi_blurred_scan(tmp_path):
    numbers = statement_numbers(7, rows=12)
    printed = [v for row in numbers for v in row]
    png = _rendered_scan(tmp_path, numbers, ScanQuality(80, 1.2, 5.0, 0.0))
    before = _numbers_read(png, printed)
    after = _numbers_read(enhance_png(png, enhancement_for("blurry", 80.0)), printed)  # type: ignore[arg-type]
    # measured: before 19/48 (0.40), after 48/48
    assert after >= 0.95, f"enhanced page read {after:.0%} of {len(printed)} amounts"
    assert after >= before + 0.5, f"before {before:.0%}, after {after:.0%}"
