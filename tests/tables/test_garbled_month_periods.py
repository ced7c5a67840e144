"""Month rows and month heads of the typewritten bulletins (1939-41) that OCR garbled
past the period readers: each case is a real page's words as tesseract read them."""

from __future__ import annotations

from datetime import date

import polars as pl

from pipeline.tables.axes import cell_periods
from pipeline.tables.labels import repair_period_stub
from pipeline.tables.layout import build_tables
from pipeline.tables.lines import Chunk, Line
from pipeline.tables.month_heads import kind_of_years, misread_month_under_year, spanner_text
from pipeline.tables.periods import parse_period
from tests.tables.test_layout import COLS, LEFT, PITCH, Page


def _month_stub_page(rows: list[tuple[str, float, list[tuple[str, float]]]]) -> Page:
    """A "Fiscal year or month" table: per row its label (and confidence) and figures
    (and confidences), right-aligned in ``COLS``."""
    page = Page()
    page.centred("Receipts and Expenditures under Social Security Act", 1275, 300)
    page.centred("(In millions of dollars)", 1275, 360)
    y = 430
    page.text("Fiscal year or month", LEFT, y)
    for x1, head in zip(COLS, ["Total", "Federal", "Trust", "Net"], strict=True):
        page.right(head, x1, y)
    y += 1.5 * PITCH
    for label, conf, figures in rows:
        page.text(label, LEFT, y, conf=conf)
        for x1, (fig, fig_conf) in zip(COLS, figures, strict=True):
            page.right(fig, x1, y, conf=fig_conf)
        y += PITCH
    return page


def _rows(page: Page) -> list[tuple[str, str | None, date | None]]:
    _, cells = build_tables(page.words(), page.pages())
    first = cells.sort("row_idx", "col_idx").group_by("row_idx", maintain_order=True).first()
    return list(zip(first["row_label"], first["period_kind"], first["period_start"], strict=True))


def _figures(*texts: str) -> list[tuple[str, float]]:
    return [(t, 95.0) for t in texts]


def test_a_figure_ocr_read_as_letters_is_no_word_of_the_row_label() -> None:
    """1941-01 p21: the May row's Total "131.4" came back "in." (confidence 53), and the
    line reader took it, a word before the row's first figure, into the label: "May
    in." named no month row. It stands in the first figure column: a value (read as no
    number), not the label. (1941-01 p66 "a46" for "-46", p69 "ake" for "242".)"""
    page = _month_stub_page(
        [
            ("1940-April", 95.0, _figures("38.8", "35.8", "3.0", "38.8")),
            ("May", 62.8, [("in.", 53.7), *_figures("122.5", "8.9", "131.4")]),
            ("June", 86.5, _figures("3.9", "2.9", "1.0", "134.9")),
        ]
    )
    assert _rows(page) == [
        ("1940-April", "month", date(1940, 4, 1)),
        ("May", "month", date(1940, 5, 1)),
        ("June", "month", date(1940, 6, 1)),
    ]
    _, cells = build_tables(page.words(), page.pages())
    may = cells.filter(pl.col("row_label") == "May").sort("col_idx")
    assert may["text"].to_list() == ["in.", "122.5", "8.9", "131.4"]
    assert may["is_number"].to_list() == [False, True, True, True]


def test_a_january_whose_year_ocr_garbled_follows_the_december_above() -> None:
    """1941-01 p21: "1940-January" came back "WWO\u2014January" at confidence 1.5 and was
    dropped as rule noise; the row had no label. Its month is spelt exactly after the
    dash, so the word is kept, and the run dates it: right under "1939-December", with
    "February" below, it is the January of 1940."""
    page = _month_stub_page(
        [
            ("1939-December...", 84.8, _figures("4.7", "4.1", ".5", "48.0")),
            ("WWO\u2014January", 1.5, _figures("44.8", "31.1", "13.7", "44.8")),
            ("February...", 43.7, _figures("172.2", "115.2", "57.0", "172.2")),
        ]
    )
    assert _rows(page) == [
        ("1939-December", "month", date(1939, 12, 1)),
        ("1940-January", "month", date(1940, 1, 1)),
        ("February", "month", date(1940, 2, 1)),
    ]


