"""``ledgerforge``: build, inspect, audit and grade LedgerForge releases.

The CLI has no Dagster import: ``ledgerforge build`` runs the documented Dagster command
(``dagster asset materialize -m assets.definitions --select '*'``) as a subprocess, so the
CLI and the Dagster UI share one code path and one run history.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from pipeline.config import REPO_ROOT, data_paths

app = typer.Typer(no_args_is_help=True, add_completion=False, help=__doc__.split("\n\n")[0])
console = Console()


def _fail(message: str, code: int = 1) -> None:
    console.print(f"[red]error:[/red] {message}")
    raise typer.Exit(code)


def _fail_line(message: str, code: int = 1) -> None:
    """One line on stdout, taken literally (no markup, no wrapping), then exit ``code``."""
    console.print("[red]error:[/red] ", end="")
    console.print(" ".join(message.split()), markup=False, highlight=False, soft_wrap=True)
    raise typer.Exit(code)


@app.command()
def synth(
    out: Path = typer.Option(None, help="Output folder (default: <data>/corpus/scans)."),
    seed: int = typer.Option(7, help="Generator seed."),
    volumes: int = typer.Option(None, help="Number of volumes (default: the default corpus)."),
    tables_per_volume: int = typer.Option(None, help="Tables per volume."),
    workers: int = typer.Option(1, help="Rendering processes."),
) -> None:
    """Generate a scanned-statement corpus with its ground truth (seeded, deterministic)."""
    from pipeline.synth.scans import DEFAULT_PARAMS, default_corpus, generate_scans

    out = out or data_paths().corpus / "scans"
    if volumes is None and tables_per_volume is None and seed == 7:
        corpus = default_corpus(out, progress=True)
    else:
        corpus = generate_scans(
            out,
            seed=seed,
            volumes=volumes or int(DEFAULT_PARAMS["volumes"]),
            tables_per_volume=tables_per_volume or int(DEFAULT_PARAMS["tables_per_volume"]),
            workers=workers,
            progress=True,
        )
    console.print(
        f"{len(corpus.pdfs)} volumes in {corpus.root}; ground truth in {corpus.truth_dir}"
    )


@app.command()
def build(
    scans: str = typer.Option(
        "", help="Scanned corpora name=path[,name=path] (default: the generated corpus)."
    ),
    mail: str = typer.Option(
        "",
        help="Mailboxes name=path[,name=path]: maildir, mbox, .eml trees or HTML web-mail "
        "exports (default: the generated mailbox when no corpus is configured).",
    ),
    spreadsheets: str = typer.Option(
        "", help="Spreadsheet corpora name=path[,name=path] (folders of .xlsx/.xlsm/.xls)."
    ),
    data_root: Path = typer.Option(None, help="Data root (default: LEDGERFORGE_DATA or data/)."),
    text_layer: str = typer.Option("", help="Text-layer policy: auto | ignore | require."),
    select: str = typer.Option("*", help="Dagster asset selection."),
    drafter: str = typer.Option(
        "",
        help="QA drafter: template | none | openai:MODEL | anthropic:MODEL "
        "(default: LEDGERFORGE_DRAFTER or template).",
    ),
    rewriter: str = typer.Option(
        "",
        help="Question rewriter: none | openai:MODEL | anthropic:MODEL "
        "(default: LEDGERFORGE_REWRITER or none).",
    ),
    solver: str = typer.Option(
        "",
        help="Solver trial over the accepted QA tasks: none | openai:MODEL | anthropic:MODEL "
        "(default: LEDGERFORGE_SOLVER or none).",
    ),
    llm_budget: str = typer.Option(
        "",
        help="US dollars the build may spend on model calls; new calls stop there "
        "(default: LEDGERFORGE_LLM_BUDGET or no cap).",
    ),
) -> None:
    """Materialize the asset graph with Dagster (run history under <data>/dagster_home)."""
    from pipeline.llm.errors import LLMError
    from pipeline.roles import ROLES, RoleError, check_keys, role_choice
    from pipeline.roles import llm_budget as budget_of

    env = dict(os.environ)
    for role, value in (("drafter", drafter), ("rewriter", rewriter), ("solver", solver)):
        if value:
            env[ROLES[role][0]] = value
    if llm_budget:
        env["LEDGERFORGE_LLM_BUDGET"] = llm_budget
    try:  # a bad choice or a missing API key stops here, before any stage runs
        choices = {role: role_choice(role, environ=env) for role in ROLES}
        budget_of(environ=env)
        check_keys({r: choices[r] for r in ("drafter", "rewriter", "solver")}, environ=env)
    except (RoleError, LLMError) as error:
        _fail_line(str(error), 2)
    paths = data_paths(data_root)
    env["LEDGERFORGE_DATA"] = str(paths.root)
    if scans:
        env["LEDGERFORGE_SCANS"] = scans
    if mail:
        env["LEDGERFORGE_MAIL"] = mail
    if spreadsheets:
        env["LEDGERFORGE_SPREADSHEETS"] = spreadsheets
    if text_layer:
        env["LEDGERFORGE_TEXT_LAYER"] = text_layer
    env.setdefault("DAGSTER_HOME", str(paths.dagster_home))
    Path(env["DAGSTER_HOME"]).mkdir(parents=True, exist_ok=True)
    env.setdefault("OMP_THREAD_LIMIT", "1")
    cmd = [
        sys.executable,
        "-m",
        "dagster",
        "asset",
        "materialize",
        "-m",
        "assets.definitions",
        "--select",
        select,
    ]
    console.print(f"[bold]running[/bold] {' '.join(cmd[2:])}  (DAGSTER_HOME={env['DAGSTER_HOME']})")
    code = subprocess.run(cmd, cwd=REPO_ROOT, env=env).returncode
    if code:
        _fail(f"dagster run failed with exit status {code}", code)
    _print_status(paths.root)
    from pipeline.publish.versions import latest_release

    latest = latest_release(paths.releases)  # never a staging folder left by a crash
    if latest is not None:
        console.print(f"[green]release:[/green] {escape(str(latest))}", highlight=False)


def _print_status(root: Path) -> None:
    from pipeline.store import Warehouse

    wh = Warehouse(data_paths(root))
    table = Table(title=f"warehouse {wh.root}")
    table.add_column("asset")
    table.add_column("parts", justify="right")
    table.add_column("rows", justify="right")
    if wh.root.exists():
        import pyarrow.parquet as pq

        for folder in sorted(p for p in wh.root.iterdir() if p.is_dir()):
            parts = wh.parts(folder.name)
            rows = sum(pq.ParquetFile(p).metadata.num_rows for p in parts)
            table.add_row(folder.name, str(len(parts)), f"{rows:,}")
    console.print(table)
    if wh.exists("quarantine"):
        q = wh.read("quarantine")
        if len(q):
            console.print(f"[yellow]quarantined inputs ({len(q)}):[/yellow]")
            for stage, path, reason in q.select("stage", "path", "reason").iter_rows():
                console.print(f"  [{stage}] {path}: {reason}")


@app.command()
def status(data_root: Path = typer.Option(None, help="Data root.")) -> None:
    """Row counts of every warehouse table and the quarantine."""
    _print_status(data_paths(data_root).root)


@app.command()
def llm(
    data_root: Path = typer.Option(None, help="Data root."),
    clear: bool = typer.Option(False, "--clear", help="Delete every cached LLM response."),
) -> None:
    """LLM spend from the call log (per model and purpose) and the response cache size;
    ``--clear`` empties the cache (the next run buys every response again)."""
    from pipeline.llm.cache import ResponseCache, summarize_log

    root = data_paths(data_root).cache / "llm"
    cache = ResponseCache(root, "on")
    if clear:
        console.print(f"removed {cache.clear()} cached responses from {root}")
        return
    rows = summarize_log(root / "calls.jsonl")
    table = Table("model", "purpose", "calls", "cached", "errors", "tokens in", "tokens out", "USD")
    for r in rows:
        table.add_row(r["model"], r["purpose"], str(r["calls"]), str(r["cache_hits"]),
                      str(r["errors"]), f"{r['input_tokens']:,}", f"{r['output_tokens']:,}",
                      f"{r['cost_usd']:.4f}")  # fmt: skip
    console.print(table)
    spent = sum(r["cost_usd"] for r in rows)
    console.print(f"{len(cache)} cached responses in {root}; ${spent:.4f} spent in total")


@app.command()
def evaluate(
    data_root: Path = typer.Option(None, help="Data root of a build over a generated corpus."),
    truth: Path = typer.Option(
        None, help="Ground-truth folder (default: <data>/corpus/scans/truth)."
    ),
    gold: Path = typer.Option(
        None,
        help="Hand-labelled gold tables of real pages (a .jsonl or a folder of them, e.g. "
        "tests/gold/treasury): score table semantics field by field instead.",
    ),
    mismatches: Path = typer.Option(
        None, help="With --gold: write every mismatch (field, where, gold, built) to this CSV."
    ),
) -> None:
    """Score a build against the generator's ground truth (tables, anchors, answer keys), or
    against hand-labelled real gold tables with --gold (title, unit, period, labels)."""
    import tempfile

    from pipeline.detect.anchors import AnchorResult, evaluate_anchors
    from pipeline.store import Warehouse
    from pipeline.synth.keys import score_keys
    from pipeline.tables.evaluate import evaluate_tables

    paths = data_paths(data_root)
    if gold is not None:
        _evaluate_gold(Warehouse(paths), gold, mismatches)
        return
    mail_truth = paths.corpus / "mail" / "truth.json"
    mail_scored = truth is None and mail_truth.is_file()
    if mail_scored:
        _evaluate_mail(Warehouse(paths), mail_truth)
    truth = truth or paths.corpus / "scans" / "truth"
    if mail_scored and not (truth / "truth_cells.parquet").exists():
        return  # a build of the mail half only
    if not (truth / "truth_cells.parquet").exists():
        _fail(f"no ground truth at {truth}: evaluate needs a corpus made by `ledgerforge synth`")
    wh = Warehouse(paths)
    documents = wh.read("documents")
    tables = evaluate_tables(
        wh.read("tables"),
        wh.read("table_cells"),
        truth,
        documents,
        wh.read("pages"),
        wh.read("words"),
    )
    console.print("[bold]tables[/bold]\n" + tables.summary(), highlight=False)
    anchors = evaluate_anchors(
        AnchorResult(wh.read("identities"), wh.read("anchored_cells"), wh.read("repairs")),
        truth,
        documents,
    )
    console.print("[bold]anchored cells[/bold]")
    for name, value in anchors.items():
        console.print(f"  {name}: {value}", highlight=False)
    with tempfile.TemporaryDirectory() as scratch:
        keys = score_keys(wh.read("tasks"), paths.warehouse, truth, Path(scratch))
    console.print("[bold]answer keys[/bold]\n  " + keys.summary(), highlight=False)
    wrong = keys.scores.filter(keys.scores["status"] != "right")
    for row in wrong.head(20).iter_rows(named=True):
        console.print(
            f"  {row['task_id']} ({row['kind']}): key {row['answer']}, truth {row['true_answer']}"
        )


def _evaluate_mail(wh, truth: Path) -> None:
    """Threads, version chains and seeded edits against the generated mailbox's truth."""
    from pipeline.detect.mail_truth import evaluate_mail_truth

    def read(asset: str):
        return wh.read(asset) if wh.exists(asset) else None

    score = evaluate_mail_truth(
        truth,
        messages=read("messages"),
        threads=read("threads"),
        chains=read("version_chains"),
        version_diffs=read("version_diffs"),
    )
    console.print(f"[bold]mail and workbooks[/bold] (truth {truth})", highlight=False)
    for line in score.lines():
        console.print(f"  {line}", highlight=False)
    tasks = read("workflow_tasks")
    if tasks is not None:
        accepted = tasks.filter(tasks["status"] == "accepted")
        multi = int((accepted["steps"] >= 2).sum())
        console.print(
            f"  workflow tasks: {accepted.height} accepted ({multi} multi-step) of "
            f"{tasks.height} drafts",
            highlight=False,
        )


