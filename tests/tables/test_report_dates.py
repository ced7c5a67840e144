"""A stub of report dates (1984-06 p75, Table FCP-IV-1 Nonbanking Firms' Positions): the
quarter ends print their date over three rows told apart by the "Position held in:" text
column; OCR lost the "1" of "12/30/83" and read the "n.a." of the first row as a label
word. See pipeline.tables.report_dates."""

from __future__ import annotations

from datetime import date

import polars as pl

from pipeline.tables.layout import build_tables
from pipeline.tables.report_dates import name_date_groups, restore_lost_digit
from tests.tables.ocr_words import ocr_page, ocr_words

# The OCR words of the page's upper table as the warehouse holds them (text, x0, y0, x1,
# y1, conf, line_no), from the table number to the last row ("1,602 ... Worldwide").
P75_WORDS = [
    ("Table", 645, 232, 724, 257, 93, 2),
    ("FCP—IV—1.", 743, 231, 913, 256, 91, 2),
    ("—", 933, 245, 955, 249, 92, 2),
    ("Nonbanking", 975, 232, 1156, 263, 91, 2),
    ("Firms’", 1175, 232, 1268, 258, 93, 2),
    ("Positions", 1288, 234, 1421, 259, 93, 2),
    ("2/", 1435, 232, 1466, 259, 51, 2),
    ("Eee", 23, 299, 582, 308, 45, 3),
    ("CIn", 903, 275, 942, 297, 88, 3),
    ("biltions", 964, 277, 1084, 295, 88, 3),
    ("of", 1105, 277, 1130, 296, 97, 3),
    ("yen]", 1167, 275, 1208, 298, 96, 3),
    ("a", 1532, 299, 1598, 301, 27, 3),
    ("-", 1740, 300, 1745, 301, 0, 3),
    ("—_,", 1966, 298, 2087, 301, 12, 3),
    ("Report", 74, 333, 162, 355, 97, 4),
    ("Net", 1495, 329, 1547, 358, 67, 4),
    ("a", 1793, 356, 1827, 358, 14, 4),
    ("date", 74, 360, 131, 378, 96, 5),
    ("Assets", 244, 357, 332, 375, 90, 5),
    ("2/", 355, 355, 380, 376, 90, 5),
    ("Liabilities", 511, 355, 676, 374, 89, 5),
    ("3/", 693, 355, 723, 381, 89, 5),
    ("Exchange", 854, 356, 974, 379, 96, 5),
    ("bought", 995, 356, 1083, 378, 93, 5),
    ("4/", 1100, 354, 1130, 381, 93, 5),
    ("Exchange", 1197, 355, 1317, 378, 96, 5),
    ("sold", 1338, 355, 1395, 374, 92, 5),
    ("4/", 1411, 355, 1442, 380, 92, 5),
    ("posi-", 1494, 360, 1568, 377, 90, 5),
    ("Exchange", 1604, 355, 1722, 378, 96, 5),
    ("Position", 1743, 355, 1863, 374, 96, 5),
    ("~", 349, 377, 371, 382, 88, 6),
    ("tion", 1495, 382, 1553, 399, 92, 6),
    ("5/", 1567, 381, 1599, 405, 92, 6),
    ("rate", 1620, 383, 1677, 399, 93, 6),
    ("6/", 1691, 381, 1723, 405, 90, 6),
    ("held", 1744, 381, 1801, 399, 96, 6),
    ("in:", 1823, 381, 1860, 398, 96, 6),
    ("(1)", 279, 433, 316, 456, 94, 7),
    ("(2)", 546, 431, 583, 454, 96, 7),
    ("(3)", 952, 432, 989, 455, 83, 7),
    ("(4)", 1295, 431, 1332, 454, 97, 7),
    ("(5)", 1498, 430, 1535, 453, 95, 7),
    ("(6)", 1638, 430, 1675, 453, 76, 7),
    ("een", 19, 456, 190, 494, 0, 8),
    ("n", 224, 456, 232, 494, 0, 8),
    ("eee", 246, 456, 285, 494, 3, 8),
    ("eee", 294, 456, 330, 494, 0, 8),
    ("ree", 335, 456, 646, 494, 0, 8),
    ("7/29/83", 46, 513, 147, 536, 92, 9),
    ("[o€lc", 261, 501, 316, 543, 21, 9),
    ("nea.", 527, 515, 583, 529, 69, 9),
    ("793", 949, 510, 991, 529, 95, 9),
    ("839", 1291, 509, 1334, 528, 96, 9),
    ("-23", 1496, 509, 1537, 527, 92, 9),
    ("241.7000", 1557, 509, 1677, 528, 92, 9),
    ("United", 1713, 510, 1800, 528, 94, 9),
    ("States", 1822, 510, 1909, 528, 96, 9),
    ("8/31/83", 45, 539, 148, 562, 94, 10),
    ("170", 279, 538, 320, 557, 97, 10),
    ("177", 544, 536, 585, 555, 97, 10),
    ("829", 950, 537, 992, 555, 96, 10),
    ("856", 1293, 536, 1335, 554, 97, 10),
    ("-34", 1497, 535, 1538, 553, 89, 10),
    ("246.5000", 1559, 535, 1678, 554, 51, 10),
    ("United", 1713, 536, 1802, 554, 94, 10),
    ("States", 1822, 535, 1910, 554, 96, 10),
    ("9/30/83", 46, 616, 148, 639, 97, 11),
    ("r1,467", 231, 615, 319, 637, 57, 11),
    ("r1,491", 497, 614, 585, 635, 49, 11),
    ("nea.", 934, 619, 990, 633, 78, 11),
    ("nea.", 1278, 618, 1333, 631, 75, 11),
    ("21", 1513, 612, 1537, 631, 95, 11),
    ("236.8000", 1559, 612, 1679, 631, 95, 11),
    ("Abroad", 1713, 612, 1802, 631, 96, 11),
    ("193", 277, 642, 318, 660, 96, 12),
    ("190", 544, 641, 585, 659, 97, 12),
    ("nea.", 934, 646, 989, 660, 87, 12),
    ("Nea.", 1278, 645, 1332, 658, 72, 12),
    ("-20", 1496, 639, 1538, 657, 92, 12),
    ("236.8000", 1558, 639, 1678, 658, 96, 12),
    ("United", 1714, 640, 1802, 658, 95, 12),
    ("States", 1824, 639, 1911, 658, 96, 12),
    ("r1,659", 230, 720, 318, 742, 85, 13),
    ("r1,681", 497, 718, 583, 740, 86, 13),
    ("744", 950, 718, 991, 736, 95, 13),
    ("721", 1294, 717, 1332, 735, 96, 13),
    ("rl", 1513, 717, 1536, 735, 89, 13),
    ("236.8000", 1558, 716, 1678, 735, 94, 13),
    ("Worldwide", 1713, 717, 1849, 735, 96, 13),
    ("10/31/83", 31, 806, 149, 829, 96, 14),
    ("131", 279, 805, 318, 823, 96, 14),
    ("227", 544, 803, 586, 821, 96, 14),
    ("671", 950, 803, 991, 822, 96, 14),
    ("752", 1295, 802, 1336, 820, 95, 14),
    ("-178", 1483, 801, 1540, 819, 92, 14),
    ("234.9000", 1560, 801, 1679, 820, 89, 14),
    ("United", 1715, 801, 1804, 819, 96, 14),
    ("States", 1824, 801, 1912, 819, 81, 14),
    ("11/30/83", 31, 833, 148, 855, 96, 15),
    ("196", 278, 832, 318, 850, 96, 15),
    ("212", 543, 830, 585, 848, 95, 15),
    ("709", 950, 830, 992, 848, 97, 15),
    ("728", 1294, 829, 1336, 847, 96, 15),
    ("-36", 1497, 828, 1539, 846, 92, 15),
    ("235.0500", 1559, 828, 1679, 847, 96, 15),
    ("United", 1714, 829, 1803, 847, 95, 15),
    ("States", 1825, 828, 1911, 846, 96, 15),
    ("2/30/83", 46, 910, 148, 929, 19, 16),
    ("1,414", 247, 908, 318, 930, 94, 16),
    ("1,410", 514, 907, 586, 925, 96, 16),
    ("nea.", 935, 913, 990, 926, 16, 16),
    ("nea.", 1279, 911, 1333, 924, 59, 16),
    ("62", 1513, 905, 1539, 923, 96, 16),
    ("231.6300", 1560, 904, 1679, 923, 96, 16),
    ("Abroad", 1715, 905, 1803, 923, 96, 16),
    (".", 31, 912, 39, 930, 0, 17),
    ("188", 279, 935, 320, 954, 97, 17),
    ('"218', 530, 921, 587, 952, 59, 17),
    ("nia.", 935, 939, 991, 952, 75, 17),
    ("nea.", 1279, 937, 1334, 951, 57, 17),
    ("-36", 1499, 931, 1540, 949, 90, 17),
    ("231.6300", 1561, 930, 1680, 949, 97, 17),
    ("United", 1716, 931, 1804, 949, 96, 17),
    ("States", 1825, 930, 1913, 949, 96, 17),
    ("1,602", 248, 1013, 321, 1035, 96, 18),
    ("1,628", 515, 1012, 588, 1034, 97, 18),
    ("605", 951, 1011, 994, 1029, 96, 18),
    ("Si5/5", 1296, 1006, 1337, 1037, 0, 18),
    ("25", 1514, 1009, 1541, 1027, 96, 18),
    ("231.6300", 1561, 1008, 1681, 1027, 96, 18),
    ("Worldwide", 1716, 1008, 1852, 1027, 91, 18),
]

