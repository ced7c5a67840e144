"""A column head line of months OCR garbled ("dan. eb. Mar. Apr. Hay Jane duty Aug.
Sort. oct. wov. Deo. Jan. tod. var.", 1940-05 p79) read by position in the run, and
dated only by what the page prints about the run's years."""

from __future__ import annotations

from datetime import date

import polars as pl

from pipeline.tables.layout import build_tables
from pipeline.tables.month_heads import dated_month_run, kind_of_years, month_run
from tests.tables.test_layout import LEFT, PITCH, Page

# the head line of 1940-05 p79 (Vessels Cleared ... Classified by Nationality) as read
P79 = ["1938", "1939", "dan.", "eb.", "Mar.", "Apr.", "Hay", "Jane", "duty", "Aug.",
       "Sort.", "oct.", "wov.", "Deo.", "Jan.", "tod.", "var."]  # fmt: skip


def test_a_garbled_month_head_line_is_read_by_position() -> None:
    months = month_run(P79)
    assert months[:2] == [None, None]  # the year columns are no part of the run
    assert months[2:] == [*range(12), 0, 1, 2]


def test_words_ocr_lost_inside_the_run_take_their_position_but_not_after_it() -> None:
    """A lost head between read months is the month between; a lost head after the last
    read month may be a "Total" and is no month."""
    words = ["Jan.", "Feb.", None, "Apr.", "May", "June", "July", "Aug.", "Sept.", "Oct.",
             "Nov.", "Dec.", None]  # fmt: skip
    assert month_run(words) == [*range(12), None]


def test_a_word_reading_as_another_month_breaks_the_run() -> None:
    """Heads that read as months out of order ("Mar." where "Feb." stands) are no run a
    position could date; too few months read exactly neither."""
    assert month_run(["Jan.", "Mar.", "Mar.", "Apr."])[:2] == [None, None]
    assert month_run(["dan.", "eb.", "Jane", "duly"]) == [None] * 4


def _columns(n: int, left: float = 0.0, width: float = 100.0, gap: float = 20.0):
    from pipeline.tables.headers import Column

    return [Column(left + k * (width + gap), left + k * (width + gap) + width, 0.0)
            for k in range(n)]  # fmt: skip


def test_a_quarter_the_title_names_dates_the_part_of_the_run_it_spans() -> None:
    """ "Calendar Years 1938 and 1939, and first quarter. 1940" over Jan. ... Dec. Jan.
    Feb. Mar.: the last three are the first quarter of 1940, the twelve before 1939."""
    months = month_run(P79)
    cols = _columns(len(P79))
    heads = dated_month_run(
        months, [], cols, ["Calendar Years 1938 and 1939, and first quarter. 1940"]
    )
    assert heads[2] == "1939 / January" and heads[13] == "1939 / December"
    assert heads[14:] == ["1940 / January", "1940 / February", "1940 / March"]


def test_a_whole_year_the_title_names_dates_no_part() -> None:
    """ "Calendar Years 1938 and 1939" names two years of twelve months: either could be
    a Jan.-Dec. part. Nothing else dates the run: no period (it was dated 1938 once)."""
    months = month_run(P79[:15])
    heads = dated_month_run(months, [], _columns(15), ["Calendar Years 1938 and 1939"])
    assert heads == [None] * 15


def test_readings_of_the_years_that_disagree_date_nothing() -> None:
    months = month_run(P79)
    cols = _columns(len(P79))
    mid = (cols[2].x0 + cols[13].x1) / 2
    agree = dated_month_run(months, [(1939, mid)], cols, ["first quarter, 1940"])
    assert agree[2] == "1939 / January"
    clash = dated_month_run(months, [(1938, mid)], cols, ["first quarter, 1940"])
    assert clash == [None] * len(P79)


def test_the_kind_of_years_a_subtitle_names() -> None:
    assert kind_of_years(["Calendar Years 1938 and 1939, and first quarter. 1940"]) == {
        1938: "calendar_year",
        1939: "calendar_year",
    }


