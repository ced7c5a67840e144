"""Pathological responses for the answer grader's time bound (issue 8, item 4).

Each builder returns a response of about ``size`` characters that once made (or could make)
a regular expression backtrack: runs of ``#`` and ``>`` (Markdown banners, e-mail quote
chains) not followed by "answer", long runs of blanks after the words the date and
reference patterns start from, runs of digits, commas, dots, separators and wrapper
characters, and many label words, boxes, struck spans, equations and correction markers.
Used by ``test_answers_linear.py`` (asserts only that each grades) and
``benchmarks/bench_grader.py`` (prints the worst time per MB).
"""

from __future__ import annotations

from collections.abc import Callable


def _repeat(unit: str, size: int, tail: str = "") -> str:
    return unit * max(1, (size - len(tail)) // len(unit)) + tail


BUILDERS: dict[str, Callable[[int], str]] = {
    "hashes_one_line": lambda n: _repeat("#", n),
    "hashes_then_words": lambda n: _repeat("#", n, " not a label here"),
    "hashes_then_answer": lambda n: _repeat("#", n, " ANSWER: 5"),
    "hash_banner_lines": lambda n: _repeat("#" * 27 + "\n", n),
    "hash_space_runs": lambda n: _repeat("# ", n, "answerx"),
    "quote_chain": lambda n: _repeat(">", n),
    "quote_chain_spaced": lambda n: _repeat("> ", n, "answer"),
    "quote_lines": lambda n: _repeat(">>>> On Monday 12 May 2024 someone wrote:\n", n),
    "bullets_and_numbers": lambda n: _repeat("- 1. * ", n, "Answer format"),
    "spaces": lambda n: _repeat(" ", n),
    "spaces_after_month": lambda n: "June" + _repeat(" ", n, "30, 1941"),
    "spaces_after_page": lambda n: "ANSWER: page" + _repeat(" ", n, "4"),
    "spaces_between_numbers": lambda n: "ANSWER: 1" + _repeat(" ", n, "2"),
    "month_space_runs": lambda n: _repeat("May    ", n, "1941"),
    "tabs_and_blanks": lambda n: _repeat(" \t \u00a0 \u2009", n),
    "digits": lambda n: _repeat("9", n),
    "digits_on_answer_line": lambda n: "ANSWER: " + _repeat("9", n),
    "comma_groups": lambda n: "ANSWER: 1" + _repeat(",111", n),
    "commas": lambda n: _repeat(",", n),
    "digit_commas": lambda n: _repeat("1,", n),
    "digit_dots": lambda n: _repeat("1.", n),
    "digit_apostrophes": lambda n: "ANSWER: " + _repeat("1'", n),
    "digit_lines": lambda n: _repeat("12\n", n),
    "amount_lines": lambda n: _repeat("Receipts were $1,234.56 in 1941.\n", n),
    "years": lambda n: "ANSWER: " + _repeat("1941 ", n),
    "equations": lambda n: "ANSWER: " + _repeat("1 = ", n),
    "ranges": lambda n: "ANSWER: " + _repeat("1-2 to ", n),
    "answer_words": lambda n: _repeat("answer ", n),
    "answer_lines": lambda n: _repeat("ANSWER\n", n),
    "answer_phrases": lambda n: _repeat("the answer is ", n),
    "answer_phrase_lines": lambda n: _repeat("So the answer is the answer is\n", n),
    "boxes": lambda n: _repeat("\\boxed{", n),
    "boxes_closed": lambda n: _repeat("\\boxed{1}", n),
    "corrections": lambda n: "ANSWER: 5\n" + _repeat("wait actually should be ", n),
    "struck": lambda n: "ANSWER: " + _repeat("~~", n),
    "html_open": lambda n: "ANSWER: " + _repeat("<s>", n),
    "angles": lambda n: _repeat("<", n),
    "pipes": lambda n: "ANSWER: " + _repeat("|", n),
    "pipe_cells": lambda n: "| ANSWER " + _repeat("| 1 ", n),
    "parentheses": lambda n: "ANSWER: " + _repeat("(", n),
    "dashes": lambda n: "ANSWER: " + _repeat("-", n),
    "underscores": lambda n: "a" + _repeat("_", n, "b"),
    "stars": lambda n: "ANSWER: " + _repeat("*", n),
    "path": lambda n: _repeat("a/", n, "x"),
    "path_pdf": lambda n: _repeat("a/", n, "x.pdf"),
    "dotted_words": lambda n: _repeat("a.", n),
    "pdf_names": lambda n: _repeat("cs-1941.pdf", n),
    "links": lambda n: _repeat("https://x.org/", n),
    "latex_spaces": lambda n: "ANSWER: " + _repeat("\\,", n),
    "braces": lambda n: "ANSWER: " + _repeat("{", n),
    "dollars": lambda n: "ANSWER: " + _repeat("$", n),
    "exponents": lambda n: _repeat("1e", n),
    "abstention_words": lambda n: _repeat("not ", n),
    "cannot_runs": lambda n: _repeat("cannot    ", n),
    "between_runs": lambda n: _repeat("between 1 and ", n),
    "newlines": lambda n: _repeat("\n", n),
    "crlf": lambda n: _repeat("\r\n", n),
    "answer_then_newlines": lambda n: "ANSWER:" + _repeat("\n", n),
    "unicode_minus_runs": lambda n: "ANSWER: " + _repeat("\u2212", n),
    "combining_strike": lambda n: "ANSWER: " + _repeat("1\u0336", n),
}


def pathological_responses(size: int) -> dict[str, str]:
    """Every pathological response at about ``size`` characters, by name."""
    return {name: build(size) for name, build in BUILDERS.items()}
