"""The answer grader is linear-time (issue 8, item 4): pathological responses of up to 1 MB
each grade to a verdict. Only that they finish is asserted (no wall-clock asserts; the time
per MB is measured by ``benchmarks/bench_grader.py``)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from pipeline.grade.answers import RULES, extract_answer, score_answer
from tests.grade.answers_pathological import BUILDERS

MEGABYTE = 1_000_000


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_a_pathological_megabyte_grades(name: str) -> None:
    response = BUILDERS[name](MEGABYTE)
    assert len(response) >= MEGABYTE * 0.9
    verdict = score_answer({"lo": "0", "hi": "1", "unit": "millions of dollars"}, response)
    assert verdict.rule in RULES
    assert verdict.passed == (verdict.number is not None and 0 <= verdict.number <= 1)


@pytest.mark.parametrize("size", [26, 27, 40, 1_000, 100_000])
@pytest.mark.parametrize("mark", ["#", ">", "> ", "# ", "-", "*"])
def test_banner_and_quote_runs_not_followed_by_answer(size: int, mark: str) -> None:
    """The runs that made the old answer-line pattern backtrack exponentially (26 '#': 5 s)."""
    for response in (mark * size, f"Total $1,234.\n{mark * size}", f"{mark * size} answers"):
        assert extract_answer(response).rule in RULES


def test_labels_still_read_after_long_runs() -> None:
    assert extract_answer("#" * 250 + " ANSWER: 5").number == Decimal(5)
    assert extract_answer("> " * 100 + "ANSWER: 7").number == Decimal(7)
    assert extract_answer("ANSWER: 12\n" + "#" * MEGABYTE).number == Decimal(12)
    assert extract_answer("Total was $3.50.\n" + " " * MEGABYTE).number == Decimal("3.50")
    # an answer line under a megabyte of quoted mail is still the answer
    quoted = ">>>> On Monday someone wrote: receipts $1,000\n" * 20_000
    assert extract_answer(quoted + "ANSWER: 2,602").number == Decimal(2602)


def test_work_is_bounded_on_a_long_single_line() -> None:
    """A number far back on a 1 MB line is outside the window the grader reads."""
    response = "ANSWER: 41\n" + "x" * MEGABYTE + " $9.99"
    assert extract_answer(response).number == Decimal(41)
    assert extract_answer("$9.99 " + "x " * MEGABYTE).number is None