def test_vessels_cleared_heads_garbled_by_ocr_are_dated_months() -> None:
    """1940-05 p79: under the subtitle "Calendar Years 1938 and 1939, and first quarter,
    1940" the spanners "Calendar Year" / "1939" / "1940" were lost and the month line
    came back garbled, some words at confidence 0-32 ("wov.", "var."). The months are
    read by position, dated by the first quarter the subtitle names; the year columns
    are the calendar years it names."""
    cols = [900.0 + 150 * k for k in range(9)]  # right edges
    page = Page()
    page.centred("Vessels Cleared from the United States, Classified by Nationality", 1275, 300)
    page.centred("Calendar Years 1938 and 1939, and first quarter, 1940", 1275, 360)
    page.centred("Number of vessels", 1500, 430)
    y = 430 + PITCH
    heads = [("1938", 95), ("1939", 95), ("Sept.", 95), ("oct.", 95), ("wov.", 0),
             ("Deo.", 95), ("Jan.", 95), ("tod.", 95), ("var.", 30)]  # fmt: skip
    for x1, (head, conf) in zip(cols, heads, strict=True):
        page.text(head, x1 - 60 - len(head) * 10, y, conf=conf)
    y += 1.5 * PITCH
    for label in ("Grand total", "British", "Norwegian"):
        page.text(label, LEFT, y)
        for x1 in cols:
            page.right("1,234", x1, y)
        y += PITCH
    tables, cells = build_tables(page.words(), page.pages())
    first = cells.filter(pl.col("row_idx") == 0).sort("col_idx")
    got = list(zip(first["period_kind"], first["period_end"], strict=True))
    assert got == [
        ("calendar_year", date(1938, 12, 31)),
        ("calendar_year", date(1939, 12, 31)),
        ("month", date(1939, 9, 30)),
        ("month", date(1939, 10, 31)),
        ("month", date(1939, 11, 30)),
        ("month", date(1939, 12, 31)),
        ("month", date(1940, 1, 31)),
        ("month", date(1940, 2, 29)),
        ("month", date(1940, 3, 31)),
    ]


def test_months_of_a_position_table_stay_month_ends() -> None:
    """A month run under a year spanner in a position table (2006-12 p72 CM-I-2, Total
    Liabilities: "2006" over "May r June July Aug. Sept. p") is read with the table's
    context: month-end positions, never month flows. (A first version dated the run as
    months, which then clashed with the heads' own month ends and erased them.) Here the
    spanner runs into the head of the middle column, as OCR sometimes joins them; the
    run dates June-Aug. by it."""
    cols = [1000.0 + 200 * k for k in range(5)]
    page = Page()
    page.centred("TABLE CM-I-2.-Total Liabilities by Country", 1275, 300)
    page.centred("[Position at end of period in millions of dollars]", 1275, 360)
    page.centred("Calendar year 2006", (cols[0] + cols[4]) / 2 - 60, 430)
    y = 430 + PITCH
    page.text("Country", LEFT, y)
    for x1, head in zip(cols, ["May r", "June", "July", "Aug.", "Sept. p"], strict=True):
        page.text(head, x1 - 60 - len(head) * 10, y)
    y += 1.5 * PITCH
    for label in ("Austria", "Belgium", "Denmark"):
        page.text(label, LEFT, y)
        for x1 in cols:
            page.right("1,234", x1, y)
        y += PITCH
    _, cells = build_tables(page.words(), page.pages())
    first = cells.filter(pl.col("row_idx") == 0).sort("col_idx")
    assert first["period_kind"].to_list()[1:4] == ["as_of_date"] * 3
    assert first["period_end"].to_list()[1:4] == [date(2006, 6, 30), date(2006, 7, 31),
                                                 date(2006, 8, 31)]  # fmt: skip