def _evaluate_gold(wh, gold: Path, mismatches: Path | None) -> None:
    from pipeline.tables.gold import load_gold, score_gold

    if not gold.exists():
        _fail(f"no gold file or folder at {gold}")
    try:
        tables = load_gold(gold)
    except ValueError as exc:
        _fail(str(exc))
    anchored = wh.read("anchored_cells") if wh.exists("anchored_cells") else None
    scores = score_gold(
        tables, wh.read("documents"), wh.read("tables"), wh.read("table_cells"), anchored
    )
    console.print(f"[bold]gold tables[/bold] ({len(tables)} from {gold})", highlight=False)
    console.print(scores.summary(), highlight=False)
    if mismatches is not None:
        scores.mismatch_frame().write_csv(mismatches)
        console.print(f"mismatches: {mismatches}")


@app.command()
def audit(
    release_dir: Path = typer.Argument(..., exists=True, file_okay=False, help="A release folder."),
    data_root: Path = typer.Option(None, help="Data root whose warehouse the oracles read."),
    workers: int = typer.Option(0, help="Sandbox workers (0 = one per core)."),
) -> None:
    """Verify a release's manifest and rerun every oracle; non-zero exit on any mismatch."""
    from pipeline.publish.audit import audit_release

    report = audit_release(
        release_dir, data_paths(data_root).warehouse, workers=workers or None, progress=True
    )
    console.print(report.render(), markup=False, highlight=False, soft_wrap=True)
    if not report.ok:
        raise typer.Exit(1)


