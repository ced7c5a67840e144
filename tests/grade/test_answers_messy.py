"""The answer grader on messy model output (issue 9, items 1-7): one table per class, each
row a response, the number (or abstention / nothing) it must yield, the rule that must fire
and the task unit it is read against. Then scoring with failure causes, and the held-out
labelled responses (``answers_heldout.jsonl``, written before the grader changed)."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest

from pipeline.grade.answers import (
    CAUSE_HEDGE,
    CAUSE_UNIT,
    CAUSE_UNREADABLE,
    RULE_ANSWER_LINE,
    RULE_ANSWER_LINE_ABSTENTION,
    RULE_ANSWER_NEXT_LINE,
    RULE_ANSWER_PHRASE,
    RULE_BOXED,
    RULE_EQUATION,
    RULE_HEDGE,
    RULE_LAST_AMOUNT,
    RULE_LATER_CORRECTION,
    RULE_RESPONSE_ABSTENTION,
    RULE_TABLE_CELL,
    RULE_UNIT,
    RULE_UNREADABLE,
    RULE_YEAR_LABEL,
    extract_answer,
    score_answer,
    score_text,
)

ABSTAIN = "abstain"
NONE = None
M, B, T = "millions of dollars", "billions of dollars", "thousands of dollars"
D, P = "dollars", "percent"

# 1. a hedge or a range commits to no number: nothing is read, never the lower bound
HEDGES = [
    ("ANSWER: between 1,200 and 1,250", NONE, RULE_HEDGE, M),
    ("ANSWER: 2,300-2,400", NONE, RULE_HEDGE, M),
    ("ANSWER: 12\u201315%", NONE, RULE_HEDGE, P),
    ("ANSWER: 7.1 to 7.3 billion", NONE, RULE_HEDGE, B),
    ("ANSWER: 3,021 or 3,012", NONE, RULE_HEDGE, M),
    ("**ANSWER:** either $880 or $808", NONE, RULE_HEDGE, M),
    ("ANSWER: somewhere between $4.1 and $4.3 million", NONE, RULE_HEDGE, M),
    ("ANSWER: -12 to -10", NONE, RULE_HEDGE, M),
    ("ANSWER: 640 (or perhaps 604)", NONE, RULE_HEDGE, M),
    ("ANSWER: 5,000 ~ 5,100", NONE, RULE_HEDGE, M),
    ("Final answer: 88 through 91", NONE, RULE_HEDGE, M),
    ("ANSWER: $2,100\u2013$2,200 million", NONE, RULE_HEDGE, M),
    ("Outlays were $1,100 to $1,150 million.", NONE, RULE_HEDGE, M),
    ("So the answer is 45-50%.", NONE, RULE_HEDGE, P),
    # not hedges: one amount restated, a year label and its value, a movement
    ("ANSWER: 2,602 million, or $2.602 billion", "2602", RULE_ANSWER_LINE, M),
    ("ANSWER: 45% (or 0.45)", "45", RULE_ANSWER_LINE, P),
    ("ANSWER: 2,602 \u2014 the 1941 figure", "2602", RULE_ANSWER_LINE, M),
    ("ANSWER: 1944 - $45,159", "45159", RULE_YEAR_LABEL, M),
    ("Receipts rose 9.5% to $1,200 million.", "1200", RULE_LAST_AMOUNT, M),
    ("ANSWER: approximately 4,512", "4512", RULE_ANSWER_LINE, M),
]

# 2. the number that answers, not the first number on the line
ANSWERING_NUMBER = [
    ("ANSWER: 2,100 + 900 = 3,000", "3000", RULE_EQUATION, M),
    ("ANSWER: y = 0.25*1,600 = 400", "400", RULE_EQUATION, M),
    ("ANSWER: 12,000 / 48,000 = 25%", "25", RULE_EQUATION, P),
    ("ANSWER: 5,000 - 7,500 = -2,500", "-2500", RULE_EQUATION, M),
    ("ANSWER: 1,200 \u00d7 3 = 3,600", "3600", RULE_EQUATION, M),
    ("ANSWER: $\\frac{900}{3,600} \\times 100 = 25\\%$", "25", RULE_EQUATION, P),
    ("ANSWER: 3,000 (= 2,100 + 900)", "3000", RULE_ANSWER_LINE, M),
    ("ANSWER: 3,000 = 2,100 + 900", "3000", RULE_ANSWER_LINE, M),
    ("ANSWER 1952: 7,301", "7301", RULE_YEAR_LABEL, M),
    ("ANSWER: 1939 outlays: 9,141", "9141", RULE_YEAR_LABEL, M),
    ("ANSWER: The 1962 value, 1,005.5", "1005.5", RULE_YEAR_LABEL, M),
    ("ANSWER: 1960: 410", "410", RULE_YEAR_LABEL, M),
    ("ANSWER: 1941-42: 2,602", "2602", RULE_ANSWER_LINE, M),
    ("| ANSWER | FY 1944 | 45,159 |", "45159", RULE_TABLE_CELL, M),
    ("| Final answer | 1944 | $2,602 million |", "2602", RULE_TABLE_CELL, M),
    ("| Answer | 614 | in millions |", "614", RULE_TABLE_CELL, M),
    ("| **ANSWER** | Table 3, line 12 | (1,234) |", "-1234", RULE_TABLE_CELL, M),
    (
        "**Final Answer**\n\n| Year | Receipts |\n|---|---|\n| 1944 | 45,159 |",
        "45159",
        RULE_TABLE_CELL,
        M,
    ),
]

# 3. corrections after the answer line, and struck-through numbers
CORRECTIONS = [
    ("ANSWER: 7,120\nWait, actually 7,210.", "7210", RULE_LATER_CORRECTION, M),
    ("ANSWER: 7,120\n\nActually, it should be 7,012.", "7012", RULE_LATER_CORRECTION, M),
    ("ANSWER: 7,120\nCorrection: 7,102", "7102", RULE_LATER_CORRECTION, M),
    ("ANSWER: 7,120\nOops, I misread: 7,201", "7201", RULE_LATER_CORRECTION, M),
    ("ANSWER: 7,120\nOn second thought, 7,021", "7021", RULE_LATER_CORRECTION, M),
    ("ANSWER: 7,120\nThe correct figure is 7,210.", "7210", RULE_LATER_CORRECTION, M),
    (
        "ANSWER: 7,120\nSorry, I made an error: it should be 7,012.",
        "7012",
        RULE_LATER_CORRECTION,
        M,
    ),
    ("ANSWER: 7,120\nWait, 7,120 + 90 = 7,210", "7210", RULE_LATER_CORRECTION, M),
    ("ANSWER: 7,120\nLet me re-check the table: 7,120 is confirmed.", "7120", RULE_ANSWER_LINE, M),
    ("ANSWER: 7,120\nActually, this is 3 times the 1940 level.", "7120", RULE_ANSWER_LINE, M),
    ("ANSWER: 7,120\nNote: the table is in millions.", "7120", RULE_ANSWER_LINE, M),
    ("ANSWER: 7,120\nWait, actually it could be 7,210 or 7,201.", NONE, RULE_HEDGE, M),
    ("ANSWER: ~~7,120~~ 7,210", "7210", RULE_ANSWER_LINE, M),
    ("ANSWER: <s>7,120</s> 7,210", "7210", RULE_ANSWER_LINE, M),
    ("ANSWER: <del>7,120</del> <ins>7,210</ins>", "7210", RULE_ANSWER_LINE, M),
    ("ANSWER: <strike>7,120</strike> 7,210", "7210", RULE_ANSWER_LINE, M),
    ("ANSWER: 7\u0336,\u03361\u03362\u03360\u0336 7,210", "7210", RULE_ANSWER_LINE, M),
    ("ANSWER: **~~7,120~~** **7,210**", "7210", RULE_ANSWER_LINE, M),
]

# 4. common labels without an ANSWER: prefix; a sentence starting with "Answer" is none
LABELS = [
    ("Receipts were $1,234 and outlays $722.\nSo the answer is 512.", "512", RULE_ANSWER_PHRASE, M),
    ("Table 4 lists 3 items adding to $1,000.\nThe answer is 64!", "64", RULE_ANSWER_PHRASE, M),
    ("Therefore, the final answer is $1,005.25.", "1005.25", RULE_ANSWER_PHRASE, M),
    ("My answer: 77", "77", RULE_ANSWER_PHRASE, M),
    ("Our answer is approximately 4,410.", "4410", RULE_ANSWER_PHRASE, M),
    ("**The answer is:** 3,300", "3300", RULE_ANSWER_PHRASE, M),
    ("The answer is in Table 3 on page 12; it shows $2,602.", "2602", RULE_LAST_AMOUNT, M),
    ("Sum of rows.\n\n**Final Answer**\n\n$$\n\\boxed{5{,}123}\n$$", "5123", RULE_BOXED, M),
    ("**Final Answer**\n\\[\n\\boxed{7{,}046}\n\\]", "7046", RULE_BOXED, M),
    ("### Final Answer\n\n$$2{,}602$$", "2602", RULE_ANSWER_NEXT_LINE, M),
    ("The rows add up.\nThus $\\boxed{-3.5}$.", "-3.5", RULE_BOXED, P),
    ("Answer format followed: number only.\nThe total was $8,412.", "8412", RULE_LAST_AMOUNT, M),
    ("Answer key: see the table below.\nTotal outlays were $9,001.", "9001", RULE_LAST_AMOUNT, M),
    ("Answering needs two tables.\nThe sum is $3,300.", "3300", RULE_LAST_AMOUNT, M),
    ("<FINAL_ANSWER>2,602</FINAL_ANSWER>", "2602", RULE_ANSWER_LINE, M),
    ("<FINAL_ANSWER>\n2,602\n</FINAL_ANSWER>", "2602", RULE_ANSWER_NEXT_LINE, M),
    ("ANSWER: 2,602\n\nThis answer is based on page 4.", "2602", RULE_ANSWER_LINE, M),
    (
        "ANSWER: 2,602\n\nThe answer is consistent with the 1941 total of 2,620.",
        "2602",
        RULE_ANSWER_LINE,
        M,
    ),
]

# 5. formats: read the accounting and Swiss ones, refuse the rest (never truncate)
FORMATS = [
    ("ANSWER: 2,345.67-", "-2345.67", RULE_ANSWER_LINE, M),
    ("ANSWER: 88-", "-88", RULE_ANSWER_LINE, M),
    ("ANSWER: $1,204.50- (a decrease)", "-1204.50", RULE_ANSWER_LINE, M),
    ("ANSWER: minus 1,412", "-1412", RULE_ANSWER_LINE, M),
    ("ANSWER: Negative 3.5%", "-3.5", RULE_ANSWER_LINE, P),
    ("ANSWER: 5,000 minus 1,412 = 3,588", "3588", RULE_EQUATION, M),
    ("ANSWER: 5,000 minus 1,412", "5000", RULE_ANSWER_LINE, M),
    ("ANSWER: 1'000'000", "1000000", RULE_ANSWER_LINE, D),
    ("ANSWER: 12\u2019345.5", "12345.5", RULE_ANSWER_LINE, T),
    ("ANSWER: 7\u202f046", "7046", RULE_ANSWER_LINE, M),
    ("ANSWER: 3.2e6", NONE, RULE_UNREADABLE, D),
    ("ANSWER: 3.2E-2", NONE, RULE_UNREADABLE, P),
    ("ANSWER: 3.2 x 10^6", NONE, RULE_UNREADABLE, D),
    ("ANSWER: $3.2 \\times 10^{6}$", NONE, RULE_UNREADABLE, D),
    ("ANSWER: 3.2\u00b710\u2076", NONE, RULE_UNREADABLE, D),
    ("ANSWER: 1.234,5", NONE, RULE_UNREADABLE, M),
    ("ANSWER: 12,5 %", NONE, RULE_UNREADABLE, P),
    ("ANSWER: 4.500.000", NONE, RULE_UNREADABLE, D),
    ("ANSWER: 4 500 000", NONE, RULE_UNREADABLE, D),
    ("ANSWER: 4 500", NONE, RULE_UNREADABLE, M),
    ("ANSWER: " + "9" * 80, NONE, RULE_UNREADABLE, M),
    ("The total was 1.234,56 dollars.", NONE, RULE_UNREADABLE, D),
]

# 6. units: an explicit scale word contradicting the task's unit fails (number kept)
UNITS = [
    ("ANSWER: 4.6 billion", "4.6", RULE_UNIT, M),
    ("ANSWER: 4.6 million", "4.6", RULE_UNIT, B),
    ("ANSWER: $4,600 thousand", "4600", RULE_UNIT, M),
    ("ANSWER: 845 bn", "845", RULE_UNIT, M),
    ("ANSWER: $2.5M", "2.5", RULE_UNIT, T),
    ("ANSWER: 12k", "12", RULE_UNIT, M),
    ("ANSWER: 7.05 million", "7.05", RULE_UNIT, D),
    ("Net receipts were $4.6 billion.", "4.6", RULE_UNIT, M),
    ("ANSWER: 4,600 million", "4600", RULE_ANSWER_LINE, M),
    ("ANSWER: $4,600M", "4600", RULE_ANSWER_LINE, M),
    ("ANSWER: 4,600 (in millions of dollars)", "4600", RULE_ANSWER_LINE, M),
    ("ANSWER: 4,600", "4600", RULE_ANSWER_LINE, M),
    ("ANSWER: 2,345 thousand dollars", "2345", RULE_ANSWER_LINE, T),
    ("ANSWER: 12.5%", "12.5", RULE_ANSWER_LINE, P),
    ("ANSWER: 4,600 million (4.6 billion)", "4600", RULE_ANSWER_LINE, M),
    ("ANSWER: 4.6 billion", "4.6", RULE_ANSWER_LINE, None),
    ("ANSWER: 4.6 billion", "4.6", RULE_ANSWER_LINE, "unknown"),
]

# 7. abstention wording, broadened; an answer given after a hedge counts
ABSTENTIONS = [
    ("I'm sorry, but I can't help with that.", ABSTAIN, RULE_RESPONSE_ABSTENTION, M),
    ("I\u2019m sorry, but I can\u2019t help with that.", ABSTAIN, RULE_RESPONSE_ABSTENTION, M),
    ("This cannot be established from the scans.", ABSTAIN, RULE_RESPONSE_ABSTENTION, M),
    ("None of the tables in these volumes list it.", ABSTAIN, RULE_RESPONSE_ABSTENTION, M),
    ("None of the documents report the 1950 figure.", ABSTAIN, RULE_RESPONSE_ABSTENTION, M),
    ("I don't have enough information to answer.", ABSTAIN, RULE_RESPONSE_ABSTENTION, M),
    ("It is impossible to determine from these pages.", ABSTAIN, RULE_RESPONSE_ABSTENTION, M),
    ("I was not able to find fiscal 1950 in these files.", ABSTAIN, RULE_RESPONSE_ABSTENTION, M),
    ("ANSWER: none", ABSTAIN, RULE_ANSWER_LINE_ABSTENTION, M),
    ("ANSWER: N/A - the 1939 volume is missing", ABSTAIN, RULE_ANSWER_LINE_ABSTENTION, M),
    ("ANSWER: I cannot verify this, but my best estimate is 3,668", "3668", RULE_ANSWER_LINE, M),
    (
        "ANSWER: Not determinable; however, the closest printed value is 1,204",
        "1204",
        RULE_ANSWER_LINE,
        M,
    ),
    ("ANSWER: unable to confirm, though I would say 2,410", "2410", RULE_ANSWER_LINE, M),
    (
        "It cannot be determined exactly, but the total appears to be $5,120 million.",
        "5120",
        RULE_LAST_AMOUNT,
        M,
    ),
    (
        "ANSWER: The figure could not be found (1,204 is the 1941 value)",
        ABSTAIN,
        RULE_ANSWER_LINE_ABSTENTION,
        M,
    ),  # fmt: skip
    ("ANSWER: 5,000 (the 1942 value is not available)", "5000", RULE_ANSWER_LINE, M),
]

MESSY_CASES = HEDGES + ANSWERING_NUMBER + CORRECTIONS + LABELS + FORMATS + UNITS + ABSTENTIONS


def test_each_class_has_its_table() -> None:
    tables = [HEDGES, ANSWERING_NUMBER, CORRECTIONS, LABELS, FORMATS, UNITS, ABSTENTIONS]
    assert all(len(table) >= 12 for table in tables)
    assert len(MESSY_CASES) >= 60


@pytest.mark.parametrize(("response", "expected", "rule", "unit"), MESSY_CASES)
def test_reads_what_a_careful_reader_reads(
    response: str, expected: str | None, rule: str, unit: str | None
) -> None:
    extraction = extract_answer(response, unit)
    assert extraction.rule == rule, extraction
    if expected == ABSTAIN:
        assert extraction.abstained and extraction.number is None
    elif expected is None:
        assert not extraction.abstained and extraction.number is None
    else:
        assert not extraction.abstained
        assert extraction.number == Decimal(expected)
        assert str(extraction.number) == expected


@pytest.mark.parametrize(
    ("response", "unit", "cause"),
    [
        ("ANSWER: 4,500-4,600", M, CAUSE_HEDGE),
        ("ANSWER: between 4,500 and 4,600", M, CAUSE_HEDGE),
        ("ANSWER: 4,500 or 4,600", M, CAUSE_HEDGE),
        ("ANSWER: 4.5e3", M, CAUSE_UNREADABLE),
        ("ANSWER: 4.500,0", M, CAUSE_UNREADABLE),
        ("ANSWER: 4,500 thousand", M, CAUSE_UNIT),
        ("ANSWER: 4,500 billion", M, CAUSE_UNIT),
    ],
)
def test_a_key_at_the_edge_never_passes_a_hedge_format_or_unit(
    response: str, unit: str, cause: str
) -> None:
    """Every response holds 4,500 (the key) somewhere; none may pass."""
    verdict = score_answer({"lo": "4499.5", "hi": "4500.5", "unit": unit}, response)
    assert not verdict.passed
    assert verdict.cause == cause


def test_unit_failure_keeps_the_number_and_names_the_scales() -> None:
    result = score_text("ANSWER: 4.6 billion", "4599.5", "4600.5", unit=M)
    assert result["passed"] is False
    assert result["number"] == "4.6"
    assert result["rule"] == RULE_UNIT
    assert result["cause"] == CAUSE_UNIT
    assert "10^9" in result["detail"] and "10^6" in result["detail"]
    # the same response passes against a key in billions
    assert score_text("ANSWER: 4.6 billion", "4.55", "4.65", unit=B)["passed"]
    # a task without a unit checks none (the key alone decides)
    assert score_text("ANSWER: 4.6 billion", "4.55", "4.65")["passed"]


def test_a_correction_that_fixes_the_answer_decides_the_grade() -> None:
    task = {"lo": "5214.5", "hi": "5215.5", "unit": M}
    assert score_answer(task, "ANSWER: 5,125\nWait, actually\u2026 5,215").passed
    assert not score_answer(task, "ANSWER: 5,215\nWait, actually\u2026 5,125").passed


# --- held-out labelled responses ------------------------------------------------------

# (file, agreement at least, wrong passes allowed): answers_heldout.jsonl was written before
# the grader changed (65/116 then, 18 wrong passes; 115/116 after, none);
# answers_heldout_b.jsonl was written after, in styles the tables do not test, and scored
# before any fix (original grader 31/40, this one 34/40; 35/40 with the sign-word rule
# added after seeing it; its wrong pass is "2,602 / 2,620", a slash read as division)
HELDOUT = [("answers_heldout.jsonl", 115, 0), ("answers_heldout_b.jsonl", 35, 1)]


@pytest.mark.parametrize(("name", "least", "wrong_passes_allowed"), HELDOUT)
def test_agrees_with_the_held_out_human_labels(
    name: str, least: int, wrong_passes_allowed: int
) -> None:
    path = Path(__file__).with_name(name)
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    agree, wrong_passes = 0, []
    for row in rows:
        task = {"task_id": row["id"], "lo": row["lo"], "hi": row["hi"], "unit": row["unit"]}
        verdict = score_answer(task, row["response"])
        if verdict.passed == (row["human"] == "pass"):
            agree += 1
        elif verdict.passed:
            wrong_passes.append(row["id"])
    assert len(wrong_passes) <= wrong_passes_allowed, wrong_passes
    assert agree >= least
