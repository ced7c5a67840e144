"""The LLM judge backend through the real OpenAI and Anthropic SDK clients on a mocked
HTTP transport (protocol-correct payloads, no network): verdicts, the repair round,
error verdicts, agreement with human labels next to the checker, and the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import openpyxl
import pytest
from typer.testing import CliRunner

from pipeline.judge import CheckerJudge, Judge, JudgeCase, agreement, judge_batch
from pipeline.judge.llm_judge import (
    VERDICT_SCHEMA,
    LLMJudge,
    VerdictError,
    parse_verdict,
)
from pipeline.llm.transport import use_transport
from tests.judge.llm_mock import IN_TOKENS, MODELS, OUT_TOKENS, PRICES, MockProvider, make_test_llm

INSTRUCTION = "Add a Total column D with Units times Price for every region."
PROVIDERS = ["openai", "anthropic"]
KEYS = {"OPENAI_API_KEY": "sk-test-sentinel-openai", "ANTHROPIC_API_KEY": "sk-ant-sentinel-x"}


@pytest.fixture(autouse=True)
def _keys(monkeypatch):
    for var, value in KEYS.items():
        monkeypatch.setenv(var, value)


def write_book(path: Path, total: dict[int, object] | None = None, north: str = "North") -> Path:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Sales"
    ws.append(["Region", "Units", "Price"])
    for i, region in enumerate([north, "South", "East"], start=1):
        ws.append([region, i * 4, 1.5 * i])
    if total is not None:
        ws["D1"] = "Total"
        for row, value in total.items():
            ws[f"D{row}"] = value
    wb.save(path)
    return path


RIGHT = {2: 6.0, 3: 24.0, 4: 54.0}


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    return {
        "input": write_book(tmp_path / "input.xlsx"),
        "reference": write_book(tmp_path / "reference.xlsx", RIGHT),
        "good": write_book(tmp_path / "good.xlsx", RIGHT),
        "wrong": write_book(tmp_path / "wrong.xlsx", {2: 6.0, 3: 25, 4: 54.0}),
        "messy": write_book(tmp_path / "messy.xlsx", RIGHT, north="NORTH"),
    }


def case(files: dict[str, Path], output: str, case_id: str | None = None) -> JudgeCase:
    return JudgeCase(
        case_id=case_id or output,
        instruction=INSTRUCTION,
        output_path=files[output],
        reference_path=files["reference"],
        input_path=files["input"],
    )


def verdict(ok: bool, why: str, **marks: bool) -> dict:
    rubric = {
        "completeness": True,
        "numeric_correctness": True,
        "no_unnecessary_edits": True,
        "readable_formatting": True,
    }
    rubric.update(marks)
    return {"verdict": "pass" if ok else "fail", "rationale": why, "rubric": rubric}


def lenient_judge(prompt: str, body: dict) -> dict:
    """A model that reads the agent's snapshot: catches a wrong total and a missing
    column, but lets an overwritten input cell through (to disagree with people)."""
    agent = prompt.split("### Agent output", 1)[1].split("Answer with one JSON", 1)[0]
    if "(D3, 25," in agent:
        return verdict(False, "Sales!D3 is 25, the reference has 24.", numeric_correctness=False)
    if "(D2," not in agent:
        return verdict(False, "The Total column is missing.", completeness=False)
    return verdict(True, "All totals in column D match the reference.")


def test_verdict_schema_and_parser():
    good = parse_verdict(verdict(True, "fine"))
    assert good.passed and good.rubric_marks() == {
        "completeness": True,
        "correctness": True,
        "no_unnecessary_edits": True,
        "formatting": True,
    }
    assert (
        parse_verdict(None, "```json\n" + json.dumps(verdict(False, "no")) + "\n```").verdict
        == "fail"
    )
    for bad in (
        {"verdict": "PASS", "rationale": "x", "rubric": verdict(True, "x")["rubric"]},
        {"verdict": "pass", "rationale": "x"},
        {**verdict(True, "x"), "rubric": {"completeness": "yes"}},
        {**verdict(True, "x"), "extra": 1},
    ):
        with pytest.raises(VerdictError, match="schema violation"):
            parse_verdict(bad)
    with pytest.raises(VerdictError, match="not a JSON object"):
        parse_verdict(None, "PASS: looks right")
    assert VERDICT_SCHEMA["properties"]["verdict"]["enum"] == ["pass", "fail"]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_pass_and_fail_verdicts(provider, files, tmp_path):
    mock = MockProvider(lenient_judge)
    judge = LLMJudge(make_test_llm(provider, tmp_path), recalculate=False)
    assert isinstance(judge, Judge)
    assert judge.name == f"llm-judge-v1:{provider}:{MODELS[provider]}"
    with use_transport(mock.transport()):
        ok = judge.judge(case(files, "good"))
        bad = judge.judge(case(files, "wrong"))
    assert ok.verdict is True and ok.status == "pass"
    assert ok.rationale == "PASS: All totals in column D match the reference."
    assert ok.rubric == dict.fromkeys(
        ("completeness", "correctness", "no_unnecessary_edits", "formatting"), True
    )
    assert bad.verdict is False and bad.status == "fail"
    assert bad.rubric["correctness"] is False and bad.rubric["completeness"] is True
    assert "Sales!D3 is 25" in bad.rationale
    # the prompt is the modify prompt over the evidence, asking for the structured verdict
    assert "## Reference changes (diff_ref: input -> reference)" in ok.evidence.prompt
    assert '"rubric": {"completeness"' in ok.evidence.prompt
    assert "(D3, 25, I, )" in bad.evidence.prompt
    usage = f"{IN_TOKENS} input / {OUT_TOKENS} output tokens"
    assert any(usage in n for n in ok.notes)
    row = bad.row()
    assert row["status"] == "fail" and row["correctness"] is False and row["diff_model_edits"] >= 1
    # protocol: structured output by JSON schema (OpenAI) / one forced tool (Anthropic)
    body = mock.requests[0]["body"]
    if provider == "openai":
        assert body["messages"][0]["role"] == "system"
        fmt = body["response_format"]
        assert fmt["type"] == "json_schema" and fmt["json_schema"]["name"] == "verdict"
        assert fmt["json_schema"]["schema"] == VERDICT_SCHEMA and fmt["json_schema"]["strict"]
    else:
        assert body["tools"][0]["input_schema"] == VERDICT_SCHEMA
        assert body["tool_choice"]["name"] == "verdict" and "system" in body
    # cost from the price table: 2 calls
    price = PRICES[str(judge.llm.spec)]
    expected = 2 * (IN_TOKENS * price["input"] + OUT_TOKENS * price["output"]) / 1e6
    assert judge.llm.stats["cost_usd"] == pytest.approx(expected)


def malformed(provider: str):
    """Violates the schema: invalid JSON (OpenAI), a tool input without a rubric
    (Anthropic)."""
    if provider == "openai":
        return "PASS - the totals look right to me."
    return {"verdict": "pass", "rationale": "looks right"}


@pytest.mark.parametrize("provider", PROVIDERS)
def test_malformed_output_repair_then_error_verdict(provider, files, tmp_path):
    mock = MockProvider(lambda prompt, body: malformed(provider))
    judge = LLMJudge(make_test_llm(provider, tmp_path), recalculate=False)
    with use_transport(mock.transport()):
        j = judge.judge(case(files, "good"))
    assert len(mock.requests) == 2  # the answer, one repair round, then give up
    assert j.verdict is None and j.status == "error"  # never a pass
    assert j.error.startswith("schema_violation: no valid verdict after 1 repair round(s)")
    repair = mock.requests[1]["body"]["messages"]
    assert repair[-2]["role"] == "assistant" and repair[-1]["role"] == "user"
    assert "Your previous reply is not a valid verdict" in repair[-1]["content"]
    assert j.row()["verdict"] is None and j.row()["status"] == "error"
    assert any("2 call(s)" in n for n in j.notes)  # the violations' tokens are counted


@pytest.mark.parametrize("provider", PROVIDERS)
def test_repair_round_recovers(provider, files, tmp_path):
    def answer(prompt, body):
        if "Your previous reply is not a valid verdict" in prompt:
            return lenient_judge(body["messages"][-3]["content"], body)
        return malformed(provider)

    mock = MockProvider(answer)
    judge = LLMJudge(make_test_llm(provider, tmp_path), recalculate=False)
    with use_transport(mock.transport()):
        j = judge.judge(case(files, "wrong"))
    assert len(mock.requests) == 2 and j.verdict is False and j.error is None


def test_client_error_is_an_error_verdict(files, tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY")
    mock = MockProvider(lenient_judge)
    judge = LLMJudge(make_test_llm("openai", tmp_path), recalculate=False)
    with use_transport(mock.transport()):
        j = judge.judge(case(files, "good"))
    assert j.verdict is None and j.status == "error" and "OPENAI_API_KEY" in j.error
    assert mock.requests == []


def test_budget_cap_gives_error_verdicts_not_passes(files, tmp_path):
    mock = MockProvider(lenient_judge)
    llm = make_test_llm("openai", tmp_path, budget_usd=1e-6, concurrency=1)
    judge = LLMJudge(llm, recalculate=False)
    with use_transport(mock.transport()):
        got = judge.judge_many([case(files, n) for n in ("good", "wrong", "messy")])
    assert len(mock.requests) == 1  # the first call spent the budget; no new call issued
    assert [j.status for j in got] == ["pass", "error", "error"]
    assert "BudgetExceeded" in got[1].error and got[2].verdict is None
    assert llm.stats["budget_stopped"]


def test_qa_case_uses_the_qa_prompt(tmp_path):
    def answer(prompt, body):
        assert "## Reference answer\n1,250" in prompt and "## Agent's answer\n1250" in prompt
        return verdict(True, "Same number.")

    mock = MockProvider(answer)
    judge = LLMJudge(make_test_llm("anthropic", tmp_path))
    qa = JudgeCase("q1", "Total units?", None, None, task_kind="qa",
                   reference_answer="1,250", model_answer="1250")  # fmt: skip
    with use_transport(mock.transport()):
        j = judge.judge(qa)
    assert j.verdict is True and len(mock.requests) == 1


LABELS = {"good": True, "wrong": False, "messy": False, "input": False}


@pytest.mark.parametrize("provider", PROVIDERS)
def test_agreement_of_both_backends_with_labels(provider, files, tmp_path):
    cases = [case(files, name) for name in LABELS]
    checker = judge_batch(cases, tmp_path / "checker", judge=CheckerJudge(recalculate=False))
    mock = MockProvider(lenient_judge)
    with use_transport(mock.transport()):
        llm = judge_batch(
            cases,
            tmp_path / "llm",
            judge=LLMJudge(make_test_llm(provider, tmp_path), recalculate=False),
        )
    a = agreement(checker, LABELS)
    assert (a.n, a.tp, a.fp, a.fn, a.tn) == (4, 1, 0, 0, 3)
    assert (a.accuracy, a.precision, a.recall) == (1.0, 1.0, 1.0)
    b = agreement(llm, LABELS)  # the lenient model passes the overwritten input cell
    assert (b.n, b.tp, b.fp, b.fn, b.tn) == (4, 1, 1, 0, 2)
    assert (b.accuracy, b.precision, b.recall) == (0.75, 0.5, 1.0)
    assert (tmp_path / "llm" / "judgements.parquet").exists()
    assert "Answer with one JSON object" in (tmp_path / "llm" / "cases" / "good.md").read_text()


def test_cli_judge_with_both_backends_and_labels(files, tmp_path, monkeypatch):
    from pipeline.cli import app

    monkeypatch.setenv("LEDGERFORGE_DATA", str(tmp_path / "data"))
    items = [
        {
            "case_id": name,
            "instruction": INSTRUCTION,
            "input": str(files["input"]),
            "reference": str(files["reference"]),
            "output": str(files[name]),
        }
        for name in LABELS
    ]
    (tmp_path / "cases.json").write_text(json.dumps(items))
    (tmp_path / "labels.csv").write_text(
        "case_id,label\n" + "".join(f"{k},{'pass' if v else 'fail'}\n" for k, v in LABELS.items())
    )
    out = tmp_path / "out"
    args = [
        "judge", str(tmp_path / "cases.json"), "--out", str(out),
        "--backend", "checker", "--backend", "openai:gpt-4.1-mini",
        "--labels", str(tmp_path / "labels.csv"), "--no-recalculate",
    ]  # fmt: skip
    mock = MockProvider(lenient_judge)
    with use_transport(mock.transport()):
        first = CliRunner().invoke(app, args)
        assert first.exit_code == 0, first.output
        assert len(mock.requests) == 4
        again = CliRunner().invoke(app, args)  # the rerun is answered from the cache
        assert again.exit_code == 0, again.output
        assert len(mock.requests) == 4
    figures = json.loads((out / "agreement.json").read_text())
    assert figures["checker-v2"]["accuracy"] == 1.0
    llm = figures["llm-judge-v1:openai:gpt-4.1-mini"]
    assert (llm["accuracy"], llm["precision"], llm["recall"]) == (0.75, 0.5, 1.0)
    assert (out / "checker" / "judgements.parquet").exists()
    assert (out / "openai_gpt-4.1-mini" / "judgements.parquet").exists()
    assert "| checker-v2 | 4 | 1.000 | 1.000 | 1.000 |" in (out / "agreement.md").read_text()
    scanned = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert any("cache" in p.parts for p in scanned)  # the response cache and call log
    for path in scanned:
        assert KEYS["OPENAI_API_KEY"].encode() not in path.read_bytes(), path
    # a missing key is a clear error before any work
    monkeypatch.delenv("OPENAI_API_KEY")
    missing = CliRunner().invoke(app, args + ["--out", str(tmp_path / "out2")])
    assert missing.exit_code == 1 and "OPENAI_API_KEY" in missing.output
    assert not (tmp_path / "out2").exists()


@pytest.mark.real_data
def test_real_spreadsheetbench_prompts_stay_bounded(shared_data, tmp_path):
    """The LLM judge on real SpreadsheetBench cases (mocked model): every case is
    asked once, every prompt stays under the cap. (All 300 self-check cases, measured
    2026-12-02: prompt median 6.8k characters, p90 36k, max 58k; 30 clipped at 60k;
    ~3.3k tokens a case, ~$0.46 for the 300 with gpt-4.1-mini at the table's prices.)"""
    from pipeline.judge import spreadsheetbench_cases

    cases = spreadsheetbench_cases(shared_data / "spreadsheetbench")[:12]
    sizes = []

    def answer(prompt, body):
        sizes.append(len(prompt))
        return verdict(True, "mock")

    mock = MockProvider(answer)
    judge = LLMJudge(make_test_llm("openai", tmp_path), recalculate=False, max_prompt_chars=20_000)
    with use_transport(mock.transport()):
        frame = judge_batch(cases, tmp_path / "out", judge=judge)
    assert frame.height == len(cases) and len(mock.requests) == len(cases)
    assert set(frame["status"]) == {"pass"}
    assert max(sizes) <= 20_000 + 500
