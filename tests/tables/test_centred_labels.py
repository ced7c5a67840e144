"""A label set once, centred between two lines of figures (a period restated from a new
basis), labels both lines.

1967-08 p97, Table 1 "Banking Liabilities to and Claims on Foreigners" (300-DPI OCR):
"1966 12/" stands between the year-end figures before and after a change in reporting
coverage (27,723.7 over 27,593.1), and "December 13/" between the same two figures of
the monthly panel. Tesseract put each label on the lower line and left the upper one
unlabelled, so the gold rows "1966" and "December" (27,723.7), both end of 1966, were
read as blank rows without a period. The fixture is the OCR words of the page (text,
x0, y0, x1, y1, conf as tesseract gave them) per OCR line: the title, the unit line,
the stub head, and the rows from "1965" to "1967-January" of the first four columns and
of the column of short-term claims on foreign official institutions.
"""

from __future__ import annotations

from datetime import date

import polars as pl

from pipeline.tables.centred_labels import shared_labels
from pipeline.tables.columns import find_columns, split_strays
from pipeline.tables.label_phrases import cut_label_phrases
from pipeline.tables.layout import build_tables
from pipeline.tables.line_kinds import classify_line
from pipeline.tables.lines import assign_lines, page_lines
from tests.tables.ocr_words import ocr_lines, ocr_page

P97_LINES = [
    [
        ("Table", 862, 382, 976, 412, 96),
        ("1.", 994, 382, 1018, 412, 92),
        ("-", 1039, 400, 1050, 405, 93),
        ("Banking", 1065, 382, 1227, 419, 96),
        ("Liabilities", 1241, 381, 1435, 412, 97),
        ("to", 1448, 384, 1485, 412, 97),
        ("and", 1500, 381, 1571, 412, 96),
        ("Claims", 1586, 381, 1722, 412, 96),
        ("on", 1737, 391, 1785, 411, 96),
        ("Foreigners", 1800, 382, 2003, 418, 93),
        ("1/", 2018, 381, 2054, 415, 90),
    ],
    [
        ("(Position", 1031, 449, 1166, 476, 95),
        ("at", 1182, 454, 1213, 473, 96),
        ("end", 1230, 453, 1275, 474, 96),
        ("of", 1291, 453, 1321, 473, 96),
        ("period", 1335, 453, 1427, 478, 97),
        ("in", 1445, 453, 1473, 473, 97),
        ("millions", 1489, 452, 1611, 473, 97),
        ("of", 1629, 453, 1659, 472, 97),
        ("dollars)", 1675, 447, 1795, 475, 96),
    ],
    [("calendar", 250, 635, 373, 650, 96), ("year", 387, 635, 450, 655, 97)],
    [("or", 249, 665, 279, 680, 95), ("month", 294, 660, 373, 680, 95)],
    [
        ("1965", 217, 1465, 276, 1500, 96),
        ("iy/", 288, 1459, 342, 1502, 0),
        ("25,550.7", 510, 1467, 634, 1493, 88),
        ("13,065.9", 711, 1465, 831, 1493, 75),
        ("7,359.7", 896, 1467, 1002, 1493, 93),
        ("3,587.2", 1080, 1466, 1185, 1493, 92),
    ],
    [
        ("27,723.7", 510, 1512, 634, 1535, 80),
        ("11,967.5", 711, 1510, 831, 1535, 81),
        ("_|10,022.9", 879, 1512, 999, 1536, 29),
        ("3,743.3", 1079, 1512, 1166, 1536, 85),
        ("257.7", 1817, 1512, 1894, 1535, 65),
    ],
    [
        ("1966", 217, 1526, 278, 1550, 89),
        ("12/", 292, 1523, 340, 1554, 89),
        ("27,593-1", 510, 1542, 632, 1569, 65),
        ("|", 662, 1521, 687, 1578, 75),
        ("12,023.7", 711, 1543, 833, 1569, 49),
        ("|", 857, 1521, 882, 1578, 83),
        ("9,857.5", 893, 1542, 999, 1569, 59),
        ("|", 1042, 1521, 1067, 1578, 59),
        ("3743-3", 1080, 1543, 1186, 1569, 41),
        ("257.7", 1817, 1543, 1894, 1566, 63),
    ],
    [
        ("1966-June", 218, 1597, 355, 1634, 90),
        ("25,949.0", 511, 1604, 634, 1629, 89),
        ("12,294.2", 712, 1604, 831, 1630, 91),
        ("8,050.6", 895, 1602, 1002, 1630, 94),
        ("3,744.2", 1079, 1603, 1185, 1630, 18),
        ("247.7", 1818, 1606, 1894, 1630, 82),
    ],
    [
        ("July", 295, 1645, 359, 1680, 91),
        ("26,961.5", 511, 1648, 632, 1676, 86),
        ("12,640.7", 708, 1644, 833, 1681, 87),
        ("8,661.3", 895, 1644, 1000, 1682, 96),
        ("3,726.1", 1079, 1648, 1185, 1676, 94),
        ("215.0", 1818, 1653, 1894, 1676, 82),
    ],
    [
        ("August", 294, 1675, 386, 1710, 96),
        ("27,224.5", 511, 1680, 632, 1706, 82),
        ("12,437.5", 707, 1676, 831, 1711, 76),
        ("9,127.9", 893, 1676, 1000, 1712, 96),
        ("3,653.5", 1079, 1679, 1184, 1707, 93),
        ("216.5", 1818, 1681, 1892, 1706, 64),
    ],
    [
        ("September", 295, 1706, 432, 1741, 97),
        ("27,061.0", 512, 1710, 634, 1737, 90),
        ("11,996.9", 711, 1710, 831, 1738, 92),
        ("9,193.1", 893, 1712, 1002, 1738, 92),
        ("3,838.6", 1079, 1710, 1186, 1738, 94),
        ("256.4", 1818, 1712, 1895, 1737, 95),
    ],
    [
        ("October", 294, 1741, 402, 1761, 96),
        ("28,048.2", 511, 1736, 633, 1772, 85),
        ("12", 708, 1737, 738, 1773, 51),
        (",289.9", 745, 1737, 832, 1773, 51),
        ("9,836.5", 894, 1740, 1000, 1768, 78),
        ("3,819.7", 1079, 1740, 1186, 1767, 94),
        ("274.0", 1818, 1744, 1895, 1768, 90),
    ],
    [
        ("November", 293, 1771, 418, 1791, 97),
        ("28,", 512, 1771, 553, 1798, 38),
        ("392.0", 562, 1772, 634, 1795, 38),
        ("12,333.5", 711, 1773, 831, 1798, 74),
        ("}10,151.5", 880, 1772, 1000, 1798, 59),
        ("3,790.1", 1079, 1768, 1186, 1803, 89),
        ("272.9", 1818, 1775, 1893, 1796, 69),
    ],
    [
        ("27,723.7", 511, 1802, 634, 1826, 86),
        ("11,967.5", 711, 1802, 831, 1826, 85),
        ("{10,022.9", 880, 1803, 1000, 1825, 56),
        ("3,743.3", 1079, 1803, 1184, 1827, 79),
        ("257.7", 1819, 1805, 1895, 1828, 70),
    ],
    [
        ("December", 294, 1816, 418, 1836, 92),
        ("13/.", 433, 1811, 491, 1842, 76),
        ("|n*sq5-7—]", 511, 1834, 634, 1860, 0),
        ("33-53-71", 711, 1834, 813, 1860, 31),
        ("0-857-809-3806", 883, 1834, 1321, 1860, 13),
        ("257.7", 1819, 1835, 1895, 1859, 78),
    ],
    [
        ("1967-January", 220, 1871, 404, 1909, 90),
        ("26,", 511, 1878, 552, 1905, 88),
        ("724.8", 564, 1879, 634, 1903, 87),
        ("11,701.0", 712, 1880, 833, 1906, 91),
        ("9,347.3", 894, 1879, 1000, 1906, 39),
        ("3,711.7", 1079, 1879, 1186, 1906, 93),
        ("256.9", 1819, 1882, 1894, 1907, 85),
    ],
]


