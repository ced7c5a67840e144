"""Two tables printed side by side are read as two tables (pipeline.tables.regions)."""

from __future__ import annotations

from pipeline.tables.layout import build_tables
from tests.tables.test_layout import CW, PITCH, Page

LEFT_STUB, RIGHT_STUB = 100.0, 1300.0
LEFT_COLS = [500.0, 700.0, 900.0, 1150.0]
RIGHT_COLS = [1700.0, 1900.0, 2100.0, 2350.0]
ROWS = ["1935", "1936", "1937", "1938-Sept", "Oct", "Nov", "Dec", "1939-Jan", "Feb", "Mar"]


def _pair(page: Page, titles: tuple[list[str], list[str]], top: float = 200.0) -> float:
    """Two index tables side by side (1939-12 p68): each its own centred title and
    unit, stub and four value columns, the rows at the same heights."""
    y = top
    left_mid = (LEFT_STUB + LEFT_COLS[-1]) / 2
    right_mid = (RIGHT_STUB + RIGHT_COLS[-1]) / 2
    for i in range(max(len(titles[0]), len(titles[1]))):
        if i < len(titles[0]):
            page.centred(titles[0][i], left_mid, y)
        if i < len(titles[1]):
            page.centred(titles[1][i], right_mid, y)
        y += PITCH
    y += PITCH * 0.5
    page.centred("(In millions of dollars)", left_mid, y)
    page.centred("(In millions of dollars)", right_mid, y)
    y += PITCH * 1.5
    for x0, cols in ((LEFT_STUB, LEFT_COLS), (RIGHT_STUB, RIGHT_COLS)):
        page.text("Period", x0, y)
        for k, x1 in enumerate(cols):
            page.right(["Gold", "Silver", "Notes", "Total"][k], x1, y)
    y += PITCH * 1.5
    for r, label in enumerate(ROWS):
        indent = 0 if label[:1].isdigit() else 3 * CW
        page.text(label + " " + "." * 5, LEFT_STUB + indent, y)
        for k, x1 in enumerate(LEFT_COLS):
            page.right(f"{100 + r + k}", x1, y)
        page.text(label + " " + "." * 5, RIGHT_STUB + indent, y)
        for k, x1 in enumerate(RIGHT_COLS):
            page.right(f"{300 + r + k}.5", x1, y)
        y += PITCH
    return y


def test_two_tables_side_by_side_are_read_apart() -> None:
    """1939-12 p68, 1940-05 p73: two tables under their own titles, side by side."""
    page = Page()
    page.centred("51", 1275, 80)
    _pair(
        page,
        (
            ["Components of Silver", "Monetary Stock"],
            ["Silver Acquired by Mints", "and Assay Offices"],
        ),
    )
    tables, cells = build_tables(page.words(), page.pages())
    assert tables.height == 2
    left, right = tables.sort("table_no").iter_rows(named=True)
    assert left["statement"] == "Components of Silver Monetary Stock"
    assert right["statement"] == "Silver Acquired by Mints and Assay Offices"
    assert left["n_cols"] == right["n_cols"] == 4
    assert left["unit_multiplier"] == right["unit_multiplier"] == 1e6
    assert left["x1"] < RIGHT_STUB < right["x0"] + CW
    right_cells = cells.filter(cells["table_no"] == right["table_no"])
    assert set(right_cells["row_label"].unique()) >= {"1935", "Oct"}
    assert right_cells.filter(right_cells["row_idx"] == 0)["value"].to_list() == [
        300.5,
        301.5,
        302.5,
        303.5,
    ]


def test_a_table_above_the_pair_stays_whole() -> None:
    """1939-12 p67: a full-width table above two side-by-side tables is not cut at
    their gutter (the split starts at the two titles)."""
    page = Page()
    y = 150.0
    page.centred("Value of Selected Currencies", 1275, y)
    y += PITCH * 2
    cols = [600.0, 800.0, 1000.0, 1200.0, 1500.0, 1700.0, 1900.0, 2100.0]
    for r, label in enumerate(["1935", "1936", "1937", "1938"]):
        page.text(label + " " + "." * 5, LEFT_STUB, y)
        for k, x1 in enumerate(cols):
            page.right(f"{50 + r + k}", x1, y)
        y += PITCH
    _pair(
        page,
        (
            ["Indexes of Prices of", "Foreign Currencies"],
            ["Indexes of Prices in", "London, Paris and Tokyo"],
        ),
        y + 3 * PITCH,
    )
    tables, _ = build_tables(page.words(), page.pages())
    top = tables.sort("table_no").row(0, named=True)
    assert top["n_cols"] == 8 and top["n_rows"] == 4
    assert tables.height == 3


