"""Metrics of a grading run: pass@1, pass@k, pass^k with bootstrap intervals over tasks.

- pass@1 is the share of attempts that pass.
- pass@k is the chance that at least one of k attempts passes, pass^k that all k do; per
  task they use the unbiased estimators over its n >= k attempts with c passes,
  ``1 - C(n-c, k) / C(n, k)`` and ``C(c, k) / C(n, k)`` (Chen et al. 2021; Yao et al. 2024),
  then average over tasks.
- Intervals are percentile bootstraps over tasks (a task's attempts stay together).
- Agents adjacent in the ranking are compared by a paired bootstrap over the tasks both
  attempted; the p-values are Holm-corrected across the comparisons.
- Breakdowns by task kind, scan-quality tag and multi-document; failure causes; the
  majority-vote score per agent and across agents; cost and time per attempt.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal

import numpy as np
import polars as pl
from scipy.special import comb

N_RESAMPLES = 4000
CONFIDENCE = 0.95
BREAKDOWN_DIMENSIONS = ("kind", "quality", "multi_document")
# Resampled index matrices are built in chunks of about this many cells to bound memory.
_CHUNK_CELLS = 2_000_000


@dataclass
class Summary:
    """Every table of a run's metrics (polars frames, one concept each)."""

    agents: pl.DataFrame  # one row per agent, ranked by pass@1
    comparisons: pl.DataFrame  # adjacent agents in the ranking, paired bootstrap + Holm
    breakdowns: pl.DataFrame  # agent x dimension x group
    heatmap: pl.DataFrame  # kind x quality, pooled over agents
    causes: pl.DataFrame  # agent x failure cause
    ceiling: pl.DataFrame  # majority vote across agents and any-agent-solved
    k: int
    n_resamples: int
    seed: int


def pass_at_k(n: np.ndarray | int, c: np.ndarray | int, k: int) -> np.ndarray:
    """Unbiased pass@k per task: ``1 - C(n-c, k) / C(n, k)`` (needs ``n >= k``)."""
    n, c = np.asarray(n, dtype=float), np.asarray(c, dtype=float)
    _check_counts(n, c, k)
    return 1.0 - comb(n - c, k) / comb(n, k)


def pass_hat_k(n: np.ndarray | int, c: np.ndarray | int, k: int) -> np.ndarray:
    """Unbiased pass^k per task (all k attempts pass): ``C(c, k) / C(n, k)``."""
    n, c = np.asarray(n, dtype=float), np.asarray(c, dtype=float)
    _check_counts(n, c, k)
    return comb(c, k) / comb(n, k)


def _check_counts(n: np.ndarray, c: np.ndarray, k: int) -> None:
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    if np.any(n < k):
        raise ValueError(f"every task needs at least k={k} attempts, found n={n.min():g}")
    if np.any((c < 0) | (c > n)):
        raise ValueError("passes must lie between 0 and the number of attempts")


