"""Stub-head kind words OCR garbled on a typewritten page with no readable twin, read by
the letters their width holds at the page's one letter pitch; year runs repaired within
each stub section; a year printed again for a restated series. Fixtures are the real OCR
words and stub labels of the pages named in each test."""

from __future__ import annotations

import polars as pl

from pipeline.ingest.schemas import WORDS_SCHEMA
from pipeline.tables.axes import cell_periods
from pipeline.tables.kind_words import read_kind_words_by_width
from pipeline.tables.lines import assign_lines
from pipeline.tables.stub_periods import repair_year_runs_by_section

# 1953-09 p53 (Monetary Statistics), the OCR words of Table 4's title, unit line and
# heads ("End of calendar / year or month" read "bao xa" / "year or month"), then Table
# 5's stub head ("Calendar year / or month" read "Calorerlroer" / "-"), between them
# the first lines of Table 4's notes
P53 = [
    ("Table", 535, 213, 616, 235, 93),
    ("4.-", 634, 213, 682, 234, 90),
    ("Components", 699, 212, 864, 237, 96),
    ("of", 882, 212, 913, 232, 96),
    ("Silver", 931, 211, 1029, 232, 96),
    ("Monetary", 1047, 210, 1178, 235, 97),
    ("Stock", 1195, 208, 1277, 231, 97),
    ("(In", 767, 252, 799, 272, 92),
    ("millions", 809, 255, 896, 270, 92),
    ("of", 909, 255, 930, 269, 97),
    ("dollars)", 941, 252, 1028, 271, 74),
    ("stiver", 1327, 308, 1393, 322, 49),
    ("outetde", 1405, 307, 1481, 322, 65),
    ("rotal", 1624, 305, 1680, 320, 26),
    ("bao", 93, 340, 158, 355, 65),
    ("xa", 170, 340, 259, 355, 43),
    ("ater", 1328, 299, 1419, 386, 32),
    ("oe", 1625, 327, 1691, 343, 37),
    ("year", 92, 366, 137, 380, 95),
    ("or", 148, 366, 170, 377, 97),
    ("month", 180, 363, 236, 377, 97),
    ("et", 1625, 350, 1646, 364, 77),
    ("$1.29+", 1658, 347, 1724, 367, 68),
    ("Silver", 346, 374, 413, 408, 96),
    ("Silver", 556, 384, 623, 399, 92),
    ("Subsidiary", 733, 373, 846, 407, 91),
    ("Bullion", 898, 383, 976, 398, 96),
    ("for", 988, 383, 1019, 398, 97),
    ("Bullion", 1082, 371, 1164, 405, 97),
    ("Silver", 1261, 370, 1329, 404, 95),
    ("Subeidiary", 1438, 369, 1551, 403, 83),
    ("Per", 1625, 375, 1658, 390, 78),
    ("fine", 1670, 371, 1712, 386, 96),
    ("bullion", 346, 406, 425, 421, 91),
    ("2/", 434, 402, 457, 426, 90),
    ("dollars", 557, 398, 636, 430, 96),
    ("coin", 733, 407, 777, 421, 93),
    ("3/", 788, 402, 810, 425, 93),
    ("recoinage", 898, 406, 997, 423, 91),
    ("4/", 1008, 400, 1030, 424, 80),
    ("at", 1086, 405, 1107, 419, 91),
    ("ooet", 1119, 404, 1164, 419, 38),
    ("2/", 1173, 399, 1197, 423, 92),
    ("dollare", 1262, 403, 1338, 418, 69),
    ("1/", 1350, 398, 1372, 422, 91),
    ("coin", 1439, 403, 1483, 417, 93),
    ("3/", 1492, 398, 1516, 421, 90),
    ("CD", 1626, 397, 1680, 408, 50),
    # the notes under Table 4 (the page's type at its text size)
    ("Source:", 46, 966, 122, 981, 96),
    ("Circulation", 145, 965, 269, 980, 50),
    ("Statement", 278, 965, 378, 980, 96),
    ("of", 390, 965, 413, 980, 93),
    ("U.", 423, 965, 444, 981, 91),
    ("S.", 456, 966, 478, 981, 86),
    ("Money;", 489, 965, 554, 982, 96),
    ("Daily", 567, 965, 623, 982, 97),
    ("Treasury", 633, 965, 724, 982, 96),
    ("Statement", 734, 964, 834, 978, 97),
    ("see", 969, 965, 1001, 977, 91),
    ("1946", 1013, 958, 1057, 979, 95),
    ("Annual", 1068, 961, 1134, 976, 93),
    ("Report", 1144, 961, 1212, 978, 92),
    ("of", 1224, 961, 1245, 974, 96),
    ("the", 1257, 960, 1289, 974, 96),
    ("Secretary", 1301, 959, 1401, 976, 96),
    ("of", 1412, 958, 1434, 973, 96),
    ("the", 1446, 958, 1478, 973, 96),
    ("Treasury", 1488, 957, 1578, 974, 96),
    ("for", 1590, 957, 1622, 971, 97),
    ("emounte).", 1629, 949, 1729, 979, 91),
    ("for", 92, 988, 124, 1002, 97),
    ("certain", 135, 988, 214, 1002, 96),
    ("preliminary", 225, 988, 346, 1006, 93),
    ("figurea.", 357, 988, 444, 1006, 73),
    ("Y", 923, 980, 946, 1021, 32),
    ("Valued", 966, 984, 1034, 998, 95),
    ("et", 1046, 984, 1067, 998, 83),
    ("$1.38+", 1079, 980, 1145, 1001, 86),
    ("per", 1157, 986, 1190, 1001, 97),
    ("fine", 1202, 983, 1245, 998, 97),
    ("ounce.", 1257, 985, 1321, 997, 95),
    ("2/", 46, 1006, 70, 1030, 28),
    ("Valued", 90, 1010, 157, 1026, 94),
    ("at", 169, 1010, 190, 1025, 82),
    ("$2.29+", 201, 1007, 268, 1028, 63),
    ("per", 279, 1013, 313, 1028, 96),
    ("fine", 325, 1010, 368, 1025, 96),
    ("ounce.", 380, 1013, 444, 1025, 92),
    ("Y/", 923, 1002, 945, 1026, 0),
    ("Valued", 966, 1006, 1034, 1022, 71),
    ("at", 1046, 1007, 1068, 1021, 77),
    ("$1.38+", 1079, 1002, 1146, 1024, 87),
    ("per", 1157, 1009, 1190, 1023, 97),
    ("fine", 1202, 1005, 1245, 1020, 96),
    ("ounce", 1257, 1008, 1312, 1019, 97),
    ("or", 1324, 1007, 1345, 1019, 96),
    ("at", 1357, 1004, 1378, 1018, 77),
    ("$1.29+", 1389, 1002, 1457, 1022, 92),
    ("per", 1468, 1006, 1501, 1021, 96),
    ("fine", 1512, 1002, 1556, 1017, 82),
    ("ounce", 1568, 1005, 1621, 1017, 97),
    ("according", 1634, 1001, 1732, 1018, 93),
    ("2/", 42, 1024, 69, 1056, 92),
    ("Includee", 92, 1032, 178, 1047, 91),
    ("silver", 191, 1032, 257, 1047, 91),
    ("held", 268, 1032, 312, 1047, 96),
    ("by", 323, 1032, 345, 1049, 97),
    ("certain", 357, 1032, 435, 1046, 96),
    ("agencies", 446, 1032, 534, 1049, 96),
    ("of", 546, 1031, 568, 1045, 97),
    ("the", 580, 1031, 613, 1046, 97),
    ("Federal", 623, 1030, 702, 1046, 96),
    ("Government", 712, 1029, 824, 1045, 7),
    ("to", 969, 1029, 990, 1043, 97),
    ("whether", 1001, 1028, 1080, 1043, 97),
    ("the", 1092, 1027, 1123, 1042, 97),
    ("bullion", 1135, 1027, 1213, 1042, 96),
    ("ie", 1225, 1027, 1245, 1041, 88),
    ("held", 1257, 1026, 1301, 1041, 96),
    ("for", 1313, 1026, 1346, 1041, 93),
    ("recoinage", 1357, 1026, 1456, 1042, 91),
    ("of", 1468, 1025, 1490, 1039, 93),
    ("subeidiary", 1501, 1024, 1611, 1041, 88),
    ("eilver", 1623, 1023, 1689, 1038, 89),
    ("coins", 1700, 1023, 1752, 1037, 96),
    ("(for", 92, 1052, 135, 1072, 96),
    ("amount,", 146, 1055, 221, 1073, 95),
    ("see", 235, 1058, 268, 1069, 96),
    ("Daily", 279, 1054, 335, 1072, 97),
    ("Treasury", 345, 1054, 435, 1072, 96),
    ("Statement", 445, 1053, 546, 1069, 96),
    ("for", 557, 1053, 590, 1069, 95),
    ("last", 602, 1053, 646, 1068, 95),
    ("day", 657, 1053, 690, 1071, 96),
    ("of", 702, 1053, 724, 1068, 97),
    ("month).", 729, 1045, 810, 1076, 92),
    ("or", 969, 1054, 991, 1065, 96),
    ("for", 1002, 1051, 1035, 1065, 93),
    ("recoinage", 1046, 1051, 1145, 1068, 90),
    ("of", 1158, 1050, 1180, 1065, 96),
    ("standard", 1191, 1049, 1279, 1064, 78),
    ("eilvar", 1291, 1049, 1357, 1063, 63),
    ("dollars.", 1368, 1048, 1454, 1062, 96),
    ("Calorerlroer", 157, 1257, 302, 1275, 0),
    ("-", 158, 1279, 246, 1294, 18),
]