# the stub as OCR read it, and the held-in entries right of the figures
READ = ["7/29/83", "8/31/83", "9/30/83", "", "", "10/31/83", "11/30/83", "2/30/83", ".", ""]
HELD_IN = ["United States", "United States", "Abroad", "United States", "Worldwide",
           "United States", "United States", "Abroad", "United States", "Worldwide"]  # fmt: skip
GOLD_LABELS = [
    "7/29/83",
    "8/31/83",
    "9/30/83 (Abroad)",
    "9/30/83 (United States)",
    "9/30/83 (Worldwide)",
    "10/31/83",
    "11/30/83",
    "12/30/83 (Abroad)",
    "12/30/83 (United States)",
    "12/30/83 (Worldwide)",
]


def _p75() -> tuple[pl.DataFrame, pl.DataFrame]:
    return build_tables(ocr_words(P75_WORDS, page_no=75), ocr_page(page_no=75))


def test_the_rows_of_a_quarter_end_are_named_and_dated_by_their_date() -> None:
    """Each row of a quarter end is a position on that date, named by where it is held
    (the gold labels); the month ends keep their bare date. Before, the rows under
    "9/30/83" and "12/30/83" had blank labels and no period, "12/30/83" itself read
    "2/30/83" (no such day), and "7/29/83" was labelled "7/29/83 nea."."""
    tables, cells = _p75()
    assert tables.height == 1
    rows = cells.sort("row_idx", "col_idx").group_by("row_idx", maintain_order=True).first()
    assert rows["row_label"].to_list() == GOLD_LABELS
    ends = rows["period_end"].to_list()
    assert set(rows["period_kind"].to_list()) == {"as_of_date"}
    assert ends[2:5] == [date(1983, 9, 30)] * 3
    assert ends[7:] == [date(1983, 12, 30)] * 3
    assert ends[0] == date(1983, 7, 29)
    # the "n.a." of the first row is a cell of the first figure column, not a label word
    first = cells.filter(pl.col("row_idx") == 0).sort("col_idx")
    assert first["text"].to_list()[0] == "nea."