def holm(p_values: np.ndarray | list[float], alpha: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """Holm step-down adjusted p-values and rejections at ``alpha``, in the input order.

    Adjusted ``p_(i) = max_{j <= i} min(1, (m - j + 1) p_(j))`` over the sorted p-values;
    a hypothesis is rejected when its adjusted p-value is at most ``alpha``.
    """
    p = np.asarray(p_values, dtype=float)
    m = p.size
    if m == 0:
        return p.copy(), np.zeros(0, dtype=bool)
    order = np.argsort(p, kind="stable")
    scaled = np.minimum(1.0, (m - np.arange(m)) * p[order])
    adjusted = np.empty(m)
    adjusted[order] = np.maximum.accumulate(scaled)
    return adjusted, adjusted <= alpha


def _resampled_ratios(
    numerator: np.ndarray, denominator: np.ndarray, n_resamples: int, rng: np.random.Generator
) -> np.ndarray:
    """``sum(numerator) / sum(denominator)`` over tasks drawn with replacement, per resample."""
    n_tasks = numerator.size
    # equal attempts per task (the usual case) make the denominator a constant: skip it
    constant = bool(np.all(denominator == denominator[0]))
    out = np.empty(n_resamples)
    for start, stop in _chunks(n_resamples, n_tasks):
        index = rng.integers(0, n_tasks, size=(stop - start, n_tasks), dtype=np.int32)
        sums = numerator[index].sum(axis=1)
        out[start:stop] = (
            sums / (denominator[0] * n_tasks) if constant else sums / denominator[index].sum(axis=1)
        )
    return out


def _chunks(n_resamples: int, n_tasks: int) -> Iterator[tuple[int, int]]:
    size = max(1, _CHUNK_CELLS // max(1, n_tasks))
    for start in range(0, n_resamples, size):
        yield start, min(n_resamples, start + size)


def bootstrap_interval(
    numerator: np.ndarray,
    denominator: np.ndarray | None = None,
    n_resamples: int = N_RESAMPLES,
    rng: np.random.Generator | int | None = 0,
    confidence: float = CONFIDENCE,
) -> tuple[float, float, float]:
    """Estimate and percentile bootstrap interval of a ratio of task sums.

    ``numerator[t]`` and ``denominator[t]`` are task t's passes and attempts (pass@1 as a
    share of attempts), or a per-task score and ones (a mean over tasks). Tasks are the
    resampling unit. Returns ``(estimate, lo, hi)``; NaNs for no tasks.
    """
    numerator = np.asarray(numerator, dtype=float)
    denominator = np.ones_like(numerator) if denominator is None else np.asarray(denominator, float)
    if numerator.size == 0:
        return float("nan"), float("nan"), float("nan")
    rng = np.random.default_rng(rng)
    estimate = numerator.sum() / denominator.sum()
    stats = _resampled_ratios(numerator, denominator, n_resamples, rng)
    tail = (1 - confidence) / 2
    lo, hi = np.quantile(stats, [tail, 1 - tail])
    return float(estimate), float(lo), float(hi)


def paired_bootstrap(
    a: np.ndarray,
    b: np.ndarray,
    n_resamples: int = N_RESAMPLES,
    rng: np.random.Generator | int | None = 0,
    confidence: float = CONFIDENCE,
) -> tuple[float, float, float, float]:
    """Mean per-task difference ``a - b`` with its interval and a two-sided p-value.

    Tasks are resampled once for both agents (paired). The p-value counts resampled
    differences at least as far from the observed one as the observed one is from zero
    (the null shifted to zero), ``(1 + hits) / (1 + resamples)``.
    """
    diff = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    if diff.size == 0:
        return float("nan"), float("nan"), float("nan"), float("nan")
    rng = np.random.default_rng(rng)
    observed = float(diff.mean())
    stats = _resampled_ratios(diff, np.ones_like(diff), n_resamples, rng)
    tail = (1 - confidence) / 2
    lo, hi = np.quantile(stats, [tail, 1 - tail])
    hits = np.count_nonzero(np.abs(stats - observed) >= abs(observed) - 1e-12)
    p_value = (1 + hits) / (1 + n_resamples)
    return observed, float(lo), float(hi), float(min(1.0, p_value))


def task_counts(verdicts: pl.DataFrame) -> pl.DataFrame:
    """Attempts ``n`` and passes ``c`` per agent and task (plus the task's groups)."""
    return (
        verdicts.group_by("agent", "task_id")
        .agg(
            n=pl.len(),
            c=pl.col("passed").sum(),
            kind=pl.col("kind").first(),
            quality=pl.col("quality").first(),
            multi_document=pl.col("multi_document").first(),
        )
        .sort("agent", "task_id")
    )


def majority_vote(verdicts: pl.DataFrame, by: str | None = "agent") -> pl.DataFrame:
    """Per task (and agent when ``by``), whether the most common number passes.

    Only attempts that read a number vote; ties go to the number given first (lowest
    responses-file line). A task where nobody gave a number fails.
    """
    keys = ["task_id"] if by is None else [by, "task_id"]
    votes = (
        verdicts.filter(pl.col("number").is_not_null() & ~pl.col("abstained"))
        .with_columns(
            pl.col("number").map_elements(_vote_key, return_dtype=pl.String).alias("vote")
        )
        .group_by([*keys, "vote"])
        .agg(votes=pl.len(), first=pl.col("line").min(), passed=pl.col("passed").first())
        .sort([*keys, "votes", "first"], descending=[*([False] * len(keys)), True, False])
        .group_by(keys, maintain_order=True)
        .first()
        .select([*keys, "passed"])
    )
    tasks = verdicts.select(keys).unique()
    return tasks.join(votes, on=keys, how="left").with_columns(pl.col("passed").fill_null(False))


def _vote_key(number: str) -> str:
    """One key per numeric value, so "1234.0", "1234" and "1,234"-read numbers vote together."""
    return str((Decimal(number) + 0).normalize())


def summarize(
    verdicts: pl.DataFrame,
    tasks: pl.DataFrame | None = None,
    k: int | None = None,
    n_resamples: int = N_RESAMPLES,
    seed: int = 0,
    confidence: float = CONFIDENCE,
) -> Summary:
    """All metrics of a run from its verdicts (``pipeline.grade.runs.VERDICT_SCHEMA``).

    ``k`` defaults to the fewest attempts any agent made on any task. ``tasks`` (the
    release's task table) adds each agent's coverage of the release. Seeded: the same
    inputs and seed give the same intervals.
    """
    if verdicts.is_empty():
        raise ValueError("no verdicts to summarize")
    rng = np.random.default_rng(seed)
    counts = task_counts(verdicts)
    k = int(counts["n"].min()) if k is None else k
    agents = _agent_table(verdicts, counts, tasks, k, n_resamples, rng, confidence)
    return Summary(
        agents=agents,
        comparisons=_comparisons(counts, agents["agent"].to_list(), n_resamples, rng, confidence),
        breakdowns=_breakdowns(counts, n_resamples, rng, confidence),
        heatmap=_heatmap(verdicts),
        causes=_causes(verdicts),
        ceiling=_ceiling(verdicts, n_resamples, rng, confidence),
        k=k,
        n_resamples=n_resamples,
        seed=seed,
    )


def _agent_table(
    verdicts: pl.DataFrame,
    counts: pl.DataFrame,
    tasks: pl.DataFrame | None,
    k: int,
    n_resamples: int,
    rng: np.random.Generator,
    confidence: float,
) -> pl.DataFrame:
    """One row per agent: pass@1, pass@k, pass^k with intervals, majority vote, cost, time."""
    majority = majority_vote(verdicts).group_by("agent").agg(majority_vote=pl.col("passed").mean())
    usage = verdicts.group_by("agent").agg(
        attempts=pl.len(),
        passes=pl.col("passed").sum(),
        mean_seconds=pl.col("seconds").mean(),
        mean_tokens=pl.col("tokens").mean(),
        mean_cost=pl.col("cost").mean(),
        total_cost=pl.when(pl.col("cost").is_not_null().any()).then(pl.col("cost").sum()),
        attempts_with_cost=pl.col("cost").is_not_null().sum(),
    )
    rows = []
    for agent, group in counts.group_by("agent", maintain_order=True):
        n = group["n"].to_numpy().astype(float)
        c = group["c"].to_numpy().astype(float)
        p1 = bootstrap_interval(c, n, n_resamples, rng, confidence)
        pk = bootstrap_interval(pass_at_k(n, c, k), None, n_resamples, rng, confidence)
        phk = bootstrap_interval(pass_hat_k(n, c, k), None, n_resamples, rng, confidence)
        rows.append(
            {
                "agent": agent[0],
                "tasks": len(group),
                "pass_at_1": p1[0],
                "pass_at_1_lo": p1[1],
                "pass_at_1_hi": p1[2],
                "pass_at_k": pk[0],
                "pass_at_k_lo": pk[1],
                "pass_at_k_hi": pk[2],
                "pass_hat_k": phk[0],
                "pass_hat_k_lo": phk[1],
                "pass_hat_k_hi": phk[2],
            }
        )
    table = (
        pl.DataFrame(rows)
        .join(majority, on="agent", how="left")
        .join(usage, on="agent", how="left")
        .with_columns(
            coverage=pl.col("tasks") / (tasks.height if tasks is not None else None),
            cost_per_pass=pl.when(pl.col("passes") > 0).then(
                pl.col("total_cost") / pl.col("passes")
            ),
        )
        .sort(["pass_at_1", "agent"], descending=[True, False])
        .with_row_index("rank", offset=1)
    )
    return table.with_columns(pl.col("rank").cast(pl.Int32))


def _per_task_rate(counts: pl.DataFrame, agent: str) -> pl.DataFrame:
    return counts.filter(pl.col("agent") == agent).select("task_id", rate=pl.col("c") / pl.col("n"))


def _comparisons(
    counts: pl.DataFrame,
    ranking: list[str],
    n_resamples: int,
    rng: np.random.Generator,
    confidence: float,
) -> pl.DataFrame:
    """Paired bootstrap of each agent against the next one in the ranking, Holm-corrected."""
    rows = []
    for better, worse in zip(ranking, ranking[1:], strict=False):
        paired = _per_task_rate(counts, better).join(
            _per_task_rate(counts, worse), on="task_id", suffix="_b"
        )
        diff, lo, hi, p = paired_bootstrap(
            paired["rate"].to_numpy(), paired["rate_b"].to_numpy(), n_resamples, rng, confidence
        )
        rows.append(
            {
                "agent_a": better,
                "agent_b": worse,
                "paired_tasks": paired.height,
                "difference": diff,
                "difference_lo": lo,
                "difference_hi": hi,
                "p_value": p,
            }
        )
    schema = {
        "agent_a": pl.String,
        "agent_b": pl.String,
        "paired_tasks": pl.Int64,
        "difference": pl.Float64,
        "difference_lo": pl.Float64,
        "difference_hi": pl.Float64,
        "p_value": pl.Float64,
    }
    frame = pl.DataFrame(rows, schema=schema)
    adjusted, reject = holm(np.nan_to_num(frame["p_value"].to_numpy(), nan=1.0), 1 - confidence)
    return frame.with_columns(
        p_holm=pl.Series(adjusted, dtype=pl.Float64),
        significant=pl.Series(reject, dtype=pl.Boolean),
    )


def _breakdowns(
    counts: pl.DataFrame, n_resamples: int, rng: np.random.Generator, confidence: float
) -> pl.DataFrame:
    """pass@1 with its interval per agent and group of each breakdown dimension."""
    rows = []
    for dimension in BREAKDOWN_DIMENSIONS:
        grouped = counts.group_by("agent", dimension, maintain_order=True)
        for (agent, group_value), group in sorted(grouped, key=lambda item: str(item[0])):
            c = group["c"].to_numpy().astype(float)
            n = group["n"].to_numpy().astype(float)
            estimate, lo, hi = bootstrap_interval(c, n, n_resamples, rng, confidence)
            rows.append(
                {
                    "agent": agent,
                    "dimension": dimension,
                    "group": str(group_value),
                    "tasks": len(group),
                    "attempts": int(n.sum()),
                    "pass_at_1": estimate,
                    "pass_at_1_lo": lo,
                    "pass_at_1_hi": hi,
                }
            )
    return pl.DataFrame(rows)


def _heatmap(verdicts: pl.DataFrame) -> pl.DataFrame:
    """pass@1 pooled over agents by task kind and scan-quality tag."""
    return (
        verdicts.group_by("kind", "quality")
        .agg(attempts=pl.len(), pass_at_1=pl.col("passed").mean())
        .sort("kind", "quality")
    )


def _causes(verdicts: pl.DataFrame) -> pl.DataFrame:
    """Failure causes per agent: count and share of the agent's attempts."""
    totals = verdicts.group_by("agent").agg(attempts=pl.len())
    return (
        verdicts.filter(~pl.col("passed"))
        .group_by("agent", "cause")
        .agg(count=pl.len())
        .join(totals, on="agent")
        .with_columns(share=pl.col("count") / pl.col("attempts"))
        .sort("agent", "count", descending=[False, True])
    )


def _ceiling(
    verdicts: pl.DataFrame, n_resamples: int, rng: np.random.Generator, confidence: float
) -> pl.DataFrame:
    """Majority vote over every attempt of every agent, and tasks any attempt solved."""
    vote = majority_vote(verdicts, by=None)["passed"].to_numpy().astype(float)
    solved = (
        verdicts.group_by("task_id").agg(pl.col("passed").any())["passed"].to_numpy().astype(float)
    )
    rows = []
    for method, values in (("majority_vote_all_agents", vote), ("any_attempt_solved", solved)):
        estimate, lo, hi = bootstrap_interval(values, None, n_resamples, rng, confidence)
        rows.append({"method": method, "tasks": values.size, "rate": estimate, "lo": lo, "hi": hi})
    return pl.DataFrame(rows)
