"""build_tables on word boxes laid out like a bulletin page (generated, known grid)."""

from __future__ import annotations

import polars as pl
import pytest

from pipeline.ingest.schemas import WORDS_SCHEMA
from pipeline.tables.layout import build_tables
from pipeline.tables.schemas import TABLE_CELLS_SCHEMA, TABLES_SCHEMA
from tests.tables.ocr_words import ocr_page

CW, H, PITCH = 20.0, 30.0, 45.0  # char width, text height, line pitch (pixels at 300 dpi)
LEFT = 200.0


class Page:
    """Collects word boxes the way OCR reports them: one box per space-separated word."""

    def __init__(self, doc_id: str = "d1", page_no: int = 1):
        self.doc_id, self.page_no = doc_id, page_no
        self.rows: list[dict] = []
        self.line_no = 0

    def text(self, text: str, x0: float, y: float, conf: float = 95.0) -> None:
        """Words of ``text`` from ``x0`` on one line at ``y``."""
        self.line_no += 1
        x = x0
        for word in text.split(" "):
            if word:
                self._word(word, x, y, conf)
            x += (len(word) + 1) * CW

    def right(self, text: str, x1: float, y: float, conf: float = 95.0) -> None:
        """A figure right-aligned at ``x1`` (its words keep their spacing)."""
        self.text(text, x1 - len(text) * CW, y, conf)

    def centred(self, text: str, mid: float, y: float) -> None:
        self.text(text, mid - len(text) * CW / 2, y)

    def _word(self, word: str, x0: float, y: float, conf: float) -> None:
        self.rows.append(
            {
                "doc_id": self.doc_id,
                "page_no": self.page_no,
                "word_no": len(self.rows),
                "block_no": 1,
                "line_no": self.line_no,
                "text": word,
                "x0": x0,
                "y0": y,
                "x1": x0 + len(word) * CW,
                "y1": y + H,
                "conf": conf,
                "source": "ocr",
            }
        )

    def words(self) -> pl.DataFrame:
        return pl.DataFrame(self.rows, schema=WORDS_SCHEMA)

    def pages(self, quality: str = "clear") -> pl.DataFrame:
        return ocr_page(self.doc_id, self.page_no, quality)


COLS = [1100.0, 1400.0, 1700.0, 2000.0]  # right edges of the value columns


def draw_receipts(page: Page, top: float) -> float:
    """A cat_rows table: spanning "Fiscal year" over three years plus a Total column."""
    y = top
    page.centred("Table 3.- Budget Receipts by Source", 1275, y)
    y += PITCH * 1.2
    page.centred("(In millions of dollars)", 1275, y)
    y += PITCH * 1.4
    page.centred("Fiscal year", (COLS[0] - 180 + COLS[2]) / 2, y)
    y += PITCH * 1.5
    page.text("Source", LEFT + 100, y)
    for x1, head in zip(COLS, ["1950", "1951", "1952", "Total"], strict=True):
        page.centred(head, x1 - 90, y)
    y += PITCH * 1.4
    rows = [
        ("Individual income tax", 1, ["1,234", "1,300", "(45)", "2,489"]),
        ("Corporation income tax", 1, ["567 1/", "-", "r612", "1,179"]),
        ("Total internal revenue", 0, ["1,801", "1,300", "567", "3,668"]),
        ("Customs", 0, ["-12.5", "1,2", "99*", "86.5"]),
        ("Total receipts", 0, ["1,788.5", "1,301", "666", "3,755.5"]),
    ]
    for label, indent, figures in rows:
        page.text(label + " " + "." * 6, LEFT + indent * 40, y)
        for x1, fig in zip(COLS, figures, strict=True):
            if fig == "1,2":  # OCR cut one figure in two words, closer than a space
                page._word("1,2", x1 - 5 * CW - 4, y, 95.0)
                page._word("00", x1 - 2 * CW, y, 95.0)
            else:
                page.right(fig, x1, y)
        y += PITCH
    page.text("1/ Includes adjustments.", LEFT, y + PITCH * 0.5)
    return y + PITCH * 2


@pytest.fixture()
def receipts() -> tuple[pl.DataFrame, pl.DataFrame]:
    page = Page()
    page.text("Treasury Bulletin", LEFT, 100)
    draw_receipts(page, 300)
    return build_tables(page.words(), page.pages())


