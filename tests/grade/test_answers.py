"""The answer grader: a table of responses with the number (or abstention) each must yield,
property tests for number styles, and a hypothesis fuzz that the grader never raises."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.grade.answers import (
    RULE_ANSWER_LINE,
    RULE_ANSWER_LINE_ABSTENTION,
    RULE_ANSWER_LINE_NO_NUMBER,
    RULE_ANSWER_NEXT_LINE,
    RULE_ANSWER_PHRASE,
    RULE_CORRECTION,
    RULE_HEDGE,
    RULE_LAST_AMOUNT,
    RULE_NO_NUMBER,
    RULE_RESPONSE_ABSTENTION,
    RULES,
    extract_answer,
    score_answer,
    score_text,
)

ABSTAIN = "abstain"
NONE = None

# (response, expected number as text | ABSTAIN | NONE, rule that must fire)
CASES = [
    # OfficeQA answer formats
    ("ANSWER: 2,602", "2602", RULE_ANSWER_LINE),
    ("ANSWER: $7,046,001.98", "7046001.98", RULE_ANSWER_LINE),
    ("ANSWER: 9.89%", "9.89", RULE_ANSWER_LINE),
    ("ANSWER: -0.119", "-0.119", RULE_ANSWER_LINE),
    ("ANSWER: 1169.41 million", "1169.41", RULE_ANSWER_LINE),
    # the answer line: label forms, case, last one wins
    ("Reasoning...\nFinal answer: 512", "512", RULE_ANSWER_LINE),
    ("final ANSWER: 77", "77", RULE_ANSWER_LINE),
    ("answer: 3.5", "3.5", RULE_ANSWER_LINE),
    ("ANSWER: 1\nmore thoughts\nANSWER: 2", "2", RULE_ANSWER_LINE),
    ("Final Answer is 4,500 dollars", "4500", RULE_ANSWER_LINE),
    ("ANSWER 88", "88", RULE_ANSWER_LINE),
    ("ANSWER = 91", "91", RULE_ANSWER_LINE),
    ("Answering requires the table.\nThe total was $1,000.", "1000", RULE_LAST_AMOUNT),
    ("ANSWER: 10\nAfterwards I checked $20.00 again", "10", RULE_ANSWER_LINE),
    ("ANSWER:\n\n$5,123", "5123", RULE_ANSWER_NEXT_LINE),
    ("**ANSWER:**\n**1,234**", "1234", RULE_ANSWER_NEXT_LINE),
    ("ANSWER: see above", NONE, RULE_ANSWER_LINE_NO_NUMBER),
    # Markdown wrappers
    ("**ANSWER:** 2,602", "2602", RULE_ANSWER_LINE),
    ("**ANSWER: 2,602**", "2602", RULE_ANSWER_LINE),
    ("__Final answer__: 15", "15", RULE_ANSWER_LINE),
    ("ANSWER: `1,234.5`", "1234.5", RULE_ANSWER_LINE),
    ("### Final Answer: 42.0", "42.0", RULE_ANSWER_LINE),
    ("> ANSWER: 17", "17", RULE_ANSWER_LINE),
    ("- ANSWER: 23", "23", RULE_ANSWER_LINE),
    ("ANSWER: *~~12~~* 13", "13", RULE_ANSWER_LINE),  # struck through: withdrawn (issue 9)
    ("| ANSWER | 614 |", "614", RULE_ANSWER_LINE),
    ("ANSWER: <b>7,001</b>", "7001", RULE_ANSWER_LINE),
    # LaTeX wrappers
    ("ANSWER: $\\boxed{1{,}234.5}$", "1234.5", RULE_ANSWER_LINE),
    ("ANSWER: \\(7\\,046\\,001\\)", "7046001", RULE_ANSWER_LINE),
    ("ANSWER: \\[ \\boxed{-12.5} \\]", "-12.5", RULE_ANSWER_LINE),
    ("ANSWER: $9.89\\%$", "9.89", RULE_ANSWER_LINE),
    ("ANSWER: \\$1,000", "1000", RULE_ANSWER_LINE),
    ("ANSWER: $$\\text{USD } 300$$", "300", RULE_ANSWER_LINE),
    ("ANSWER: \\left(1,234\\right)", "-1234", RULE_ANSWER_LINE),
    ("ANSWER: \\textbf{55}", "55", RULE_ANSWER_LINE),
    # negatives
    ("ANSWER: \u22125", "-5", RULE_ANSWER_LINE),
    ("ANSWER: \u2212$1,234", "-1234", RULE_ANSWER_LINE),
    ("ANSWER: \u20133.2", "-3.2", RULE_ANSWER_LINE),
    ("ANSWER: -$5", "-5", RULE_ANSWER_LINE),
    ("ANSWER: $-5", "-5", RULE_ANSWER_LINE),
    ("ANSWER: (1,234)", "-1234", RULE_ANSWER_LINE),
    ("ANSWER: ($1,234.50)", "-1234.50", RULE_ANSWER_LINE),
    ("ANSWER: (9.8%)", "-9.8", RULE_ANSWER_LINE),
    ("ANSWER:-42", "-42", RULE_ANSWER_LINE),
    ("ANSWER: - 5", "5", RULE_ANSWER_LINE),
    ("ANSWER: 10-20", NONE, RULE_HEDGE),  # a range, never its lower bound (issue 9)
    ("ANSWER: +15", "15", RULE_ANSWER_LINE),
    ("ANSWER: -.5", "-0.5", RULE_ANSWER_LINE),
    ("ANSWER: (see 5)", "5", RULE_ANSWER_LINE),
    # never rescaled by unit words
    ("ANSWER: 2.5 billion", "2.5", RULE_ANSWER_LINE),
    ("ANSWER: $3,400 thousand", "3400", RULE_ANSWER_LINE),
    ("ANSWER: 12.7 percent", "12.7", RULE_ANSWER_LINE),
    ("ANSWER: $5M", "5", RULE_ANSWER_LINE),
    ("ANSWER: 640 (in millions of dollars)", "640", RULE_ANSWER_LINE),
    # file names and links dropped
    ("ANSWER: combined_statement__historical__cs-1941.pdf shows 3,021", "3021", RULE_ANSWER_LINE),
    ("ANSWER: 1,234 (combined_statement__modern__2016__c07.pdf)", "1234", RULE_ANSWER_LINE),
    ("ANSWER: from govinfo_receipts__1832__GOVPUB-T1.pdf: 87.5", "87.5", RULE_ANSWER_LINE),
    ("ANSWER: treasury_bulletin_1948_05.pdf 1948 total 7", "1948", RULE_ANSWER_LINE),
    ("ANSWER: https://example.org/vol/1941/page/5 gives 222", "222", RULE_ANSWER_LINE),
    ("ANSWER: `docs/2016/c07.xlsx` -> n/a", ABSTAIN, RULE_ANSWER_LINE_ABSTENTION),
    # references (page/table/line) dropped
    ("ANSWER: page 43: 1,500", "1500", RULE_ANSWER_LINE),
    ("ANSWER: Table FD-1, line 7: 3,456", "3456", RULE_ANSWER_LINE),
    ("ANSWER: pages 43-47 give 98.6", "98.6", RULE_ANSWER_LINE),
    ("ANSWER: (Table 3) 4,410", "4410", RULE_ANSWER_LINE),
    ("ANSWER: row 12, column 4 -> 66", "66", RULE_CORRECTION),
    ("ANSWER: see p. 9; value 31", "31", RULE_ANSWER_LINE),
    ("ANSWER: line 1,234", "1234", RULE_ANSWER_LINE),
    ("ANSWER: 250 (page 3)", "250", RULE_ANSWER_LINE),
    # years and dates dropped
    ("ANSWER: In fiscal year 1941, receipts were 5,000", "5000", RULE_ANSWER_LINE),
    ("ANSWER: As of June 30, 1941: 1,234", "1234", RULE_ANSWER_LINE),
    ("ANSWER: FY 1952 total 8.4", "8.4", RULE_ANSWER_LINE),
    ("ANSWER: for fiscal years 1940-41, 62", "62", RULE_ANSWER_LINE),
    ("ANSWER: Dec. 31 1960 balance 410", "410", RULE_ANSWER_LINE),
    ("ANSWER: 30 June 1945 - 1,111", "1111", RULE_ANSWER_LINE),
    ("ANSWER: 6/30/1941 950", "950", RULE_ANSWER_LINE),
    ("ANSWER: 1941-06-30 balance 950", "950", RULE_ANSWER_LINE),
    ("ANSWER: in 1999 it was 73", "73", RULE_ANSWER_LINE),
    ("ANSWER: 1941", "1941", RULE_ANSWER_LINE),
    ("ANSWER: FY2019 4.5%", "4.5", RULE_ANSWER_LINE),
    ("ANSWER: 1,234 in 2019", "1234", RULE_ANSWER_LINE),
    # corrections take the last number
    ("ANSWER: 1,234 should be 1,243", "1243", RULE_CORRECTION),
    ("ANSWER: 1,243 (instead of 1,234)", "1243", RULE_CORRECTION),
    ("ANSWER: 1,234 \u2192 1,243", "1243", RULE_CORRECTION),
    ("ANSWER: 5 -> 6", "6", RULE_CORRECTION),
    ("ANSWER: 5 => -6", "-6", RULE_CORRECTION),
    ("ANSWER: 100, actually 110", "110", RULE_CORRECTION),
    ("ANSWER: should be 44, not 45", "44", RULE_CORRECTION),
    ("ANSWER: corrected from 3.1 to 3.2", "3.2", RULE_CORRECTION),
    ("ANSWER: 7 rather than 8", "7", RULE_CORRECTION),
    # abstention before the number
    ("ANSWER: not available", ABSTAIN, RULE_ANSWER_LINE_ABSTENTION),
    ("ANSWER: Cannot be determined from the corpus", ABSTAIN, RULE_ANSWER_LINE_ABSTENTION),
    ("ANSWER: N/A", ABSTAIN, RULE_ANSWER_LINE_ABSTENTION),
    ("ANSWER: unknown (closest figure 5,000)", ABSTAIN, RULE_ANSWER_LINE_ABSTENTION),
    (
        "ANSWER: The corpus does not contain the 1942 figure; 1941 was 3",
        ABSTAIN,
        RULE_ANSWER_LINE_ABSTENTION,
    ),
    ("ANSWER: I can't determine it", ABSTAIN, RULE_ANSWER_LINE_ABSTENTION),
    ("ANSWER: 5,000 (the 1942 value is not available)", "5000", RULE_ANSWER_LINE),
    ("ANSWER: unable to locate the table", ABSTAIN, RULE_ANSWER_LINE_ABSTENTION),
    # no answer line: the last amount
    ("The total was $5,000 in 1941. Later 12 items.", "5000", RULE_LAST_AMOUNT),
    ("Receipts rose 9.5% to 1,200 over 3 years.", "1200", RULE_LAST_AMOUNT),
    ("It was 2,602.", "2602", RULE_LAST_AMOUNT),
    ("Total: 45.10\nSources: 3 volumes, year 1941", "45.10", RULE_LAST_AMOUNT),
    ("The answer is 42 and it happened in 1999", "42", RULE_ANSWER_PHRASE),
    ("Final figure reported (1,005) in the statement", "-1005", RULE_LAST_AMOUNT),
    ("The value for fiscal year 1941 is -$3.75", "-3.75", RULE_LAST_AMOUNT),
    ("The data is not available.", ABSTAIN, RULE_RESPONSE_ABSTENTION),
    # an answer given after a hedge counts (issue 9)
    ("It cannot be determined, though one guess is $5.00", "5.00", RULE_LAST_AMOUNT),
    ("", NONE, RULE_NO_NUMBER),
    ("nothing numeric here", NONE, RULE_NO_NUMBER),
    ("See combined_statement__modern__2016__c07.pdf page 4.", NONE, RULE_NO_NUMBER),
]


def test_table_is_large_and_covers_every_rule() -> None:
    from tests.grade.test_answers_messy import MESSY_CASES

    assert len(CASES) >= 80
    covered = {rule for _, _, rule in CASES} | {case[2] for case in MESSY_CASES}
    assert covered == set(RULES)


@pytest.mark.parametrize(("response", "expected", "rule"), CASES)
def test_reads_the_number_each_rule_promises(
    response: str, expected: str | None, rule: str
) -> None:
    extraction = extract_answer(response)
    assert extraction.rule == rule
    if expected == ABSTAIN:
        assert extraction.abstained and extraction.number is None
    elif expected is None:
        assert not extraction.abstained and extraction.number is None
    else:
        assert not extraction.abstained
        assert extraction.number == Decimal(expected)
        # exact: the text of the number is kept, no float round-trip
        assert str(extraction.number) == expected


def test_score_answer_passes_inside_the_inclusive_interval() -> None:
    task = {"task_id": "t1", "lo": "2601.5", "hi": "2602.5"}
    assert score_answer(task, "ANSWER: 2,602").passed
    assert score_answer(task, "ANSWER: 2,601.5").passed  # inclusive bound
    assert score_answer(task, "ANSWER: 2,602.5").passed
    assert not score_answer(task, "ANSWER: 2,603").passed
    # abstention wording counts only before the number
    assert score_answer(task, "ANSWER: 2,602 (1942 not available)").passed
    assert not score_answer(task, "ANSWER: not available (2,602?)").passed
    verdict = score_answer(task, "ANSWER: not available")
    assert verdict.abstained and not verdict.passed and verdict.number is None
    assert not score_answer(task, None).passed


def test_score_answer_names_the_task_on_a_bad_interval() -> None:
    with pytest.raises(ValueError, match="task t9: lo"):
        score_answer({"task_id": "t9", "lo": "abc", "hi": "1"}, "ANSWER: 1")
    with pytest.raises(ValueError, match="task t9: interval"):
        score_answer({"task_id": "t9", "lo": "2", "hi": "1"}, "ANSWER: 1")


def test_score_text_is_json_ready() -> None:
    result = score_text("**ANSWER:** ($7,046,001.98)", "-7046002.5", "-7046001.5")
    assert result == {
        "number": "-7046001.98",
        "rule": RULE_ANSWER_LINE,
        "passed": True,
        "abstained": False,
        "line": "ANSWER: ($7,046,001.98)",
    }


# --- property tests -------------------------------------------------------------------


def _group_thousands(digits: str) -> str:
    return f"{int(digits):,}"


@st.composite
def written_numbers(draw: st.DrawFn) -> tuple[Decimal, str]:
    """A Decimal and one way an agent might write it on the answer line."""
    integer = draw(st.integers(min_value=0, max_value=10**12))
    places = draw(st.integers(min_value=0, max_value=4))
    fraction = draw(st.integers(min_value=0, max_value=10**places - 1)) if places else 0
    negative = draw(st.booleans())
    int_text = draw(st.sampled_from([str(integer), _group_thousands(str(integer))]))
    body = int_text + (f".{fraction:0{places}d}" if places else "")
    value = Decimal(f"{integer}" + (f".{fraction:0{places}d}" if places else ""))
    if negative:
        value = -value
        signed = draw(
            st.sampled_from(
                [
                    "-{b}",
                    "\u2212{b}",
                    "\u2013{b}",
                    "({b})",
                    "-${b}",
                    "$-{b}",
                    "(${b})",
                    "\\left({b}\\right)",
                ]
            )
        ).format(b=body)
    else:
        signed = draw(st.sampled_from(["{b}", "${b}", "+{b}", "US${b}"])).format(b=body)
    suffix = draw(
        st.sampled_from(
            ["", "%", " million", " billion", " thousand", " percent", " dollars", " (in millions)"]
        )
    )
    wrapped = draw(
        st.sampled_from(["{x}", "**{x}**", "`{x}`", "$\\boxed{{{x}}}$", "\\({x}\\)", "<b>{x}</b>"])
    ).format(x=signed + suffix)
    return value, wrapped


@given(written_numbers(), st.sampled_from(["ANSWER: ", "**Final answer:** ", "answer - "]))
@settings(max_examples=250, deadline=None)
def test_any_supported_style_reads_back_exactly(written: tuple[Decimal, str], label: str) -> None:
    value, text = written
    extraction = extract_answer(f"Some reasoning about table 3 on page 12.\n{label}{text}")
    assert extraction.number == value, text
    assert not extraction.abstained


@given(st.text(max_size=400))
@settings(max_examples=300, deadline=None)
def test_never_raises_on_arbitrary_text(text: str) -> None:
    verdict = score_answer({"lo": "0", "hi": "1"}, text)
    assert verdict.rule in RULES
    assert verdict.passed == (verdict.number is not None and 0 <= verdict.number <= 1)


_PIECES = st.sampled_from(
    [
        "ANSWER:",
        "Final answer",
        "$",
        "(",
        ")",
        "-",
        "\u2212",
        "%",
        "1,234",
        "7.5",
        "1941",
        "page",
        "table",
        "fiscal year",
        "June 30,",
        "should be",
        "->",
        "not available",
        "**",
        "\\boxed{",
        "}",
        "cs-1941.pdf",
        "\n",
        " ",
        ".",
        ",",
        "million",
        "instead of",
        "\\,",
    ]
)


@given(st.lists(st.one_of(_PIECES, st.text(max_size=5)), max_size=40))
@settings(max_examples=300, deadline=None)
def test_never_raises_on_grader_shaped_noise(pieces: list[str]) -> None:
    extraction = extract_answer("".join(pieces))
    assert extraction.rule in RULES
    if extraction.abstained:
        assert extraction.number is None


@pytest.mark.real_data
def test_reads_every_officeqa_dev_answer_back(shared_data) -> None:
    """The 13 OfficeQA answers, written on an answer line after the cited file, read back
    as their number; without the label, the amount-shaped ones are still found."""
    import polars as pl

    questions = pl.read_csv(shared_data / "treasury" / "officeqa_dev_questions.csv")
    assert questions.height == 13
    for uid, answer, source in questions.select("uid", "answer", "source_files").iter_rows():
        expected = Decimal(answer.split()[0].replace(",", "").rstrip("%"))
        labelled = extract_answer(f"I read page 15 of {source}.\nANSWER: {answer}")
        assert (labelled.number, labelled.rule) == (expected, RULE_ANSWER_LINE), uid
        prose = extract_answer(f"Per {source}, the figure is {answer}.")
        amount_shaped = any(mark in answer for mark in ",.%")
        assert prose.number == (expected if amount_shaped else None), uid
