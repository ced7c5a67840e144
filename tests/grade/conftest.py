"""Generated QA releases and simulated agent responses for the grading tests.

The release follows pipeline/publish/schemas.py: ``data/qa/test.parquet`` (public tasks)
and ``private/qa_answers.parquet`` (keys with interval and known-wrong answers). Agents
are simulated with a known success probability per task, so metrics can be checked
against the truth.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from decimal import Decimal
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from pipeline.publish.schemas import QA_ANSWER_SCHEMA, QA_PUBLIC_SCHEMA

KINDS = [
    "read_number",
    "sum_rows",
    "difference",
    "change_between_periods",
    "share_of_total",
    "percent_change",
    "multi_year_statistic",
]
QUALITIES = ["clear", "blurry", "very blurry"]
# Success is harder on worse scans: an agent's probability on a task is its base rate
# times this factor, so per-task probabilities differ and the truth is their mean.
QUALITY_FACTOR = {"clear": 1.0, "blurry": 0.85, "very blurry": 0.6}


def _misread(answer: str) -> str:
    """The key with its first 8/6/3 digit swapped the way OCR confuses them."""
    swaps = {"8": "6", "6": "8", "3": "8", "1": "7", "5": "6"}
    for i, ch in enumerate(answer):
        if ch in swaps and i > 0:
            return answer[:i] + swaps[ch] + answer[i + 1 :]
    return answer[:-1] + ("2" if answer[-1] != "2" else "3")


def build_release(root: Path, n_tasks: int = 60, seed: int = 7) -> tuple[Path, pl.DataFrame]:
    """Write a release with ``n_tasks`` QA tasks under ``root``; return its dir and keys."""
    rng = np.random.default_rng(seed)
    public, keys = [], []
    for i in range(n_tasks):
        task_id = f"qa-{i:04d}"
        percent = i % 3 == 2
        precision = 2 if percent else 1
        integer = int(rng.integers(1_000, 900_000)) if not percent else int(rng.integers(1, 60))
        answer = Decimal(f"{integer}.{int(rng.integers(0, 10**precision)):0{precision}d}")
        if i % 5 == 4:
            answer = -answer
        half = Decimal(5).scaleb(-(precision + 1))
        kw_values = [
            (_misread(str(answer)), "digit 8 read as 6 on a blurry scan", "misread_digit"),
            (str(answer + Decimal(137)), "adjacent row of the same table", "adjacent_row"),
        ]
        public.append(
            {
                "task_id": task_id,
                "kind": KINDS[i % len(KINDS)],
                "question": f"Question {i}: what was the figure, in millions of dollars?",
                "unit": "percent" if percent else "millions of dollars",
                "precision": precision,
                "quality": QUALITIES[(i // 2) % len(QUALITIES)],
                "multi_document": i % 4 == 0,
                "source_docs": [f"combined_statement__historical__cs-{1940 + i % 20}.pdf"],
            }
        )
        keys.append(
            {
                "task_id": task_id,
                "answer": str(answer),
                "lo": str(answer - half),
                "hi": str(answer + half),
                "known_wrong": [{"value": v, "reason": r, "family": f} for v, r, f in kw_values],
                "oracle_sha256": f"{i:064x}",
            }
        )
    release = root / "release"
    (release / "data" / "qa").mkdir(parents=True)
    (release / "private").mkdir()
    pl.DataFrame(public, schema=QA_PUBLIC_SCHEMA).write_parquet(release / "data/qa/test.parquet")
    key_frame = pl.DataFrame(keys, schema=QA_ANSWER_SCHEMA)
    key_frame.write_parquet(release / "private/qa_answers.parquet")
    tasks = pl.DataFrame(public, schema=QA_PUBLIC_SCHEMA).join(key_frame, on="task_id")
    return release, tasks


def _right(row: Mapping, rng: np.random.Generator) -> str:
    value = Decimal(row["answer"])
    text = f"{abs(value):,}"
    styles = (
        [f"-{text}", f"({text})", f"\u2212${text}"]
        if value < 0
        else [text, f"${text}", f"**{text}**"]
    )
    style = styles[int(rng.integers(len(styles)))]
    return f"I read table 3 on page 41 of cs-1941.pdf.\nANSWER: {style}"


def _wrong(row: Mapping, rng: np.random.Generator) -> str:
    value = Decimal(row["answer"])
    choice = int(rng.integers(5))
    if choice == 0:
        return f"ANSWER: {row['known_wrong'][1]['value']}"
    if choice == 1:
        return f"ANSWER: {-value}" if value != 0 else "ANSWER: 1"
    if choice == 2:
        return "ANSWER: The figure is not available in the corpus."
    if choice == 3:
        return "I could not finish."
    return f"ANSWER: {value * 3 + 11}"


def simulate(
    tasks: pl.DataFrame,
    base_rates: Mapping[str, float],
    attempts: int,
    path: Path,
    seed: int = 11,
) -> dict[str, float]:
    """Write responses JSONL for agents with the given base rates; return true pass rates.

    An agent's success probability on a task is ``base * QUALITY_FACTOR[quality]``; the
    true pass@1 over these tasks is the mean of those probabilities.
    """
    rng = np.random.default_rng(seed)
    truth = {}
    with path.open("w", encoding="utf-8") as handle:
        for agent, base in base_rates.items():
            probabilities = []
            for row in tasks.iter_rows(named=True):
                p = base * QUALITY_FACTOR[row["quality"]]
                probabilities.append(p)
                for attempt in range(1, attempts + 1):
                    success = rng.random() < p
                    response = _right(row, rng) if success else _wrong(row, rng)
                    record = {
                        "task_id": row["task_id"],
                        "agent": agent,
                        "attempt": attempt,
                        "response": response,
                        "seconds": float(rng.uniform(30, 600)),
                        "tokens": int(rng.integers(1_000, 90_000)),
                        "cost": round(base * 2 + float(rng.uniform(0, 0.2)), 4),
                    }
                    handle.write(json.dumps(record) + "\n")
            truth[agent] = float(np.mean(probabilities))
    return truth


@pytest.fixture
def qa_release(tmp_path: Path) -> Callable[..., tuple[Path, pl.DataFrame]]:
    """Builder of a generated release under this test's tmp_path."""

    def build(n_tasks: int = 60, seed: int = 7) -> tuple[Path, pl.DataFrame]:
        return build_release(tmp_path, n_tasks, seed)

    return build


@pytest.fixture
def simulated_responses() -> Callable[..., dict[str, float]]:
    """Writer of simulated responses JSONL (see :func:`simulate`)."""
    return simulate