def test_a_low_confidence_month_word_is_kept_only_on_a_line_of_months() -> None:
    """1940-05 p79: "Hay", "wov.", "var." came back at confidence 28, 0 and 32 beside
    "Mar. Apr. Aug. oct. Jan." read well: on such a line they are month heads. The same
    words alone at that confidence are rule noise and stay dropped."""
    from pipeline.tables.lines import assign_lines, page_lines

    page = Page()
    for k, (word, conf) in enumerate([("Mar.", 90), ("Apr.", 90), ("Hay", 28), ("Jane", 80),
                                      ("Aug.", 90), ("wov.", 0), ("var.", 32)]):  # fmt: skip
        page._word(word, 900 + 150 * k, 400, conf)
    page.line_no += 1
    for k, (word, conf) in enumerate([("Total", 90), ("Hay", 28), ("var.", 20)]):
        page._word(word, 900 + 150 * k, 800, conf)
    lines = page_lines(assign_lines(page.words()))
    assert [line.text for line in lines] == ["Mar. Apr. Hay Jane Aug. wov. var.", "Total"]


def test_a_year_after_year_whose_last_one_reads_as_a_bracket() -> None:
    """1941-01 p40: the title's "Fiscal Year 1941" came back "Fiscal Year 194]"; the
    bracket was stripped as a rule and "194" named no year, so the title's period (the
    first 5 months of fiscal year 1941) dated nothing. After "Year" it is the 1; a
    figure beside a rule ("194|") stays a figure."""
    from pipeline.tables.lines import assign_lines, page_lines

    page = Page()
    page.text("for the First 5 Months, Fiscal Year 194]", 900, 300)
    page.text("Loans 194| 2,080|", 900, 600)
    lines = page_lines(assign_lines(page.words()))
    assert [line.text for line in lines][0] == "for the First 5 Months, Fiscal Year 1941"
    assert "1941" not in lines[1].text


def test_a_run_of_one_slip_month_words_is_read_without_an_exact_one() -> None:
    """1940-05 p79, second panel: "Jen. eb. . age. May dune duly Ave. . dot. Bor. Deo.
    Jaa. . var." reads one month exactly; ten more are each one slip from the month of
    their place, which no chance lines up in calendar order. Fewer such words date
    nothing."""
    words = ["1936", "19%", "Jen.", "eb.", None, "age.", "May", "dune", "duly", "Ave.", None,
             "dot.", "Bor.", "Deo.", "Jaa.", None, "var."]  # fmt: skip
    assert month_run(words) == [None, None, *range(12), 0, 1, 2]
    assert month_run(["dan.", "eb.", "Jane", "duly", "Ave.", "Sapt.", "dot."]) == [None] * 7


# 1940-05 p79, second panel (Net Registered Tonnage): its head lines as OCR read them
# (the spanners "Calendar Year" / "1939" / "1940" came back "aa 9 ato") and its columns
P79_PANEL2_WORDS = [
    ("aa", 1003, 1633, 1171, 1636), ("9", 1341, 1602, 1542, 1636), ("ato", 2090, 1598, 2238, 1636),
    ("1936", 581, 1643, 674, 1679), ("19%", 713, 1646, 772, 1679), ("Jen.", 822, 1646, 881, 1679),
    ("eb.", 919, 1647, 972, 1667), ("age.", 1118, 1646, 1172, 1671), ("May", 1218, 1646, 1263, 1669),  # noqa: E501
    ("dune", 1313, 1645, 1367, 1665), ("duly", 1410, 1645, 1467, 1669), ("Ave.", 1508, 1645, 1563, 1669),  # noqa: E501
    ("dot.", 1710, 1646, 1763, 1667), ("Bor.", 1807, 1619, 1865, 1695), ("Deo.", 1908, 1619, 1960, 1695),  # noqa: E501
    ("Jaa.", 2003, 1619, 2061, 1695), ("var.", 2201, 1645, 2255, 1666),
]  # fmt: skip
P79_PANEL2_COLS = [
    (589, 675), (702, 790), (815, 886), (914, 984), (1013, 1097), (1111, 1198), (1210, 1294),
    (1310, 1390), (1407, 1487), (1506, 1577), (1604, 1677), (1704, 1774), (1803, 1883),
    (1902, 1982), (2000, 2070), (2098, 2180), (2196, 2266),
]  # fmt: skip


