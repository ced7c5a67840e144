"""Warehouse frames of OCR'd words and pages for table-stage tests built from real word
boxes ("as tesseract read 1984-06 p75")."""

from __future__ import annotations

from collections.abc import Iterable

import polars as pl

from pipeline.ingest.schemas import PAGES_SCHEMA, WORDS_SCHEMA


def ocr_words(
    words: Iterable[tuple[str, float, float, float, float, float, int]],
    doc_id: str = "d",
    page_no: int = 1,
) -> pl.DataFrame:
    """A ``words`` frame of ``(text, x0, y0, x1, y1, conf, line_no)`` boxes, in order."""
    rows = [
        {
            "doc_id": doc_id,
            "page_no": page_no,
            "word_no": k,
            "block_no": 1,
            "line_no": line,
            "text": text,
            "x0": float(x0),
            "y0": float(y0),
            "x1": float(x1),
            "y1": float(y1),
            "conf": float(conf),
            "source": "ocr",
        }
        for k, (text, x0, y0, x1, y1, conf, line) in enumerate(words)
    ]
    return pl.DataFrame(rows, schema=WORDS_SCHEMA)


def ocr_lines(
    lines: list[list[tuple[str, float, float, float, float, float]]],
    doc_id: str = "d",
    page_no: int = 1,
) -> pl.DataFrame:
    """A ``words`` frame of ``(text, x0, y0, x1, y1, conf)`` boxes grouped by line."""
    return ocr_words(((*word, k) for k, line in enumerate(lines) for word in line), doc_id, page_no)


def ocr_page(
    doc_id: str = "d",
    page_no: int = 1,
    quality: str = "clear",
    size: tuple[int, int] = (2550, 3300),
) -> pl.DataFrame:
    """A ``pages`` frame of one OCR'd page at 300 dpi (letter size unless ``size``)."""
    row = {
        "doc_id": doc_id,
        "page_no": page_no,
        "image_sha256": "x",
        "width_px": size[0],
        "height_px": size[1],
        "dpi": 300.0,
        "text_layer_chars": 0,
        "word_source": "ocr",
        "blur_score": 1.0,
        "quality": quality,
    }
    return pl.DataFrame([row], schema=PAGES_SCHEMA)
