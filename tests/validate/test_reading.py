"""The independent reader of question texts (pipeline.validate.reading).

(a) Hand-written questions of every operation and wording read into the expected
operation, items, periods, statement, unit, precision and sign; hand-made mismatches
(swapped minuend, wrong base year, wrong total, wrong unit, wrong precision, another
formula in the oracle, ...) are caught. (b) On the default generated corpus, every
accepted task's key is recomputed from the generator's ground truth by the reading alone:
the cells the *question* names are looked up in the truth and the arithmetic the
*question* asks is done here, so a question that says one thing while its oracle computes
another fails. (c) Every wording the drafter has, with every period kind, reads back.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, replace
from datetime import date
from decimal import Decimal
from pathlib import Path

import polars as pl
import pytest

from pipeline.tables.periods import parse_period
from pipeline.validate.reading import (
    ReadingContext,
    SourceCell,
    check_reading,
    compute,
    item_matches,
    norm,
    parse_question,
    question_reasons,
    read_period,
    read_question,
    round_key,
    unreadable_reason,
)

# --------------------------------------------------------------------------------------
# (a) every operation and wording, by hand
# --------------------------------------------------------------------------------------

# The expected reading, "operation: items @ periods | statement | unit | places | sign"
# (items and periods separated by ";"), and the question.
READS = [
    (
        "value: Customs @ fiscal year 1947 | Budget receipts by source | millions of dollars | 0 |",
        "What was Customs in fiscal year 1947, as reported in the Budget receipts by "
        "source table? Answer in millions of dollars. Round to the nearest whole number.",
    ),
    (
        "value: Marketable @ June 30, 1947 | Public debt by type | millions of dollars | 1 |",
        "As of June 30, 1947, how much was Marketable (table: Public debt by type)? "
        "Express it in millions of dollars. Round to 1 decimal place.",
    ),
    (
        "value: Income tax (internal revenue) @ the October–December 2010 quarter | "
        "Receipts in the General Fund | thousands of dollars | 2 |",
        "Give the amount of Income tax (internal revenue) in the October–December 2010 "
        "quarter from the Receipts in the General Fund table, in thousands of dollars. Use "
        "the latest revised figures. Give 2 decimal places.",
    ),
    (
        "value: Total interest @ cumulative to October 31, 1939 | Interest on the Public "
        "Debt | millions | 0 |",
        "According to the Interest on the Public Debt table, what did Total interest "
        "amount to cumulative to October 31, 1939? Use millions. Give a whole number.",
    ),
    (
        "sum: Tax and loan accounts; Gold; Coin @ the end of June 1950 | Treasury Cash "
        "Balances by Account | thousands of dollars | 0 |",
        "What was the combined amount of Tax and loan accounts, Gold and Coin at the end "
        "of June 1950 (table: Treasury Cash Balances by Account)? Answer in thousands of "
        "dollars. Give a whole number.",
    ),
    (
        "sum: Bills; Notes @ fiscal year 2011 through March 2011 | Monthly Statement | "
        "millions of dollars | 1 |",
        "Taken together, how much did Bills and Notes come to in fiscal year 2011 through "
        "March 2011, per the Monthly Statement table? Express it in millions of dollars. "
        "Where the figure was revised, take the latest revision. Round to 1 decimal place.",
    ),
    (
        "sum: Alcohol; Tobacco; Manufacturers' @ calendar year 1946 | Internal Revenue "
        "Collections | thousands of dollars | 0 |",
        "In calendar year 1946, what did Alcohol, Tobacco and Manufacturers' add up to in "
        "the Internal Revenue Collections table? Use thousands of dollars. Give a whole "
        "number.",
    ),
    (
        "difference: Military services; Agriculture @ fiscal year 1945 | Budget "
        "Expenditures by Function | billions of dollars | 1 | smaller",
        "In fiscal year 1945, by how much did Military services exceed Agriculture (table: "
        "Budget Expenditures by Function)? Answer in billions of dollars; a negative "
        "number means it fell short. Give 1 decimal place.",
    ),
    (
        "difference: Nonmarketable; Other @ fiscal year 1946 | Interest on the Public Debt "
        "| millions of dollars | 1 | smaller",
        "How much larger was Nonmarketable than Other in fiscal year 1946, according to "
        "the Interest on the Public Debt table? Give millions of dollars (negative if "
        "smaller). Give 1 decimal place.",
    ),
    (
        "difference: Tax and loan accounts; Gold @ fiscal year 1946 | Treasury Cash "
        "Balances by Account | thousands of dollars | 0 | minus",
        "What was the gap between Tax and loan accounts and Gold in fiscal year 1946 "
        "(table: Treasury Cash Balances by Account), taking Tax and loan accounts minus "
        "Gold? Use thousands of dollars. Round to the nearest whole number.",
    ),
    (
        "change: Notes @ September 1949; October 1949 | Net Change in Public Debt by Type "
        "| millions of dollars | 1 | decrease",
        "By how much did Notes (table: Net Change in Public Debt by Type) change from "
        "September 1949 to October 1949? Answer in millions of dollars; use a negative "
        "number for a decrease. Give 1 decimal place.",
    ),
    (
        "change: Net change @ September 1949; February 1950 | Net Change in Public Debt by "
        "Type | millions of dollars | 1 | decrease",
        "What was the change in Net change between September 1949 and February 1950, per "
        "the Net Change in Public Debt by Type table? Express it in millions of dollars "
        "(negative for a decline). Give 1 decimal place.",
    ),
    (
        "change: Increase in the public debt @ the January–March 1950 quarter; the "
        "April–June 1950 quarter | Receipts in the General Fund | millions of dollars | 2 "
        "| decrease",
        "How much did Increase in the public debt grow from the January–March 1950 quarter "
        "to the April–June 1950 quarter in the Receipts in the General Fund table? Give "
        "millions of dollars; a fall is negative. Round to 2 decimal places.",
    ),
    (
        "share: Civil service retirement; Total (social security) @ fiscal year 1945 | "
        "Trust Account Receipts | percent | 2 |",
        "What share of Total (social security) did Civil service retirement account for in "
        "fiscal year 1945 (table: Trust Account Receipts)? Answer in percent. Round to 2 "
        "decimal places.",
    ),
    (
        "share: Special issues; Total public debt by type @ September 30, 1940 | Public "
        "debt by type | percent | 2 |",
        "As of September 30, 1940, what percentage of Total public debt by type was "
        "Special issues, according to the Public debt by type table? Give 2 decimal "
        "places.",
    ),
    (
        "share: Veterans' life insurance; Total (social security) @ fiscal year 1945 | "
        "Trust Account Receipts | percent | 2 |",
        "Veterans' life insurance made up what percent of Total (social security) in "
        "fiscal year 1945, per the Trust Account Receipts table? Round to 2 decimal "
        "places.",
    ),
    (
        "percent_change: Agriculture @ fiscal year 1945; fiscal year 1949 | Budget "
        "Expenditures by Function | percent | 2 | decrease",
        "By what percent did Agriculture (table: Budget Expenditures by Function) change "
        "from fiscal year 1945 to fiscal year 1949? Use a negative number for a decrease. "
        "Round to 2 decimal places.",
    ),
    (
        "percent_change: Notes @ the fiscal year 1967 estimate; the fiscal year 1968 "
        "estimate | Budget Outlook | percent | 2 |",
        "What was the percentage change in Notes between the fiscal year 1967 estimate and "
        "the fiscal year 1968 estimate, per the Budget Outlook table? Give 2 decimal "
        "places.",
    ),
    (
        "percent_change: Total interest @ fiscal year 1946; fiscal year 1950 | Interest on "
        "the Public Debt | percent | 2 | decrease",
        "From fiscal year 1946 to fiscal year 1950, how much did Total interest grow in "
        "percent (table: Interest on the Public Debt)? A decline is negative. Give 2 "
        "decimal places.",
    ),
    (
        "excess: Gold; Tax and loan accounts @ fiscal year 1946 | Treasury Cash Balances "
        "by Account | percent | 2 | smaller",
        "In fiscal year 1946, by what percent did Gold exceed Tax and loan accounts "
        "(table: Treasury Cash Balances by Account)? Negative if it was smaller. Round to "
        "2 decimal places.",
    ),
    (
        "excess: U.S. notes; Gold certificates @ fiscal year 1945 | Money in Circulation | "
        "percent | 2 | smaller",
        "How many percent larger was U.S. notes than Gold certificates in fiscal year "
        "1945, according to the Money in Circulation table? Relative to Gold certificates; "
        "negative if smaller. Give 2 decimal places.",
    ),
    (
        "mean: Chicago @ fiscal year 1944; fiscal year 1948 | Customs Collections by "
        "District | millions of dollars | 2 |",
        "What was the average value of Chicago over fiscal year 1944 through fiscal year "
        "1948, one value per period (table: Customs Collections by District)? Answer in "
        "millions of dollars. Give 2 decimal places.",
    ),
    (
        "mean: Bills @ fiscal year 2010 through March 2010; fiscal year 2012 through March "
        "2012 | Monthly Statement | millions | 1 |",
        "Averaged over fiscal year 2010 through March 2010 through fiscal year 2012 "
        "through March 2012, what was Bills per period in the Monthly Statement table? Use "
        "millions. Round to 1 decimal place.",
    ),
    (
        "max: Net change @ August 1949; October 1949 | Net Change in Public Debt by Type | "
        "millions of dollars | 1 |",
        "What was the highest amount of Net change in any period from August 1949 through "
        "October 1949 (table: Net Change in Public Debt by Type)? Answer in millions of "
        "dollars. Give 1 decimal place.",
    ),
    (
        "max: Marketable @ June 30, 1946; June 30, 1949 | Public debt by type | millions "
        "of dollars | 0 |",
        "Over June 30, 1946 through June 30, 1949, what peak value did Marketable reach in "
        "the Public debt by type table? Use millions of dollars. Give a whole number.",
    ),
    (
        "min: Tax and loan accounts @ fiscal year 1946; fiscal year 1948 | Treasury Cash "
        "Balances by Account | thousands of dollars | 0 |",
        "What was the lowest amount of Tax and loan accounts in any period from fiscal "
        "year 1946 through fiscal year 1948 (table: Treasury Cash Balances by Account)? "
        "Answer in thousands of dollars. Round to the nearest whole number.",
    ),
    (
        "min: Veterans' life insurance @ fiscal year 1945; fiscal year 1949 | Trust "
        "Account Receipts | thousands of dollars | 0 |",
        "Over fiscal year 1945 through fiscal year 1949, what was the smallest value of "
        "Veterans' life insurance in the Trust Account Receipts table? Use thousands of "
        "dollars. Give a whole number.",
    ),
]


def _expected(spec: str) -> dict:
    head, statement, unit, places, sign = (part.strip() for part in spec.split("|"))
    operation, _, rest = head.partition(": ")
    items, _, periods = rest.partition(" @ ")
    return {
        "operation": operation,
        "items": tuple(items.split("; ")),
        "periods": tuple(read_period(p).key for p in periods.split("; ")),
        "statement": statement,
        "unit": unit,
        "places": int(places),
        "sign": sign,
    }


@pytest.mark.parametrize(("spec", "question"), READS)
def test_reads_every_operation_and_wording(spec, question):
    expected, reading = _expected(spec), parse_question(question)
    assert reading.operation == expected["operation"]
    assert expected["items"] in reading.item_readings, reading.item_readings
    assert tuple(p.key for p in reading.periods) == expected["periods"]
    assert reading.statement == expected["statement"]
    assert (reading.unit, reading.places, reading.sign) == (
        expected["unit"],
        expected["places"],
        expected["sign"],
    )
    assert reading.latest == ("revis" in question)


def test_an_ambiguous_item_list_keeps_every_reading():
    reading = parse_question(READS[4][1])
    # "Tax and loan accounts, Gold and Coin": the plain reading first, the others kept
    assert reading.items == ("Tax and loan accounts", "Gold", "Coin")
    assert ("Tax", "loan accounts, Gold and Coin") in reading.item_readings
    # the gap wording repeats the items around "minus": one reading only
    assert parse_question(READS[9][1]).item_readings == (("Tax and loan accounts", "Gold"),)


def test_period_phrases_are_structured():
    fy1950 = read_period("fiscal year 1950")
    assert (fy1950.kind, fy1950.start.isoformat(), fy1950.end.isoformat()) == (
        "fiscal_year",
        "1949-07-01",
        "1950-06-30",
    )
    assert read_period("fiscal year 1977").start.isoformat() == "1976-10-01"
    assert read_period("the end of June 1950").key == read_period("June 30, 1950").key
    assert read_period("the November–January 1950 quarter").start.isoformat() == "1949-11-01"
    change = "the change from December 31, 1996 to March 31, 1997 (the January–March 1997 quarter)"
    assert read_period(change).key == read_period("the January–March 1997 quarter").key
    # the quarter in brackets must be the span between the two balance dates
    wrong = "the change from December 31, 1996 to March 31, 1997 (the April–June 1997 quarter)"
    assert read_period(wrong) is None
    assert read_period("the January–April 1950 quarter") is None
    assert read_period("1947").kind == "year"
    assert read_period("a while ago") is None


def test_year_end_positions_and_month_spans_are_read():
    """Wordings the table stage gives real bulletins (1939-12 "end of calendar year",
    2011-09 "2011 Jan. - June"): 284 real drafts were rejected as unreadable before."""
    dec = read_period("the end of calendar year 1995 (December 31, 1995)")
    assert dec.key == ("as_of_date", date(1995, 12, 31), date(1995, 12, 31))
    june = read_period("the end of fiscal year 1939 (June 30, 1939)")
    assert june.key == ("as_of_date", date(1939, 6, 30), date(1939, 6, 30))
    # the date in brackets must be the end of the year the words name
    assert read_period("the end of fiscal year 1939 (December 31, 1939)") is None
    assert read_period("January–June 2011").key == (
        "year_to_date",
        date(2011, 1, 1),
        date(2011, 6, 30),
    )
    assert read_period("October–March 2011").start == date(2010, 10, 1)
    q = read_question(
        "At the end of calendar year 1995 (December 31, 1995), how much was India (table: "
        "Total Liabilities by Country)? Express it in millions of dollars. Round to the "
        "nearest whole number."
    )
    assert q is not None and q.periods[0].end == date(1995, 12, 31) and q.items == ("India",)


@pytest.mark.parametrize(
    ("question", "why"),
    [
        ("What was Customs in fiscal year 1947 (table: X)? Answer in millions.", "precision"),
        ("What was Customs in fiscal year 1947? Answer in millions. Give a whole number.", "table"),
        (
            "Why was Customs high in 1947 (table: X)? Answer in millions. Give 1 decimal place.",
            "no wording",
        ),
        (
            "What was Customs in fiscal year 1947 (table: X)? Give a whole number.",
            "no unit",
        ),
        (
            "What was Customs in fiscal year 1947 (table: X)? Answer in millions. Use thousands. "
            "Give a whole number.",
            "two units",
        ),
        (
            "How many percent larger was Gold than Coin in fiscal year 1946 (table: X)? Relative "
            "to Silver; negative if smaller. Give 2 decimal places.",
            "relative to",
        ),
        (
            "What was the gap between Gold and Coin in fiscal year 1946 (table: X), taking Coin "
            "minus Silver? Use dollars. Give a whole number.",
            "cannot be told apart",
        ),
    ],
)
def test_an_unreadable_question_gives_none_and_a_reason(question, why):
    assert read_question(question) is None
    assert why in unreadable_reason(question)


# Hand-made tasks: the sources in the oracle's read order, the oracle, the task's unit and
# places. Each mismatch changes one thing and must be caught by the named rule's words.
DOC, STATEMENT = "d1", "Budget receipts by source"


def _cell(row: str, year: int, row_idx: int, col_idx: int, **known) -> SourceCell:
    return SourceCell(
        row_label=row,
        col_label=f"Fiscal year / {year}",
        period=f"fiscal year {year}",
        doc_id=DOC,
        page_no=2,
        table_no=0,
        row_idx=row_idx,
        col_idx=col_idx,
        **known,
    )


def _oracle(cells: list[SourceCell], expression: str, places: int, unit: str) -> str:
    lines = ["from oracles.api import emit, table_cell"]
    for n, c in enumerate(cells, 1):
        lines.append(
            f"x{n} = table_cell(doc={c.doc_id!r}, page={c.page_no}, table={c.table_no}, "
            f"row={c.row_label!r}, col={c.col_label!r})"
        )
    lines.append(f"emit(answer={expression}, places={places}, unit={unit!r})")
    return "\n".join(lines) + "\n"


CUSTOMS_47, EXCISE_47 = _cell("Customs", 1947, 2, 1), _cell("Excise taxes", 1947, 1, 1)
CUSTOMS_45, CUSTOMS_49 = _cell("Customs", 1945, 2, 0), _cell("Customs", 1949, 2, 2)
TOTAL_47, TOTAL_EXP_47 = _cell("Total", 1947, 5, 1), _cell("Total expenditures", 1947, 6, 1)
MONEY = "millions of dollars"


@dataclass
class Case:
    question: str
    cells: list[SourceCell]
    expression: str
    unit: str = MONEY
    places: int = 0
    oracle_places: int | None = None


DIFF = (
    "In fiscal year 1947, by how much did {a} exceed {b} (table: Budget receipts by source)? "
    "Answer in {unit}; a negative number means it fell short. {precision}"
)
CHANGE = (
    "By what percent did Customs (table: Budget receipts by source) change from {p1} to {p2}? "
    "Use a negative number for a decrease. Give 2 decimal places."
)
SHARE = (
    "What share of {total} did Customs account for in fiscal year 1947 (table: Budget "
    "receipts by source)? Answer in percent. Round to 2 decimal places."
)
WHOLE = "Give a whole number."
CASES = {
    "difference": Case(
        DIFF.format(a="Excise taxes", b="Customs", unit=MONEY, precision=WHOLE),
        [EXCISE_47, CUSTOMS_47],
        "x1 - x2",
    ),
    "percent change": Case(
        CHANGE.format(p1="fiscal year 1945", p2="fiscal year 1949"),
        [CUSTOMS_45, CUSTOMS_49],
        "(x2 - x1) / x1 * 100",
        unit="percent",
        places=2,
    ),
    "share": Case(
        SHARE.format(total="Total budget receipts by source"),
        [CUSTOMS_47, TOTAL_47],
        "x1 / x2 * 100",
        unit="percent",
        places=2,
    ),
}
MISMATCHES = {
    "swapped minuend": (
        Case(
            DIFF.format(a="Customs", b="Excise taxes", unit=MONEY, precision=WHOLE),
            [EXCISE_47, CUSTOMS_47],
            "x1 - x2",
        ),
        "the minuend is 'Customs'",
    ),
    "wrong base year": (
        Case(
            CHANGE.format(p1="fiscal year 1949", p2="fiscal year 1945"),
            [CUSTOMS_45, CUSTOMS_49],
            "(x2 - x1) / x1 * 100",
            unit="percent",
            places=2,
        ),
        "the question says 'fiscal year 1949'",
    ),
    "wrong year altogether": (
        Case(
            CHANGE.format(p1="fiscal year 1946", p2="fiscal year 1949"),
            [CUSTOMS_45, CUSTOMS_49],
            "(x2 - x1) / x1 * 100",
            unit="percent",
            places=2,
        ),
        "the question says 'fiscal year 1946'",
    ),
    "wrong total": (
        Case(
            SHARE.format(total="Total budget receipts by source"),
            [CUSTOMS_47, TOTAL_EXP_47],
            "x1 / x2 * 100",
            unit="percent",
            places=2,
        ),
        "the total is 'Total budget receipts by source'",
    ),
    "wrong unit": (
        Case(
            DIFF.format(
                a="Excise taxes", b="Customs", unit="thousands of dollars", precision=WHOLE
            ),
            [EXCISE_47, CUSTOMS_47],
            "x1 - x2",
        ),
        "the task's unit is 'millions of dollars'",
    ),
    "wrong precision": (
        Case(
            DIFF.format(
                a="Excise taxes", b="Customs", unit=MONEY, precision="Round to 2 decimal places."
            ),
            [EXCISE_47, CUSTOMS_47],
            "x1 - x2",
        ),
        "asks 2 decimal places, the task 0",
    ),
    "oracle rounds otherwise": (
        Case(
            DIFF.format(a="Excise taxes", b="Customs", unit=MONEY, precision=WHOLE),
            [EXCISE_47, CUSTOMS_47],
            "x1 - x2",
            oracle_places=1,
        ),
        "the oracle rounds to 1 places",
    ),
    "oracle computes another formula": (
        Case(
            "In fiscal year 1947, by what percent did Excise taxes exceed Customs (table: Budget "
            "receipts by source)? Negative if it was smaller. Round to 2 decimal places.",
            [EXCISE_47, CUSTOMS_47],
            "(x2 - x1) / x1 * 100",  # a percent change from Excise taxes, not an excess
            unit="percent",
            places=2,
        ),
        "another formula",
    ),
    "a sum that reads an unnamed cell": (
        Case(
            "What was the combined amount of Customs and Excise taxes in fiscal year 1947 (table: "
            "Budget receipts by source)? Answer in millions of dollars. Give a whole number.",
            [CUSTOMS_47, EXCISE_47, TOTAL_47],
            "x1 + x2 + x3",
        ),
        "sum of 2 value(s) asked, the oracle reads 3",
    ),
    "a span with a gap": (
        Case(
            "What was the lowest amount of Customs in any period from fiscal year 1945 through "
            "fiscal year 1949 (table: Budget receipts by source)? Answer in millions of dollars. "
            "Give a whole number.",
            [CUSTOMS_45, CUSTOMS_47, CUSTOMS_49],
            "min([x1, x2, x3])",
        ),
        "has 5 periods, the oracle reads 3",
    ),
    "a sign that does not fit": (
        Case(
            "In fiscal year 1947, by how much did Excise taxes exceed Customs (table: Budget "
            "receipts by source)? Answer in millions of dollars; use a negative number for a "
            "decrease. Give a whole number.",
            [EXCISE_47, CUSTOMS_47],
            "x1 - x2",
        ),
        "a negative answer means a decrease",
    ),
}


def _check(case: Case, with_oracle: bool = True, **known) -> list[str]:
    cells = [replace(c, **known) for c in case.cells]
    places = case.places if case.oracle_places is None else case.oracle_places
    oracle = _oracle(cells, case.expression, places, case.unit) if with_oracle else None
    return check_reading(
        parse_question(case.question),
        cells,
        unit=case.unit,
        places=case.places,
        oracle_source=oracle,
    )


@pytest.mark.parametrize("name", sorted(CASES))
def test_an_agreeing_question_passes(name):
    assert _check(CASES[name]) == []
    assert _check(CASES[name], with_oracle=False) == []
    # with what the table stage knows of the cells too
    known = {"statement": STATEMENT, "unit": MONEY, "row_parent": "", "dimension": ""}
    assert _check(CASES[name], **known) == []


@pytest.mark.parametrize("name", sorted(MISMATCHES))
def test_each_mismatch_is_caught(name):
    case, words = MISMATCHES[name]
    problems = _check(case)
    assert any(words in p for p in problems), problems


def test_statement_and_table_unit_are_checked_when_known():
    case = CASES["difference"]
    assert any("names table" in p for p in _check(case, statement="Public debt by type"))
    assert any("the table prints" in p for p in _check(case, unit="thousands of dollars"))


def test_a_table_named_by_number_and_statement_is_the_table_of_that_number():
    """1984-06 prints "Total Claims by Country" as Table CM-II-2 (p58) and Table CM-IV-4
    (p65): the drafter names such a table "Table CM-IV-4, Total Claims by Country"
    (pipeline.draft.twins); the statement check takes the number with the name."""
    case = CASES["difference"]
    numbered = replace(
        case,
        question=case.question.replace(
            "Budget receipts by source", "Table CM-IV-4, Budget receipts by source"
        ),
    )
    known = {"statement": STATEMENT, "unit": MONEY, "row_parent": "", "dimension": ""}
    assert _check(numbered, table_number="Table CM-IV-4", **known) == []
    # the twin of another number, or a number OCR garbled, is not the table named
    for number in ("TABLE CM-II-2", "Table CM-ltiI-4", ""):
        problems = _check(numbered, table_number=number, **known)
        assert any("names table" in p for p in problems), (number, problems)


def test_item_names_follow_the_labels():
    path = SourceCell(
        row_label="1945", col_label="Social security / Total", period_axis="row", row_parent=""
    )
    assert item_matches("Total (social security)", path)
    assert not item_matches("Total", path)
    assert not item_matches("Total (railroad retirement)", path)
    plain = SourceCell(row_label="Total", col_label="Fiscal year / 1947", statement=STATEMENT)
    assert item_matches("Total budget receipts by source", plain)
    assert item_matches("total (internal revenue)", plain)  # parent unknown: a suffix is allowed
    known = SourceCell(
        row_label="Total", col_label="Fiscal year / 1947", row_parent="Internal revenue"
    )
    assert item_matches("Total (internal revenue)", known)
    assert not item_matches("Total (customs)", known)


def test_the_validation_rule_names_the_mismatch():
    case, _ = MISMATCHES["swapped minuend"]
    sources = [
        {k: getattr(c, k) for k in ("doc_id", "page_no", "table_no", "row_idx", "col_idx")}
        | {"row_label": c.row_label, "col_label": c.col_label, "period": c.period}
        for c in case.cells
    ]
    draft = {
        "question": case.question,
        "sources": sources,
        "unit": case.unit,
        "precision": case.places,
        "oracle_source": _oracle(case.cells, case.expression, case.places, case.unit),
    }
    reasons = question_reasons(draft)
    assert reasons and all(r.startswith("question_mismatch: ") for r in reasons)
    assert question_reasons({**draft, "question": CASES["difference"].question}) == []
    assert question_reasons({**draft, "question": "Why?"})[0].startswith(
        "question_mismatch: cannot read the question"
    )


def test_arithmetic_is_the_reading_s():
    d = [Decimal(v) for v in ("50", "40", "10")]
    assert compute("difference", d[:2]) == 10
    assert compute("change", d[:2]) == -10
    assert compute("percent_change", d[:2]) == -20
    assert compute("excess", d[:2]) == 25
    assert compute("share", [d[2], d[0]]) == 20
    assert round_key(compute("mean", d), 2) == Decimal("33.33")
    assert round_key(Decimal("2.345"), 2) == Decimal("2.35")
    assert round_key(Decimal("-2.5"), 0) == Decimal("-3")


# --------------------------------------------------------------------------------------
# (c) every wording the drafter has, with every kind of period, reads back
# --------------------------------------------------------------------------------------

FAMILY_OPERATION = {
    "read_number": "value",
    "sum_rows": "sum",
    "difference": "difference",
    "change_between_periods": "change",
    "share_of_total": "share",
    "percent_change": "percent_change",
    "excess": "excess",
    "mean": "mean",
    "max": "max",
    "min": "min",
}
# (earlier, later) headers of each kind of period, read by the table stage
PERIOD_PAIRS = [
    (("Fiscal year / 1946", ""), ("Fiscal year / 1949", "")),
    (("1946", "Calendar years"), ("1948", "Calendar years")),
    (("Mar. 1950", ""), ("June 1950", "")),
    (("Sept. 30, 1940", ""), ("Sept. 30, 1941", "")),
    (("June 1949", "End of month"), ("June 1950", "End of month")),
    (("2010 Oct.-Dec.", ""), ("2011 Jan.-Mar.", "")),
    (("Fiscal year 2010 to date Mar.", ""), ("Fiscal year 2011 to date Mar.", "")),
    (("From inception to Oct. 31, 1939", ""), ("From inception to Oct. 31, 1940", "")),
    (("1967 estimate", ""), ("1968 estimate", "")),
]
ITEM_SETS = [
    ("Customs", "Excise taxes", ["Customs", "Excise taxes", "Employment taxes"], "Total"),
    (
        "Tax and loan accounts",
        "Income tax (internal revenue)",
        ["U.S. notes", "Tax and loan accounts", "Less: Refunds of receipts"],
        "Total (social security)",
    ),
]
STATEMENTS = [
    "Budget receipts by source",
    "Interest on the Public Debt",
    # a title printed over two tables of a volume, named by number (1984-06 CM-IV-4)
    "Table CM-IV-4, Total Claims by Country",
]


def _drafter_wordings():
    from pipeline.draft import phrasing

    latest = list(getattr(phrasing, "_LATEST", [])) or [""]
    n = 0
    for family, templates in phrasing.PHRASINGS.items():
        for t, template in enumerate(templates):
            for (h1, c1), (h2, c2) in PERIOD_PAIRS:
                p1, p2 = parse_period(h1, c1), parse_period(h2, c2)
                item, item2, items, total = ITEM_SETS[n % len(ITEM_SETS)]
                statement = STATEMENTS[n % len(STATEMENTS)]
                if total == "Total":
                    name = statement.split(", ", 1)[-1]  # a bare total names the title alone
                    total = f"Total {name[0].lower()}{name[1:]}"
                places = n % 3
                rng = random.Random(n)
                slots = {
                    "statement": statement,
                    "unit": "millions of dollars",
                    "when": p1.when,
                    "When": p1.when[:1].upper() + p1.when[1:],
                    "item": item,
                    "item2": item2,
                    "items": ", ".join(items[:-1]) + " and " + items[-1],
                    "total": total,
                    "period": p1.text,
                    "period2": p2.text,
                    "span": f"{p1.text} through {p2.text}",
                }
                text = " ".join(template.format(**slots).split())
                text = text[0].upper() + text[1:] + latest[n % len(latest)]
                text = f"{text} {phrasing.precision_words(places, rng)}"
                expected = {
                    "operation": FAMILY_OPERATION.get(family, family),
                    "item": item,
                    "item2": item2,
                    "items": tuple(items),
                    "total": total,
                    "periods": (p1, p2),
                    "statement": statement,
                    "places": places,
                }
                n += 1
                yield pytest.param(text, expected, id=f"{family}-{t}-{p1.kind}")


@pytest.mark.parametrize(("text", "expected"), list(_drafter_wordings()))
def test_every_drafter_wording_reads_back(text, expected):
    reading = parse_question(text)
    op = expected["operation"]
    assert reading.operation == op, text
    one = (expected["item"],)
    items = {
        "sum": expected["items"],
        "difference": (expected["item"], expected["item2"]),
        "excess": (expected["item"], expected["item2"]),
        "share": (expected["item"], expected["total"]),
    }.get(op, one)
    readings = {tuple(norm(i) for i in r) for r in reading.item_readings}
    assert tuple(norm(i) for i in items) in readings, (text, reading.item_readings)
    p1, p2 = expected["periods"]
    n_periods = 2 if op in ("change", "percent_change", "mean", "max", "min") else 1
    asked = [(p.kind, p.start, p.end) for p in (p1, p2)[:n_periods]]
    assert [p.key for p in reading.periods] == asked, text
    assert reading.statement == expected["statement"]
    assert reading.places == expected["places"]
    percent = op in ("share", "percent_change", "excess")
    assert reading.unit == ("percent" if percent else "millions of dollars")


# --------------------------------------------------------------------------------------
# (b) the default corpus: every accepted key recomputed from the truth by the reading
# --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def default_tasks(tmp_path_factory):
    from pipeline.synth.scans import default_corpus
    from tests.validate.test_truth_keys import truth_to_tasks

    root = tmp_path_factory.mktemp("reading")
    corpus = default_corpus(root / "corpus", progress=False)
    tasks, frames = truth_to_tasks(corpus.truth_dir, root / "data")
    return tasks, frames, corpus.truth_dir, root / "data" / "warehouse"


@dataclass(frozen=True)
class TruthCell:
    cell: SourceCell  # labels and what the table stage reads of the cell's period
    volume: str
    true_value: Decimal


def _statement_of(title: str) -> str:
    """ "Table 6.- Net Change in Public Debt by Type (In millions of dollars) (Continued)"
    -> "Net Change in Public Debt by Type"."""
    title = re.sub(r"\s*\(continued\)\s*$", "", title, flags=re.IGNORECASE)
    title = re.sub(r"\s*\((?:in )?[^()]*(?:dollars|thousands|millions|billions)\)$", "", title)
    return re.sub(r"^table\s+\S+\s*", "", title, flags=re.IGNORECASE).strip()


def _unit_of(line: str) -> str:
    """ "(In millions of dollars)" -> "millions of dollars"."""
    words = re.sub(r"[()\[\]]", "", line or "").strip()
    return re.sub(r"^in\s+", "", words, flags=re.IGNORECASE).lower()


def _truth_tables(truth_dir: Path) -> pl.DataFrame:
    """file/page/table -> statement and unit words, as the generator printed them (its own
    columns where it records them, else read off the printed title and unit line)."""
    from pipeline.synth.truth import read_truth

    tables = read_truth(truth_dir, "truth_tables")
    statement = (
        pl.col("statement")
        if "statement" in tables.columns
        else pl.col("title").map_elements(_statement_of, return_dtype=pl.String)
    )
    unit = (
        pl.col("unit_words")
        if "unit_words" in tables.columns
        else pl.col("unit").map_elements(_unit_of, return_dtype=pl.String)
    )
    return tables.select(
        "file_name", "page_no", "table_no", statement.alias("statement"), unit.alias("unit")
    )


def truth_index(truth_dir: Path, frames: dict) -> dict[str, list[TruthCell]]:
    """Every true cell by statement: labels and true value from the generator's truth,
    the period of each row or column as the table stage reads it."""
    from pipeline.synth.truth import read_truth

    cells = read_truth(truth_dir, "truth_cells").join(
        _truth_tables(truth_dir), on=["file_name", "page_no", "table_no"]
    )
    semantics = (
        frames["table_cells"]
        .join(frames["documents"].select("doc_id", "file_name"), on="doc_id")
        .select(
            "file_name",
            "page_no",
            "table_no",
            "row_idx",
            "col_idx",
            "row_parent",
            "period_kind",
            "period_start",
            "period_end",
            "period_axis",
            "dimension",
        )
    )
    key = ["file_name", "page_no", "table_no", "row_idx", "col_idx"]
    index: dict[str, list[TruthCell]] = {}
    for r in cells.join(semantics, on=key, how="left").iter_rows(named=True):
        statement = r["statement"]
        kind = r["period_kind"]
        cell = SourceCell(
            row_label=r["row_label"],
            col_label=r["col_label"],
            period_key=(kind, r["period_start"], r["period_end"]) if kind else None,
            period_axis=r["period_axis"] or None,
            row_parent=r["row_parent"] or "",
            dimension=r["dimension"] or "",
            statement=statement,
            unit=r["unit"],
        )
        truth = TruthCell(cell, r["volume"], Decimal(r["true_value_str"]))
        index.setdefault(norm(statement), []).append(truth)
    return index


def _latest_true(index, statement: str, item: str, key) -> Decimal:
    """The true value of the named item and period in the latest volume printing it."""
    found = [
        t
        for t in index.get(norm(statement), [])
        if t.cell.period_key == key and item_matches(item, t.cell, statement)
    ]
    if not found:
        raise LookupError(f"{item!r} {key} not in {statement!r}")
    latest = max(t.volume for t in found)
    values = {t.true_value for t in found if t.volume == latest}
    if len(values) != 1:
        raise LookupError(f"{item!r} {key} names {len(values)} cells in volume {latest}")
    return values.pop()


def _order(key: tuple) -> tuple[date, date]:
    return (key[2] or date.max, key[1] or date.min)


def true_key(reading, items: tuple[str, ...], index) -> tuple[Decimal, str]:
    """(key, unit of the table) computed from the truth by what the question says."""
    op, st = reading.operation, reading.statement
    first = reading.periods[0]
    if op in ("mean", "max", "min"):  # every period of the kind from the first to the last
        last = reading.periods[-1]
        keys = {
            t.cell.period_key
            for t in index.get(norm(st), [])
            if t.cell.period_key
            and t.cell.period_key[0] == first.kind
            and first.order <= _order(t.cell.period_key) <= last.order
            and item_matches(items[0], t.cell, st)
        }
        values = [_latest_true(index, st, items[0], k) for k in sorted(keys, key=_order)]
    elif op in ("change", "percent_change"):
        values = [_latest_true(index, st, items[0], p.key) for p in reading.periods]
    else:
        values = [_latest_true(index, st, item, first.key) for item in items]
    unit = next(t.cell.unit for t in index[norm(st)])
    return round_key(compute(op, values), reading.places), unit


def test_every_default_corpus_key_follows_from_its_question(default_tasks):
    """For EVERY accepted task: read the question, look the cells it names up in the
    truth, do the arithmetic it asks, round as it asks: the published key must follow."""
    tasks, frames, truth_dir, _ = default_tasks
    index = truth_index(truth_dir, frames)
    accepted = tasks.filter(pl.col("status") == "accepted")
    assert accepted.height >= 100 and accepted["kind"].n_unique() == 7
    checked, wrong = 0, []
    for task in accepted.iter_rows(named=True):
        reading = read_question(task["question"])
        assert reading is not None, (task["question"], unreadable_reason(task["question"]))
        outcomes = []
        for items in reading.item_readings:
            try:
                outcomes.append(true_key(reading, items, index))
            except LookupError as error:
                outcomes.append(error)
        keys = [o for o in outcomes if not isinstance(o, Exception)]
        if not keys:
            wrong.append((task["question"], [str(o) for o in outcomes]))
            continue
        key, unit = keys[0]
        checked += 1
        if len({k for k, _ in keys}) > 1:  # two readings of the text name different cells
            wrong.append((task["question"], f"ambiguous: {reading.item_readings}"))
        if key != Decimal(task["answer"]):
            wrong.append((task["question"], f"truth by the question {key}, key {task['answer']}"))
        if reading.operation not in ("share", "percent_change", "excess") and unit != reading.unit:
            wrong.append((task["question"], f"the table is in {unit}, not {reading.unit}"))
    print(f"\nkeys recomputed from the question and the truth: {checked} of {accepted.height}")
    assert not wrong, wrong[:5]
    assert checked == accepted.height


def _truth_totals(truth_dir: Path, frames: dict) -> dict[tuple, set[tuple]]:
    """The generator's identities: each total cell -> every cell it adds up, through
    subtotals (cells as (doc_id, page_no, table_no, row_idx, col_idx))."""
    from pipeline.synth.truth import read_truth

    docs = dict(frames["documents"].select("file_name", "doc_id").iter_rows())
    direct: dict[tuple, set[tuple]] = {}
    for i in read_truth(truth_dir, "truth_identities").iter_rows(named=True):
        table = (docs[i["file_name"]], i["page_no"], i["table_no"])
        members = zip(i["member_rows"], i["member_cols"], strict=True)
        total = (*table, i["total_row_idx"], i["total_col_idx"])
        direct.setdefault(total, set()).update((*table, r, c) for r, c in members)
    closed = {}
    for total in direct:
        seen, todo = set(), list(direct[total])
        while todo:
            cell = todo.pop()
            if cell not in seen:
                seen.add(cell)
                todo += direct.get(cell, ())
        closed[total] = seen
    return closed


def test_question_mismatch_on_the_default_corpus_is_what_the_truth_says(default_tasks):
    """The rule rejects, in the default corpus, exactly the shares whose named total does
    not add up the part by the generator's own identities, plus drafts the drafter itself
    flags (a span with a gap); every other question agrees with its cells."""
    tasks, frames, truth_dir, _ = default_tasks
    totals = _truth_totals(truth_dir, frames)
    cell = ("doc_id", "page_no", "table_no", "row_idx", "col_idx")
    flagged, bad_shares = 0, 0
    for task in tasks.iter_rows(named=True):
        mismatch = [r for r in task["reasons"] if r.startswith("question_mismatch")]
        flagged += bool(mismatch)
        if task["kind"] == "share_of_total":
            part, whole = (tuple(s[k] for k in cell) for s in task["sources"])
            outside = part not in totals.get(whole, set())
            bad_shares += outside
            assert bool(mismatch) == outside, (task["question"], mismatch)
        else:
            assert not mismatch or task["problems"], (task["question"], mismatch)
    print(f"\nquestion_mismatch: {flagged} of {tasks.height} drafts, {bad_shares} shares")


def test_a_share_of_a_total_that_does_not_add_up_the_part_is_caught():
    case = CASES["share"]
    whole = case.cells[1]
    adds_up = {"adds_up": frozenset({(CUSTOMS_47.row_idx, CUSTOMS_47.col_idx), (1, 1)})}
    good = replace(case, cells=[CUSTOMS_47, replace(whole, **adds_up)])
    assert _check(good) == []
    sibling = {"adds_up": frozenset({(1, 1)})}  # the total adds up Excise taxes only
    bad = replace(case, cells=[CUSTOMS_47, replace(whole, **sibling)])
    assert any("does not add up 'Customs'" in p for p in _check(bad))


@pytest.mark.parametrize(("sample_seed", "draft_seed"), [(21, 4), (11, 2), (0, 0), (3, 5)])
def test_sample_archive_questions_agree_with_their_cells(tmp_path, sample_seed, draft_seed):
    from pipeline.config import data_paths
    from pipeline.draft import draft_tasks
    from pipeline.draft.sample import write_sample_warehouse
    from pipeline.store import Warehouse

    warehouse = Warehouse(data_paths(tmp_path / "data"))
    frames = write_sample_warehouse(warehouse, seed=sample_seed)
    drafts = draft_tasks(
        frames["anchored_cells"],
        frames["tables"],
        frames["documents"],
        seed=draft_seed,
        table_cells=frames["table_cells"],
    )
    context = ReadingContext.load(warehouse.root, drafts)
    for draft in drafts.iter_rows(named=True):
        assert question_reasons(draft, context) == [] or draft["problems"], draft["question"]