def test_a_month_read_with_its_leader_dots_at_low_confidence_is_kept() -> None:
    """1939-12 p63 "Net Movement of Gold": the last row "Nov.." came back "Nov..." at
    confidence 16 and was dropped; the row kept its figures and lost its month."""
    page = _month_stub_page(
        [
            ("1939-Sept.", 94.4, _figures("162.4", "-", "1.5", "120.8")),
            ("Oct..", 84.0, _figures("10.2", "-", "3.0", "9.9")),
            ("Nov...", 16.3, _figures("18.6", "-", "8.8", "3.0")),
        ]
    )
    assert _rows(page) == [
        ("1939-Sept.", "month", date(1939, 9, 1)),
        ("Oct", "month", date(1939, 10, 1)),
        ("Nov", "month", date(1939, 11, 1)),
    ]


def test_the_new_years_january_is_restored_only_from_a_dated_run() -> None:
    got, fixes = repair_period_stub(["1938-Nov.", "Dec.", "WWO\u2014Jan.", "Feb."])
    assert got == ["1938-Nov.", "Dec.", "1939-Jan.", "Feb."]
    assert fixes == [("WWO\u2014Jan.", "1939-Jan.")]
    # no year above in the run, a gap in the run, or no February below: left as read
    for labels in (
        ["Nov.", "Dec.", "WWO\u2014Jan.", "Feb."],
        ["1939-Oct.", "Nov.", "WWO\u2014Jan.", "Feb."],
        ["1939-December", "WWO\u2014January", "March"],
    ):
        assert repair_period_stub(labels)[0] == labels


def _line(words: list[tuple[str, float, float, float]]) -> Line:
    """A head line of (text, x0, x1, height) chunks at one y."""
    return Line("d", 1, 0, [Chunk(t, x0, 400.0, x1, 400.0 + h, 95.0, 1) for t, x0, x1, h in words])


def test_a_spanner_beside_a_year_spanner_names_no_kind_of_year() -> None:
    """1941-01 p69 (Vessels Cleared ... by Port): the spanner line "Calendar year" over
    the 1938 and 1939 columns, "1939" over Nov. and Dec., "19k" over the 1940 months,
    read as one line "Calendar year 1939 ..." which named 1939 a calendar year; 1938
    under the same spanner was then taken for a misreading and named no period. A
    subtitle's phrase keeps its words together."""
    spanners = _line(
        [("Calendar year", 572, 751, 19), ("1939", 849, 902, 37), ("19k", 1477, 1610, 37)]
    )
    assert spanner_text(spanners) == "Calendar year | 1939 | 19k"
    assert kind_of_years([spanner_text(spanners)]) == {}
    subtitle = _line([("Calendar Years", 800, 1090, 30), ("1938", 1110, 1190, 30),
                      ("and", 1210, 1270, 30), ("1939", 1290, 1370, 30)])  # fmt: skip
    assert kind_of_years([spanner_text(subtitle)]) == {1938: "calendar_year", 1939: "calendar_year"}


def test_a_garbled_month_under_its_year_spanner_takes_the_runs_month() -> None:
    """1941-01 p69: "Hov." and "Deo." under the "1939" spanner parse to the year alone;
    the month head run reads them as November and December 1939. The run's month is
    taken where the garbled word is a misreading of it; a word of another month, or a
    year that is not the spanner right above, is left undated."""
    ctx = "Vessels Cleared from the United States"
    head = parse_period("1939 / November", ctx)
    path = "Number of vessels / 1939 / Hov."
    assert misread_month_under_year(path, parse_period(path, ctx), head)
    assert not misread_month_under_year("Number / 1939 / Jul.", parse_period("1939", ctx), head)
    later = "Number of vessels / 1940 / Oot."
    assert misread_month_under_year(
        later, parse_period(later, ctx), parse_period("1940 / October", ctx)
    )
    other = parse_period("1940 / November", ctx)
    assert not misread_month_under_year(path, parse_period(path, ctx), other)


def test_an_estimate_row_out_of_the_years_order_names_no_period() -> None:
    """1948-05 p18: "1948 (Estimated)" came back "1943 (Betimated)" between "1947" and
    "1949 (Estimated)"; restored to "1943 (Estimated)" it dated an estimate of fiscal
    1943. Estimate rows take part in the order check of the annual rows."""
    labels = ["1946", "1947", "1943 (Estimated)", "1949 (Estimated)"]
    got = cell_periods(["Total"], labels, "Receipts and Expenditures", "Fiscal year or month")
    ends = [got[(r, 0)].period for r in range(4)]
    assert ends[0].end == date(1946, 6, 30) and ends[1].end == date(1947, 6, 30)
    assert ends[2].kind == "not_a_period"
    assert ends[3].kind == "estimate" and ends[3].end == date(1949, 6, 30)