def test_a_date_that_lost_a_digit_takes_the_one_day_its_run_allows() -> None:
    """ "2/30/83" after "11/30/83" in a monthly run: only "12/30/83" (a "1" put before
    it) is a day, and one month after the row above."""
    assert restore_lost_digit(READ)[7] == "12/30/83"
    assert restore_lost_digit(READ)[:7] == READ[:7]


def test_a_lost_digit_is_not_guessed_off_the_run() -> None:
    """No run of three dates to place it in, or the one day it could be lies further from
    its neighbour than any step of the run ("12/30/84" nine months after "3/31/84")."""
    assert restore_lost_digit(["11/30/83", "2/30/83"]) == ["11/30/83", "2/30/83"]
    run = ["1/31/84", "2/29/84", "3/31/84", "2/30/84"]
    assert restore_lost_digit(run) == run


def test_rows_under_a_date_are_named_by_the_text_column() -> None:
    assert name_date_groups(restore_lost_digit(READ), HELD_IN) == GOLD_LABELS


def test_blank_rows_a_text_column_cannot_tell_apart_stay_blank() -> None:
    """A blank row repeating its group's entry, or a blank row without one (a total over
    the dates above, its label lost), names no row of the date above it."""
    labels = ["9/30/83", "", "", "10/31/83"]
    repeated = ["Abroad", "Abroad", "Worldwide", "United States"]
    assert name_date_groups(labels, repeated) == labels
    assert name_date_groups(labels, ["Abroad", "United States", "", "United States"]) == labels
