"""A word box far wider than its characters is junk when the value columns are found.

1984-06 p65, Table CM-IV-4 "Total Claims by Country" (400-DPI OCR): the heads print
"Calendar year" over 1978-1981, "1982" over "Dec.r" alone and "1983" over "Mar.r June r
Sept.r Dec.p". Tesseract boxed the rule under "Total other countries" with the row's
figures as one word "829889" from x 546 to 2136 (the body's figures are 13-20 px a
character). Taken as a figure it stretched the last column over the whole table, the
column boundaries moved, "1982" was read over "Mar." and a drafted question asked "March
1982" of the column printed under "1983" (audit of a real build).

The fixture is the OCR words of the page (text, x0, y0, x1, y1, conf as tesseract gave
them) per OCR line: title, unit line, heads, the first six body rows, and the lines "All
other", "Total other countries" (with the junk box) and "Total foreign countries", whose
y is moved up by 2075 px under the first rows (x and sizes unchanged) in place of the 78
rows between.
"""

from __future__ import annotations

from datetime import date

import polars as pl

from pipeline.ingest.schemas import PAGES_SCHEMA, WORDS_SCHEMA
from pipeline.tables.columns import is_junk_box
from pipeline.tables.layout import build_tables
from pipeline.tables.lines import Chunk