# 1941-01 p69, "Vessels Cleared from the United States, Direct for Foreign Ports": the
# title, the head band as re-read (blocks 10001-2) and the first three rows, as OCR read
# them: (block, line, text, x0, y0, x1, y1, confidence)
P69_WORDS = [
    (1, 1, "Vessels", 508, 207, 649, 233, 96.4),
    (1, 1, "Cleared", 672, 207, 817, 234, 96.0),
    (1, 1, "from", 843, 207, 922, 233, 96.1),
    (1, 1, "the", 947, 207, 1005, 234, 96.8),
    (1, 1, "United", 1027, 208, 1149, 234, 96.1),
    (1, 1, "States,", 1172, 208, 1311, 239, 96.8),
    (1, 1, "Direct", 1339, 208, 1460, 235, 96.3),
    (1, 1, "for", 1487, 209, 1544, 234, 96.9),
    (1, 1, "Foreign", 1567, 210, 1712, 239, 96.3),
    (1, 1, "Ports,", 1733, 209, 1850, 239, 96.0),
    (1, 2, "Classified", 796, 246, 1004, 274, 96.0),
    (1, 2, "by", 1027, 248, 1068, 279, 96.7),
    (1, 2, "Pert", 1090, 248, 1170, 274, 82.0),
    (1, 2, "from", 1196, 248, 1275, 273, 96.0),
    (1, 2, "which", 1296, 248, 1399, 274, 96.5),
    (1, 2, "Cleared", 1420, 248, 1565, 274, 96.9),
    (1, 3, "Humber", 1238, 361, 1319, 379, 74.9),
    (1, 3, "of", 1335, 361, 1362, 379, 93.3),
    (1, 3, "veseole", 1377, 361, 1470, 379, 29.9),
    (1, 6, "Ashtabula", 182, 516, 307, 553, 36.5),
    (1, 6, "ake", 600, 515, 639, 552, 60.1),
    (1, 6, "236", 710, 518, 751, 546, 92.6),
    (1, 6, "45", 817, 513, 848, 550, 37.4),
    (1, 6, "8", 947, 522, 959, 540, 76.3),
    (1, 6, "-", 1059, 532, 1071, 536, 91.6),
    (1, 6, "-", 1170, 532, 1182, 536, 92.2),
    (1, 6, "S", 1280, 532, 1292, 536, 25.5),
    (1, 6, "22", 1378, 523, 1404, 541, 96.8),
    (1, 6, "65", 1488, 517, 1514, 545, 95.9),
    (1, 6, "us", 1597, 518, 1626, 545, 58.8),
    (1, 6, "46", 1705, 512, 1736, 549, 76.3),
    (1, 6, "3", 1821, 518, 1846, 545, 24.0),
    (1, 6, "28", 1931, 521, 1957, 540, 94.6),
    (1, 6, "29", 2038, 511, 2067, 548, 64.9),
    (1, 6, "28", 2153, 518, 2179, 538, 95.9),
    (1, 7, "Baltimore", 183, 559, 307, 577, 96.4),
    (1, 7, "553", 601, 557, 639, 580, 96.6),
    (1, 7, "679", 710, 552, 750, 579, 96.4),
    (1, 7, "59", 819, 551, 847, 589, 96.5),
    (1, 7, "51", 931, 551, 959, 589, 59.2),
    (1, 7, "69", 1041, 548, 1071, 589, 90.8),
    (1, 7, "67", 1156, 551, 1182, 578, 96.4),
    (1, 7, "19", 1267, 556, 1293, 578, 90.2),
    (1, 7, "T2", 1379, 555, 1405, 577, 78.1),
    (1, 7, "58", 1485, 550, 1514, 588, 94.8),
    (1, 7, "53", 1599, 555, 1625, 578, 96.8),
    (1, 7, "61", 1710, 551, 1734, 573, 94.4),
    (1, 7, "66", 1821, 550, 1848, 573, 96.7),
    (1, 7, "78", 1930, 554, 1956, 576, 95.7),
    (1, 7, "56", 2038, 545, 2068, 586, 91.5),
    (1, 7, "5.", 2153, 552, 2177, 575, 42.2),
    (1, 8, "Boetoa", 182, 593, 267, 612, 85.5),
    (1, 8, "795", 601, 591, 640, 615, 80.6),
    (1, 8, "80h", 710, 587, 752, 609, 33.8),
    (1, 8, "oh", 819, 583, 848, 624, 46.5),
    (1, 8, "51", 931, 586, 959, 624, 55.3),
    (1, 8, "U5", 1045, 587, 1072, 614, 49.0),
    (1, 8, "45", 1152, 582, 1183, 624, 72.9),
    (1, 8, "57", 1268, 590, 1292, 614, 84.2),
    (1, 8, "57", 1378, 590, 1404, 613, 79.0),
    (1, 8, "67", 1488, 585, 1514, 611, 94.0),
    (1, 8, "19", 1600, 589, 1625, 612, 71.4),
    (1, 8, "T2", 1710, 589, 1736, 612, 37.2),
    (1, 8, "7", 1822, 589, 1847, 611, 69.4),
    (1, 8, "53", 1931, 589, 1957, 612, 96.7),
    (1, 8, "51", 2038, 583, 2067, 621, 76.6),
    (1, 8, "YW", 2152, 583, 2177, 605, 25.4),
    (10001, 57, "Calendar", 572, 404, 681, 423, 96.5),
    (10001, 57, "year", 695, 409, 751, 427, 95.8),
    (10001, 57, ":", 832, 435, 835, 436, 0.0),
    (10001, 57, "1939", 849, 389, 902, 426, 46.3),
    (10001, 57, "oo", 1092, 435, 1141, 436, 0.0),
    (10001, 57, "a", 1340, 389, 1410, 436, 0.0),
    (10001, 57, "19k", 1477, 399, 1610, 436, 15.1),
    (10001, 57, "a", 1639, 389, 1711, 436, 0.0),
    (10001, 57, "—_", 1720, 389, 1776, 436, 0.3),
    (10002, 58, "1938", 576, 457, 629, 481, 96.7),
    (10002, 58, "1939", 682, 457, 736, 481, 96.8),
    (10002, 58, "Hov.", 794, 457, 845, 475, 25.5),
    (10002, 58, "Deo.", 901, 452, 956, 484, 88.1),
    (10002, 58, "Jan.", 1016, 452, 1068, 484, 91.5),
    (10002, 58, "Pod.", 1119, 455, 1170, 474, 76.1),
    (10002, 58, "Mar.", 1225, 452, 1280, 484, 87.3),
    (10002, 58, "Apr.", 1330, 452, 1387, 484, 95.7),
    (10002, 58, "May", 1455, 451, 1503, 483, 95.3),
    (10002, 58, "June", 1556, 451, 1610, 483, 95.6),
    (10002, 58, "July", 1668, 452, 1726, 484, 91.6),
    (10002, 58, "Aug.", 1778, 451, 1829, 483, 92.2),
    (10002, 58, "Sept.", 1890, 456, 1953, 479, 78.0),
    (10002, 58, "Oct.", 1999, 455, 2050, 472, 78.0),
    (10002, 58, "ov.", 2109, 454, 2162, 472, 0.0),
]


