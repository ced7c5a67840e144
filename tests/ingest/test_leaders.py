"""Dot leaders are erased before OCR; decimal points, periods and figures are not."""

from __future__ import annotations

import io
import shutil
import subprocess

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFilter

from pipeline.ingest.leaders import erase_leaders, erase_leaders_array
from pipeline.synth.render import FONT_DIR


def _font(pt: float = 10.0):
    from PIL import ImageFont

    return ImageFont.truetype(str(FONT_DIR / "DejaVuSansMono.ttf"), size=round(pt * 300 / 72))


def _stub_page(rows: list[tuple[str, str]], blur: float = 0.8) -> np.ndarray:
    """A typewriter-like stub: 'label ........ figure' per row, softened like a scan."""
    img = Image.new("L", (1400, 80 + 60 * len(rows)), 255)
    draw = ImageDraw.Draw(img)
    f = _font()
    for i, (label, figure) in enumerate(rows):
        y = 40 + 60 * i
        draw.text((40, y), label, font=f, fill=0)
        x = 40 + f.getlength(label + " ")
        while x < 900:  # leader dots drawn one by one, like a typewriter's
            draw.text((x, y), ".", font=f, fill=0)
            x += f.getlength(".")
        draw.text((1300, y), figure, font=f, fill=0, anchor="ra")
    return np.asarray(img.filter(ImageFilter.GaussianBlur(blur)))


def _ink(a: np.ndarray) -> int:
    return int((a < 128).sum())


ROWS = [("1940", "-2.3"), ("1941", "8.7"), ("1947-July", "-506.2"), ("August", "12.7")]


def test_leaders_are_erased_and_labels_and_figures_kept() -> None:
    page = _stub_page(ROWS)
    out, n = erase_leaders_array(page)
    assert n >= 4 * len(ROWS)  # every row's leader, several dots each
    # the leader band (between the labels and the figures) is empty of ink
    assert _ink(out[:, 450:880]) == 0
    # labels and figures (decimal points included) keep every pixel of ink
    f = _font()
    for i, (label, _) in enumerate(ROWS):
        rows, cols = slice(30 + 60 * i, 95 + 60 * i), slice(30, 42 + round(f.getlength(label)))
        assert _ink(out[rows, cols]) == _ink(page[rows, cols]) > 0, label
    assert _ink(out[:, 1100:]) == _ink(page[:, 1100:])


def test_lone_dots_are_not_leaders() -> None:
    """Decimal points stacked in a column, a period after an abbreviation, spaced-out
    footnote stars: none is a chain on one baseline."""
    img = Image.new("L", (1200, 500), 255)
    draw = ImageDraw.Draw(img)
    f = _font()
    for i, text in enumerate([".5", ".3", ".4", ".7", ".2", ".1"]):
        draw.text((300, 30 + 55 * i), text, font=f, fill=0)
        draw.text((700, 30 + 55 * i), f"Sept. {i}.5   *   *", font=f, fill=0)
    page = np.asarray(img)
    out, n = erase_leaders_array(page)
    assert n == 0
    assert np.array_equal(out, page)


def test_a_page_without_leaders_comes_back_byte_identical() -> None:
    img = Image.new("L", (600, 200), 255)
    ImageDraw.Draw(img).text((20, 50), "Total receipts 1,234.5", font=_font(), fill=0)
    buf = io.BytesIO()
    img.save(buf, format="PNG", dpi=(300, 300))
    png = buf.getvalue()
    assert erase_leaders(png) == (png, 0)


def test_erasing_keeps_size_and_density() -> None:
    buf = io.BytesIO()
    Image.fromarray(_stub_page(ROWS)).save(buf, format="PNG", dpi=(300, 300))
    out, n = erase_leaders(buf.getvalue())
    assert n > 0
    with Image.open(io.BytesIO(out)) as img:
        assert img.size == (1400, 80 + 60 * len(ROWS))
        assert round(img.info["dpi"][0]) == 300


@pytest.mark.skipif(shutil.which("tesseract") is None, reason="tesseract is not installed")
def test_tesseract_reads_the_stub_once_leaders_are_gone() -> None:
    buf = io.BytesIO()
    Image.fromarray(_stub_page(ROWS, blur=1.2)).save(buf, format="PNG", dpi=(300, 300))
    png, _ = erase_leaders(buf.getvalue())
    text = subprocess.run(
        ["tesseract", "stdin", "stdout", "--psm", "6"],
        input=png,
        capture_output=True,
        env={"OMP_THREAD_LIMIT": "1", "PATH": "/usr/bin:/bin"},
        check=True,
    ).stdout.decode()
    words = [line.split() for line in text.splitlines() if line.strip()]
    assert [w[0] for w in words] == [label for label, _ in ROWS]
    assert [w[-1] for w in words] == [figure for _, figure in ROWS]
