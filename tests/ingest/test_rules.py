"""Table rules are erased before OCR; the letters and figures they box are not."""

from __future__ import annotations

import io
import subprocess
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFilter

from pipeline.ingest.rules import erase_rules, erase_rules_array, rule_mask
from pipeline.synth.render import FONT_DIR

MONTHS = ["Jan.", "Feb.", "Mar.", "Apr.", "May", "June", "July", "Aug."]
SCANS = Path(__file__).resolve().parents[3] / "shared" / "data" / "treasury" / "scans"


def _font(pt: float = 9.0):
    from PIL import ImageFont

    return ImageFont.truetype(str(FONT_DIR / "DejaVuSansMono.ttf"), size=round(pt * 300 / 72))


def _ruled_head(blur: float = 0.9) -> tuple[np.ndarray, np.ndarray]:
    """A boxed head row as the 1939-41 bulletins print it: each month in a ruled cell
    whose rules run close to the letters; softened like a scan. (image, text-only ink)"""
    width, cell, top, bottom = 1900, 220, 60, 150
    img = Image.new("L", (width, 260), 238)
    text = Image.new("L", img.size, 255)
    f = _font()
    for i, month in enumerate(MONTHS):
        x = 40 + i * cell
        for layer in (img, text):
            ImageDraw.Draw(layer).text((x + 14, top + 22), month, font=f, fill=20)
        ImageDraw.Draw(img).line([(x, top), (x, bottom)], fill=30, width=3)
    ImageDraw.Draw(img).line([(40, top), (40 + len(MONTHS) * cell, top)], fill=30, width=3)
    ImageDraw.Draw(img).line([(40, bottom), (40 + len(MONTHS) * cell, bottom)], fill=30, width=3)
    x = 40 + len(MONTHS) * cell
    ImageDraw.Draw(img).line([(x, top), (x, bottom)], fill=30, width=3)
    soft = np.asarray(img.filter(ImageFilter.GaussianBlur(blur)))
    return soft, np.asarray(text) < 128


def _tesseract(png: bytes) -> str:
    return subprocess.run(
        ["tesseract", "stdin", "stdout", "--psm", "6"],
        input=png,
        capture_output=True,
        env={"OMP_THREAD_LIMIT": "1", "PATH": "/usr/bin:/bin"},
        check=True,
    ).stdout.decode()


def _png(a: np.ndarray) -> bytes:
    buf = io.BytesIO()
    Image.fromarray(a).save(buf, format="PNG", dpi=(300, 300))
    return buf.getvalue()


def test_rules_are_erased_and_the_letters_they_box_kept() -> None:
    gray, text = _ruled_head()
    mask = rule_mask(gray)
    out, erased = erase_rules_array(gray)
    assert erased > 0
    # every rule pixel is gone: rows 60 and 150, the cell walls
    assert (out[58:63, 40:1800] < 128).sum() == 0
    assert (out[60:150, 38:43] < 128).sum() == 0
    # the letters are kept: almost none of their ink lies under the mask
    assert (mask & text).sum() / text.sum() < 0.02


def test_tesseract_reads_the_boxed_heads_once_rules_are_gone() -> None:
    gray, _ = _ruled_head()
    words = _tesseract(erase_rules(_png(gray))[0]).split()
    assert words == MONTHS


def test_a_page_without_rules_comes_back_byte_identical() -> None:
    img = Image.new("L", (800, 200), 240)
    ImageDraw.Draw(img).text((40, 60), "1940 ... -2.3  Total 1,234", font=_font(), fill=10)
    png = _png(np.asarray(img))
    assert erase_rules(png) == (png, 0)


def test_erasing_keeps_size_and_density() -> None:
    gray, _ = _ruled_head()
    out, _ = erase_rules(_png(gray))
    with Image.open(io.BytesIO(out)) as img:
        assert img.size == (gray.shape[1], gray.shape[0])
        assert round(img.info["dpi"][0]) == 300


@pytest.mark.real_data
def test_real_ruled_month_heads_read_once_rules_are_gone() -> None:
    """1939-12 p22: a 13-month head "Oct. ... Oct." in ruled cells under "1938 | 1939".
    With the rules in place tesseract read it as "poe [ae [ime [ime [me [me [are ..."."""
    pdf = SCANS / "treasury_bulletin_1939_12.pdf"
    if not pdf.exists():
        pytest.skip(f"real sample not found: {pdf}")
    import pymupdf

    with pymupdf.open(pdf) as doc:
        pix = doc[21].get_pixmap(dpi=300, colorspace=pymupdf.csGRAY)
    gray = np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.height, pix.width)
    head = np.ascontiguousarray(gray[int(pix.height * 0.09) : int(pix.height * 0.17)])
    out, erased = erase_rules_array(head)
    assert erased > 0
    lines = [line.split() for line in _tesseract(_png(out)).splitlines()]
    months = "Oct. Nov. Dec. Jan. Feb. Mar. Apr. May June July Aug. Sept. Oct.".split()
    assert any(line[-13:] == months for line in lines), lines