def test_known_grid_comes_back(receipts: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    tables, cells = receipts
    assert list(tables.schema.items()) == list(TABLES_SCHEMA.items())
    assert list(cells.schema.items()) == list(TABLE_CELLS_SCHEMA.items())
    assert tables.height == 1
    t = tables.row(0, named=True)
    assert t["title"] == "Table 3.- Budget Receipts by Source"
    assert t["unit"] == "millions of dollars" and t["unit_multiplier"] == 1_000_000
    assert t["unit_source"] == "unit_line" and t["statement"] == "Budget Receipts by Source"
    assert (t["n_rows"], t["n_cols"]) == (5, 4)
    assert t["col_labels"] == [
        "Fiscal year / 1950",
        "Fiscal year / 1951",
        "Fiscal year / 1952",
        "Total",
    ]
    assert t["quality"] == "clear"
    labels = cells.group_by("row_idx").agg(pl.col("row_label").first()).sort("row_idx")["row_label"]
    assert labels.to_list() == [
        "Individual income tax",
        "Corporation income tax",
        "Total internal revenue",
        "Customs",
        "Total receipts",
    ]
    grid = {(r["row_idx"], r["col_idx"]): r for r in cells.iter_rows(named=True)}
    assert len(grid) == 20
    assert grid[(0, 0)]["value_str"] == "1234" and grid[(0, 0)]["col_label"] == "Fiscal year / 1950"
    assert grid[(0, 2)]["value_str"] == "-45" and grid[(0, 2)]["negative"]
    assert grid[(1, 0)]["value_str"] == "567" and grid[(1, 0)]["footnote"] == "1/"
    assert grid[(1, 1)]["is_dash"] and grid[(1, 1)]["value"] == 0.0
    assert grid[(1, 2)]["revised"] and grid[(1, 2)]["value_str"] == "612"
    assert grid[(3, 0)]["value_str"] == "-12.5"
    assert grid[(3, 2)]["footnote"] == "*" and grid[(3, 2)]["value_str"] == "99"
    assert grid[(4, 3)]["value_str"] == "3755.5" and grid[(4, 3)]["row_label"] == "Total receipts"
    assert all(grid[(r, c)]["conf"] == 95.0 for r in range(5) for c in range(4))


def test_split_figure_tokens_are_joined(receipts: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    _, cells = receipts
    cell = cells.filter((pl.col("row_idx") == 3) & (pl.col("col_idx") == 1)).row(0, named=True)
    assert cell["value_str"] == "1200" and cell["text"] == "1,200"


def test_two_tables_on_a_page_and_spanning_group_headers() -> None:
    page = Page()
    bottom = draw_receipts(page, 300)
    y = bottom
    page.centred("Table 4.- Public Debt by Type", 1275, y)
    y += PITCH * 1.2
    page.centred("In billions of dollars", 1275, y)
    y += PITCH * 1.4
    # spanning "Marketable" over the first two columns, a rule below it (1.5 pitch)
    page.centred("Marketable", (COLS[0] - 180 + COLS[1]) / 2, y)
    y += PITCH * 1.5
    page.centred("Treasury", COLS[0] - 90, y)
    y += PITCH
    page.text("Month", LEFT + 100, y)
    page.centred("bills", COLS[0] - 90, y)
    page.centred("Total", COLS[1] - 90, y)
    page.centred("Savings", COLS[2] - 90, y)
    page.centred("Total", COLS[3] - 90, y)
    y += PITCH * 1.4
    for month, figs in [
        ("Jan 1951", ["10.5", "20.0", "3.1", "23.1"]),
        ("Feb 1951", ["11.0", "21.0", "3.2", "24.2"]),
    ]:
        page.text(month, LEFT, y)
        for x1, fig in zip(COLS, figs, strict=True):
            page.right(fig, x1, y)
        y += PITCH
    tables, cells = build_tables(page.words(), page.pages())
    assert tables["table_no"].to_list() == [0, 1]
    second = tables.row(1, named=True)
    assert second["title"] == "Table 4.- Public Debt by Type"
    assert second["unit_multiplier"] == 1_000_000_000
    assert second["col_labels"] == [
        "Marketable / Treasury bills",
        "Marketable / Total",
        "Savings",
        "Total",
    ]
    assert (second["n_rows"], second["n_cols"]) == (2, 4)
    c = cells.filter(pl.col("table_no") == 1).sort("row_idx", "col_idx")
    assert c["row_label"].unique(maintain_order=True).to_list() == ["Jan 1951", "Feb 1951"]
    assert c["value_str"].to_list()[:4] == ["10.5", "20.0", "3.1", "23.1"]
    # the footnote line of the first table is neither a row nor a header of the second
    assert tables.row(0, named=True)["n_rows"] == 5


def test_wrapped_row_label_is_joined() -> None:
    page = Page()
    page.centred("Table 9.- Trust Accounts", 1275, 300)
    page.centred("In thousands of dollars", 1275, 360)
    page.centred("1950", COLS[0] - 90, 430)
    page.centred("1951", COLS[1] - 90, 430)
    y = 500
    page.text("Federal Old-Age and Survivors", LEFT, y)
    page.text("Insurance Trust Fund ....", LEFT + 40, y + PITCH)
    page.right("1,000", COLS[0], y + PITCH)
    page.right("2,000", COLS[1], y + PITCH)
    page.text("Railroad retirement", LEFT, y + 2 * PITCH)
    page.right("300", COLS[0], y + 2 * PITCH)
    page.right("400", COLS[1], y + 2 * PITCH)
    tables, cells = build_tables(page.words(), page.pages())
    assert tables.height == 1 and tables["n_rows"].item() == 2
    assert tables["unit_multiplier"].item() == 1_000
    labels = cells.sort("row_idx")["row_label"].unique(maintain_order=True).to_list()
    assert labels == ["Federal Old-Age and Survivors Insurance Trust Fund", "Railroad retirement"]


def test_pages_without_tables_give_empty_frames() -> None:
    page = Page()
    page.text("Treasury Bulletin", LEFT, 100)
    page.text("Contents", LEFT, 200)
    page.text("Table 1.- Budget Receipts ........ 3", LEFT, 300)
    page.text("7", 1275, 3000)
    tables, cells = build_tables(page.words(), page.pages())
    assert tables.height == 0 and cells.height == 0
    assert list(tables.schema) == list(TABLES_SCHEMA)


def test_lexicon_from_the_archive_corrects_ocr_label_slips() -> None:
    """Words printed right in a text layer (or read confidently in two volumes) correct
    a one-letter OCR slip in a label; a word with two equally likely fixes is left."""
    from collections import Counter

    from pipeline.tables.lexicon import Lexicon, build_lexicon

    words = pl.DataFrame(
        {
            # a short word is corrected only to a word printed 20 times or more
            "doc_id": ["a", "a", "b", "c", "d", "d"] + ["e"] * 18,
            "text": ["United", "States", "Farm", "Farm", "Statee", "Form"] + ["Farm"] * 18,
            "conf": [100.0, 100.0, 96.0, 95.0, 40.0, 99.0] + [100.0] * 18,
            "source": ["text_layer", "text_layer", "ocr", "ocr", "ocr", "ocr"]
            + ["text_layer"] * 18,
        }
    )
    lexicon = build_lexicon(words)
    assert "states" in lexicon and "farm" in lexicon
    assert "statee" not in lexicon and "form" not in lexicon  # one low-conf or one-doc read
    assert lexicon.correct("United Statee Housing") == (
        "United States Housing",
        [("Statee", "States")],
    )
    assert lexicon.correct("Federal Farn Mortgage")[0] == "Federal Farm Mortgage"
    tie = Lexicon(Counter({"farm": 5, "fern": 4}))
    assert tie.correct("Farn") == ("Farn", [])


def _table(page: Page) -> tuple[pl.DataFrame, pl.DataFrame]:
    tables, cells = build_tables(page.words(), page.pages())
    assert tables.height == 1, tables
    return tables, cells


def test_head_lines_printing_figures_among_words_are_heads() -> None:
    """2011-09 FD-5: "Within 1 year", "1-5 years" are column heads, not two body rows
    that would cut the title and heads off the table."""
    page = Page()
    page.centred("TABLE FD-5.- Maturity Distribution of Marketable Debt", 1275, 300)
    page.centred("In millions of dollars", 1275, 360)
    for x1, head in zip(COLS, ["Within", "1-5", "5-10", "20"], strict=True):
        page.centred(head, x1 - 50, 430)
    page.text("End of fiscal", LEFT, 430 + PITCH)
    for x1, head in zip(COLS, ["1 year", "years", "years", "years"], strict=True):
        page.centred(head, x1 - 50, 430 + PITCH)
    page.text("year or month", LEFT, 430 + 2 * PITCH)
    for i, x1 in enumerate(COLS, start=1):  # column numbers, as the bulletin prints them
        page.centred(f"({i})", x1 - 50, 430 + 2 * PITCH)
    y = 430 + 3.5 * PITCH
    for year, figures in (("2009", ["2,604", "2,074", "994", "203"]),
                          ("2010", ["2,479", "2,955", "1,529", "371"])):  # fmt: skip
        page.text(year + " " + "." * 10, LEFT, y)
        for x1, fig in zip(COLS, figures, strict=True):
            page.right(fig, x1, y)
        y += PITCH
    tables, cells = _table(page)
    assert tables["statement"].item() == "Maturity Distribution of Marketable Debt"
    assert tables["n_rows"].item() == 2
    assert "End of fiscal year or month" in tables["stub_head"].item()
    first = cells.filter(pl.col("row_idx") == 0).sort("col_idx")
    assert first["text"].to_list() == ["2,604", "2,074", "994", "203"]
    assert first["period_kind"].unique().to_list() == ["as_of_date"]


def test_a_figure_after_dot_leaders_starts_the_columns() -> None:
    """'Mar........ 19,264.9': the leaders lead the label to its first figure, which
    is the first column's, however close it stands."""
    page = Page()
    page.centred("Table 4.- Estimated Ownership of Treasury Securities", 1275, 300)
    page.centred("In billions of dollars", 1275, 360)
    page.text("End of month", LEFT, 430)
    for x1, head in zip(COLS, ["Total", "Banks", "Funds", "Other"], strict=True):
        page.centred(head, x1 - 90, 430)
    y = 500
    for label, figures in (("2016 - Mar", ["19,264.9", "5,1", "3,2", "9,9"]),
                           ("2015 - Dec", ["18,922.2", "5,0", "3,1", "9,8"])):  # fmt: skip
        # the dots run up to a word-space before the figure, as in a text layer
        leader = label + " " + "." * int((COLS[0] - 9 * CW - LEFT) // CW - len(label) - 1)
        page.text(leader, LEFT, y)
        for x1, fig in zip(COLS, figures, strict=True):
            page.right(fig, x1, y)
        y += PITCH
    _, cells = _table(page)
    labels = cells.sort("row_idx")["row_label"].unique(maintain_order=True).to_list()
    assert labels == ["2016 - Mar", "2015 - Dec"]
    first = cells.filter(pl.col("col_idx") == 0).sort("row_idx")["text"].to_list()
    assert first == ["19,264.9", "18,922.2"]


def test_a_unit_line_of_another_titled_table_is_not_a_page_head() -> None:
    """1939-12 p63: the gold-movement table's unit line above must not give the untitled-
    by-number 'Monetary Stocks of Gold and Silver' table under it a unit."""
    page = Page()
    page.centred("Net Movement of Gold to and from the United States", 1275, 300)
    page.centred("(In millions of dollars)", 1275, 360)
    page.centred("1938", COLS[0] - 90, 430)
    page.centred("1939", COLS[1] - 90, 430)
    y = 500
    for label in ("United Kingdom", "France"):
        page.text(label, LEFT, y)
        page.right("1,234", COLS[0], y)
        page.right("2,345", COLS[1], y)
        y += PITCH
    y += 6 * PITCH
    page.centred("Monetary Stocks of Gold and Silver", 1275, y)
    y += 2 * PITCH
    page.centred("1938", COLS[0] - 90, y)
    page.centred("1939", COLS[1] - 90, y)
    y += 1.5 * PITCH
    for label in ("Gold", "Silver"):
        page.text(label, LEFT, y)
        page.right("14.5", COLS[0], y)
        page.right("17.6", COLS[1], y)
        y += PITCH
    tables, _ = build_tables(page.words(), page.pages())
    units = dict(zip(tables["statement"], tables["unit"], strict=True))
    assert units["Net Movement of Gold to and from the United States"] == "millions of dollars"
    assert units["Monetary Stocks of Gold and Silver"] == "unknown"


def test_a_low_confidence_qualifier_after_a_year_stub_is_kept() -> None:
    """1953-09 p16 Table 4: "1954 (Est.)" came back as "195k" and "(Ret." at confidence
    3.8. Dropped as rule noise, the row read as the actual fiscal year 1954; kept, the
    row names no period a question can state."""
    page = Page()
    page.centred("Table 4.- Derivation of Cash Trust Account Transactions", 1275, 300)
    page.centred("(In millions of dollars)", 1275, 360)
    page.text("Fiscal year", LEFT, 430)
    for x1, head in zip(COLS, ["Total", "Banks", "Funds", "Other"], strict=True):
        page.centred(head, x1 - 90, 430)
    y = 500
    for label, conf in (("1951", 95.0), ("1952", 95.0), ("1953", 95.0), ("1954", 95.0)):
        page.text(label, LEFT, y, conf)
        if label == "1954":
            page.text("(Ret.", LEFT + 5 * CW, y, 3.8)
        for x1 in COLS:
            page.right("1,234", x1, y)
        y += PITCH
    _, cells = _table(page)
    rows = cells.filter(pl.col("col_idx") == 0).sort("row_idx")
    assert rows["row_label"].to_list()[3] == "1954 (Ret."
    assert rows["period_kind"].to_list() == ["fiscal_year"] * 3 + ["not_a_period"]


def test_head_lines_under_a_title_are_kept_across_a_tall_head_gap() -> None:
    """1948-05 p55 Table 5 (Silver Production): "Calendar year" stands beside the top of a
    two-deck head whose lower deck ("Ounces") sits well below it. Under a title and a
    unit line every line down to the first row is a head line; the stub head is kept and
    the year rows are calendar years."""
    page = Page()
    page.centred("Table 5.- Silver Production in the United States", 1275, 300)
    page.centred("(In millions of ounces or dollars)", 1275, 360)
    page.text("Calendar year", LEFT, 430)
    for x1, head in zip(COLS, ["Production", "Mints", "Foreign", "Total"], strict=True):
        page.centred(head, x1 - 90, 430)
    y = 430 + 3 * PITCH  # the lower deck, set off by a rule and a gap
    for x1 in COLS:
        page.centred("Ounces", x1 - 90, y)
    y += 1.5 * PITCH
    for year in ("1939", "1940", "1941"):
        page.text(year, LEFT, y)
        for x1 in COLS:
            page.right("63.9", x1, y)
        y += PITCH
    tables, cells = _table(page)
    assert "Calendar year" in tables["stub_head"].item()
    kinds = cells.filter(pl.col("col_idx") == 0).sort("row_idx")["period_kind"].to_list()
    assert kinds == ["calendar_year"] * 3


def test_a_head_line_of_years_and_dashed_month_spans_is_a_head() -> None:
    """2011-09 p85: "Country 2008 2009 2010 Jan. - June Apr. - June" under "Calendar
    years" and "2011 2011": the dashes read as figures, which made the line a body row
    and cut the heads (and every column's period) off the table."""
    page = Page()
    page.centred("TABLE CM-V-5.-Net Purchases of Long-Term Securities", 1275, 300)
    page.centred("In millions of dollars", 1275, 360)
    page.centred("Calendar years", (COLS[0] + COLS[3]) / 2 - 90, 430)
    y = 430 + PITCH
    for x1 in COLS[2:]:
        page.centred("2011", x1 - 90, y)
    y += PITCH
    page.text("Country", LEFT, y)
    for x1, head in zip(COLS, ["2008", "2009", "Jan. - June", "Apr. - June"], strict=True):
        page.centred(head, x1 - 90, y)
    y += 1.5 * PITCH
    for label in ("United Kingdom", "Japan", "Grand total"):
        page.text(label, LEFT, y)
        for x1 in COLS:
            page.right("328,706", x1, y)
        y += PITCH
    tables, cells = _table(page)
    assert tables["n_rows"].item() == 3
    first = cells.filter(pl.col("row_idx") == 0).sort("col_idx")
    assert first["period_kind"].to_list() == ["calendar_year", "calendar_year",
                                              "year_to_date", "quarter"]  # fmt: skip


def test_a_kind_word_of_the_stub_head_is_kept_at_low_confidence() -> None:
    """1984-06 p60 CM-III-1: the stub head "End of calendar year or month" came back with
    "calendar" at confidence 0. Dropped as rule noise, the year rows were of unknown
    kind; kept, they are year-end positions."""
    page = Page()
    page.centred("Table CM-III-1. - Dollar Claims on Nonbank Foreigners", 1275, 300)
    page.centred("[Position at end of period in millions of dollars]", 1275, 360)
    page.text("End of", LEFT, 430)
    page.text("calendar", LEFT + 7 * CW, 430, conf=0.0)
    for x1, head in zip(COLS, ["Total", "Banks", "Agencies", "Branches"], strict=True):
        page.centred(head, x1 - 90, 430)
    page.text("year or month", LEFT, 430 + PITCH)
    y = 430 + 2.5 * PITCH
    for year in ("1980", "1981", "1982"):
        page.text(year, LEFT, y)
        for x1 in COLS:
            page.right("136,912", x1, y)
        y += PITCH
    tables, cells = _table(page)
    assert "calendar" in tables["stub_head"].item()
    first = cells.filter(pl.col("col_idx") == 0).sort("row_idx")
    assert first["period_kind"].to_list() == ["as_of_date"] * 3


def test_a_wrapped_date_line_is_not_a_month_span_head() -> None:
    """1939-12 p32 (Major Financing Operations): the call date "Dec. 15, 1965" wrapped
    under its row ("Dee." "15," "1965" as OCR chunked it) has a year but no month span:
    not a head line. The p85 head "2008 2009 Jan. - June" is one."""
    from pipeline.tables.line_kinds import _month_span_head
    from pipeline.tables.lines import Chunk
    from pipeline.tables.numbers import parse_number

    def chunks(*texts: str) -> list[Chunk]:
        return [Chunk(t, 100.0 * i, 0, 100.0 * i + 50, 30, 95.0, 1, parse_number(t))
                for i, t in enumerate(texts)]  # fmt: skip

    assert not _month_span_head(chunks("1965"))  # "Dee. 15," went to the label
    assert not _month_span_head(chunks("(Add.", "Dec.", "15,", "1965"))
    assert _month_span_head(chunks("2008", "2009", "Jan.", "-", "June", "Apr.", "-", "June"))


@pytest.mark.parametrize(
    ("stub_lines", "kinds"),
    [
        (("Fiscal year", "or month"), ["month"] * 3),
        (("", "or month"), ["not_a_period"] * 3),
    ],
)
def test_a_stub_head_that_lost_its_opening_line_dates_no_rows(stub_lines, kinds) -> None:
    """1939-12 p24 "Old-Age Reserve Account": the stub head "Cumulative as of end of
    Fiscal Year or month" came back as "or month" alone, and the month rows (cumulative
    balances) were asked as monthly flows. A stub head opening on "or"/"and"/"of" lost
    its first words: whether the rows are flows or positions cannot be told."""
    page = Page()
    page.centred("Old-Age Reserve Account", 1275, 300)
    page.centred("(In millions of dollars)", 1275, 360)
    for x1, head in zip(COLS, ["Transfers", "Balance", "Total", "Interest"], strict=True):
        page.centred(head, x1 - 90, 430)
    for i, line in enumerate(stub_lines):
        if line:
            page.text(line, LEFT, 430 + i * PITCH)
    y = 430 + 2.5 * PITCH
    for month in ("1939-July", "Aug.", "Sept."):
        page.text(month, LEFT, y)
        for x1 in COLS:
            page.right("1,198.0", x1, y)
        y += PITCH
    tables, cells = _table(page)
    first = cells.filter(pl.col("col_idx") == 0).sort("row_idx")
    assert first["period_kind"].to_list() == kinds


def test_capitals_ocr_made_of_smudged_figures_leave_a_body_row() -> None:
    """1984-06 p88 (Accounts and Loans Receivable by Agency): the row "Housing and Urban
    Development .9 .8 13.5 13.2" came back from OCR as "9 8 ELS j"; read as a head line
    (words among column numbers) it cut the table in two above Interior. A head line's
    words are words: "Within" "1" "year" (2011-09 FD-5) is still a head."""
    page = Page()
    page.centred("Accounts and Loans Receivable by Agency", 1275, 300)
    page.centred("In billions", 1275, 360)
    for x1, head in zip(COLS, ["1983", "1982", "1983", "1982"], strict=True):
        page.centred(head, x1 - 50, 430)
    rows = [
        ("Energy", [".8", "1.2", "4.1", "4.0"]),
        ("Health and Human Services", ["2.0", "2.2", ".7", ".7"]),
        ("Housing and Urban Development", ["9", "8", "ELS", "j"]),
        ("Interior", [".2", ".1", ".5", ".5"]),
        ("Justice", [".2", ".1", "1.3", "1.1"]),
    ]
    y = 430 + 1.5 * PITCH
    for label, figures in rows:
        page.text(label + " " + "." * 6, LEFT, y)
        for x1, fig in zip(COLS, figures, strict=True):
            page.right(fig, x1, y)
        y += PITCH
    tables, cells = _table(page)
    assert tables["n_rows"].item() == 5
    labels = cells.sort("row_idx")["row_label"].unique(maintain_order=True).to_list()
    assert labels == [r[0] for r in rows]


def test_weekly_rows_of_one_month_keep_their_month_and_day() -> None:
    """1940-05 p59 (Short-Term Foreign Assets, weekly for February 1940): "Feb. 7"
    whose "Feb." OCR read at confidence 22 and whose one-digit day is right-aligned
    under the two-digit days (a gutter from the month); "Ted. 14", "Teb. 28": the
    month misread. Typewriter colons of the stub headings read as "?", or followed by
    a speck ("abroad: I")."""
    page = Page()
    page.centred("Short-Term Foreign Assets for February 1940", 1275, 300)
    page.centred("(In thousands of dollars)", 1275, 360)
    for x1, head in zip(COLS, ["Total", "France", "Belgium", "Italy"], strict=True):
        page.centred(head, x1 - 50, 430)
    y = 430 + 1.5 * PITCH
    for heading in ("Loans to foreign banks?", "Banks own deposits abroad: I"):
        page.text(heading, LEFT, y)
        y += 1.2 * PITCH
        for k, (month, day) in enumerate([("Feb.", "7"), ("Ted.", "14"), ("Feb.", "21"),
                                          ("Teb.", "28")]):  # fmt: skip
            page.line_no += 1
            page._word(month, LEFT + 40, y, 22.0 if k == 0 else 90.0)
            page._word(day, LEFT + 40 + 7 * CW - len(day) * CW, y, 95.0)
            page._word("." * 8, LEFT + 40 + 8 * CW, y, 60.0)
            for x1 in COLS:
                page._word(f"{k + 1},{x1:.0f}"[:5], x1 - 5 * CW, y, 95.0)
            y += PITCH
        y += 0.8 * PITCH
    tables, cells = _table(page)
    rows = cells.filter(pl.col("col_idx") == 0).sort("row_idx")
    assert rows["row_label"].to_list() == ["Feb. 7", "Feb. 14", "Feb. 21", "Feb. 28"] * 2
    assert (
        rows["row_parent"].to_list()
        == ["Loans to foreign banks"] * 4 + ["Banks own deposits abroad"] * 4
    )


def test_a_row_past_a_blank_line_at_another_indent_ends_the_stub_groups() -> None:
    """1984-06 p88: "Gross receivables", a blank line below "Off-budget agencies" and
    indented past it, is no agency of "Executive branch:" (its speck after the colon,
    "Executive branch: \\", is no part of the heading)."""
    page = Page()
    page.centred("Accounts and Loans Receivable by Agency", 1275, 300)
    page.centred("In billions", 1275, 360)
    for x1, head in zip(COLS, ["1983", "1982", "1983", "1982"], strict=True):
        page.centred(head, x1 - 50, 430)
    y = 430 + 1.5 * PITCH

    def row(label: str, x: float, figures: list[str]) -> None:
        page.text(label + " " + "." * 4, x, y)
        for x1, fig in zip(COLS, figures, strict=True):
            page.right(fig, x1, y)

    row("Legislative branch", LEFT, ["1.1", "1.2", "1.3", "1.4"])
    y += PITCH
    page.text("Executive branch: \\", LEFT, y)
    y += PITCH
    row("Funds appropriated to the President", LEFT + 25, ["0.3", "0.3", "20.1", "19.8"])
    y += PITCH
    for agency in ("Veterans Administration", "Other independent agencies"):
        row(agency, LEFT + 25, ["2.2", "1.9", "29.2", "29.4"])
        y += PITCH
    row("Off-budget agencies", LEFT + 25, ["4.7", "4.0", "147.2", "135.4"])
    y += 2 * PITCH
    row("Gross receivables", LEFT + 50, ["57.4", "53.7", "254.6", "240.2"])
    tables, cells = _table(page)
    rows = cells.filter(pl.col("col_idx") == 0).sort("row_idx")
    assert rows["row_label"].to_list() == [
        "Legislative branch", "Funds appropriated to the President", "Veterans Administration",
        "Other independent agencies", "Off-budget agencies", "Gross receivables",
    ]  # fmt: skip
    assert rows["row_parent"].to_list() == ["", *["Executive branch"] * 4, ""]


def test_a_word_read_at_low_confidence_inside_a_label_is_kept() -> None:
    """1941-01 p40: "United States Housing Authority" with "States" at confidence 28,
    "Federal Deposit Insurance Corporation" with "Deposit" at 24: dropped as rule noise,
    the labels lost a word with nothing to say so; so did "Disaster Loan Corporation"
    (18) and "Other flags" (17), 1939-12 p45, 1940-05 p79. Leader noise still goes."""
    page = Page()
    page.centred("Table 2.- Sources of Funds", 1275, 300)
    page.centred("(In thousands of dollars)", 1275, 360)
    for x1, head in zip(COLS, ["1938", "1939", "1940", "Total"], strict=True):
        page.centred(head, x1 - 50, 430)
    y = 430 + 1.5 * PITCH
    for words, weak in ((["United", "States", "Housing", "Authority"], 1),
                        (["Federal", "Deposit", "Insurance", "Corporation"], 1),
                        (["Rural", "Electrification", "Administration"], None),
                        (["Disaster", "Loan", "Corporation"], 0),
                        (["Other", "flags"], 1)):  # fmt: skip
        page.line_no += 1
        x = LEFT
        for k, word in enumerate(words):
            page._word(word, x, y, 28.0 if k == weak else 95.0)
            x += (len(word) + 1) * CW
        page._word("eee", x + CW, y, 3.0)  # leader noise after the label
        for x1 in COLS:
            page._word("1,234", x1 - 5 * CW, y, 95.0)
        y += PITCH
    tables, cells = _table(page)
    labels = cells.filter(pl.col("col_idx") == 0).sort("row_idx")["row_label"].to_list()
    assert labels == ["United States Housing Authority", "Federal Deposit Insurance Corporation",
                      "Rural Electrification Administration", "Disaster Loan Corporation",
                      "Other flags"]  # fmt: skip


def test_headings_with_a_possessive_or_a_colon_head_their_year_rows() -> None:
    """1940-05 p20 layout: a heading line per series over its year rows. "Veterans’"
    opening "Veterans’ life insurance" came back at confidence 21 (the apostrophe) and
    was dropped, and "Veterans’ services" and "Less: Redemptions" were no words to the
    stub reader: each became the first line of the "1948" row's label, which lost its
    year, and the rows under it their heading. A period row never wraps: the words over
    it head it, also when they open in lower case ("receipts": the garbled "Meoal" is
    still dropped), from where the row starts (not left in the heading above)."""
    page = Page()
    page.centred("Table 4.- Savings Bonds", 1275, 300)
    page.centred("(In millions of dollars)", 1275, 360)
    for x1, head in zip(COLS, ["Jan.", "Feb.", "Mar.", "Apr."], strict=True):
        page.centred(head, x1 - 50, 430)
    y = 430 + 1.5 * PITCH
    for heading, weak in (("Veterans’ life insurance", 21.0), ("Veterans’ services", None),
                          ("Less: Redemptions", None), ("Meoal receipts", 12.0)):  # fmt: skip
        page.line_no += 1
        x = LEFT
        for k, word in enumerate(heading.split(" ")):
            page._word(word, x, y, weak if k == 0 and weak else 95.0)
            x += (len(word) + 1) * CW
        y += PITCH
        for year in ("1948", "1949"):
            page.text(year + " " + "." * 6, LEFT + 40, y)
            for x1 in COLS:
                page.right("1,234", x1, y)
            y += PITCH
    tables, cells = _table(page)
    rows = cells.filter(pl.col("col_idx") == 0).sort("row_idx")
    assert rows["row_label"].to_list() == ["1948", "1949"] * 4
    assert rows["row_parent"].to_list() == [
        *["Veterans’ life insurance"] * 2, *["Veterans’ services"] * 2,
        *["Less: Redemptions"] * 2, *["receipts"] * 2,
    ]  # fmt: skip


def test_a_stray_word_over_the_columns_heads_no_year_rows() -> None:
    """1948-05 p18: "Pace", OCR of a rule out over the value columns above the "1940" row,
    is no heading of the year rows: they stand left of it, in no section (the heading
    over a period row is set where the row starts only when it stands in the stub)."""
    page = Page()
    page.centred("Table 2.- Budget Receipts", 1275, 300)
    page.centred("(In millions of dollars)", 1275, 360)
    for x1, head in zip(COLS, ["Total", "Income", "Excise", "Other"], strict=True):
        page.centred(head, x1 - 50, 430)
    y = 430 + 1.5 * PITCH
    for year in ("1940", "1941", "1942"):
        if year == "1942":
            page.text("Pace", COLS[1] - 4 * CW, y)
            y += PITCH
        page.text(year + " " + "." * 6, LEFT, y)
        for x1 in COLS:
            page.right("1,234", x1, y)
        y += PITCH
    tables, cells = _table(page)
    rows = cells.filter(pl.col("col_idx") == 0).sort("row_idx")
    assert rows["row_label"].to_list() == ["1940", "1941", "1942"]
    assert rows["row_parent"].to_list() == ["", "", ""]
