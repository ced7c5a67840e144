"""The Inspect AI task of a release runs offline with Inspect's mockllm and scores with
LedgerForge's grader: every verdict matches ``ledgerforge grade`` on the same responses."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

pytest.importorskip("inspect_ai")

from inspect_ai import eval as inspect_eval  # noqa: E402
from inspect_ai.model import ModelOutput, ModelUsage, get_model  # noqa: E402

from pipeline.grade.inspect_task import grade_completion, ledgerforge_qa  # noqa: E402
from pipeline.grade.runs import grade_responses  # noqa: E402
from tests.grade.conftest import build_release  # noqa: E402


def _reply(task: dict, i: int) -> str:
    """Right, a known-wrong slip, an abstention or a plain wrong number, by turn."""
    if i % 4 == 0:
        return f"The table gives it.\nANSWER: {task['answer']}"
    if i % 4 == 1:
        return f"ANSWER: {task['known_wrong'][1]['value']}"
    if i % 4 == 2:
        return "ANSWER: not available in the source"
    return "ANSWER: 12"


@pytest.fixture
def offline(monkeypatch):
    """Any attempt to open a network connection fails the test."""
    import socket

    real_connect = socket.socket.connect

    def connect(self, address):
        if self.family in (socket.AF_INET, socket.AF_INET6):
            raise AssertionError(f"network access attempted: {address}")
        return real_connect(self, address)

    monkeypatch.setattr(socket.socket, "connect", connect)


@pytest.fixture
def release(tmp_path: Path) -> tuple[Path, pl.DataFrame]:
    return build_release(tmp_path, n_tasks=8)


def test_inspect_eval_with_mockllm_scores_like_ledgerforge_grade(release, tmp_path, offline):
    release_dir, tasks = release
    by_question = {}
    replies = {}
    for i, row in enumerate(tasks.sort("task_id").iter_rows(named=True)):
        by_question[row["question"]] = row["task_id"]
        replies[row["task_id"]] = _reply(row, i)

    def answer(messages, tools, tool_choice, config):
        prompt = messages[-1].text
        task_id = next(t for q, t in by_question.items() if f"Question: {q}\n" in prompt)
        output = ModelOutput.from_content(model="mockllm", content=replies[task_id])
        output.usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)
        return output

    model = get_model("mockllm/model", custom_outputs=answer)
    logs = inspect_eval(
        ledgerforge_qa(release_dir=str(release_dir)),
        model=model,
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    log = logs[0]
    assert log.status == "success", log.error
    inspect_passed = {s.id: s.scores["ledgerforge_grader"].value == "C" for s in log.samples}
    assert len(inspect_passed) == 8

    # the same replies through `ledgerforge grade`
    responses = tmp_path / "responses.jsonl"
    responses.write_text(
        "".join(
            json.dumps({"task_id": t, "agent": "mock", "attempt": 1, "response": r}) + "\n"
            for t, r in replies.items()
        )
    )
    run = grade_responses(release_dir, responses, tmp_path / "grading")
    grade_passed = dict(zip(run.verdicts["task_id"], run.verdicts["passed"], strict=True))
    assert inspect_passed == grade_passed
    assert sum(grade_passed.values()) == 2  # tasks 0 and 4 answered right
    accuracy = log.results.scores[0].metrics["accuracy"].value
    assert accuracy == pytest.approx(2 / 8)
    causes = {s.id: s.scores["ledgerforge_grader"].metadata["cause"] for s in log.samples}
    assert causes["qa-0001"] == "known_wrong"
    assert causes["qa-0002"] == "abstained"


def test_grade_completion_reads_like_the_grader():
    key = {
        "task_id": "t",
        "answer": "-1234.5",
        "lo": "-1234.55",
        "hi": "-1234.45",
        "known_wrong": [{"value": "1234.5", "reason": "sign", "family": "sign"}],
        "unit": "millions of dollars",
        "precision": 1,
    }
    assert grade_completion(key, "Final answer: (1,234.5)").value == "C"
    slip = grade_completion(key, "ANSWER: 1,234.5")
    assert slip.value == "I" and slip.metadata["cause"] == "known_wrong"
    assert grade_completion(key, "ANSWER: 1.2345 billion").metadata["cause"] == "unit"
    assert grade_completion(key, None).answer is None


def test_inspect_task_reads_source_pages_and_runs_epochs(tmp_path, offline):
    from tests.grade.llm_fixtures import build_sample_release

    sample = build_sample_release(tmp_path / "data")

    def answer(messages, tools, tool_choice, config):
        prompt = messages[-1].text
        assert "Source text" in prompt and "synth_bulletin_19" in prompt
        key = next(r for r in sample.keys.values() if f"Question: {r['question']}\n" in prompt)
        output = ModelOutput.from_content(model="mockllm", content=f"ANSWER: {key['answer']}")
        output.usage = ModelUsage(input_tokens=100, output_tokens=5, total_tokens=105)
        return output

    log = inspect_eval(
        ledgerforge_qa(release_dir=str(sample.release), data_root=str(sample.paths.root)),
        model=get_model("mockllm/model", custom_outputs=answer),
        epochs=2,
        log_dir=str(tmp_path / "logs"),
        display="none",
    )[0]
    assert log.status == "success", log.error
    n_public = pl.read_parquet(sample.release / "data/qa/test.parquet").height
    assert len(log.samples) == 2 * n_public
    assert all(s.scores["ledgerforge_grader"].value == "C" for s in log.samples)
