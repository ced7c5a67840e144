"""A small anchored archive, written to a warehouse: the drafter's worked example.

Three annual volumes of a bulletin, each printing two statements with totals: receipts
by source (items in rows, fiscal years in columns, a total row) and debt by type (years
in rows, types in columns, a total column). Series are reprinted with overlapping years;
the last volume revises one figure (and its total), and the middle volume misprints one
number so that it contradicts its column total. Used by tests and demos that need the
drafter, the validator and the release without OCR.
"""

from __future__ import annotations

import random
from decimal import Decimal

import polars as pl

from pipeline.detect.schemas import ANCHORED_CELLS_SCHEMA, IDENTITIES_SCHEMA
from pipeline.ingest.schemas import DOCUMENTS_SCHEMA, PAGES_SCHEMA, WORDS_SCHEMA
from pipeline.store import Warehouse
from pipeline.tables.schemas import TABLE_CELLS_SCHEMA, TABLES_SCHEMA
from pipeline.tables.semantics import annotate

VOLUMES = (1948, 1949, 1950)
RECEIPTS = ("Individual income tax", "Corporation income tax", "Excise taxes", "Customs")
DEBT = ("Marketable", "Nonmarketable", "Special issues")
REVISION = ("receipts", "Individual income tax", 1948, 1950, 12)  # +12 in the 1950 volume
MISPRINT = ("receipts", "Excise taxes", 1948, 1949, 500)  # printed +500 in the 1949 volume


def _text(value: int) -> str:
    return f"({-value:,})" if value < 0 else f"{value:,}"


def true_values(seed: int) -> dict[tuple[str, str, int], int]:
    """The true value of every (statement, item, year) before any revision."""
    rng = random.Random(seed)
    values = {}
    for year in range(1946, 1951):
        for item in RECEIPTS:
            values[("receipts", item, year)] = rng.randint(300, 9_800)
        for item in DEBT:
            values[("debt", item, year)] = rng.randint(1_000, 99_000)
    return values


def sample_frames(seed: int = 0) -> dict[str, pl.DataFrame]:
    """Every warehouse table of the sample archive, by asset name."""
    base = true_values(seed)
    docs, pages, tables, cells, idents, anchored, words = [], [], [], [], [], [], []
    for volume in VOLUMES:
        doc_id = f"doc{volume}"
        file_name = f"synth_bulletin_{volume}_06.pdf"
        docs.append(
            {
                "doc_id": doc_id,
                "file_sha256": doc_id * 4,
                "corpus": "sample",
                "source_path": f"/sample/{file_name}",
                "file_name": file_name,
                "volume": f"{volume}-06",
                "n_pages": 3,
                "has_text_layer": False,
                "text_layer_policy": "auto",
                "blob_sha256": doc_id * 4,
            }
        )
        years = [volume - 2, volume - 1, volume]
        for page_no, statement in ((2, "receipts"), (3, "debt")):
            quality = "clear" if page_no == 2 else "blurry"
            pages.append(
                {
                    "doc_id": doc_id,
                    "page_no": page_no,
                    "image_sha256": f"{doc_id}p{page_no}",
                    "width_px": 2550,
                    "height_px": 3300,
                    "dpi": 150.0,
                    "text_layer_chars": 0,
                    "word_source": "ocr",
                    "blur_score": 1.0,
                    "quality": quality,
                }
            )
            table = _table(statement, volume, years, base, doc_id, page_no, quality)
            tables.append(table["table"])
            cells += table["cells"]
            idents += table["identities"]
            anchored += table["anchored"]
            words += _words(doc_id, page_no, table)
    tables_df, cells_df = annotate(
        pl.DataFrame(tables, schema=TABLES_SCHEMA), pl.DataFrame(cells, schema=TABLE_CELLS_SCHEMA)
    )
    return {
        "documents": pl.DataFrame(docs, schema=DOCUMENTS_SCHEMA),
        "pages": pl.DataFrame(pages, schema=PAGES_SCHEMA),
        "tables": tables_df.select(pl.col(c).cast(t) for c, t in TABLES_SCHEMA.items()),
        "table_cells": cells_df.select(pl.col(c).cast(t) for c, t in TABLE_CELLS_SCHEMA.items()),
        "identities": pl.DataFrame(idents, schema=IDENTITIES_SCHEMA),
        "anchored_cells": pl.DataFrame(anchored, schema=ANCHORED_CELLS_SCHEMA),
        "words": pl.DataFrame(words, schema=WORDS_SCHEMA),
    }


def write_sample_warehouse(warehouse: Warehouse, seed: int = 0) -> dict[str, pl.DataFrame]:
    """Write the sample archive's tables into ``warehouse`` and return them."""
    frames = sample_frames(seed)
    for asset, frame in frames.items():
        warehouse.replace(asset, frame)
    return frames


def _printed(statement: str, item: str, year: int, volume: int, base: dict) -> tuple[int, int]:
    """(true value as of this volume, printed value) of one cell."""
    value = base[(statement, item, year)]
    s, i, y, v, delta = REVISION
    if (statement, item, year) == (s, i, y) and volume >= v:
        value += delta
    printed = value
    s, i, y, v, delta = MISPRINT
    if (statement, item, year) == (s, i, y) and volume == v:
        printed += delta
    return value, printed


