"""Garbled ruled head bands are read again with their rules erased; read bands are kept."""

from __future__ import annotations

import io
import subprocess

import numpy as np
import polars as pl
from PIL import Image, ImageDraw, ImageFilter

from pipeline.ingest.head_bands import BLOCK_BASE, head_bands, reread_head_bands
from pipeline.ingest.ocr import parse_tsv, tesseract_args
from tests.ingest.test_rules import MONTHS, _font

TOP, BOTTOM = 300, 390  # the head band's rules on the synthetic page


def _page() -> bytes:
    """A page with a ruled head band of months (the 1939-41 layout) over a body row."""
    width, cell = 2000, 220
    img = Image.new("L", (width, 800), 238)
    draw = ImageDraw.Draw(img)
    x_end = 40 + len(MONTHS) * cell
    for y in (TOP, BOTTOM, 700):
        draw.line([(40, y), (x_end, y)], fill=30, width=3)
    for i, month in enumerate(MONTHS):
        x = 40 + i * cell
        draw.line([(x, TOP), (x, 700)], fill=30, width=3)
        draw.text((x + 14, TOP + 26), month, font=_font(), fill=20)
        draw.text((x + 60, 480), f"{(i + 3) * 111:,}", font=_font(), fill=20)
    draw.line([(x_end, TOP), (x_end, 700)], fill=30, width=3)
    buf = io.BytesIO()
    img.filter(ImageFilter.GaussianBlur(0.9)).save(buf, format="PNG", dpi=(300, 300))
    return buf.getvalue()


def _words(texts: list[tuple[str, float, float]], conf: float = 30.0) -> pl.DataFrame:
    """A first pass: (text, x0, y0) words, one tesseract line each."""
    return pl.DataFrame(
        {
            "word_no": list(range(len(texts))),
            "block_no": [1] * len(texts),
            "line_no": list(range(len(texts))),
            "text": [t for t, _, _ in texts],
            "x0": [x for _, x, _ in texts],
            "y0": [y for _, _, y in texts],
            "x1": [x + 90 for _, x, _ in texts],
            "y1": [y + 30 for _, _, y in texts],
            "conf": [conf] * len(texts),
            "source": ["ocr"] * len(texts),
        },
        schema_overrides={"word_no": pl.Int32, "block_no": pl.Int32, "line_no": pl.Int32},
    )


def _read(png: bytes) -> pl.DataFrame:
    tsv = subprocess.run(
        ["tesseract", "stdin", "stdout", *tesseract_args()],
        input=png,
        capture_output=True,
        env={"OMP_THREAD_LIMIT": "1", "PATH": "/usr/bin:/bin"},
        check=True,
    ).stdout.decode()
    return parse_tsv(tsv)


def test_the_head_band_lies_between_the_rules() -> None:
    gray = np.asarray(Image.open(io.BytesIO(_page())).convert("L"))
    bands = head_bands(gray)
    assert len(bands) == 1  # the body (310 px) is too tall for a head
    top, bottom = bands[0]
    assert TOP <= top <= TOP + 6 and BOTTOM - 6 <= bottom <= BOTTOM


def test_a_garbled_head_band_is_read_again_and_the_body_kept() -> None:
    """1939-12 p22 read its 13 month heads as "poe [ae [ime [ime [me ..."."""
    garbled = [("[ime", 60.0, TOP + 24.0), ("[me", 280.0, TOP + 24.0), ("sans]", 500.0, TOP + 24.0)]
    body = [("333", 100.0, 480.0), ("444", 320.0, 480.0)]
    words, replaced = reread_head_bands(_page(), _words(garbled + body), _read)
    assert replaced == 1
    head = words.filter(pl.col("block_no") == BLOCK_BASE).sort("x0")
    assert head["text"].to_list() == MONTHS
    assert (head["y0"] > TOP).all() and (head["y1"] < BOTTOM).all()  # page pixels
    assert words.filter(pl.col("block_no") == 1)["text"].to_list() == ["333", "444"]
    assert words["word_no"].to_list() == list(range(words.height))


def test_a_band_the_first_pass_left_empty_is_read_again() -> None:
    words, replaced = reread_head_bands(_page(), _words([("333", 100.0, 480.0)]), _read)
    assert replaced == 1
    assert words.filter(pl.col("block_no") == BLOCK_BASE).sort("x0")["text"].to_list() == MONTHS


def test_a_head_band_that_was_read_is_kept() -> None:
    read = [(m, 54.0 + i * 220, TOP + 26.0) for i, m in enumerate(MONTHS)]
    first = _words(read, conf=92.0)

    def never(png: bytes) -> pl.DataFrame:
        raise AssertionError("a band read well is not read again")

    words, replaced = reread_head_bands(_page(), first, never)
    assert replaced == 0 and words.equals(first)
