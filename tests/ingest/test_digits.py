"""The digits-only second OCR pass (``pipeline.ingest.digits``)."""

from __future__ import annotations

import io

import polars as pl
import pytest
from PIL import Image, ImageDraw, ImageFont

from pipeline.ingest.digits import (
    apply_digit_pass,
    doubtful_figures,
    figure_sheet,
    is_figure,
    number_columns,
    read_sheet,
)
from pipeline.ingest.ocr import PAGE_WORDS_SCHEMA, parse_tsv, run_tesseract
from tests.ingest.scan_fixtures import FONT


def _words(rows: list[tuple[str, float, float, float, float, float]]) -> pl.DataFrame:
    """Word rows (text, x0, y0, x1, y1, conf) in the OCR cache schema."""
    return pl.DataFrame(
        [
            {
                "word_no": i,
                "block_no": 0,
                "line_no": i,
                "text": text,
                "x0": x0,
                "y0": y0,
                "x1": x1,
                "y1": y1,
                "conf": conf,
                "source": "ocr",
            }
            for i, (text, x0, y0, x1, y1, conf) in enumerate(rows)
        ],
        schema=PAGE_WORDS_SCHEMA,
    )


def test_well_formed_figures():
    for text in ["1,234", "(1,234)", "-45", "r1,234", "1,507.7", "12,719", "1945", "3,316*"]:
        assert is_figure(text), text
    for text in ["aos", "i7R2", "1,23", "12345", "2MmM1", "Total", "4,5,35,"]:
        assert not is_figure(text), text


def test_doubtful_words_are_unsure_readings_with_digits_in_number_columns():
    words = _words(
        [
            ("Agriculture", 100, 100, 400, 130, 40.0),  # a label: left of every column
            ("4,535", 900, 100, 1000, 130, 95.0),
            ("5,339", 902, 150, 1001, 180, 91.0),
            ("4,321", 899, 200, 998, 230, 88.0),
            ("3st", 930, 250, 999, 280, 31.0),  # garbled, in the column
            ("Total", 930, 40, 999, 70, 30.0),  # a header word over the column: no digit
            ("4.3l1", 1300, 100, 1400, 130, 20.0),  # garbled but in no column
            ("1,792", 903, 300, 1002, 330, 45.0),  # well formed but unsure
        ]
    )
    assert number_columns(words) == [(998.0, 1001.0)]
    assert doubtful_figures(words)["text"].to_list() == ["3st", "1,792"]


def test_sheet_rows_map_back_to_their_words():
    image = Image.new("L", (600, 400), 255)
    sheet, rows = figure_sheet(image, [(10, 10, 110, 40), (200, 300, 260, 330)])
    assert len(rows) == 2 and rows[0][1] < rows[1][0]
    assert sheet.height >= sum(b - a for a, b in rows)
    (a0, a1), (b0, b1) = rows
    found = _words(
        [("2", 120, b0 + 5, 140, b1 - 5, 80.0), ("1,", 60, a0 + 5, 80, a1 - 5, 90.0)]
        + [("234", 82, a0 + 5, 120, a1 - 5, 70.0)]
    )
    assert read_sheet(found, rows) == [("1,234", 80.0), ("2", 80.0)]


def _figures_png(figures: list[str]) -> tuple[bytes, list[tuple[float, float, float, float]]]:
    """A 300 DPI strip of right-aligned figures and their boxes in image pixels."""
    image = Image.new("L", (1200, 120 + 80 * len(figures)), 255)
    draw = ImageDraw.Draw(image)
    font = ImageFont.truetype(FONT, 44)
    boxes = []
    for i, figure in enumerate(figures):
        x = 900 - draw.textlength(figure, font=font)
        draw.text((x, 60 + 80 * i), figure, font=font, fill=0)
        boxes.append(draw.textbbox((x, 60 + 80 * i), figure, font=font))
    buf = io.BytesIO()
    image.save(buf, "PNG", dpi=(300, 300))
    return buf.getvalue(), [tuple(map(float, b)) for b in boxes]


def test_digit_pass_rereads_garbled_figures_with_tesseract():
    figures = ["4,535", "5,339", "4,321", "3,792", "12,719"]
    png, boxes = _figures_png(figures)
    # the first pass got three right and garbled two
    first = ["4,535", "5,339", "4,321", "i7R2", "l2.7l9"]
    confs = [93.0, 92.0, 90.0, 35.0, 12.0]
    words = _words([(t, *b, c) for t, b, c in zip(first, boxes, confs, strict=True)])
    fixed = apply_digit_pass(words, png, lambda data, args: parse_tsv(run_tesseract(data, args)))
    assert fixed["text"].to_list() == figures
    # boxes and the trusted words are untouched
    assert fixed.select("x0", "y0", "x1", "y1").equals(words.select("x0", "y0", "x1", "y1"))
    assert fixed["conf"].head(3).to_list() == confs[:3]


@pytest.mark.parametrize(
    ("reading", "conf", "replaced"),
    [
        ("4,462", 90.0, True),
        ("2", 90.0, False),  # drops digits the first pass saw: part of the crop was lost
        ("4,462", 5.0, False),  # less sure than the first pass
        ("--.,", 90.0, False),  # no figure (a rule, a smudge)
    ],
)
def test_a_reading_replaces_only_when_it_is_a_surer_figure(reading, conf, replaced):
    png, boxes = _figures_png(["4,535", "5,339", "4,321", "4,462"])
    texts, confs = ["4,535", "5,339", "4,321", "a462"], [95.0, 95.0, 95.0, 10.0]
    words = _words([(t, *b, c) for t, b, c in zip(texts, boxes, confs, strict=True)])

    def digit_ocr(data: bytes, args: list[str]) -> pl.DataFrame:
        # one doubtful word, so the sheet holds one row: answer across its middle
        sheet = Image.open(io.BytesIO(data))
        return _words([(reading, 50, 40, 150, sheet.height - 40, conf)])

    out = apply_digit_pass(words, png, digit_ocr)
    assert out["text"][3] == (reading if replaced else "a462")
    assert out.drop("text", "conf").equals(words.drop("text", "conf"))