@app.command()
def grade(
    release_dir: Path = typer.Argument(..., exists=True, file_okay=False, help="A release folder."),
    responses: Path = typer.Argument(..., exists=True, dir_okay=False, help="Responses JSONL."),
    out: Path = typer.Option(Path("grading"), help="Output folder for verdicts and the report."),
    split: str = typer.Option("test", help="test (private keys) or dev (worked examples)."),
) -> None:
    """Grade agent responses against a release: verdicts, metrics and an HTML report."""
    from pipeline.grade import grade_responses, write_report

    run = grade_responses(release_dir, responses, out, split=split)
    paths = write_report(run, out)
    console.print(f"graded {len(run.verdicts)} attempts; report: {paths.get('html')}")


@app.command()
def solve(
    release_dir: Path = typer.Argument(..., exists=True, file_okay=False, help="A release folder."),
    model: str = typer.Option(
        ..., help="The model to evaluate: openai:MODEL or anthropic:MODEL (key from the env)."
    ),
    k: int = typer.Option(1, "--k", min=1, help="Attempts per task."),
    out: Path = typer.Option(Path("responses.jsonl"), help="Responses JSONL (appended to)."),
    data_root: Path = typer.Option(
        None,
        help="Data root whose warehouse holds the source pages: the model reads the text of "
        "each task's pages/cells. Without it the model gets the question alone.",
    ),
    budget: float = typer.Option(None, help="Stop issuing paid calls at this many US dollars."),
    split: str = typer.Option("test", help="test (public tasks) or dev (worked examples)."),
    fresh: bool = typer.Option(False, help="Start the responses file anew instead of resuming it."),
) -> None:
    """Run a model on a release's QA tasks and write responses.jsonl for `ledgerforge grade`."""
    from pipeline.grade.solve import solve_release
    from pipeline.llm.client import LLMError, is_llm_choice, make_llm

    if not is_llm_choice(model):
        _fail_line(f"--model {model!r} is not a model: give openai:MODEL or anthropic:MODEL", 2)
    paths = data_paths(data_root)
    try:
        llm = make_llm(model, paths, **({} if budget is None else {"budget_usd": budget}))
        result = solve_release(
            release_dir,
            llm,
            k=k,
            out=out,
            resume=not fresh,
            data_paths=paths if data_root is not None else None,
            split=split,
            progress=lambda line: console.print(line, markup=False, highlight=False),
        )
    except (LLMError, FileNotFoundError, ValueError) as exc:
        _fail_line(str(exc))
    console.print(result.summary(), markup=False, highlight=False, soft_wrap=True)
    for error in result.errors[:10]:
        console.print(f"  {error}", markup=False, highlight=False, soft_wrap=True)
    if result.budget_stopped:
        raise typer.Exit(3)


