"""A label phrase OCR ran across the stub's edge into a value column is cut there, and
the misread figure it held leaves the label.

The fixtures are OCR words of real pages (text, x0, y0, x1, y1, conf as tesseract gave
them) per OCR line, the first value columns of each table:

- 1940-05 p73 "Silver Production, by Leading Countries": the 4,226 of Aug. read "rape",
  set a line above "ang" (the stub's "Aug.") and read into one phrase with it;
- 1967-08 p97 "Banking Liabilities to and Claims on Foreigners": the 27,593.1 of a
  restated December read "|n*sq5-7—]" a word-space after "December 13/.";
- 1939-12 p51 "Net Capital Movement": a stub of dated spans whose days and years OCR
  reads as figures at the stub's own tab stops.
"""

from __future__ import annotations

import polars as pl

from pipeline.tables.columns import find_columns, split_strays
from pipeline.tables.label_phrases import cut_label_phrases, main_columns
from pipeline.tables.line_kinds import RowLine, classify_line
from pipeline.tables.lines import assign_lines, page_lines
from tests.tables.ocr_words import ocr_lines

P73_LINES = [
    [("June", 168, 2189, 223, 2229, 95), ("5,493", 564, 2198, 633, 2226, 80),
     ("1,766", 691, 2197, 761, 2225, 90), ("10.275", 804, 2198, 889, 2225, 62)],
    [("Jaly", 168, 2249, 226, 2286, 88), ("200", 581, 2259, 634, 2280, 0),
     ("2,099", 692, 2258, 761, 2282, 86), ("8,008", 819, 2256, 888, 2280, 0)],
    [("ang", 163, 2276, 214, 2314, 80), ("rape", 559, 2255, 633, 2317, 47),
     ("2,703", 691, 2287, 760, 2312, 95), ("6,971", 820, 2283, 887, 2311, 72)],
    [("Sept", 165, 2308, 222, 2347, 96), ("5.145", 564, 2312, 634, 2340, 88),
     ("2,679", 691, 2311, 759, 2339, 93), ("6,857", 820, 2312, 888, 2340, 56)],
]  # fmt: skip


# 1967-08 p97: November, the restated December's two lines, 1967-January
P97_LINES = [
    [("November", 293, 1771, 418, 1791, 97), ("28,", 512, 1771, 553, 1798, 38),
     ("392.0", 562, 1772, 634, 1795, 38), ("12,333.5", 711, 1773, 831, 1798, 74),
     ("}10,151.5", 880, 1772, 1000, 1798, 59), ("3,790.1", 1079, 1768, 1186, 1803, 89)],
    [("27,723.7", 511, 1802, 634, 1826, 86), ("11,967.5", 711, 1802, 831, 1826, 85),
     ("{10,022.9", 880, 1803, 1000, 1825, 56), ("3,743.3", 1079, 1803, 1184, 1827, 79)],
    [("December", 294, 1816, 418, 1836, 92), ("13/.", 433, 1811, 491, 1842, 76),
     ("|n*sq5-7—]", 511, 1834, 634, 1860, 0), ("33-53-71", 711, 1834, 813, 1860, 31),
     ("0-857-809-3806", 883, 1834, 1321, 1860, 13), ("257.7", 1819, 1835, 1895, 1859, 78)],
    [("1967-January", 220, 1871, 404, 1909, 90), ("26,", 511, 1878, 552, 1905, 88),
     ("724.8", 564, 1879, 634, 1903, 87), ("11,701.0", 712, 1880, 833, 1906, 91),
     ("9,347.3", 894, 1879, 1000, 1906, 39), ("3,711.7", 1079, 1879, 1186, 1906, 93)],
]  # fmt: skip

