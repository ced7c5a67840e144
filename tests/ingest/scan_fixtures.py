"""Generated scan fixtures: statement-like pages as image-only or text-layer PDFs.

Plain helpers (imported by the tests of this folder); ``conftest.py`` holds the fixtures.
"""

from __future__ import annotations

import io
import random
from pathlib import Path

import matplotlib
import numpy as np
import pymupdf
from PIL import Image, ImageDraw, ImageFilter, ImageFont

FONT = matplotlib.get_data_path() + "/fonts/ttf/DejaVuSerif.ttf"
LETTER_PT = (612, 792)


def statement_numbers(seed: int, rows: int = 24, cols: int = 4) -> list[list[str]]:
    """Printed amounts (thousands separators) for a generated table."""
    rng = random.Random(seed)
    return [[f"{rng.randint(10, 999_999):,}" for _ in range(cols)] for _ in range(rows)]


def statement_page(
    numbers: list[list[str]], dpi: int = 150, blur: float = 0.0, title: str = "Table 1"
) -> bytes:
    """A statement page drawn at 300 DPI, downsampled to ``dpi``, optionally blurred: PNG."""
    img = Image.new("L", (2550, 3300), 255)
    draw = ImageDraw.Draw(img)
    fnt = ImageFont.truetype(FONT, 44)  # ~10.5 pt at 300 DPI
    draw.text((200, 150), f"{title}.- Budget Receipts by Source", font=fnt, fill=0)
    draw.text((200, 220), "(In millions of dollars)", font=fnt, fill=0)
    for r, row in enumerate(numbers):
        y = 350 + r * 75
        draw.text((200, y), f"Item {r + 1}", font=fnt, fill=0)
        for c, value in enumerate(row):
            right = 1200 + c * 380
            draw.text((right - draw.textlength(value, font=fnt), y), value, font=fnt, fill=0)
    if dpi != 300:
        img = img.resize((round(8.5 * dpi), round(11 * dpi)), Image.Resampling.LANCZOS)
    if blur:
        img = img.filter(ImageFilter.GaussianBlur(blur))
    buf = io.BytesIO()
    img.save(buf, "PNG")
    return buf.getvalue()


def image_pdf(path: Path, pngs: list[bytes]) -> Path:
    """An image-only PDF, one letter page per PNG (a scan without a text layer)."""
    doc = pymupdf.open()
    for png in pngs:
        page = doc.new_page(width=LETTER_PT[0], height=LETTER_PT[1])
        page.insert_image(page.rect, stream=png)
    doc.save(path)
    return path


def text_pdf(path: Path, lines: list[str]) -> Path:
    """A born-digital PDF with a real text layer."""
    doc = pymupdf.open()
    page = doc.new_page(width=LETTER_PT[0], height=LETTER_PT[1])
    for i, line in enumerate(lines):
        page.insert_text((72, 90 + 16 * i), line, fontsize=11, fontname="helv")
    doc.save(path)
    return path


def scanned_with_hidden_text(path: Path, png: bytes, hidden: str) -> Path:
    """A scan with an invisible archive OCR layer under the image (like the real bulletins)."""
    doc = pymupdf.open()
    page = doc.new_page(width=LETTER_PT[0], height=LETTER_PT[1])
    page.insert_image(page.rect, stream=png)
    page.insert_text((72, 90), hidden, fontsize=11, render_mode=3)
    doc.save(path)
    return path


def gray_array(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("L"))