@app.command()
def report(
    grading_dir: Path = typer.Argument(
        ..., exists=True, file_okay=False, help="Output of `ledgerforge grade`."
    ),
    release_dir: Path = typer.Option(
        ..., exists=True, file_okay=False, help="The release that was graded."
    ),
) -> None:
    """Re-render the Markdown/HTML report of a grading folder."""
    from pipeline.grade import write_report
    from pipeline.grade.runs import load_grade_run

    paths = write_report(load_grade_run(grading_dir, release_dir), grading_dir)
    console.print(f"report: {paths.get('html')}")


@app.command()
def judge(
    cases: Path = typer.Argument(
        ..., exists=True, help="Cases JSON/JSONL, or a SpreadsheetBench folder."
    ),
    out: Path = typer.Option(Path("judgements"), help="Output folder."),
    outputs: Path = typer.Option(
        None,
        exists=True,
        file_okay=False,
        help="Folder mode: the agent's <n>_<id>_output.xlsx files. Without it the "
        "dataset checks itself: answers must pass, inputs must fail.",
    ),
    near_misses: bool = typer.Option(
        False, help="Folder self-check: also judge one generated near-miss per task."
    ),
    backend: list[str] = typer.Option(
        ["checker"],
        "--backend",
        help="Judge backend: checker (deterministic), openai:MODEL or anthropic:MODEL. "
        "Repeat to run several; each gets its own subfolder of --out.",
    ),
    labels: Path = typer.Option(None, exists=True, help="Human labels (CSV/JSONL: case_id,label)."),
    budget_usd: float = typer.Option(
        None, help="LLM backends: stop issuing paid calls once this much (USD) is spent."
    ),
    screenshots: bool = typer.Option(False, help="Render sheet screenshots with LibreOffice."),
    recalculate: bool = typer.Option(
        True, help="Compute formulas saved without a value with LibreOffice before judging."
    ),
) -> None:
    """Judge output workbooks against references (checker and/or LLM backends); with
    --labels, the agreement (accuracy, recall, precision) of each backend."""
    import json

    from pipeline.judge import (
        agreement,
        judge_batch,
        load_cases,
        load_human_labels,
        selfcheck_counts,
        spreadsheetbench_cases,
    )
    from pipeline.judge.agreement import agreement_markdown, agreement_record
    from pipeline.judge.llm_judge import make_judge
    from pipeline.llm.client import LLMError
    from pipeline.llm.costs import ProgressPrinter

    choices = list(dict.fromkeys(backend or ["checker"]))
    folders = {
        c: out if len(choices) == 1 else out / re.sub(r"[^A-Za-z0-9_.-]", "_", c) for c in choices
    }
    human = load_human_labels(labels) if labels else None
    judges = {}
    for choice in choices:  # every key and price checked before any work
        try:
            judges[choice] = make_judge(
                choice,
                screenshots_dir=folders[choice] / "screenshots" if screenshots else None,
                recalculate=recalculate,
                progress=ProgressPrinter(),
                **({"budget_usd": budget_usd} if budget_usd is not None else {}),
            )
        except LLMError as exc:
            _fail_line(str(exc))
    if cases.is_dir():
        found = spreadsheetbench_cases(
            cases,
            outputs_dir=outputs,
            near_miss_dir=out / "near_misses" if near_misses and outputs is None else None,
        )
    else:
        found = load_cases(cases)
    agreements = {}
    for choice, backend_judge in judges.items():
        folder = folders[choice]
        frame = judge_batch(found, folder, judge=backend_judge)
        passed = int(frame["verdict"].sum() or 0)
        errors = frame.filter(frame["status"] == "error").height
        undecided = frame.filter(frame["status"] == "undecidable").height
        console.print(
            f"{backend_judge.name}: judged {len(frame)} cases: {passed} pass, {undecided} "
            f"undecidable, {errors} exceptions; see {folder / 'judgements.md'}",
            highlight=False,
        )
        llm = getattr(backend_judge, "llm", None)
        if llm is not None:
            st = llm.stats
            console.print(
                f"  {llm.spec}: {st.get('requests', 0)} requests, {st.get('cache_hits', 0)} "
                f"cached, {st.get('input_tokens', 0)} input / {st.get('output_tokens', 0)} "
                f"output tokens, ${float(st.get('cost_usd') or 0):.4f}",
                highlight=False,
            )
        for c in selfcheck_counts(frame):
            if c.role == "output":
                continue
            want = "pass" if c.role == "answer" else "fail"
            console.print(
                f"  {c.role}: {c.as_expected}/{c.n} {want} ({c.undecidable} undecidable, "
                f"{c.errors} exceptions)",
                highlight=False,
            )
        if human is not None:
            agree = agreement(frame, human)
            agreements[backend_judge.name] = agree
            console.print(
                f"  agreement with {labels.name}: accuracy {agree.accuracy}, "
                f"precision {agree.precision}, recall {agree.recall} "
                f"(tp {agree.tp}, fp {agree.fp}, fn {agree.fn}, tn {agree.tn}, "
                f"undecided {agree.undecided})",
                highlight=False,
            )
    if agreements:
        out.mkdir(parents=True, exist_ok=True)
        (out / "agreement.md").write_text(agreement_markdown(agreements, labels.name))
        (out / "agreement.json").write_text(
            json.dumps({k: agreement_record(a) for k, a in agreements.items()}, indent=2)
        )
        console.print(f"agreement: {out / 'agreement.md'}", highlight=False)