P65_LINES = [
    [
        ("Table", 790, 84, 867, 109, 93), ("CM—IV—4.", 885, 85, 1039, 110, 89),
        ("—", 1059, 99, 1081, 103, 90), ("Tota!", 1098, 87, 1168, 111, 70),
        ("Claims", 1186, 87, 1284, 112, 97), ("by", 1303, 89, 1333, 118, 97),
        ("Country", 1350, 88, 1465, 118, 97), ("53", 2217, 79, 2269, 113, 96),
    ],
    [
        ("[Position", 761, 132, 890, 154, 93), ("at", 910, 137, 935, 153, 74),
        ("end", 955, 137, 996, 153, 74), ("of", 1016, 137, 1042, 154, 95),
        ("period", 1062, 137, 1148, 160, 95), ("in", 1168, 137, 1194, 154, 96),
        ("millions", 1213, 137, 1329, 155, 95), ("of", 1350, 138, 1376, 156, 96),
        ("dollars]", 1395, 136, 1514, 158, 74),
    ],
    [
        ("Calendar", 850, 185, 966, 204, 94), ("year", 986, 191, 1042, 210, 94),
        ("1982", 1336, 188, 1391, 206, 97), ("1983", 1730, 190, 1786, 208, 97),
    ],
    [
        ("Country", 286, 207, 388, 229, 95), ("~~", 2028, 214, 2075, 217, 7),
    ],
    [
        ("1978", 670, 234, 725, 252, 97), ("1979", 836, 236, 891, 253, 95),
        ("1980", 1004, 237, 1059, 254, 97), ("1981", 1170, 238, 1223, 255, 95),
        ("Jec.r", 1336, 239, 1406, 257, 0), ("Mar.r", 1502, 240, 1573, 258, 39),
        ("June", 1669, 240, 1726, 259, 90), ("r", 1746, 246, 1755, 258, 90),
        ("Sept.r", 1822, 241, 1907, 264, 85), ("Uec.p", 2004, 243, 2075, 265, 16),
    ],
    [
        ("eee", 132, 278, 2140, 293, 27),
    ],
    [
        ("Europe:", 135, 307, 234, 329, 95),
    ],
    [
        ("Austria", 165, 331, 267, 350, 97), ("38", 699, 334, 724, 351, 97),
        ("4.", 865, 335, 890, 353, 82), ("58", 1033, 337, 1059, 354, 96),
        ("49", 1199, 337, 1225, 355, 97), ("15", 1368, 338, 1392, 356, 96),
        ("20", 1534, 339, 1560, 356, 97), ("21", 1700, 339, 1724, 357, 96),
        ("27", 1867, 341, 1892, 358, 96), ("27", 2035, 342, 2060, 360, 97),
    ],
    [
        ("Belgium-Luxembourg", 166, 357, 434, 380, 86), ("191", 684, 359, 722, 377, 97),
        ("alk)", 849, 357, 890, 387, 47), ("378", 1017, 362, 1058, 380, 96),
        ("277", 1183, 362, 1223, 381, 97), ("160", 1352, 364, 1391, 381, 96),
        ("197", 1519, 365, 1558, 382, 97), ("156", 1685, 365, 1725, 383, 97),
        ("156", 1852, 366, 1892, 384, 96), ("179", 2020, 367, 2060, 386, 96),
    ],
    [
        ("Bulgaria", 165, 382, 282, 405, 97), ("3", 715, 384, 723, 401, 95),
        ("7", 881, 386, 890, 403, 96), ("6", 1048, 388, 1058, 405, 97),
        ("5", 1214, 388, 1223, 406, 97), ("8", 1381, 390, 1392, 406, 96),
        ("1", 1550, 390, 1557, 407, 94), ("10", 1701, 390, 1726, 408, 97),
        ("2", 1883, 391, 1893, 410, 97), ("2", 2050, 392, 2060, 410, 97),
    ],
    [
        ("Czechoslovakia", 164, 407, 372, 427, 96), ("8", 712, 409, 723, 427, 96),
        ("7", 881, 411, 889, 428, 96), ("9", 1047, 412, 1057, 430, 97),
        ("11", 1199, 413, 1222, 432, 61), ("13", 1367, 414, 1391, 432, 89),
        ("16", 1534, 415, 1559, 432, 97), ("12", 1700, 415, 1725, 434, 97),
        ("4", 1882, 417, 1891, 435, 97), ("5", 2050, 418, 2059, 435, 96),
    ],
    [
        ("Oenmark", 165, 432, 265, 451, 90), ("60", 697, 434, 724, 452, 97),
        ("75", 866, 436, 890, 453, 96), ("63", 1032, 437, 1058, 455, 97),
        ("65", 1199, 438, 1224, 455, 97), ("46", 1366, 439, 1392, 456, 97),
        ("45", 1534, 439, 1559, 457, 97), ("27", 1700, 440, 1725, 458, 97),
        ("24", 1867, 441, 1892, 459, 97), ("53", 2035, 442, 2060, 460, 90),
    ],
    [
        ("Finland", 165, 458, 266, 476, 29), ("43", 697, 459, 722, 477, 97),
        ("49", 864, 461, 890, 479, 97), ("79", 1032, 462, 1057, 481, 90),
        ("97", 1198, 464, 1223, 481, 96), ("50", 1366, 464, 1391, 482, 96),
        ("89", 1532, 465, 1559, 483, 96), ("39", 1700, 466, 1725, 484, 97),
        ("44", 1866, 467, 1891, 484, 97), ("41", 2034, 468, 2058, 485, 96),
    ],
    [
        ("All", 155, 2558, 193, 2577, 89), ("other", 215, 2559, 288, 2577, 95),
        ("63", 688, 2561, 715, 2579, 96), ("75", 857, 2561, 882, 2579, 96),
        ("6?", 1024, 2561, 1049, 2579, 72), ("78", 1192, 2562, 1217, 2579, 96),
        ("45", 1358, 2562, 1384, 2579, 97), ("61", 1527, 2562, 1551, 2579, 96),
        ("177", 1679, 2562, 1719, 2579, 57), ("149", 1846, 2562, 1887, 2580, 95),
        ("155", 2015, 2563, 2054, 2580, 96),
    ],
    [
        ("|", 7, 2590, 10, 2658, 89), ("Total", 171, 2595, 240, 2614, 97),
        ("other", 262, 2597, 334, 2615, 96), ("countries", 353, 2598, 485, 2616, 84),
        ("216", 600, 2584, 724, 2635, 4), ("267", 791, 2584, 890, 2635, 61),
        ("829889", 546, 2598, 2136, 2624, 24),
    ],
    [
        ("Total", 171, 2639, 238, 2659, 96), ("foreign", 262, 2641, 362, 2664, 96),
        ("countries.", 383, 2642, 544, 2660, 0), ("__27,984", 570, 2629, 720, 2680, 6),
        ("__41,283", 736, 2629, 890, 2680, 41), ("34,459", 936, 2629, 1056, 2680, 54),
        ("36,077", 1102, 2629, 1230, 2680, 48), ("_28,304", 1242, 2629, 1391, 2680, 48),
        ("31,069", 1437, 2629, 1561, 2680, 62), ("31,310", 1603, 2629, 1727, 2680, 70),
        ("31,582", 1769, 2629, 1893, 2680, 58), ("33,278", 1939, 2629, 2063, 2680, 58),
    ],]  # fmt: skip