def _words(rows: list[tuple]) -> pl.DataFrame:
    return pl.DataFrame(
        [
            {
                "doc_id": "1953-09",
                "page_no": 53,
                "word_no": k,
                "block_no": 1,
                "line_no": k,
                "text": t,
                "x0": float(x0),
                "y0": float(y0),
                "x1": float(x1),
                "y1": float(y1),
                "conf": float(c),
                "source": "ocr",
            }  # fmt: skip
            for k, (t, x0, y0, x1, y1, c) in enumerate(rows)
        ],
        schema=WORDS_SCHEMA,
    )


def _read(rows: list[tuple]) -> dict[str, str]:
    words = read_kind_words_by_width(assign_lines(_words(rows)))
    return dict(zip(words.sort("word_no")["text"], [t for t, *_ in rows], strict=True))


def test_garbled_kind_words_of_a_typewritten_page_are_read_by_their_letters() -> None:
    """1953-09 p53: no stub head of the page prints "calendar" readably, so no twin
    width is known; the page is typed in one face at 11.0 px a letter. "xa" (89 px, 8
    letters) ends "End of calendar" over "year or month": "Calendar"; "Calorerlroer"
    (145 px, 13 letters, confidence 0) is "Calendar year". Both heads print calendar
    years (checked on the page image)."""
    texts = [t for t in read_kind_words_by_width(assign_lines(_words(P53))).sort("word_no")["text"]]
    read = [t for t, *_ in P53]
    assert texts[read.index("xa")] == "Calendar"
    assert texts[read.index("Calorerlroer")] == "Calendar year"
    assert sum(a != b for a, b in zip(texts, read, strict=True)) == 2


