"""The hand-labelled real gold set: its files are well-formed, and score_gold scores."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import polars as pl

from pipeline.tables.gold import FIELDS, load_gold, score_gold, unit_scale
from pipeline.tables.periods import KINDS
from pipeline.tables.schemas import TABLE_CELLS_SCHEMA, TABLES_SCHEMA

GOLD = Path(__file__).resolve().parents[1] / "gold" / "treasury"
TABLE_FIELDS = {
    "file",
    "page",
    "printed_page",
    "table_no",
    "table_number",
    "title",
    "continued",
    "unit",
    "unit_source",
    "columns",
    "rows",
    "notes",
}
UNIT_SOURCES = {"title", "unit_line", "column_head", "page_head", "none"}


def _check_period(p: dict | None, where: str) -> None:
    if p is None:
        return
    assert p["kind"] in KINDS, where
    for end in ("start", "end"):
        if p.get(end):
            date.fromisoformat(p[end])
    if p.get("start") and p.get("end"):
        assert p["start"] <= p["end"], where


def test_gold_files_follow_the_readme() -> None:
    tables = load_gold(GOLD)
    volumes = {t["file"] for t in tables}
    assert len(tables) >= 80 and len(volumes) >= 12
    for t in tables:
        where = t["_source"]
        assert TABLE_FIELDS <= set(t), where
        assert t["unit_source"] in UNIT_SOURCES, where
        assert t["columns"] and t["rows"], where
        for col in t["columns"]:
            _check_period(col.get("period"), where)
            for i in col.get("total_of") or []:
                assert 0 <= i < len(t["columns"]), where
        labels = {r["label"] for r in t["rows"]}
        for row in t["rows"]:
            _check_period(row.get("period"), where)
            for i in row.get("total_of") or []:
                assert 0 <= i < len(t["rows"]), where
            if row.get("parent"):
                assert row["parent"] in labels, (where, row["label"], row["parent"])


def _built(statement: str, unit: str, labels: list[str], kinds: list[str]) -> tuple:
    documents = pl.DataFrame({"doc_id": ["d"], "file_name": ["b.pdf"], "volume": ["1950-01"]})
    table = {c: None for c in TABLES_SCHEMA} | {
        "table_id": "d:3:0",
        "doc_id": "d",
        "page_no": 3,
        "table_no": 0,
        "statement": statement,
        "unit": unit,
        "col_labels": ["1949", "1950"],
    }
    cells = []
    for r, label in enumerate(labels):
        for c, year in enumerate((1949, 1950)):
            cells.append(
                {col: None for col in TABLE_CELLS_SCHEMA}
                | {
                    "table_id": "d:3:0",
                    "doc_id": "d",
                    "page_no": 3,
                    "table_no": 0,
                    "row_idx": r,
                    "col_idx": c,
                    "row_label": label,
                    "col_label": str(year),
                    "text": f"{(r + 1) * 100 + c:,}",
                    "is_number": True,
                    "row_parent": "",
                    "period_kind": kinds[c],
                    "period_start": date(year - 1, 7, 1),
                    "period_end": date(year, 6, 30),
                }
            )
    return (
        documents,
        pl.DataFrame([table], schema=TABLES_SCHEMA),
        pl.DataFrame(cells, schema=TABLE_CELLS_SCHEMA),
    )


def _gold_table() -> dict:
    fy = [
        {"kind": "fiscal_year", "start": f"{y - 1}-07-01", "end": f"{y}-06-30"}
        for y in (1949, 1950)
    ]
    return {
        "file": "b.pdf",
        "page": 3,
        "table_no": 0,
        "title": "Budget Receipts",
        "unit": "millions of dollars",
        "columns": [{"header": "1949", "period": fy[0]}, {"header": "1950", "period": fy[1]}],
        "rows": [
            {"label": "Receipts", "heading": True, "parent": None},
            {"label": "Customs", "parent": "Receipts", "first_value": "100"},
            {"label": "Excise taxes", "parent": "Receipts", "first_value": "200"},
            {"label": "Total", "is_total": True, "first_value": "300"},
        ],
        "_source": "test:1",
    }


def test_a_faithful_build_scores_one_and_every_slip_is_counted() -> None:
    docs, tables, cells = _built(
        "Budget Receipts",
        "millions of dollars",
        ["Customs", "Excise taxes", "Total"],
        ["fiscal_year"] * 2,
    )
    cells = cells.with_columns(
        row_parent=pl.when(pl.col("row_idx") < 2).then(pl.lit("Receipts")).otherwise(pl.lit(""))
    )
    scores = score_gold([_gold_table()], docs, tables, cells)
    assert set(scores.counts) == set(FIELDS)
    for name in FIELDS:
        assert scores.accuracy(name) == 1.0, (name, scores.mismatches)

    docs, tables, cells = _built(
        "Budget Receipts (Continued)",
        "dollars",
        ["Custom", "Excise taxes", "Total"],
        ["year", "fiscal_year"],
    )
    scores = score_gold([_gold_table()], docs, tables, cells)
    assert scores.counts["unit"] == [0, 1]
    assert scores.counts["period"] == [1, 2]
    assert scores.counts["row_label"] == [2, 3]  # "Custom" is not "Customs"
    assert scores.counts["row_parent"] == [1, 3]
    assert {m["field"] for m in scores.mismatches} >= {"unit", "period", "row_label", "title"}


def test_a_missing_table_counts_against_every_field() -> None:
    docs, tables, cells = _built(
        "Budget Receipts",
        "millions of dollars",
        ["Customs", "Excise taxes", "Total"],
        ["fiscal_year"] * 2,
    )
    gold = _gold_table() | {"page": 4}
    scores = score_gold([gold], docs, tables, cells)
    assert scores.counts["table"] == [0, 1] and scores.counts["row_label"] == [0, 3]


def test_unit_scale_compares_what_a_key_depends_on() -> None:
    assert unit_scale("millions of dollars") == unit_scale("millions") == "million"
    assert unit_scale("dollars") == "ones" and unit_scale(None) == "unknown"


def test_a_row_with_a_misread_figure_pairs_a_row_of_its_own_group() -> None:
    """1940-05 p59: every group of the stub prints "Feb. 7" ... "Feb. 28". A gold row
    whose built figure OCR garbled pairs by label with the built row in the gap between
    its paired neighbours, not with the first unpaired row of that label elsewhere."""
    from pipeline.tables.gold import _align_rows

    gold = [{"label": f"Feb. {d}", "first_value": v} for d, v in
            [(7, "1,000"), (14, "2,000"), (21, "3,000"), (7, "4,000"), (14, "5,000"),
             (21, "6,000")]]  # fmt: skip
    built = [{"label": f"Feb. {d}", "first_digits": v} for d, v in
             [(7, "1000"), (14, "2000"), (21, "88"), (7, "4000"), (14, "5000"),
              (21, "77")]]  # fmt: skip
    pairs = _align_rows(gold, built)
    assert pairs[2] == 2 and pairs[5] == 5  # not crossed over to the other group
    # a label the built table prints once pairs wherever it stands (panels read in
    # another order than the gold lists them)
    gold2 = [{"label": "Alpha", "first_value": "1"}, {"label": "Beta", "first_value": "2"},
             {"label": "Gamma", "first_value": "3"}]  # fmt: skip
    built2 = [{"label": "Gamma", "first_digits": "9"}, {"label": "Alpha", "first_digits": "1"},
              {"label": "Beta", "first_digits": "2"}]  # fmt: skip
    assert _align_rows(gold2, built2) == {0: 1, 1: 2, 2: 0}


def _cross_built(periods: dict[tuple[int, int], tuple[str, date, date]]) -> tuple:
    documents = pl.DataFrame({"doc_id": ["d"], "file_name": ["b.pdf"], "volume": ["1940-05"]})
    table = {c: None for c in TABLES_SCHEMA} | {
        "table_id": "d:3:0", "doc_id": "d", "page_no": 3, "table_no": 0,
        "statement": "Monthly Receipts", "unit": "millions of dollars",
        "col_labels": ["Jan.", "Feb.", "Total"],
    }  # fmt: skip
    cells = []
    for (r, c), (kind, start, end) in periods.items():
        cells.append(
            {col: None for col in TABLE_CELLS_SCHEMA}
            | {
                "table_id": "d:3:0", "doc_id": "d", "page_no": 3, "table_no": 0,
                "row_idx": r, "col_idx": c, "row_label": ["1935", "1936"][r],
                "col_label": ["Jan.", "Feb.", "Total"][c], "text": f"{100 * r + c + 1}",
                "is_number": True, "row_parent": "", "period_kind": kind,
                "period_start": start, "period_end": end,
            }
        )  # fmt: skip
    return (
        documents,
        pl.DataFrame([table], schema=TABLES_SCHEMA),
        pl.DataFrame(cells, schema=TABLE_CELLS_SCHEMA),
    )


def test_a_cross_tables_cells_are_scored_on_their_row_and_column_together() -> None:
    """1940-05 p20 (Monthly Receipts): heads "Jan." ... "Dec.", "Total" over rows of
    years; the gold column period is a month with no dates (the row gives the year), the
    row's a calendar year. A faithful build dates each cell by both: Jan. 1935 is the
    month, Total 1935 the calendar year, and the last row (1936 here) prints no Total
    yet. Such a build scores every slot; a build that gives each cell its row's year
    misses the column slots."""
    cal = lambda y: {"kind": "calendar_year", "start": f"{y}-01-01", "end": f"{y}-12-31"}  # noqa: E731
    gold = {
        "file": "b.pdf", "page": 3, "table_no": 0, "title": "Monthly Receipts",
        "unit": "millions of dollars",
        "columns": [
            {"header": "Jan.", "period": {"kind": "month", "start": None, "end": None}},
            {"header": "Feb.", "period": {"kind": "month", "start": None, "end": None}},
            {"header": "Total", "period": {"kind": "calendar_year", "start": None, "end": None}},
        ],
        "rows": [
            {"label": "1935", "parent": None, "first_value": "1", "period": cal(1935)},
            {"label": "1936", "parent": None, "first_value": "101", "period": cal(1936)},
        ],
        "_source": "test:1",
    }  # fmt: skip
    faithful = {
        (0, 0): ("month", date(1935, 1, 1), date(1935, 1, 31)),
        (0, 1): ("month", date(1935, 2, 1), date(1935, 2, 28)),
        (0, 2): ("calendar_year", date(1935, 1, 1), date(1935, 12, 31)),
        (1, 0): ("month", date(1936, 1, 1), date(1936, 1, 31)),
        (1, 1): ("month", date(1936, 2, 1), date(1936, 2, 29)),
    }
    scores = score_gold([gold], *_cross_built(faithful))
    assert scores.counts["period"] == [5, 5], scores.mismatches
    rows_year = {k: ("year", None, date(1935 + k[0], 12, 31)) for k in faithful}
    scores = score_gold([gold], *_cross_built(rows_year))
    assert scores.counts["period"] == [0, 5]
