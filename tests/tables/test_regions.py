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