def test_a_text_column_between_figures_does_not_split_a_table() -> None:
    """1967-08 p51, 1997-09 p32: one table with a column of words ("At auction",
    "5-1/4%-Q note") between figure columns and one title: no gutter."""
    page = Page()
    page.centred("Offerings of Marketable Securities", 1275, 150)
    y = 300.0
    for r, label in enumerate(["Jan", "Feb", "Mar", "Apr", "May", "June"]):
        page.text(label + " " + "." * 5, LEFT_STUB, y)
        page.right(f"{10 + r}", 600, y)
        page.text("At auction", 1000, y)
        for k, x1 in enumerate([1600.0, 1900.0]):
            page.right(f"{1000 + r + k}", x1, y)
        y += PITCH
    tables, _ = build_tables(page.words(), page.pages())
    assert tables.height == 1
    assert tables.row(0, named=True)["n_cols"] >= 3


PROSE = [
    "The data on this page represent",
    "investors' purchases and sales of",
    "long-term foreign securities as",
    "reported to the reporting system.",
    "However, in the past several years,",
    "investors also have acquired a",
    "substantial amount of foreign stocks,",
    "mostly European, through mergers",
    "amounted to $80 billion in 2000, $47",
    "that involve stock swaps. In",
    "addition, when foreign firms",
    "reincorporate in the United States,",
    "period before rebounding to $141",
    "billion in 2004 and $176 billion in",
]


def _beside_prose(page: Page, prose: list[str]) -> None:
    """2006-12 p99 (born digital): a chart title over the page, then a small table on
    the left ("Foreign bonds ... -28,492 ...") and a column of commentary on the right
    whose lines stand at the heights of the table's rows."""
    page.centred("CHART CM-D.—Net Purchases of Long-Term Foreign Securities", 1200, 100)
    y = 100 + 2 * PITCH
    cols = [560.0, 720.0, 880.0, 1040.0, 1340.0, 1620.0]
    page.centred("In millions of dollars", 700, y)
    page.centred("Calendar years", 900, y + PITCH)
    heads = ["2002", "2003", "2004", "2005", "Jan. - Sept.", "July- Sept."]
    for x1, head in zip(cols[4:], heads[4:], strict=True):
        page.centred("2006", x1 - len(head) * CW / 2, y + 2 * PITCH)
    page.text("Type", 100, y + 3 * PITCH)
    for x1, head in zip(cols, heads, strict=True):
        page.right(head, x1, y + 3 * PITCH)
    rows = [("Foreign bonds .....", "-28,492"), ("Foreign stocks .....", "1,493"),
            ("Total .....", "-26,999")]  # fmt: skip
    for r, (label, fig) in enumerate(rows):
        page.text(label, 100, y + (5 + r) * PITCH)
        for x1 in cols:
            page.right(fig, x1, y + (5 + r) * PITCH)
    for i, line in enumerate(prose):
        page.text(line, 1720, y + i * PITCH)


def test_a_column_of_prose_beside_a_table_is_not_read_into_its_rows() -> None:
    """2006-12 p99: the commentary's lines shared the printed lines of the table's rows
    and heads ("Foreign bonds ... 42,178 period before rebounding to $141"), so the rows
    read as text and no table was found. The column of prose is set aside; the table
    under the chart title is read with its heads ("Jan. - Sept.", a dash in a phrase,
    not a nil figure)."""
    page = Page()
    _beside_prose(page, PROSE)
    tables, cells = build_tables(page.words(), page.pages())
    assert tables.height == 1
    assert tables["unit"].to_list() == ["millions of dollars"]
    assert tables["n_rows"].to_list() == [3] and tables["n_cols"].to_list() == [6]
    # the head line of years is a head, not a first row
    assert tables["col_labels"].to_list()[0][:4] == [
        f"Calendar years / {y}" for y in range(2002, 2006)
    ]
    assert "period before" not in " ".join(cells["row_label"].to_list())


def test_a_right_column_of_short_phrases_is_no_prose() -> None:
    """A table's last column of short words (a description, "Notes") at one left edge is
    no column of prose: it is read with the table."""
    from pipeline.tables.lines import assign_lines, page_lines
    from pipeline.tables.regions import find_prose_column

    page = Page()
    _beside_prose(page, ["Bonds", "Notes"] * 7)
    lines = page_lines(assign_lines(page.words()))
    assert find_prose_column(lines, 30.0) is None
    page = Page()
    _beside_prose(page, PROSE)
    assert find_prose_column(page_lines(assign_lines(page.words())), 30.0) is not None


def test_a_text_column_of_a_table_is_no_prose_column() -> None:
    """1940-05 p11 ("Regular Federal Grants-in-aid to States"): a table's columns of
    wrapped descriptions stand beside its figures on most lines; a column of prose runs
    on past what stands beside it (many of its lines stand alone)."""
    from pipeline.tables.lines import assign_lines, page_lines
    from pipeline.tables.regions import find_prose_column

    page = Page()
    for i in range(14):
        y = 300 + i * PITCH
        page.text("Grants for vocational education .....", 100, y)
        page.right(f"{1000 + i}", 1300, y)
        page.text("Secretary may prescribe the basis of apportionment", 1500, y)
    assert find_prose_column(page_lines(assign_lines(page.words())), 30.0) is None
