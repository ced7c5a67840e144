"""Fuzz the answer grader: many generated responses, count exceptions and throughput.

Inputs mix grader-shaped fragments (answer labels, signs, currency, parentheses, LaTeX and
Markdown wrappers, file names, dates, correction and abstention words) with random
Unicode, so both the rules and arbitrary text are exercised. Every input also goes
through ``score_answer`` with a fixed interval; a result whose number is not a finite
Decimal, or a pass outside the interval, counts as an error too.

    .venv/bin/python benchmarks/bench_grader_fuzz.py --count 100000 --seed 0
"""

from __future__ import annotations

import argparse
import random
import time
import traceback
from decimal import Decimal

from pipeline.grade.answers import score_answer

FRAGMENTS = [
    "ANSWER:",
    "ANSWER: ",
    "Final answer:",
    "**ANSWER:**",
    "answer",
    "\n",
    " ",
    "  ",
    "\t",
    "$",
    "US$",
    "€",
    "£",
    "-",
    "\u2212",
    "\u2013",
    "\u2014",
    "+",
    "(",
    ")",
    "%",
    " percent",
    ",",
    ".",
    "0",
    "7",
    "1,234",
    "7,046,001.98",
    "9.89",
    "-0.119",
    "1169.41",
    " million",
    "1941",
    "2016",
    "June 30,",
    "fiscal year",
    "FY",
    "page",
    "pages 43-47",
    "Table FD-1",
    "line 7",
    "combined_statement__historical__cs-1941.pdf",
    "https://x.org/1941/5",
    "should be",
    "instead of",
    "->",
    "\u2192",
    "=>",
    "not available",
    "cannot be determined",
    "N/A",
    "**",
    "__",
    "`",
    "~~",
    "$\\boxed{",
    "}",
    "\\(",
    "\\)",
    "\\,",
    "{,}",
    "\\%",
    "\\$",
    "\\text{",
    "<b>",
    "</b>",
    "> ",
    "# ",
    "- ",
    "|",
    "\u00a0",
    "\u2009",
    "\u202f",
    "\ufeff",
    "e10",
    "1e5",
    "..",
    ",,",
    "((",
    "))",
    "99999999999999999999999999999999",
    "0.000000000000000000001",
    "٣",
    "１２",
    "²",
    "½",
]


def _random_unicode(rng: random.Random, length: int) -> str:
    return "".join(
        chr(rng.choice((rng.randrange(32, 127), rng.randrange(0x80, 0x3000))))
        for _ in range(length)
    )


def generate(rng: random.Random) -> str:
    """One fuzz input: 1-30 fragments, some of them random Unicode runs."""
    parts = []
    for _ in range(rng.randint(1, 30)):
        if rng.random() < 0.8:
            parts.append(rng.choice(FRAGMENTS))
        else:
            parts.append(_random_unicode(rng, rng.randint(1, 12)))
    return "".join(parts)


def run(count: int, seed: int) -> dict[str, float]:
    """Grade ``count`` generated inputs; return count, exceptions, errors and inputs/s."""
    rng = random.Random(seed)
    task = {"task_id": "fuzz", "lo": "1233.5", "hi": "1234.5"}
    lo, hi = Decimal("1233.5"), Decimal("1234.5")
    exceptions = errors = passed = with_number = 0
    inputs = [generate(rng) for _ in range(count)]
    start = time.perf_counter()
    for text in inputs:
        try:
            verdict = score_answer(task, text)
        except Exception:  # noqa: BLE001 - counting every failure is the point of a fuzz run
            exceptions += 1
            if exceptions <= 3:
                print(f"EXCEPTION on {text!r}\n{traceback.format_exc()}")
            continue
        if verdict.number is not None:
            with_number += 1
            if not verdict.number.is_finite() or (
                verdict.passed and not lo <= verdict.number <= hi
            ):
                errors += 1
        passed += verdict.passed
    elapsed = time.perf_counter() - start
    return {
        "count": count,
        "exceptions": exceptions,
        "errors": errors,
        "with_number": with_number,
        "passed": passed,
        "seconds": elapsed,
        "inputs_per_second": count / elapsed if elapsed else float("inf"),
    }


def main() -> None:
    """Run the fuzz and print count, exceptions and inputs per second."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    result = run(args.count, args.seed)
    print(
        f"count={result['count']} exceptions={result['exceptions']} errors={result['errors']} "
        f"with_number={result['with_number']} passed={result['passed']} "
        f"seconds={result['seconds']:.1f} inputs/s={result['inputs_per_second']:.0f}"
    )
    if result["exceptions"] or result["errors"]:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
