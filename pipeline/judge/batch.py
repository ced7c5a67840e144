"""Judging many cases: case lists (JSON/JSONL of pairs, SpreadsheetBench folders),
the batch run (Parquet + Markdown out), and the self-check of a dataset.

A SpreadsheetBench folder (``*.json`` task list + ``spreadsheet/<id>/``) is judged in
one of two ways:

- with the agent's outputs (``<outputs_dir>/<n>_<id>_output.xlsx``): one case per
  test case, role ``output``;
- without them, as a self-check of the checker on the dataset itself: each answer
  file judged as an output (expected to pass), each input file (expected to fail),
  and optionally one generated near-miss per task (the first answer with one
  required cell changed, :mod:`pipeline.judge.nearmiss`; expected to fail).
"""

from __future__ import annotations

import glob
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path

import polars as pl

from pipeline.judge.backend import JUDGEMENTS_SCHEMA, CheckerJudge, Judge, Judgement
from pipeline.judge.evidence import JudgeCase
from pipeline.judge.nearmiss import write_near_miss

ROLES = ("answer", "input")
BATCH_CHUNK = 32  # cases per judge_many call (bounds the evidence held at once)


def _tasks(root: Path) -> list[dict]:
    specs = sorted(root.glob("*.json"))
    if not specs:
        raise FileNotFoundError(f"{root}: no SpreadsheetBench *.json task list")
    return [task for spec in specs for task in json.loads(spec.read_text())]


def spreadsheetbench_cases(
    root: str | Path,
    outputs_dir: str | Path | None = None,
    output_role: str | Iterable[str] = ROLES,
    near_miss_dir: str | Path | None = None,
) -> list[JudgeCase]:
    """Cases from a SpreadsheetBench folder (``*.json`` + ``spreadsheet/<id>/``).

    With ``outputs_dir`` the output of test case n of task id is
    ``<outputs_dir>/<n>_<id>_output.xlsx``. Without it, the dataset grades itself:
    ``output_role`` "answer", "input" or both (the default) judges the dataset's own
    answer or input files as outputs, with the verdict each should get; with
    ``near_miss_dir`` each task's first pair also gets a near-miss output (written
    there when judged, see :func:`judge_batch`).
    """
    root = Path(root)
    roles = [output_role] if isinstance(output_role, str) else list(output_role)
    unknown = [r for r in roles if r not in ROLES]
    if outputs_dir is None and (unknown or not roles):
        raise ValueError(f"output_role must be answer and/or input, not {roles!r}")
    cases: list[JudgeCase] = []
    for task in _tasks(root):
        tid = str(task["id"])
        folder = root / task.get("spreadsheet_path", f"spreadsheet/{tid}")
        # escaped: a task id may hold [ ] * ?, which glob would expand
        inputs = sorted(folder.glob(f"*_{glob.escape(tid)}_input.xlsx"))
        for k, inp in enumerate(inputs):
            n = inp.name.split("_", 1)[0]
            base = JudgeCase(
                case_id=f"{tid}/{n}",
                instruction=task["instruction"],
                output_path=None,
                reference_path=folder / f"{n}_{tid}_answer.xlsx",
                input_path=inp,
                answer_position=task.get("answer_position") or None,
            )
            if outputs_dir is not None:
                out = Path(outputs_dir) / f"{n}_{tid}_output.xlsx"
                cases.append(replace(base, output_path=out))
                continue
            for role in roles:
                out = base.reference_path if role == "answer" else inp
                cases.append(
                    replace(
                        base,
                        case_id=f"{tid}/{n}:{role}",
                        output_path=out,
                        role=role,
                        expected=role == "answer",
                    )
                )
            if near_miss_dir is not None and k == 0:
                out = Path(near_miss_dir) / f"{n}_{tid}_near_miss.xlsx"
                cases.append(
                    replace(
                        base,
                        case_id=f"{tid}/{n}:near_miss",
                        output_path=out,
                        role="near_miss",
                        expected=False,
                    )
                )
    return cases


def _path(base: Path, value: object) -> Path | None:
    if value in (None, ""):
        return None
    p = Path(str(value))
    return p if p.is_absolute() else base / p


def load_cases(path: str | Path) -> list[JudgeCase]:
    """Cases from a JSON list or JSONL file of pairs, or a SpreadsheetBench folder
    (its self-check: answers and inputs, see :func:`spreadsheetbench_cases`).

    Each JSON object: ``case_id`` (or ``id``), ``instruction``, ``input``, ``output``,
    ``reference`` (paths, relative to the file's folder), optional ``answer_position``,
    ``task_kind``, ``reference_answer``, ``model_answer``.
    """
    path = Path(path)
    if path.is_dir():
        return spreadsheetbench_cases(path)
    text = path.read_text()
    if path.suffix == ".jsonl":
        items = [json.loads(line) for line in text.splitlines() if line.strip()]
    else:
        items = json.loads(text)
    cases = []
    for k, item in enumerate(items):
        case_id = str(item.get("case_id", item.get("id", k)))
        if "instruction" not in item:
            raise ValueError(f"{path}: case {case_id} has no instruction")
        cases.append(
            JudgeCase(
                case_id=case_id,
                instruction=item["instruction"],
                output_path=_path(path.parent, item.get("output")),
                reference_path=_path(path.parent, item.get("reference")),
                input_path=_path(path.parent, item.get("input")),
                task_kind=item.get("task_kind", "modify"),
                answer_position=item.get("answer_position"),
                reference_answer=item.get("reference_answer"),
                model_answer=item.get("model_answer"),
            )
        )
    return cases


