"""``ledgerforge solve`` then ``ledgerforge grade``, end to end on a real release of the sample
archive, with the OpenAI and Anthropic SDKs driven through a mocked HTTP transport:
responses.jsonl in the grader's format, the source pages in the prompt, k attempts,
resume with zero new requests, the cache, the budget stop keeping what was answered,
a missing key before any request. No network."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pipeline.cli import app
from pipeline.config import data_paths
from pipeline.grade.runs import grade_responses, read_responses
from pipeline.grade.solve import public_tasks, solve_release
from pipeline.llm.client import MissingKey, make_llm
from pipeline.llm.transport import use_transport
from tests.grade.llm_fixtures import (
    ANTHROPIC_KEY,
    INPUT_TOKENS,
    OPENAI_KEY,
    OUTPUT_TOKENS,
    PRICES,
    MockAPI,
    SampleRelease,
    build_sample_release,
    task_of,
)

MODELS = {"openai": "openai:gpt-test", "anthropic": "anthropic:claude-test"}


@pytest.fixture(scope="module")
def sample(tmp_path_factory) -> SampleRelease:
    return build_sample_release(tmp_path_factory.mktemp("solve_sample"))


@pytest.fixture
def keys(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
    monkeypatch.setenv("ANTHROPIC_API_KEY", ANTHROPIC_KEY)
    for name in ("LEDGERFORGE_LLM_CACHE", "LEDGERFORGE_LLM_BUDGET_USD", "LEDGERFORGE_LLM_CONFIG"):
        monkeypatch.delenv(name, raising=False)


def _agent(sample: SampleRelease) -> MockAPI:
    """Answers right on even-numbered tasks (by sorted id), a known-wrong slip on the others;
    attempt 2 (its system prompt says so) is always right."""
    public = public_tasks(sample.release)
    questions = dict(zip(public["question"], public["task_id"], strict=True))
    order = {t: i for i, t in enumerate(public["task_id"])}

    def answer(call):
        task_id = task_of(call.prompt, questions)
        key = sample.keys[task_id]
        if order[task_id] % 2 == 0 or "(Attempt 2.)" in call.system:
            value = Decimal(key["answer"])
            return f"Reading the table and adding up.\n\nANSWER: {value:,}"
        return f"I read the figure.\nANSWER: {key['known_wrong'][0]['value']}"

    return MockAPI(answer)


def _llm(provider: str, root: Path, **overrides):
    overrides.setdefault("prices", PRICES)
    overrides.setdefault("max_retries", 0)
    return make_llm(MODELS[provider], data_paths(root), **overrides)


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_solve_then_grade_end_to_end(sample, keys, tmp_path, provider):
    api = _agent(sample)
    n_tasks = public_tasks(sample.release).height
    out = tmp_path / "responses.jsonl"
    progress: list[str] = []
    with use_transport(api.transport):
        result = solve_release(
            sample.release,
            _llm(provider, tmp_path / "run"),
            k=2,
            out=out,
            data_paths=sample.paths,
            progress=progress.append,
        )
    assert result.written == 2 * n_tasks and result.skipped == 0 and not result.errors
    assert not result.budget_stopped and result.remaining == 0
    assert len(api.calls) == 2 * n_tasks  # one HTTP request per attempt
    assert progress and progress[-1].startswith(f"solve {MODELS[provider]}: {2 * n_tasks}/")

    # the prompt: the question, its format, and the OCR text of the oracle's pages
    first = api.calls[0]
    assert "Unit: millions of dollars." in first.prompt
    assert "synth_bulletin_19" in first.prompt and "page " in first.prompt
    assert "Budget receipts by source" in first.prompt or "Public debt by type" in first.prompt
    assert "ANSWER: <number>" in first.system

    attempts, problems = read_responses(out)
    assert not problems and len(attempts) == 2 * n_tasks
    line = attempts[0]
    assert line["agent"] == MODELS[provider]
    assert line["tokens"] == INPUT_TOKENS + OUTPUT_TOKENS
    price = PRICES[MODELS[provider]]
    expected_cost = (INPUT_TOKENS * price["input"] + OUTPUT_TOKENS * price["output"]) / 1e6
    assert line["cost"] == pytest.approx(expected_cost)
    assert line["seconds"] >= 0 and line["cached"] is False

    run = grade_responses(sample.release, out, tmp_path / "grading")
    verdicts = run.verdicts
    assert verdicts.height == 2 * n_tasks and run.problems.height == 0
    first_attempts = verdicts.filter(verdicts["attempt"] == 1)
    expected_passes = (n_tasks + 1) // 2  # the even-numbered tasks
    assert int(first_attempts["passed"].sum()) == expected_passes
    failed = first_attempts.filter(~first_attempts["passed"])
    assert set(failed["cause"]) == {"known_wrong"}
    assert bool(verdicts.filter(verdicts["attempt"] == 2)["passed"].all())
    assert verdicts["cost"].sum() == pytest.approx(2 * n_tasks * expected_cost)

    # no key value in anything written: responses, cache, call log, grading
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert any(p.name == "calls.jsonl" for p in written)
    for path in written:
        data = path.read_bytes()
        assert OPENAI_KEY.encode() not in data and ANTHROPIC_KEY.encode() not in data, path


def test_resume_asks_nothing_twice_and_the_cache_makes_a_rerun_free(sample, keys, tmp_path):
    api = _agent(sample)
    n_tasks = public_tasks(sample.release).height
    out = tmp_path / "responses.jsonl"
    root = tmp_path / "run"
    with use_transport(api.transport):
        solve_release(sample.release, _llm("openai", root), out=out, data_paths=sample.paths)
        assert len(api.calls) == n_tasks
        # resume: every attempt is in the file, nothing is asked
        again = solve_release(sample.release, _llm("openai", root), out=out)
        assert len(api.calls) == n_tasks
        assert (again.written, again.skipped) == (0, n_tasks)
        # k=2 on top: only the second attempts are asked
        more = solve_release(
            sample.release, _llm("openai", root), k=2, out=out, data_paths=sample.paths
        )
        assert len(api.calls) == 2 * n_tasks and more.written == n_tasks
        # the file lost: a fresh run is answered from the response cache, no HTTP request
        out.unlink()
        cached = solve_release(
            sample.release, _llm("openai", root), out=out, data_paths=sample.paths
        )
    assert len(api.calls) == 2 * n_tasks
    assert cached.written == n_tasks and cached.stats["cache_hits"] == n_tasks
    records = [json.loads(x) for x in out.read_text().splitlines()]
    assert all(r["cached"] for r in records)
    assert all(r["cost"] > 0 for r in records)  # what the answer cost when it was bought


def test_resume_survives_a_line_cut_by_a_crash(sample, keys, tmp_path):
    api = _agent(sample)
    n_tasks = public_tasks(sample.release).height
    out = tmp_path / "responses.jsonl"
    with use_transport(api.transport):
        solve_release(sample.release, _llm("openai", tmp_path / "a"), out=out)
        lines = out.read_text().splitlines()
        out.write_text("\n".join(lines[:-1]) + "\n" + lines[-1][:25])  # the last line cut
        result = solve_release(sample.release, _llm("openai", tmp_path / "b"), out=out)
    assert result.written == 1 and len(api.calls) == n_tasks + 1
    attempts, problems = read_responses(out)
    assert len(attempts) == n_tasks
    assert [p["problem"].split(":")[0] for p in problems] == ["malformed JSON"]


def test_budget_stop_keeps_every_answer_and_a_rerun_continues(sample, keys, tmp_path):
    api = _agent(sample)
    n_tasks = public_tasks(sample.release).height
    out = tmp_path / "responses.jsonl"
    root = tmp_path / "run"
    per_call = (INPUT_TOKENS * 0.40 + OUTPUT_TOKENS * 1.60) / 1e6
    with use_transport(api.transport):
        stopped = solve_release(
            sample.release,
            _llm("openai", root, budget_usd=per_call * 5.5, concurrency=1),
            out=out,
        )
        assert stopped.budget_stopped and "budget" in stopped.message
        assert stopped.written == 6 == len(api.calls)  # admitted while spent < budget
        assert stopped.remaining == n_tasks - 6
        attempts, problems = read_responses(out)
        assert len(attempts) == 6 and not problems
        assert stopped.stats["cost_usd"] == pytest.approx(6 * per_call)
        # a larger budget continues where it stopped: only the missing attempts are asked
        rest = solve_release(sample.release, _llm("openai", root, budget_usd=1.0), out=out)
    assert rest.written == n_tasks - 6 and rest.skipped == 6
    assert len(api.calls) == n_tasks
    attempts, _ = read_responses(out)
    assert sorted(a["task_id"] for a in attempts) == sorted(public_tasks(sample.release)["task_id"])


def test_missing_key_fails_before_any_request(sample, monkeypatch, tmp_path):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    api = _agent(sample)
    with use_transport(api.transport), pytest.raises(MissingKey, match="OPENAI_API_KEY"):
        solve_release(sample.release, _llm("openai", tmp_path), out=tmp_path / "r.jsonl")
    assert api.calls == []
    assert not (tmp_path / "r.jsonl").exists() or not (tmp_path / "r.jsonl").read_text()


def test_closed_book_without_a_data_root(sample, keys, tmp_path):
    api = _agent(sample)
    with use_transport(api.transport):
        solve_release(sample.release, _llm("openai", tmp_path), out=tmp_path / "r.jsonl")
    assert all("No source text is given" in c.prompt for c in api.calls)
    assert not any("synth_bulletin" in c.prompt for c in api.calls)


def test_cli_solve_then_grade(sample, keys, tmp_path, monkeypatch):
    """`ledgerforge solve` and `ledgerforge grade` as a user types them (prices from the
    config file; the mocked transport is set in-process)."""
    api = _agent(sample)
    config = tmp_path / "llm.yaml"
    config.write_text(
        "prices:\n  anthropic:claude-test: {input: 3.0, output: 15.0}\n"
        "defaults:\n  concurrency: 2\n  max_retries: 0\n  timeout_s: 5\n  budget_usd: null\n"
    )
    monkeypatch.setenv("LEDGERFORGE_LLM_CONFIG", str(config))
    n_tasks = public_tasks(sample.release).height
    out = tmp_path / "responses.jsonl"
    runner = CliRunner()
    with use_transport(api.transport):
        solved = runner.invoke(
            app,
            [
                "solve",
                str(sample.release),
                "--model",
                "anthropic:claude-test",
                "--out",
                str(out),
                "--data-root",
                str(sample.paths.root),
            ],
        )
    assert solved.exit_code == 0, solved.output
    assert f"{n_tasks} attempts written" in solved.output
    assert len(api.calls) == n_tasks
    graded = runner.invoke(
        app, ["grade", str(sample.release), str(out), "--out", str(tmp_path / "g")]
    )
    assert graded.exit_code == 0, graded.output
    assert f"graded {n_tasks} attempts" in graded.output
    bad = runner.invoke(app, ["solve", str(sample.release), "--model", "template"])
    assert bad.exit_code == 2 and "not a model" in bad.output


def test_cli_budget_stop_exits_3_and_keeps_the_answers(sample, keys, tmp_path, monkeypatch):
    api = _agent(sample)
    config = tmp_path / "llm.yaml"
    config.write_text(
        "prices:\n  openai:gpt-test: {input: 0.4, output: 1.6}\n"
        "defaults:\n  concurrency: 1\n  max_retries: 0\n  timeout_s: 5\n  budget_usd: null\n"
    )
    monkeypatch.setenv("LEDGERFORGE_LLM_CONFIG", str(config))
    out = tmp_path / "responses.jsonl"
    with use_transport(api.transport):
        result = CliRunner().invoke(
            app,
            ["solve", str(sample.release), "--model", "openai:gpt-test", "--out", str(out),
             "--budget", "0.000001", "--data-root", str(tmp_path / "d")],
        )  # fmt: skip
    assert result.exit_code == 3, result.output
    assert "budget reached" in result.output and "1 attempts written" in result.output
    attempts, _ = read_responses(out)
    assert len(attempts) == 1 == len(api.calls)


def test_format_request_states_unit_and_places():
    from pipeline.grade.solve import format_request

    assert format_request(1, "millions of dollars") == (
        "Unit: millions of dollars. Precision: 1 decimal place."
    )
    assert format_request(0, "unknown") == "Precision: a whole number."
    assert format_request(None, None) == ""