# 1939-12 p51, Net Capital Movement: a stub of dated spans, "Jan. 2, 1935-Jan. 1,
# 1936..", whose days and years OCR reads as figures at the stub's own tab stops
P51_LINES = [
    [("Jan.", 130, 591, 182, 611, 89), ("2,", 216, 592, 238, 613, 93),
     ("1935-Jen.", 258, 591, 381, 615, 69), ("1,", 415, 591, 437, 612, 93),
     ("1936..", 457, 587, 537, 614, 88), ("337.385|", 613, 590, 711, 614, 84),
     ("177,610]", 740, 585, 838, 612, 6), ("28,829!", 883, 588, 964, 612, 56)],
    [("Jen,", 129, 620, 182, 639, 77), ("1,", 216, 620, 239, 641, 93),
     ("1936-Dec.", 259, 615, 381, 643, 82), ("30,", 400, 620, 437, 643, 93),
     ("1936..", 457, 614, 537, 642, 90), ("4,166/", 640, 613, 711, 639, 56),
     ("28,599)", 755, 618, 837, 641, 13), ("39,892)", 883, 618, 966, 641, 90)],
    [("Dec.", 130, 648, 182, 668, 71), ("30,", 202, 649, 238, 672, 92),
     ("1936-Dec.", 258, 644, 381, 671, 66), ("29,", 401, 648, 437, 671, 92),
     ("1937..", 457, 647, 537, 671, 90), ("55,152]", 628, 647, 710, 670, 73),
     ("-29,162|", 740, 642, 839, 670, 86), ("46,003", 882, 642, 966, 669, 97)],
    [("Dec.", 130, 676, 183, 696, 73), ("29,", 202, 677, 238, 700, 93),
     ("1937-Dec.", 259, 676, 381, 700, 91), ("28,", 401, 676, 437, 698, 93),
     ("1938..", 457, 676, 538, 699, 91), ("174,438;", 613, 671, 710, 698, 85),
     ("47,232)", 754, 671, 839, 698, 32), ("15,796", 884, 670, 966, 698, 96)],
    [("Dec,", 130, 705, 183, 724, 91), ("28,", 201, 705, 238, 726, 92),
     ("1938-Sept.27,", 259, 704, 438, 728, 90), ("1939..", 458, 704, 537, 727, 87),
     ("239", 613, 704, 652, 727, 31), (",526|", 659, 692, 726, 731, 31),
     ("109,523)", 742, 703, 838, 727, 66), ("12,695|", 884, 699, 967, 726, 83)],
    [("Total", 144, 752, 213, 789, 97), ("810,666)", 614, 755, 711, 782, 54),
     ("333,802|", 742, 760, 839, 784, 92), ("142,215]", 869, 756, 967, 783, 15)],
]  # fmt: skip


def _body(lines: list[list[tuple]], margin: float) -> tuple[list[RowLine], float]:
    words = assign_lines(ocr_lines(lines))
    height = float(words.select((pl.col("y1") - pl.col("y0")).median()).item())
    body = [classify_line(line, margin, height) for line in page_lines(words)]
    assert all(r.kind == "body" for r in body)
    return body, height


def _labels(body: list[RowLine]) -> list[str]:
    return [" ".join(c.text for c in r.label) for r in body]


def _read(body: list[RowLine], height: float) -> tuple[list[RowLine], list[str], list[list]]:
    """Phrases cut as the table reader does, then each row's label and strays."""
    columns = find_columns(body, height)
    cut = cut_label_phrases(body, columns, height)
    labels, strays = [], []
    for row in cut:
        label, stray = split_strays(row.label, columns, height)
        labels.append(" ".join(c.text for c in label))
        strays.append([c.text for c in stray])
    return cut, labels, strays


def test_a_garbled_figure_read_into_the_stub_phrase_above_leaves_it() -> None:
    body, height = _body(P73_LINES, 163.0)
    assert _labels(body)[2] == "rape ang"  # read line by line: "rape" stands higher
    cut, labels, strays = _read(body, height)
    assert [c.text for c in cut[2].label] == ["ang", "rape"]  # left to right, cut apart
    assert labels == ["June", "Jaly", "ang", "Sept"]
    assert strays[2] == ["rape"]
    assert cut[:2] == body[:2] and cut[3] == body[3]  # rows without such a phrase as read


def test_a_garbled_figure_a_word_space_after_the_footnote_mark_leaves_the_label() -> None:
    body, height = _body(P97_LINES, 220.0)
    assert _labels(body)[2].startswith("December 13/. n*sq5-7")
    cut, labels, strays = _read(body, height)
    assert labels[2] == "December 13/."
    assert strays[2][0] == "n*sq5-7\u2014"


def test_only_columns_of_half_the_rows_cut_a_phrase() -> None:
    body, height = _body(P51_LINES, 130.0)
    columns = find_columns(body, height)
    main = main_columns(body, columns, height)
    # the days and years of the dated spans make columns of their own, of two rows
    assert columns[0].x1 < 613 and all(columns[k].x0 >= 613 for k in main)
    assert len(main) >= 3