def _safe(case_id: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", case_id)


def _prepare_near_miss(case: JudgeCase, backend: Judge) -> str | None:
    """Write the near-miss output of a self-check case; a reason when it cannot be."""
    if case.output_path is None or case.output_path.exists():
        return None
    if not isinstance(backend, CheckerJudge):
        return "near-misses need the checker backend"
    try:
        made = write_near_miss(backend.checker_for(case), case.output_path)
    except Exception as exc:  # recorded on the case; the batch goes on
        return f"could not write the near-miss: {type(exc).__name__}: {exc}"
    return None if made is not None else "no near-miss: the task has nothing to change"


def _judged(
    cases: list[JudgeCase], backend: Judge, chunk: int = BATCH_CHUNK
) -> Iterable[Judgement]:
    """Judgements in case order: one by one, or ``chunk`` cases at a time through a
    backend's ``judge_many`` (an LLM judge's concurrent calls). Near-miss cases of a
    self-check get their output written first."""
    many = getattr(backend, "judge_many", None)
    for start in range(0, len(cases), chunk if many else 1):
        part = cases[start : start + (chunk if many else 1)]
        ready: dict[int, Judgement] = {}
        for k, case in enumerate(part):
            problem = _prepare_near_miss(case, backend) if case.role == "near_miss" else None
            if problem is not None:
                j = Judgement(
                    case.case_id, backend.name, case.task_kind, None, problem, error=problem
                )
                j.role, j.expected = case.role, case.expected
                ready[k] = j
        todo = [k for k in range(len(part)) if k not in ready]
        if many:
            ready.update(zip(todo, many([part[k] for k in todo]), strict=True))
        else:
            ready.update((k, backend.judge(part[k])) for k in todo)
        yield from (ready[k] for k in range(len(part)))


def judge_batch(
    cases: Iterable[JudgeCase] | str | Path,
    out_dir: str | Path,
    *,
    judge: Judge | None = None,
    screenshots: bool = False,
) -> pl.DataFrame:
    """Judge many cases; write ``judgements.parquet``, ``judgements.md`` and one
    ``cases/<case_id>.md`` (the prompt: diffs and snapshots) per case.

    ``cases`` may be a list of :class:`JudgeCase` or a path for :func:`load_cases`.
    A case that cannot be read gets verdict null and its error; the batch goes on.
    Near-miss cases of a self-check get their output written first.
    """
    out_dir = Path(out_dir)
    (out_dir / "cases").mkdir(parents=True, exist_ok=True)
    if isinstance(cases, str | Path):
        cases = load_cases(cases)
    backend = judge or CheckerJudge(out_dir / "screenshots" if screenshots else None)
    rows = []
    for j in _judged(list(cases), backend):
        rows.append(j.row())
        body = j.evidence.prompt if j.evidence else ""
        (out_dir / "cases" / f"{_safe(j.case_id)}.md").write_text(
            f"# {j.case_id}\n\nVerdict: {j.verdict}\n\n{j.rationale}\n\n{body}\n"
            + (f"\n## Error\n```\n{j.error}\n```\n" if j.error else "")
        )
    frame = pl.DataFrame(rows, schema=JUDGEMENTS_SCHEMA)
    frame.write_parquet(out_dir / "judgements.parquet")
    (out_dir / "judgements.md").write_text(judgements_markdown(frame))
    return frame


@dataclass(frozen=True)
class RoleCount:
    """Self-check outcome for one role: how many cases got the expected verdict."""

    role: str
    n: int
    as_expected: int
    undecidable: int
    errors: int


def selfcheck_counts(frame: pl.DataFrame) -> list[RoleCount]:
    """Per role of a self-check: cases, verdicts as expected, undecidable, errors."""
    out = []
    for role in ("answer", "input", "near_miss", "output"):
        part = frame.filter(pl.col("role") == role)
        if part.is_empty():
            continue
        out.append(
            RoleCount(
                role,
                part.height,
                part.filter(pl.col("verdict") == pl.col("expected")).height,
                part.filter(pl.col("status") == "undecidable").height,
                part.filter(pl.col("status") == "error").height,
            )
        )
    return out


def judgements_markdown(frame: pl.DataFrame) -> str:
    """A Markdown report: counts (and the self-check per role), then one line per case."""
    n = frame.height
    passed = frame.filter(pl.col("verdict") == True).height  # noqa: E712
    failed = frame.filter(pl.col("verdict") == False).height  # noqa: E712
    errors = frame.filter(pl.col("status") == "error").height
    lines = [
        "# Workbook judgements",
        "",
        f"{n} cases: {passed} pass, {failed} fail, {n - passed - failed} undecided "
        f"({errors} errors).",
        "",
    ]
    counts = [c for c in selfcheck_counts(frame) if c.role != "output"]
    if counts:
        lines += [
            "| self-check | cases | as expected | undecidable | errors |",
            "|---|---|---|---|---|",
        ]
        lines += [
            f"| {c.role} | {c.n} | {c.as_expected} | {c.undecidable} | {c.errors} |" for c in counts
        ]
        lines.append("")
    lines += [
        "| case | verdict | required matched | unexpected (destructive) | rationale |",
        "|---|---|---|---|---|",
    ]
    for r in frame.iter_rows(named=True):
        verdict = {True: "PASS", False: "FAIL", None: "-"}[r["verdict"]]
        matched = f"{r['n_matched']}/{r['n_required']}" if r["n_required"] is not None else "-"
        unexpected = (
            f"{r['n_unexpected']} ({r['n_destructive']})" if r["n_unexpected"] is not None else "-"
        )
        why = (r["rationale"] or "").replace("|", "\\|").replace("\n", " ")[:300]
        lines.append(f"| {r['case_id']} | {verdict} | {matched} | {unexpected} | {why} |")
    return "\n".join(lines) + "\n"