def _stub(lines: list[list[tuple]]) -> tuple[list, list[str]]:
    """Body rows and their labels as the table reader makes them: label phrases cut at
    the value columns, misread figures out of the labels."""
    words = assign_lines(ocr_lines(lines, "d97", 97))
    body = [r for r in (classify_line(ln, 217.0, 25.0) for ln in page_lines(words))]
    body = [r for r in body if r.kind == "body"]
    columns = find_columns(body, 25.0)
    body = cut_label_phrases(body, columns, 25.0)
    labels = [" ".join(c.text for c in split_strays(r.label, columns, 25.0)[0]) for r in body]
    return body, labels


def test_unlabelled_line_takes_the_label_centred_beside_it() -> None:
    body, labels = _stub(P97_LINES)
    upper_1966 = labels.index("1966 12/") - 1
    upper_december = labels.index("December 13/.") - 1
    assert labels[upper_1966] == "" and labels[upper_december] == ""
    # only the two upper lines: "1965 iy/" stands level with its own figures
    assert shared_labels(body, 25.0, labels) == {
        upper_1966: upper_1966 + 1,
        upper_december: upper_december + 1,
    }


def test_a_lost_month_between_two_months_is_no_restated_one() -> None:
    # the November line taken out: "October", a blank line, "December 13/." read as a
    # month lost between two (1967-08 p39: "March", "", "May"), the blank row has a
    # month of its own, November, however its neighbour's label stands
    body, labels = _stub([line for line in P97_LINES if line[0][0] != "November"])
    upper_1966 = labels.index("1966 12/") - 1
    assert labels[labels.index("December 13/.") - 2] == "October"
    assert shared_labels(body, 25.0, labels) == {upper_1966: upper_1966 + 1}


def test_both_lines_of_a_restated_period_are_its_rows() -> None:
    _, cells = build_tables(ocr_lines(P97_LINES, "d97", 97), ocr_page("d97", 97, size=(2640, 3400)))
    first = cells.filter(pl.col("col_idx") == 0).sort("row_idx")
    rows = [(r["row_label"], r["text"], r["period_end"]) for r in first.iter_rows(named=True)]
    end_1965, end_1966 = date(1965, 12, 31), date(1966, 12, 31)
    assert rows[:4] == [
        ("1965", "25,550.7", end_1965),
        ("1966", "27,723.7", end_1966),  # above the change in reporting coverage
        ("1966", "27,593-1", end_1966),  # below it
        ("1966-June", "25,949.0", date(1966, 6, 30)),
    ]
    assert rows[-3:] == [
        ("December.", "27,723.7", end_1966),  # "December 13/." less its mark
        ("December.", "n*sq5-7\u2014", end_1966),  # its figure garbled past reading
        ("1967-January", "26,724.8", date(1967, 1, 31)),
    ]
    assert set(first["period_kind"]) == {"as_of_date"}