def test_a_second_panel_reads_its_month_years_from_the_subtitle_over_both() -> None:
    """1940-05 p79: "Calendar Years 1938 and 1939, and first quarter, 1940" is printed once,
    under the title and over the first panel ("Number of vessels"); the second panel
    ("Net Registered Tonnage (in thousands)") repeats the heads under the same title, and
    OCR garbled its spanners, its month line past any exact word, its "1938" into "1936"
    and its "1939" into "19%". Its months are dated by the subtitle over both panels (the
    first panel's preamble lines); the two headed columns left of the run are the two
    calendar years the subtitle names, in order: "1936" one digit off 1938, "19%" 1939 cut
    short after its century. Without the subtitle nothing dates the run."""
    from pipeline.tables.headers import Column
    from pipeline.tables.lines import Chunk, Line, chunk_line
    from pipeline.tables.month_heads import month_run_heads

    # two head lines as OCR grouped them (the spanner line, then the heads)
    lines = [
        Line("d", 1, n, chunk_line([Chunk(t, *box, 95.0, 1) for t, *box in words], 27.0))
        for n, words in enumerate((P79_PANEL2_WORDS[:3], P79_PANEL2_WORDS[3:]))
    ]
    cols = [Column(x0, x1, x1) for x0, x1 in P79_PANEL2_COLS]
    title = "Vessels Cleared from the United States, Direct for Foreign Ports, Classified by Nationality"  # noqa: E501
    above = [title, "Calendar Years 1938 and 1939, and first quarter. 1940"]
    heads = month_run_heads(lines, cols, title, above)
    assert heads[:2] == ["Calendar year 1938", "Calendar year 1939"]
    assert heads[2] == "1939 / January" and heads[13] == "1939 / December"
    assert heads[14:] == ["1940 / January", "1940 / February", "1940 / March"]
    assert month_run_heads(lines, cols, title, []) == [None] * len(cols)


def test_year_heads_left_of_a_run_that_do_not_read_as_the_named_years_name_none() -> None:
    """The 1940-05 p79 second panel with its year heads read otherwise: a year two digits
    off the subtitle's ("1926" for 1938) is a misreading, no period; a head cut short
    beside it does not date by position alone; under a subtitle naming three years over
    two headed columns, only a head printing its year names one."""
    from pipeline.tables.headers import Column
    from pipeline.tables.lines import Chunk, Line, chunk_line
    from pipeline.tables.month_heads import MISREAD, month_run_heads

    def heads(first: str, subtitle: str) -> list[str | None]:
        words = [(first, *P79_PANEL2_WORDS[3][1:]), *P79_PANEL2_WORDS[4:]]
        lines = [
            Line("d", 1, n, chunk_line([Chunk(t, *box, 95.0, 1) for t, *box in ws], 27.0))
            for n, ws in enumerate((P79_PANEL2_WORDS[:3], words))
        ]
        cols = [Column(x0, x1, x1) for x0, x1 in P79_PANEL2_COLS]
        return month_run_heads(lines, cols, "Vessels Cleared", ["Vessels Cleared", subtitle])

    both = "Calendar Years 1938 and 1939, and first quarter. 1940"
    got = heads("1926", both)
    assert got[0] == MISREAD and got[1] is None and got[2] == "1939 / January"
    got = heads("1938", "Calendar Years 1937, 1938 and 1939, and first quarter. 1940")
    assert got[:2] == ["Calendar year 1938", None] and got[2] == "1939 / January"


def test_a_second_panel_under_the_same_title_is_handed_the_preamble_above(monkeypatch) -> None:
    """The layout side of the 1940-05 p79 case: a block under no title of its own (only
    a unit line, "(in thousands)") is a second panel of the table above, and its month
    heads are read with that table's preamble lines; the first table gets none."""
    import pipeline.tables.layout as layout

    seen = []
    real = layout.month_run_heads

    def spy(lines, columns, title, panel_texts=()):
        seen.append(list(panel_texts))
        return real(lines, columns, title, panel_texts)

    monkeypatch.setattr(layout, "month_run_heads", spy)
    cols = [900.0 + 150 * k for k in range(6)]
    page = Page()
    page.centred("Vessels Cleared from the United States, Classified by Nationality", 1275, 182)
    y = 260.0
    for spanner in ("Number of vessels", "(in thousands)"):
        page.centred(spanner, 1400, y)
        y += PITCH
        for x1, head in zip(cols, ["1938", "1939", "Jan.", "Feb.", "Mar.", "Apr."], strict=True):
            page.text(head, x1 - 60 - len(head) * 10, y)
        y += 1.5 * PITCH
        for label in ("Grand total", "British"):
            page.text(label, LEFT, y)
            for x1 in cols:
                page.right("1,234", x1, y)
            y += PITCH
        y += 3 * PITCH
    tables, _ = build_tables(page.words(), page.pages())
    assert tables.height == 2 and tables["title"][0] == tables["title"][1]
    assert seen[0] == []
    assert "Vessels Cleared from the United States, Classified by Nationality" in seen[1]