@app.command()
def release(
    version: str = typer.Argument(..., help="Release version, e.g. 2026.11.0."),
    data_root: Path = typer.Option(None, help="Data root."),
) -> None:
    """Publish the validated ``tasks`` of the warehouse as an immutable release."""
    from pipeline.publish.release import InvalidVersion, ReleaseExists, publish_release
    from pipeline.store import Warehouse

    paths = data_paths(data_root)
    wh = Warehouse(paths)
    try:
        target = publish_release(wh.read("tasks"), wh.read("drafts"), paths.releases, version)
    except (ReleaseExists, InvalidVersion) as exc:
        _fail_line(str(exc))
    console.print(f"[green]release:[/green] {escape(str(target))}", highlight=False)


@app.command()
def push(
    release_dir: Path = typer.Argument(..., exists=True, file_okay=False),
    repo_id: str = typer.Argument(..., help="Hugging Face dataset repo, e.g. org/ledgerforge-qa."),
    include_private: bool = typer.Option(False, help="Also upload private/ (the answer keys)."),
) -> None:
    """Upload a release to the Hugging Face Hub (token from HF_TOKEN)."""
    from pipeline.publish.hub import HubPushError, HubTokenMissing, push_release

    try:
        url = push_release(release_dir, repo_id, include_private=include_private)
    except (HubTokenMissing, HubPushError, ValueError) as exc:
        _fail_line(str(exc))
    console.print(url, markup=False, highlight=False, soft_wrap=True)


