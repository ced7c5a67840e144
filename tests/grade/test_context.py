"""What a solver reads: the pages and sheets parsed from an oracle, and their text from the
warehouse (OCR lines; rebuilt tables for a page without words; workbook cells)."""

from __future__ import annotations

import polars as pl

from pipeline.config import data_paths
from pipeline.draft.sample import write_sample_warehouse
from pipeline.draft.workbook_qa import oracle_source
from pipeline.grade.context import SourceTexts, TaskSources, oracle_sources
from pipeline.ingest.workbooks import CELLS_SCHEMA, WORKBOOKS_SCHEMA
from pipeline.store import Warehouse

SCAN_ORACLE = """from oracles.api import emit, table_cell

# Customs | 1948
a = table_cell(doc='doc1949', page=2, table=0, row='Customs', col='Fiscal year / 1948')
b = table_cell('doc1950', 3, 0, 'June 30, 1949', 'Total')
c = table_cell(doc='doc1949', page=2, table=0, row='Excise taxes', col=1)
emit(answer=a + b + c, places=0, unit='millions of dollars')
"""


def test_oracle_sources_reads_pages_and_sheets():
    assert oracle_sources(SCAN_ORACLE) == TaskSources(pages=(("doc1949", 2), ("doc1950", 3)))
    anchor = {"workbook_id": "ab" * 32, "sheet": "Budget", "members": ["B2", "B3"]}
    anchor |= {"range": "B2:B3", "address": "B4"}
    workbook = oracle_sources(oracle_source("t1", anchor, 0, "dollars"))
    assert workbook == TaskSources(sheets=(("ab" * 32, "Budget"),))
    assert oracle_sources("def broken(:") == TaskSources()
    assert oracle_sources(None).empty


def _cell(address: str, row: int, col: int, value: str | None, kind: str | None, formula=None):
    return {
        "workbook_id": "wb1",
        "sheet": "Budget",
        "address": address,
        "row": row,
        "col": col,
        "value": value,
        "value_num": None,
        "type": kind,
        "formula": formula,
        "number_format": None,
        "fill": None,
        "font_color": None,
    }


def test_source_texts_of_pages_tables_and_sheets(tmp_path):
    paths = data_paths(tmp_path)
    wh = Warehouse(paths)
    frames = write_sample_warehouse(wh, seed=3)
    # page 3 of doc1950 loses its words: its rebuilt table stands in
    words = frames["words"]
    dropped = (pl.col("doc_id") == "doc1950") & (pl.col("page_no") == 3)
    wh.replace("words", words.filter(~dropped))
    cells = [
        _cell("A1", 1, 1, "Item", "T"),
        _cell("B1", 1, 2, "Amount", "T"),
        _cell("A2", 2, 1, "Rent, office", "T"),
        _cell("B2", 2, 2, "1200", "I"),
        _cell("B3", 3, 2, "1250", "I", "=SUM(B2:B2)"),
    ]
    wh.replace("cells", pl.DataFrame(cells, schema=CELLS_SCHEMA))
    book = {k: None for k in WORKBOOKS_SCHEMA} | {"workbook_id": "wb1", "file_name": "budget.xlsx"}
    wh.replace("workbooks", pl.DataFrame([book], schema=WORKBOOKS_SCHEMA))

    texts = SourceTexts(paths)
    scan = texts.text(oracle_sources(SCAN_ORACLE))
    page_2, page_3 = scan.split("\n\n")
    assert page_2.startswith("### synth_bulletin_1949_06.pdf, page 2\n")
    assert "Table 1.- Budget receipts by source" in page_2  # OCR line order: title first
    assert page_2.splitlines()[2] == "1,373 8,004 4,099"  # one printed line per line
    assert page_3.startswith("### synth_bulletin_1950_06.pdf, page 3\n")
    assert "Table 2.- Public debt by type" in page_3
    assert "(In millions of dollars)" in page_3
    assert "June 30, 1949 | " in page_3  # a rebuilt row: label | printed cells

    sheet = texts.text(TaskSources(sheets=(("wb1", "Budget"),)))
    lines = sheet.splitlines()
    assert lines[0] == "### budget.xlsx"
    assert lines[1] == "## Sheet: Budget (A1:B3)"
    assert lines[2] == '(A1, "Item", T, ) (B1, "Amount", T, )'
    assert lines[3] == '(A2, "Rent, office", T, ) (B2, 1200, I, )'
    assert lines[4] == "(B3, 1250, I, =SUM(B2:B2))"

    short = SourceTexts(paths, max_chars=50).text(oracle_sources(SCAN_ORACLE))
    assert short.endswith("[... cut at 50 characters ...]")
    assert SourceTexts(paths).text(TaskSources(pages=(("nowhere", 1),))) == ""
