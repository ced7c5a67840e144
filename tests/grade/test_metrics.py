"""Metrics against closed forms and a simulated evaluation with known agent rates."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import polars as pl
import pytest

from pipeline.grade.metrics import (
    bootstrap_interval,
    holm,
    majority_vote,
    paired_bootstrap,
    pass_at_k,
    pass_hat_k,
    summarize,
)
from pipeline.grade.runs import grade_responses


@pytest.mark.parametrize("n", range(1, 7))
def test_pass_at_k_and_pass_hat_k_match_enumeration(n: int) -> None:
    for c in range(n + 1):
        outcomes = [True] * c + [False] * (n - c)
        for k in range(1, n + 1):
            subsets = list(combinations(outcomes, k))
            any_pass = sum(any(s) for s in subsets) / len(subsets)
            all_pass = sum(all(s) for s in subsets) / len(subsets)
            assert pass_at_k(n, c, k) == pytest.approx(any_pass, abs=1e-12)
            assert pass_hat_k(n, c, k) == pytest.approx(all_pass, abs=1e-12)


def test_pass_at_k_is_vectorised_and_checks_its_inputs() -> None:
    n = np.array([3, 3, 5])
    c = np.array([0, 1, 5])
    np.testing.assert_allclose(pass_at_k(n, c, 2), [0.0, 2 / 3, 1.0])
    np.testing.assert_allclose(pass_hat_k(n, c, 2), [0.0, 0.0, 1.0])
    with pytest.raises(ValueError, match="at least k=4"):
        pass_at_k(n, c, 4)
    with pytest.raises(ValueError, match="between 0"):
        pass_at_k(3, 4, 1)


def test_holm_on_the_textbook_example() -> None:
    # four tests at alpha 0.05: sorted 0.005, 0.01, 0.03, 0.04 against 0.05/4, /3, /2, /1;
    # the third fails (0.03 > 0.025) so it and everything after are retained
    adjusted, reject = holm([0.01, 0.04, 0.03, 0.005], alpha=0.05)
    np.testing.assert_allclose(adjusted, [0.03, 0.06, 0.06, 0.02])
    assert reject.tolist() == [True, False, False, True]
    adjusted, reject = holm([0.5, 0.9])
    np.testing.assert_allclose(adjusted, [1.0, 1.0])
    assert holm([])[0].size == 0


def test_bootstrap_interval_covers_a_known_rate_at_about_the_nominal_rate() -> None:
    rng = np.random.default_rng(2024)
    true_rate, n_tasks, attempts, datasets = 0.3, 100, 3, 200
    passes = rng.binomial(attempts, true_rate, size=(datasets, n_tasks)).astype(float)
    trials = np.full(n_tasks, float(attempts))
    covered = 0
    for i in range(datasets):
        _, lo, hi = bootstrap_interval(passes[i], trials, n_resamples=1000, rng=i)
        covered += lo <= true_rate <= hi
    coverage = covered / datasets
    assert 0.90 <= coverage <= 0.99, coverage


def test_bootstrap_is_seedable() -> None:
    values = np.random.default_rng(1).random(50)
    assert bootstrap_interval(values, rng=5) == bootstrap_interval(values, rng=5)
    assert bootstrap_interval(values, rng=5) != bootstrap_interval(values, rng=6)
    assert np.isnan(bootstrap_interval(np.array([]))[0])


def test_paired_bootstrap_separates_equal_from_different_agents() -> None:
    rng = np.random.default_rng(3)
    a = rng.binomial(1, 0.5, 200).astype(float)
    diff, lo, hi, p = paired_bootstrap(a, a.copy(), n_resamples=2000, rng=0)
    assert diff == 0 and p == 1.0
    better = np.minimum(1, a + rng.binomial(1, 0.5, 200))
    diff, lo, hi, p = paired_bootstrap(better, a, n_resamples=2000, rng=0)
    assert diff > 0 and lo > 0 and p < 0.001


def _verdicts(rows: list[tuple[str, str, int, str | None, bool]]) -> pl.DataFrame:
    return pl.DataFrame(
        [
            {
                "agent": a,
                "task_id": t,
                "line": line,
                "number": num,
                "passed": ok,
                "abstained": False,
            }
            for line, (a, t, _, num, ok) in enumerate(rows, start=1)
        ]
    )


def test_majority_vote_takes_the_most_common_number() -> None:
    verdicts = _verdicts(
        [
            ("x", "t1", 1, "5", False),
            ("x", "t1", 2, "7", True),
            ("x", "t1", 3, "7.0", True),  # same value as 7
            ("x", "t2", 1, "5", True),
            ("x", "t2", 2, "6", False),  # tie: the first given wins
            ("x", "t3", 1, None, False),
            ("y", "t1", 1, "5", False),
        ]
    )
    votes = {(r["agent"], r["task_id"]): r["passed"] for r in majority_vote(verdicts).to_dicts()}
    assert votes == {("x", "t1"): True, ("x", "t2"): True, ("x", "t3"): False, ("y", "t1"): False}
    pooled = {r["task_id"]: r["passed"] for r in majority_vote(verdicts, by=None).to_dicts()}
    assert pooled == {"t1": False, "t2": True, "t3": False}  # 5 appears twice, 7 twice: 5 first


TRUE_BASE_RATES = {"ace": 0.95, "good": 0.75, "fair": 0.5, "weak": 0.25}


@pytest.fixture
def simulated_run(qa_release, simulated_responses, tmp_path):
    release, tasks = qa_release(n_tasks=150, seed=3)
    responses = tmp_path / "responses.jsonl"
    truth = simulated_responses(tasks, TRUE_BASE_RATES, 3, responses, seed=5)
    return grade_responses(release, responses, tmp_path / "out"), truth


def test_simulated_evaluation_recovers_rates_and_ranking(simulated_run) -> None:
    run, truth = simulated_run
    summary = summarize(run.verdicts, run.tasks, n_resamples=2000, seed=1)
    agents = {r["agent"]: r for r in summary.agents.iter_rows(named=True)}
    for agent, rate in truth.items():
        row = agents[agent]
        assert row["pass_at_1_lo"] <= rate <= row["pass_at_1_hi"], (agent, rate, row)
        assert row["pass_at_1_lo"] <= row["pass_at_1"] <= row["pass_at_1_hi"]
        assert row["pass_hat_k"] <= row["pass_at_1"] <= row["pass_at_k"]
        assert row["tasks"] == 150 and row["attempts"] == 450 and row["coverage"] == 1.0
        assert row["mean_cost"] == pytest.approx(TRUE_BASE_RATES[agent] * 2 + 0.1, abs=0.02)
    assert summary.k == 3
    assert summary.agents["agent"].to_list() == sorted(truth, key=truth.get, reverse=True)
    assert summary.agents["rank"].to_list() == [1, 2, 3, 4]
    # adjacent agents differ by about 0.2 on 150 tasks: every gap is significant after Holm
    comparisons = summary.comparisons
    assert comparisons.height == 3
    assert comparisons["significant"].all()
    assert (comparisons["p_holm"] >= comparisons["p_value"]).all()
    assert (comparisons["difference_lo"] > 0).all()


def test_simulated_breakdowns_causes_and_ceilings(simulated_run) -> None:
    run, _ = simulated_run
    summary = summarize(run.verdicts, run.tasks, n_resamples=500, seed=1)
    quality = summary.breakdowns.filter(
        (pl.col("dimension") == "quality") & (pl.col("agent") == "ace")
    )
    rate = dict(zip(quality["group"], quality["pass_at_1"], strict=True))
    assert rate["clear"] > rate["very blurry"] + 0.2  # quality factors 1.0 vs 0.6
    assert set(summary.breakdowns["dimension"].unique()) == {"kind", "quality", "multi_document"}
    assert summary.breakdowns.filter(pl.col("dimension") == "kind")["group"].n_unique() == 7
    assert summary.heatmap["attempts"].sum() == run.verdicts.height
    causes = summary.causes.filter(pl.col("agent") == "weak")
    assert (
        causes["count"].sum()
        == run.verdicts.filter((pl.col("agent") == "weak") & ~pl.col("passed")).height
    )
    ceiling = dict(zip(summary.ceiling["method"], summary.ceiling["rate"], strict=True))
    best = summary.agents["pass_at_1"].max()
    assert ceiling["any_attempt_solved"] >= ceiling["majority_vote_all_agents"]
    assert ceiling["any_attempt_solved"] >= best


def test_summarize_is_reproducible_with_a_seed(simulated_run) -> None:
    run, _ = simulated_run
    first = summarize(run.verdicts, n_resamples=300, seed=9).agents
    second = summarize(run.verdicts, n_resamples=300, seed=9).agents
    assert first.equals(second)
