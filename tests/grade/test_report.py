"""The grading report renders: Markdown, self-contained HTML with embedded plots, tables."""

from __future__ import annotations

import base64
import json
import re

import polars as pl

from pipeline.grade.report import write_report
from pipeline.grade.runs import grade_responses

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def test_report_renders_tables_and_embedded_plots(qa_release, simulated_responses, tmp_path):
    release, tasks = qa_release(n_tasks=42)
    responses = tmp_path / "responses.jsonl"
    simulated_responses(tasks, {"alpha": 0.9, "beta <b>": 0.4}, 3, responses)
    with responses.open("a", encoding="utf-8") as handle:
        handle.write(
            json.dumps({"task_id": "nope", "agent": "alpha", "attempt": 1, "response": "ANSWER: 1"})
            + "\n"
        )
    run = grade_responses(release, responses, tmp_path / "graded")
    paths = write_report(run, tmp_path / "report", n_resamples=300, seed=2)

    page = paths["html"].read_text(encoding="utf-8")
    images = re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', page)
    assert len(images) == 4
    assert all(base64.b64decode(image).startswith(PNG_MAGIC) for image in images)
    assert "<table" in page and "pass@1" in page and "pass@3" in page and "pass^3" in page
    assert "beta &lt;b&gt;" in page and "beta <b>" not in page  # agent names are escaped
    assert 'src="figures/' not in page  # self-contained: no external image

    markdown = paths["markdown"].read_text(encoding="utf-8")
    assert "| rank | agent |" in markdown
    assert "![pass@1 per agent](figures/pass_at_1.png)" in markdown
    assert "## Lines not graded" in markdown and "unknown task id" in markdown
    for name in ("pass_at_1", "heatmap", "causes", "cost"):
        assert paths[f"figure_{name}"].read_bytes().startswith(PNG_MAGIC)

    agents = pl.read_parquet(paths["metrics_agents"])
    assert agents["agent"].to_list() == ["alpha", "beta <b>"]
    # the Markdown table shows the same pass@1 as the metrics file
    best = agents.row(0, named=True)
    assert f"{100 * best['pass_at_1']:.1f}% [{100 * best['pass_at_1_lo']:.1f}," in markdown


def test_report_without_cost_still_renders(qa_release, tmp_path):
    release, tasks = qa_release(n_tasks=6)
    responses = tmp_path / "responses.jsonl"
    lines = [
        {
            "task_id": row["task_id"],
            "agent": "solo",
            "attempt": 1,
            "response": f"ANSWER: {row['answer']}",
        }
        for row in tasks.iter_rows(named=True)
    ]
    responses.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    run = grade_responses(release, responses, tmp_path / "graded")
    paths = write_report(run, tmp_path / "report", n_resamples=100)
    page = paths["html"].read_text(encoding="utf-8")
    assert page.count("data:image/png;base64,") == 4
    assert "100.0%" in page
    assert "Lines not graded" not in page