def test_a_garbled_word_not_in_a_stub_head_layout_is_left_as_read() -> None:
    """The same page with the "year or month" line moved off under "bao xa": "xa" is
    no longer the end of a line set over "year or", so it is not read as a kind word;
    on a proportional page (letter widths scattered) nothing is read by pitch."""
    moved = [(t, x0 + 400, y0, x1 + 400, y1, c) if t in ("year", "or", "month") and y0 > 360
             and y0 < 380 else (t, x0, y0, x1, y1, c) for t, x0, y0, x1, y1, c in P53]  # fmt: skip
    texts = read_kind_words_by_width(assign_lines(_words(moved))).sort("word_no")["text"]
    assert "xa" in texts.to_list()
    spread = [(t, x0, y0, x0 + (x1 - x0) * (1.3 if k % 2 else 0.75), y1, c)
              for k, (t, x0, y0, x1, y1, c) in enumerate(P53)]  # fmt: skip
    texts = read_kind_words_by_width(assign_lines(_words(spread))).sort("word_no")["text"]
    assert "xa" in texts.to_list() and "Calorerlroer" in texts.to_list()


def test_a_year_run_is_repaired_within_its_stub_section() -> None:
    """1953-09 p29 (Savings bonds, Series E): "Fiscal years:" 1941-1945, 1946 ... 1953
    with "1949" read "1g9h9", then "Calendar years:" 1941-1945 ("19h1-19b5"), 1946 ...
    1952. Over the whole stub the two runs tie (seven rows each) and neither was taken;
    within its section the garbled row stands between 1948 and 1950."""
    fiscal = ["1941-1945", "1946", "1947", "1948", "1g9h9", "1950", "1951", "1952", "1953"]
    calendar = ["19h1-19b5", "1946", "1947", "1948", "1949", "1950", "1951", "1952"]
    labels = fiscal + calendar
    parents = [""] * len(fiscal) + ["Calendar years"] * len(calendar)
    out = repair_year_runs_by_section(labels, parents)
    assert out[4] == "1949"
    assert out[9] == "1941-1945"  # the span before the run, spelled with look-alikes
    assert out[:4] + out[5:9] + out[10:] == labels[:4] + labels[5:9] + labels[10:]