_MOVED_UP = 2075  # the last three lines stand at y 2558-2680 on the page


def _frames() -> tuple[pl.DataFrame, pl.DataFrame]:
    rows = []
    for line_no, words in enumerate(P65_LINES):
        dy = _MOVED_UP if words[0][2] > 2000 else 0
        for text, x0, y0, x1, y1, conf in words:
            rows.append({
                "doc_id": "d", "page_no": 65, "word_no": len(rows), "block_no": 1,
                "line_no": line_no, "text": text, "x0": float(x0), "y0": float(y0 - dy),
                "x1": float(x1), "y1": float(y1 - dy), "conf": float(conf), "source": "ocr",
            })  # fmt: skip
    page = {
        "doc_id": "d", "page_no": 65, "image_sha256": "x", "width_px": 3400,
        "height_px": 4400, "dpi": 400.0, "text_layer_chars": 0, "word_source": "ocr",
        "blur_score": 1.0, "quality": "clear",
    }  # fmt: skip
    return pl.DataFrame(rows, schema=WORDS_SCHEMA), pl.DataFrame([page], schema=PAGES_SCHEMA)


def test_the_junk_box_is_junk_and_the_figures_beside_it_are_not() -> None:
    per_char = 13.3  # the body's median box width per character
    junk = Chunk("829889", 546, 2598, 2136, 2624, 24.0, 1)
    assert is_junk_box(junk, per_char)
    # a total boxed with the rule under it is tall, not wide: 6 characters in 124 px
    assert not is_junk_box(Chunk("31,069", 1437, 2629, 1561, 2680, 62.0, 1), per_char)
    assert not is_junk_box(Chunk("__27,984", 570, 2629, 720, 2680, 6.0, 1), per_char)
    # 1967-08 p78: a total "37" boxed with the double rule under it, 138 px wide where
    # that page sets about 15 px a character, is a figure
    assert not is_junk_box(Chunk("37", 1354, 2650, 1492, 2683, 59.0, 1), 14.8)
    assert not is_junk_box(junk, None)


def test_month_columns_take_the_years_printed_over_them() -> None:
    tables, cells = build_tables(*_frames())
    assert tables.height == 1
    assert tables["n_cols"].item() == 9
    dated = {
        r["col_idx"]: r["period_end"]
        for r in cells.filter(pl.col("period_kind") == "as_of_date").iter_rows(named=True)
    }
    # 1978-1981 under "Calendar year", Dec. 1982, then Mar., June, Sept. 1983 (Dec. 1983:
    # its head "Uec.p" OCR lost; the column is no month of its own)
    assert dated == {
        0: date(1978, 12, 31), 1: date(1979, 12, 31), 2: date(1980, 12, 31),
        3: date(1981, 12, 31), 4: date(1982, 12, 31), 5: date(1983, 3, 31),
        6: date(1983, 6, 30), 7: date(1983, 9, 30),
    }  # fmt: skip
    # no cell anywhere is dated March 1982
    assert date(1982, 3, 31) not in cells["period_end"].to_list()


def test_the_junk_box_is_placed_in_no_column() -> None:
    _, cells = build_tables(*_frames())
    total = cells.filter(pl.col("row_label") == "Total other countries")
    assert "829889" not in "".join(total["text"].to_list())
    # the rows under and over it keep their figures in their columns (the first figures
    # of "Total foreign countries" OCR read at confidence 0-41 with rule marks, "__27,984")
    foreign = cells.filter(pl.col("row_label").str.starts_with("Total foreign")).sort("col_idx")
    assert foreign.filter(pl.col("col_idx") >= 5)["text"].to_list() == [
        "31,069", "31,310", "31,582", "33,278"
    ]  # fmt: skip
    austria = cells.filter(pl.col("row_label") == "Austria").sort("col_idx")
    assert austria["text"].to_list() == ["38", "4.", "58", "49", "15", "20", "21", "27", "27"]