def test_a_month_head_with_a_revision_mark_counts_for_a_line_of_months() -> None:
    """1984-06 p62 (CM-IV-1): the month heads under "1982" and "1983" print revision
    and preliminary marks, "Dec.r Mar.r June r Sept.r Dec. p"; OCR read "Mar.r" as
    "Marr" at confidence 0. Only "June" counted as a month word, the line was no line of
    months, "Marr" was dropped as rule noise and the column read "1983": a year, not the
    end of March 1983. "Dec.r" and "Sept.r" are month heads too: the line is one of
    months and keeps "Marr", which the column head reads by its place in the run."""
    from pipeline.tables.headers import Column, column_heads
    from pipeline.tables.labels import clean_header_path
    from pipeline.tables.lines import assign_lines, page_lines
    from pipeline.tables.periods import parse_period

    # the real boxes (400-DPI OCR) of the head's two lines, with their confidences
    words = [
        ("1982", 1548, 371, 1605, 388, 96.8), ("1983", 1940, 370, 1997, 388, 96.7),
        ("Dec.r", 1548, 422, 1621, 442, 88.1), ("Marr", 1703, 423, 1777, 441, 0.0),
        ("June", 1861, 422, 1919, 439, 90.8), ("r", 1941, 426, 1950, 439, 90.5),
        ("Sept.r", 2018, 421, 2107, 444, 79.1), ("Oec.", 2174, 421, 2229, 441, 83.3),
        ("p", 2253, 426, 2263, 444, 87.9),
    ]  # fmt: skip
    page = Page()
    for k, (text, x0, y0, x1, y1, conf) in enumerate(words):
        if k in (0, 2):
            page.line_no += 1
        page._word(text, x0, y0, conf)
        page.rows[-1].update(x1=x1, y1=y1)
    lines = page_lines(assign_lines(page.words()))
    assert "Marr" in lines[-1].text
    cols = [Column(x0, x1, x1) for x0, x1 in [(1532, 1625), (1689, 1781), (1846, 1938),
                                               (2003, 2095), (2159, 2251)]]  # fmt: skip
    heads = column_heads(lines, cols, 20.0, 51.0)
    paths = [clean_header_path(p) for p in heads.paths]
    assert paths[1] == "1983 / Marr"
    march = parse_period(paths[1], "Position at end of period in millions of dollars")
    assert (march.kind, march.end) == ("as_of_date", date(1983, 3, 31))
    # a month word alone at that confidence stays rule noise
    alone = Page()
    alone._word("Total", 900, 400, 90.0)
    alone._word("Marr", 1100, 400, 0.0)
    assert [line.text for line in page_lines(assign_lines(alone.words()))] == ["Total"]


def test_a_year_head_one_digit_off_the_runs_year_takes_the_runs_reading() -> None:
    """1940-05 p79, second panel: the path "1936" parses as a year of unknown kind; the
    run read that column as the subtitle's calendar year 1938 (one digit off), which
    stands. A path naming a year two digits off, or a month, keeps neither."""
    from pipeline.tables.axes import _with_head
    from pipeline.tables.periods import parse_period

    head = parse_period("Calendar year 1938")
    got = _with_head(parse_period("1936"), head)
    assert got is not None and (got.kind, got.start, got.end) == (
        "calendar_year",
        date(1938, 1, 1),
        date(1938, 12, 31),
    )
    assert _with_head(parse_period("1926"), head) is None
    assert _with_head(parse_period("January 1936"), head) is None
