"""Grader time bound: worst-case time per MB over pathological responses (issue 8, item 4).

Grades every response of ``tests/grade/answers_pathological.py`` (runs of ``#`` and ``>``,
blanks, digits, commas, label words, boxes, struck spans...) at a size and at half of it,
and a realistic response of the same large size (reasoning lines with amounts, dates,
references, a table and an answer line at the end) as the baseline measured in the same
run. Prints the slowest inputs, the worst time per MB, its ratio to the baseline, the
largest ratio of time per MB between the two sizes (about 1 when the work is linear;
below half a MB, strings that fit in the CPU cache make small inputs look faster) and
whether the worst case stays under the 1 s per MB target.

    .venv/bin/python benchmarks/bench_grader.py [--size 1000000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import time

from pipeline.grade.answers import score_answer
from tests.grade.answers_pathological import BUILDERS

TARGET_SECONDS_PER_MB = 1.0
TASK = {"task_id": "bench", "lo": "2601.5", "hi": "2602.5", "unit": "millions of dollars"}
REALISTIC_LINES = [
    "I opened combined_statement__historical__cs-1941.pdf, page 43, Table 3.",
    "As of June 30, 1941 the row 'Customs' reads $1,204.50 and 'Excise' 3,400 (line 7).",
    "| Item | 1940 | 1941 |",
    "|---|---|---|",
    "| Receipts | 2,510 | 2,602 |",
    "The change is 2,602 - 2,510 = 92, about 3.7% over fiscal year 1940.",
    "I cannot see the 1942 volume, but the 1941 figure is printed clearly.",
]


def realistic(size: int) -> str:
    """A long, ordinary response of about ``size`` characters ending in an answer line."""
    block = "\n".join(REALISTIC_LINES) + "\n"
    return block * max(1, size // len(block)) + "ANSWER: 2,602"


def seconds(text: str, repeat: int) -> float:
    """Best of ``repeat`` wall times to grade ``text`` (best: least disturbed by others)."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        score_answer(TASK, text)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    """Grade the pathological set at two sizes and the baseline; print the worst per MB."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    megabytes = args.size / 1e6
    baseline_text = realistic(args.size)
    baseline = seconds(baseline_text, args.repeat) / (len(baseline_text) / 1e6)
    rows = []
    for name, build in BUILDERS.items():
        large, small = build(args.size), build(args.size // 2)
        per_mb = seconds(large, args.repeat) / (len(large) / 1e6)
        per_mb_small = seconds(small, args.repeat) / (len(small) / 1e6)
        rows.append((per_mb, name, per_mb_small))
    rows.sort(reverse=True)
    print(f"{len(rows)} pathological responses of {megabytes:g} MB and of half that")
    print(f"baseline: realistic {megabytes:g} MB response, {baseline * 1000:.1f} ms/MB")
    print(f"{'input':26} {'ms/MB':>8} {'x baseline':>10} {'ms/MB at half':>14}")
    for per_mb, name, per_mb_small in rows[:10]:
        print(
            f"{name:26} {per_mb * 1000:8.1f} {per_mb / baseline:10.2f} {per_mb_small * 1000:14.1f}"
        )
    worst, worst_name, worst_small = rows[0]
    growth, growth_name = max((large / small, name) for large, name, small in rows if small > 0)
    print(
        f"worst: {worst_name} {worst * 1000:.1f} ms/MB = {worst / baseline:.2f}x baseline; "
        f"largest ms/MB ratio, {args.size:,} vs {args.size // 2:,} chars: {growth:.2f} "
        f"({growth_name}; linear ~1)"
    )
    verdict = "under" if worst < TARGET_SECONDS_PER_MB else "OVER"
    print(f"target {TARGET_SECONDS_PER_MB:g} s/MB: {verdict}")


if __name__ == "__main__":
    main()
