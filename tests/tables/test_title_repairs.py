"""Titles settled against their volume (pipeline.tables.title_repairs).

1984-06 p65 (Table CM-IV-4) was read "Table CM—IV—4. — Tota! Claims by Country 53": the
folio printed at the page's top right corner (printed page 53) glued to the title line,
and the "l" of "Total" read as "!" (the OCR words of the title line: "Table", "CM—IV—4.",
"—", "Tota!" (conf 70), "Claims", "by", "Country", then "53" at x 2217-2269, y 79-113,
far right of the title at x 790-1465). The volume prints the title cleanly on p58 (Table CM-II-2,
printed page 46). Questions named the statement "Tota Claims by Country 53", and the
twin guard of the drafter did not see the two tables as twins."""

from __future__ import annotations

from collections import Counter

import polars as pl

from pipeline.tables.lexicon import Lexicon
from pipeline.tables.title_repairs import (
    confirmed_reading,
    printed_page_offsets,
    settle_titles,
    strip_folio,
)

# words the archive prints right, with their frequency (as build_lexicon counts them)
LEXICON = Lexicon(
    Counter({"total": 900, "claims": 120, "country": 300, "liabilities": 80, "dollar": 60,
             "foreigners": 40, "position": 30, "banks": 200})
)  # fmt: skip


def _table(page: int, title: str, statement: str, number: str, source: str = "ocr") -> dict:
    return {
        "doc_id": "d1984-06",
        "page_no": page,
        "title": title,
        "table_number": number,
        "statement": statement,
        "continued": False,
        "word_source": source,
    }


def _corner_words() -> pl.DataFrame:
    """A folio at the top corner of each page (printed page = PDF page - 12, as in
    1984-06: p58 prints 46, p65 prints 53), and a figure low in the body that is none."""
    rows = []
    for page in (58, 59, 60, 61, 65):
        rows.append(("d1984-06", page, str(page - 12), 2217.0, 79.0, 2269.0, 113.0))
        rows.append(("d1984-06", page, "7", 500.0, 900.0, 510.0, 920.0))
        rows.append(("d1984-06", page, "Country", 100.0, 3000.0, 200.0, 3020.0))
    return pl.DataFrame(
        rows, schema=["doc_id", "page_no", "text", "x0", "y0", "x1", "y1"], orient="row"
    ).with_columns(pl.col("page_no").cast(pl.Int32))


def test_the_volume_page_offset_is_read_from_its_corner_numbers() -> None:
    assert printed_page_offsets(_corner_words()) == {"d1984-06": 12}
    # two pages agreeing are too few to trust
    few = _corner_words().filter(pl.col("page_no").is_in([58, 65]))
    assert printed_page_offsets(few) == {}


def test_a_folio_glued_after_the_title_is_dropped() -> None:
    title = "Table CM—IV—4. — Total Claims by Country 53"
    assert strip_folio(title, 53) == "Table CM—IV—4. — Total Claims by Country"
    assert strip_folio(title, 54) == "Table CM—IV—4. — Total Claims by Country"
    # the folio read before a continuation mark is dropped all the same
    assert (
        strip_folio("Table CM—IV—4. — Total Claims by Country 53 (Continued)", 53)
        == "Table CM—IV—4. — Total Claims by Country (Continued)"
    )
    # a number far from the printed page, or no page known, is no folio
    assert strip_folio(title, 80) == title
    assert strip_folio(title, None) == title
    # a title that is nothing but its number keeps it
    assert strip_folio("Table 53", 53) == "Table 53"


def test_a_title_word_ocr_garbled_takes_the_volumes_clean_reading() -> None:
    clean = ["Total Claims by Country", "Total Liabilities by Country"]
    assert confirmed_reading("Tota Claims by Country", clean, LEXICON) == "Total Claims by Country"
    assert confirmed_reading("Tota! Claims by Country", clean, LEXICON) == "Total Claims by Country"
    # a confirmed title is never "corrected", nor towards a title the lexicon does not
    # confirm, nor where a word the lexicon knows differs
    assert confirmed_reading("Total Claims by Country", clean, LEXICON) is None
    assert confirmed_reading("Tota Claims by Country", ["Totel Claims by Country"], LEXICON) is None
    assert confirmed_reading("Tota Banks by Country", clean, LEXICON) is None
    # two clean readings compete: no correction
    two = ["Total Claims by Country", "Tote Claims by Country"]
    lex = Lexicon(Counter({**LEXICON.counts, "tote": 50}))
    assert confirmed_reading("Tota Claims by Country", two, lex) is None


def test_settle_titles_fixes_the_1984_06_twins() -> None:
    tables = [
        _table(58, "Table CM—II—2. — Total Claims by Country", "Total Claims by Country",
               "Table CM-II-2"),
        _table(65, "Table CM—IV—4. — Tota! Claims by Country 53", "Tota! Claims by Country 53",
               "Table CM-IV-4"),
    ]  # fmt: skip
    out = settle_titles(tables, {"d1984-06": 12}, LEXICON)
    p65 = next(t for t in out if t["page_no"] == 65)
    assert p65["statement"] == "Total Claims by Country"
    assert p65["table_number"] == "Table CM-IV-4"
    assert p65["title"] == "Table CM—IV—4. — Total Claims by Country"
    # the title as read is kept, as a row label's is
    assert p65["title_read"] == "Table CM—IV—4. — Tota! Claims by Country 53"
    p58 = next(t for t in out if t["page_no"] == 58)
    assert p58["title"] == p58["title_read"] == "Table CM—II—2. — Total Claims by Country"


def test_settle_titles_leaves_a_text_layer_title_and_an_unconfirmed_volume_alone() -> None:
    tables = [
        _table(65, "Table 4. — Tota Claims by Country", "Tota Claims by Country", "Table 4",
               source="text_layer"),
        _table(66, "Table 5. — Tota Claims by Region", "Tota Claims by Region", "Table 5"),
    ]  # fmt: skip
    out = settle_titles(tables, {}, LEXICON)
    assert [t["statement"] for t in out] == ["Tota Claims by Country", "Tota Claims by Region"]