def test_vessels_cleared_by_port_date_every_column() -> None:
    """1941-01 p69: "Calendar year" over 1938 and 1939; "1939" over "Hov." "Deo."; "19k"
    (1940) over Jan. ... Oct. and the last head "ov." read at confidence 0. Each column
    is dated: the two calendar years, the garbled Nov. and Dec. of 1939 by the run
    under their spanner, and Nov. 1940 by the run its "ov." ends."""
    from pipeline.ingest.schemas import WORDS_SCHEMA

    rows = [
        {"doc_id": "d1", "page_no": 1, "word_no": k, "block_no": b, "line_no": n, "text": t,
         "x0": float(x0), "y0": float(y0), "x1": float(x1), "y1": float(y1), "conf": c,
         "source": "ocr"}
        for k, (b, n, t, x0, y0, x1, y1, c) in enumerate(P69_WORDS)
    ]  # fmt: skip
    _, cells = build_tables(pl.DataFrame(rows, schema=WORDS_SCHEMA), Page().pages())
    per_col = cells.sort("col_idx", "row_idx").group_by("col_idx", maintain_order=True).first()
    got = list(zip(per_col["period_kind"], per_col["period_start"], strict=True))
    years = [("calendar_year", date(1938, 1, 1)), ("calendar_year", date(1939, 1, 1))]
    months = [("month", date(1939, m, 1)) for m in (11, 12)]
    months += [("month", date(1940, m, 1)) for m in range(1, 12)]
    assert got == years + months
    labels = cells.sort("row_idx").group_by("row_idx", maintain_order=True).first()["row_label"]
    assert labels.to_list()[0] == "Ashtabula"  # its "ake" (242) is a figure, not a word