def _table(
    statement: str,
    volume: int,
    years: list[int],
    base: dict,
    doc_id: str,
    page_no: int,
    quality: str,
) -> dict:
    """One printed table with its cells, identities and anchored cells."""
    table_id = f"{doc_id}:{page_no}:0"
    if statement == "receipts":
        title, items = "Table 1.- Budget receipts by source", RECEIPTS
        row_labels = [*items, "Total"]
        col_labels = [f"Fiscal year / {y}" for y in years]
    else:
        title, items = "Table 2.- Public debt by type", DEBT
        row_labels = [f"June 30, {y}" for y in years]  # debt outstanding: a position
        col_labels = [*items, "Total"]
    # (row, col) -> (true, printed, revised mark)
    grid: dict[tuple[int, int], tuple[int, int, bool]] = {}
    s, i, y, v, _ = REVISION
    for y_i, year in enumerate(years):
        vals = [_printed(statement, item, year, volume, base) for item in items]
        total = sum(v for v, _ in vals)
        revised = (statement, year) == (s, y) and volume >= v
        for i_i, (item, pair) in enumerate(zip(items, vals, strict=True)):
            mark = revised and item == i
            grid[(i_i, y_i) if statement == "receipts" else (y_i, i_i)] = (*pair, mark)
        total_pos = (len(items), y_i) if statement == "receipts" else (y_i, len(items))
        grid[total_pos] = (total, total, revised)
    cells, anchored = [], []
    for (r, c), (true, printed, mark) in sorted(grid.items()):
        is_total = row_labels[r] == "Total" or col_labels[c] == "Total"
        box = (700.0 + 300 * c, 400.0 + 50 * r, 900.0 + 300 * c, 440.0 + 50 * r)
        cells.append(
            {
                "table_id": table_id,
                "doc_id": doc_id,
                "page_no": page_no,
                "table_no": 0,
                "row_idx": r,
                "col_idx": c,
                "row_label": row_labels[r],
                "col_label": col_labels[c],
                "text": ("r" if mark else "") + _text(printed),
                "is_number": True,
                "value": float(printed),
                "value_str": str(printed),
                "negative": printed < 0,
                "is_dash": False,
                "footnote": "",
                "revised": mark,
                "conf": 95.0,
                "x0": box[0],
                "y0": box[1],
                "x1": box[2],
                "y1": box[3],
            }
        )
        # ids as the anchor stage writes them: kind, axis, and the total's position
        n_items = len(items)
        identity = (
            f"{table_id}:col_total:down:r{n_items}c{c}"
            if statement == "receipts"
            else f"{table_id}:row_total:across:r{r}c{n_items}"
        )
        contradicted = printed != true
        anchored.append(
            {
                "table_id": table_id,
                "doc_id": doc_id,
                "page_no": page_no,
                "table_no": 0,
                "row_idx": r,
                "col_idx": c,
                "row_label": row_labels[r],
                "col_label": col_labels[c],
                "status": "contradicted" if contradicted else "confirmed",
                "value_str": str(true),
                "printed_str": str(printed),
                "implied_str": str(true) if contradicted else None,
                "is_total": is_total,
                "identity_ids": [identity],
                "unit_multiplier": 1_000_000,
                "quality": quality,
            }
        )
    identities = []
    n = len(items)
    for k in range(len(years)):
        members = [(i, k) if statement == "receipts" else (k, i) for i in range(n)]
        total_pos = (n, k) if statement == "receipts" else (k, n)
        total = grid[total_pos][1]
        members_sum = sum(grid[m][1] for m in members)
        kind, axis = ("col_total", "down") if statement == "receipts" else ("row_total", "across")
        identities.append(
            {
                "identity_id": f"{table_id}:{kind}:{axis}:r{total_pos[0]}c{total_pos[1]}",
                "table_id": table_id,
                "kind": kind,
                "total_row_idx": total_pos[0],
                "total_col_idx": total_pos[1],
                "member_rows": [m[0] for m in members],
                "member_cols": [m[1] for m in members],
                "total_value_str": str(total),
                "members_sum_str": str(members_sum),
                "residual": float(Decimal(total) - Decimal(members_sum)),
                "tolerance": 0.5 * n,
                "holds": total == members_sum,
                "found_by": "label",
            }
        )
    table = {
        "table_id": table_id,
        "doc_id": doc_id,
        "page_no": page_no,
        "table_no": 0,
        "title": title,
        "unit": "(In millions of dollars)",
        "unit_multiplier": 1_000_000,
        "n_rows": len(row_labels),
        "n_cols": len(col_labels),
        "col_labels": col_labels,
        "x0": 100.0,
        "y0": 300.0,
        "x1": 2400.0,
        "y1": 700.0,
        "quality": quality,
    }
    return {"table": table, "cells": cells, "identities": identities, "anchored": anchored}


def _words(doc_id: str, page_no: int, table: dict) -> list[dict]:
    """Word boxes of the page: the title, the page number and every printed cell."""
    out = []
    tokens = [(w, 100.0 + 80 * i, 200.0) for i, w in enumerate(table["table"]["title"].split())]
    tokens.append((str(page_no), 1250.0, 3200.0))
    for cell in table["cells"]:
        tokens.append((cell["text"], cell["x0"] + 5, cell["y0"] + 5))
    for n, (text, x, y) in enumerate(tokens):
        out.append(
            {
                "doc_id": doc_id,
                "page_no": page_no,
                "word_no": n,
                "block_no": 0,
                "line_no": int(y // 50),
                "text": text,
                "x0": x,
                "y0": y,
                "x1": x + 60.0,
                "y1": y + 30.0,
                "conf": 95.0,
                "source": "ocr",
            }
        )
    return out