def test_a_year_printed_again_for_a_restated_series_keeps_its_period() -> None:
    """1967-08 p97 (Table 1, Banking Liabilities to and Claims on Foreigners; stub head
    "End of calendar year or month"): "1960", "1961", "1961 6/", "1962": note 6 says the
    second 1961 line differs from the first by the inclusion of more reporting banks.
    Both lines are the end of 1961; a copy that breaks the run ("1961" for "1962" before
    "1963") stays no period."""
    labels = ["1958", "1959", "1960", "1961", "1961", "1962", "1963"]
    periods = cell_periods(
        ["Total short-term liabilities"], labels,
        "Banking Liabilities to and Claims on Foreigners", "End of calendar year or month",
        "(Position at end of period in millions of dollars)", False,
    )  # fmt: skip
    got = [periods[(i, 0)].period for i in range(len(labels))]
    assert [p.kind for p in got] == ["as_of_date"] * 7
    assert str(got[3].end) == str(got[4].end) == "1961-12-31"
    misread = ["1958", "1959", "1960", "1961", "1961", "1963", "1964"]
    periods = cell_periods(
        ["Total short-term liabilities"], misread,
        "Banking Liabilities to and Claims on Foreigners", "End of calendar year or month",
        "(Position at end of period in millions of dollars)", False,
    )  # fmt: skip
    assert periods[(4, 0)].period.kind == "not_a_period"


def test_an_estimate_mark_ocr_garbled_is_read_as_estimated() -> None:
    """1948-05 p18 (Receipts and Expenditures by Major Classifications), the upper
    table's stub: "1949 (Zetiaated)" for "1949 (Estimated)" was no period; it is the
    fiscal 1949 estimate. A word in the parenthesis far from "Estimated" is left alone."""
    from pipeline.tables.labels import repair_period_stub

    labels = ["1946", "1947", "1949 (Zetiaated)", "1949 (Eetizated)", "1949 (Revised)"]
    out, _ = repair_period_stub(labels)
    assert out == ["1946", "1947", "1949 (Estimated)", "1949 (Estimated)", "1949 (Revised)"]
    title = "Receipts and Expenditures by Major Classifications"
    got = cell_periods(["Total trust accounts, etc., net"], out[:3], title, "Fiscal year or month")
    assert got[(2, 0)].period.kind == "estimate"
    assert str(got[(2, 0)].period.end) == "1949-06-30"


def test_a_year_stub_that_lost_a_digit_next_to_its_run_is_that_year() -> None:
    """1953-09 p15 Table 2 (Derivation of Cash Budget Receipts): the first row "1946"
    read "196", over 1947 ... 1953; three digits that are the year the run puts there with
    one digit lost. Three digits that are not ("195" before 1947), or a row away from the
    run, stay as read."""
    from pipeline.tables.stub_periods import repair_year_run

    run = ["1947.", "1948", "1949", "1950", "1951", "1952", "1953"]
    assert repair_year_run(["196", *run])[0] == "1946"
    assert repair_year_run(["195", *run])[0] == "195"
    assert repair_year_run(["196", "Total", *run])[0] == "196"


def test_a_year_two_digits_off_between_two_run_years_is_the_year_between() -> None:
    """1940-05 p73 (Components of Silver Monetary Stock, end of calendar year): "1934",
    "1993", "1936", ..., "1939"; "1993" is two digits off 1935 but stands between two
    years of the run. With only one neighbour on the run it stays as read."""
    from pipeline.tables.stub_periods import repair_year_run

    run = ["1934", "1993", "1936", "1937", "1938", "1939"]
    assert repair_year_run(run)[1] == "1935"
    assert repair_year_run(["1934", "1993", "", "1937", "1938", "1939"])[1] == "1993"


def test_a_year_stub_that_lost_its_last_digit_is_left_as_read() -> None:
    """ "193" before 1935, 1936, ... could be any year of the 1930s (a stub may open on a
    year off the run, "1930"): 1940-05 p20 and 1941-01 p65 print such a "193"."""
    from pipeline.tables.stub_periods import repair_year_run

    assert repair_year_run(["193", "1935", "1936", "1937", "1938"])[0] == "193"


def test_a_span_stub_spelled_with_look_alikes_before_a_run_is_read() -> None:
    """1953-09 p29, "Calendar years:" then "19h1-19b5" over 1946 ... 1952: the span ends
    on the year before the run's first (1945, its 4 read "b") and opens on 1941 ("h" for
    4). A span that does not end on that year stays as read."""
    from pipeline.tables.stub_periods import repair_year_run

    run = ["1946", "1947", "1948", "1949", "1950"]
    assert repair_year_run(["19h1-19b5", *run])[0] == "1941-1945"
    assert repair_year_run(["19h1-19b3", *run])[0] == "19h1-19b3"
    assert repair_year_run(["1941-1945", *run])[0] == "1941-1945"