@app.command()
def show(
    task_id: str = typer.Argument(None, help="Task id (omit with --all)."),
    release_dir: Path = typer.Option(
        None, file_okay=False, help="Release to look in (default: the warehouse tasks/drafts)."
    ),
    data_root: Path = typer.Option(
        None, help="Data root with the warehouse and page images (default: the release's own)."
    ),
    out: Path = typer.Option(None, help="PNG to write (default: <task_id>.png)."),
    sample: int = typer.Option(0, "--all", help="Draw N randomly chosen accepted tasks instead."),
    seed: int = typer.Option(0, help="Seed of the --all draw."),
    out_dir: Path = typer.Option(Path("evidence"), help="Folder for the --all sheets."),
) -> None:
    """Draw a task's evidence as one PNG: the cells its oracle reads, outlined, and its key."""
    from rich.markup import escape

    from pipeline.review import (
        EvidenceError,
        TaskNotFound,
        accepted_task_ids,
        resolve_data_root,
        sample_task_ids,
        write_evidence,
    )

    if (task_id is None) == (sample == 0):
        _fail("give a TASK_ID or --all N (not both)", 2)
    paths = resolve_data_root(data_root, release_dir)
    if sample:
        chosen = sample_task_ids(accepted_task_ids(paths, release_dir), sample, seed)
        if not chosen:
            _fail(f"no accepted tasks in {release_dir or paths.warehouse / 'tasks'}", 2)
        targets = [(t, out_dir / f"{t}.png") for t in chosen]
    else:
        targets = [(task_id, out or Path(f"{task_id}.png"))]
    for tid, path in targets:
        try:
            write_evidence(tid, path, paths, release_dir)
        except (TaskNotFound, EvidenceError) as exc:
            _fail(escape(str(exc)), 2)
        console.print(f"{tid}: {path}", highlight=False)


if __name__ == "__main__":
    app()
