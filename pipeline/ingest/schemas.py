"""Parquet contracts of the scan-ingestion assets: ``documents``, ``pages``, ``words``."""

from __future__ import annotations

import polars as pl

DOCUMENTS_SCHEMA = {
    "doc_id": pl.String,  # sha256 of the file bytes (first 16 hex chars)
    "file_sha256": pl.String,
    "corpus": pl.String,  # e.g. "synth-scans", "treasury"
    "source_path": pl.String,  # the name the document carries (``best_name``); escaped if not UTF-8
    "source_paths": pl.List(pl.String),  # every name the same bytes were found under, best first
    "file_name": pl.String,
    "volume": pl.String,  # e.g. "1939-01", parsed from the file name when possible
    "n_pages": pl.Int32,
    "has_text_layer": pl.Boolean,
    "text_layer_policy": pl.String,  # auto | ignore | require
    "blob_sha256": pl.String,  # the PDF bytes in the blob store
}

PAGES_SCHEMA = {
    "doc_id": pl.String,
    "page_no": pl.Int32,  # 1-based
    "image_sha256": pl.String,  # rendered grayscale PNG in the blob store; the OCR cache key
    "width_px": pl.Int32,
    "height_px": pl.Int32,
    "dpi": pl.Float64,  # effective DPI of the page image
    "text_layer_chars": pl.Int32,
    "word_source": pl.String,  # ocr | text_layer
    "blur_score": pl.Float64,  # higher = sharper
    "quality": pl.String,  # clear | blurry | very_blurry
}

WORDS_SCHEMA = {
    "doc_id": pl.String,
    "page_no": pl.Int32,
    "word_no": pl.Int32,  # reading order within the page
    "block_no": pl.Int32,
    "line_no": pl.Int32,  # tesseract (block, par, line) flattened to one id per page
    "text": pl.String,
    "x0": pl.Float64,  # box in page-image pixels
    "y0": pl.Float64,
    "x1": pl.Float64,
    "y1": pl.Float64,
    "conf": pl.Float64,  # 0..100; 100 for a trusted text layer
    "source": pl.String,  # ocr | text_layer
}
