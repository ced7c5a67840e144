"""Run a model on a release: ``ledgerforge solve RELEASE --model openai:MODEL``.

Each public QA task of the release is put to the model ``k`` times; every attempt becomes
one line of ``responses.jsonl`` in the format ``ledgerforge grade`` reads
(:mod:`pipeline.grade.runs`)::

    {"task_id": "…", "agent": "openai:gpt-4.1-mini", "attempt": 1, "response": "… ANSWER: 2,602",
     "seconds": 1.9, "tokens": 2114, "cost": 0.0009, "cached": false, "request_hash": "…"}

so solving and grading are two commands with a file between them, and any agent's own
responses file grades the same way. Only the public side of the release is read
(``data/qa/test.parquet``, or the worked examples for ``split="dev"``): the solver never
sees a key.

What the model reads is the question, its unit and precision, and, when a data root
with a warehouse is given, the text of the pages (or workbook cells) the task's oracle
reads (:mod:`pipeline.grade.context`); without one, the question alone (closed book).

Paid-for work is never lost or bought twice:

- attempts are written in small batches as they return, and a rerun skips every
  (task, agent, attempt) already in the file (``resume``), so a crash, a rate limit or a
  budget stop is continued by running the same command again;
- every request goes through the LLM layer's response cache, keyed on the exact prompt
  and sampling parameters: a rerun from scratch of the same attempts costs nothing.
  Attempt ``n >= 2`` says its number in the system prompt, so ``k`` attempts are ``k``
  distinct requests (sampled at ``temperature`` 1.0 by default when ``k > 1``), not one
  cached answer repeated;
- the budget (``--budget USD``) is enforced by the LLM layer before each paid call; when
  it stops new calls the attempts already answered are written and the result says so.
  An attempt that fails for another reason (an API error after the SDK's retries) is not
  written, so the next run retries it; the result lists it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from pipeline.config import DataPaths
from pipeline.grade.context import SourceTexts, TaskSources, release_sources
from pipeline.publish.schemas import QA_PUBLIC_SCHEMA
from pipeline.store import check_schema

SYSTEM_PROMPT = (
    "You answer questions about published finance statements (scanned government "
    "bulletins) and business spreadsheets. Read the figures you need from the source text "
    "when it is given; it was read by OCR and may hold reading errors, so use the table's "
    "totals to check a doubtful figure. Compute exactly and round once, at the end, to "
    "the precision asked. Give the number in the unit the question asks for, without "
    "rescaling, a negative number with a minus sign. Finish with one line of the form\n"
    "ANSWER: <number>"
)
BATCH = 32  # attempts per chat_many call: the unit written to the file at once


@dataclass(frozen=True)
class SolveTask:
    """One public QA task as the solver sees it."""

    task_id: str
    question: str
    unit: str | None
    precision: int | None
    kind: str = ""
    sources: TaskSources = field(default_factory=TaskSources)


@dataclass
class SolveResult:
    """What a solve run did: counts, the attempts that failed, and why it stopped."""

    out: Path
    agent: str
    planned: int  # attempts of this run: tasks x k
    skipped: int  # already in the file (resume)
    written: int  # answered and written by this run
    errors: list[str] = field(default_factory=list)  # "task_id#attempt: message"
    budget_stopped: bool = False
    message: str = ""  # "" or why the run stopped early
    stats: dict[str, Any] = field(default_factory=dict)  # the LLM layer's figures

    @property
    def remaining(self) -> int:
        return self.planned - self.skipped - self.written

    def summary(self) -> str:
        text = (
            f"{self.agent}: {self.written} attempts written, {self.skipped} already in "
            f"{self.out}, {self.remaining} not answered"
        )
        if self.stats:
            text += (
                f"; {self.stats.get('requests', 0)} requests, "
                f"{self.stats.get('cache_hits', 0)} cache hits, "
                f"${float(self.stats.get('cost_usd', 0.0)):.4f} spent"
            )
        if self.message:
            text += f". {self.message}"
        return text


def agent_name(llm: Any) -> str:
    """``provider:model`` of an LLM facade (its ``spec``)."""
    spec = getattr(llm, "spec", None)
    if spec is None:
        return "llm"
    return f"{spec.provider}:{spec.model}"


def public_tasks(release_dir: Path, split: str = "test") -> pl.DataFrame:
    """The public QA tasks of a release (no keys), sorted by task id."""
    release_dir = Path(release_dir)
    rel = {"test": "data/qa/test.parquet", "dev": "data/qa_examples/dev.parquet"}.get(split)
    if rel is None:
        raise ValueError(f"{release_dir}: unknown split {split!r} (expected 'test' or 'dev')")
    path = release_dir / rel
    if not path.is_file():
        raise FileNotFoundError(f"{path}: release file missing (is {release_dir} a release?)")
    frame = pl.read_parquet(path, glob=False)
    frame = check_schema(frame, QA_PUBLIC_SCHEMA, str(path))
    return frame.sort("task_id")


def release_solve_tasks(release_dir: Path, split: str = "test") -> list[SolveTask]:
    """The public tasks of a release with the sources their oracles read."""
    frame = public_tasks(release_dir, split)
    sources = release_sources(release_dir, frame["task_id"].to_list())
    return [
        SolveTask(
            task_id=row["task_id"],
            question=row["question"],
            unit=row["unit"],
            precision=row["precision"],
            kind=row["kind"] or "",
            sources=sources[row["task_id"]],
        )
        for row in frame.iter_rows(named=True)
    ]


def format_request(precision: int | None, unit: str | None) -> str:
    """The answer format sentence: unit (when one is known) and decimal places."""
    parts = []
    if unit and unit.strip().lower() != "unknown":
        parts.append(f"Unit: {unit}.")
    if precision is not None:
        places = (
            "a whole number"
            if precision == 0
            else "1 decimal place"
            if precision == 1
            else f"{precision} decimal places"
        )
        parts.append(f"Precision: {places}.")
    return " ".join(parts)


def user_prompt(task: SolveTask, context: str) -> str:
    """The question, its format, and the source text (or a note that there is none)."""
    lines = [f"Question: {task.question}"]
    fmt = format_request(task.precision, task.unit)
    if fmt:
        lines.append(fmt)
    if context:
        lines += ["", "Source text (the pages and sheets the answer is read from):", "", context]
    else:
        lines += ["", "No source text is given: answer from what you know."]
    return "\n".join(lines)


def system_prompt(attempt: int) -> str:
    """The system prompt; attempts after the first name themselves (a distinct request)."""
    return SYSTEM_PROMPT if attempt <= 1 else f"{SYSTEM_PROMPT}\n\n(Attempt {attempt}.)"


def build_request(
    task: SolveTask, context: str, attempt: int, temperature: float, max_tokens: int
) -> Any:
    from pipeline.llm.client import ChatRequest

    return ChatRequest(
        system=system_prompt(attempt),
        messages=[{"role": "user", "content": user_prompt(task, context)}],
        schema=None,
        temperature=temperature,
        max_tokens=max_tokens,
        purpose="solver",
    )


def done_attempts(path: Path) -> set[tuple[str, str, int]]:
    """(task_id, agent, attempt) of every well-formed line already in a responses file."""
    done: set[tuple[str, str, int]] = set()
    if not Path(path).is_file():
        return done
    with Path(path).open(encoding="utf-8") as handle:
        for text in handle:
            try:
                record = json.loads(text)
            except json.JSONDecodeError:
                continue  # a line cut by a crash: its attempt is asked again
            if not isinstance(record, dict):
                continue
            task_id, agent, attempt = (record.get(k) for k in ("task_id", "agent", "attempt"))
            if isinstance(task_id, str) and isinstance(agent, str) and type(attempt) is int:
                done.add((task_id, agent, attempt))
    return done


def _ends_cleanly(path: Path) -> bool:
    if not path.is_file() or path.stat().st_size == 0:
        return True
    with path.open("rb") as handle:
        handle.seek(-1, 2)
        return handle.read(1) == b"\n"


def response_record(task_id: str, agent: str, attempt: int, response: Any) -> dict[str, Any]:
    """One responses.jsonl line from a ``ChatResponse``."""
    return {
        "task_id": task_id,
        "agent": agent,
        "attempt": attempt,
        "response": response.text,
        "seconds": round(float(response.latency_s), 3),
        "tokens": int(response.input_tokens) + int(response.output_tokens),
        # what the answer cost when it was bought (a cache hit spends nothing now)
        "cost": float(response.cached_cost_usd if response.cached else response.cost_usd),
        "cached": bool(response.cached),
        "request_hash": response.request_hash,
    }


def _stats(llm: Any) -> dict[str, Any]:
    stats = getattr(llm, "stats", None)
    return dict(stats) if isinstance(stats, dict) else {}


def _progress_line(agent: str, done: int, total: int, asked: int, todo: int, stats) -> str:
    """``solve openai:m: 48/120 attempts, 40 requests (8 cached), 91,204 tokens, $0.0412
    spent, $0.1030 projected`` (projected: the spend so far per attempt asked, times the
    attempts this run asks)."""
    tokens = int(stats.get("input_tokens", 0)) + int(stats.get("output_tokens", 0))
    spent = float(stats.get("cost_usd", 0.0))
    line = (
        f"solve {agent}: {done}/{total} attempts, {stats.get('requests', 0)} requests "
        f"({stats.get('cache_hits', 0)} cached), {tokens:,} tokens, ${spent:.4f} spent"
    )
    if asked:
        line += f", ${spent / asked * todo:.4f} projected"
    return line


def _needs_network(llm: Any, requests: list[Any]) -> bool:
    """Whether any request misses the LLM layer's response cache (then a key is needed)."""
    try:
        from pipeline.llm.cache import request_hash

        return any(llm.cache.get(request_hash(r.key_material(llm.spec))) is None for r in requests)
    except AttributeError:  # a facade without a visible cache: assume it calls out
        return True


def solve_tasks(
    tasks: Iterable[SolveTask],
    llm: Any,
    *,
    out: Path,
    k: int = 1,
    agent: str | None = None,
    resume: bool = True,
    data_paths: DataPaths | None = None,
    temperature: float | None = None,
    max_tokens: int = 2048,
    batch: int = BATCH,
    progress: Callable[[str], None] | None = None,
) -> SolveResult:
    """Ask ``llm`` every task ``k`` times and append the attempts to ``out`` (see module doc)."""
    from pipeline.llm.client import BudgetExceeded

    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    tasks = list(tasks)
    out = Path(out)
    agent = agent or agent_name(llm)
    if temperature is None:
        temperature = 0.0 if k == 1 else 1.0
    out.parent.mkdir(parents=True, exist_ok=True)
    if not resume and out.exists():
        out.unlink()
    done = done_attempts(out) if resume else set()
    todo = [
        (task, attempt)
        for task in tasks
        for attempt in range(1, k + 1)
        if (task.task_id, agent, attempt) not in done
    ]
    result = SolveResult(
        out=out, agent=agent, planned=len(tasks) * k, skipped=len(tasks) * k - len(todo), written=0
    )
    if not todo:
        result.stats = _stats(llm)
        return result
    texts = SourceTexts(data_paths) if data_paths is not None else None
    if texts is not None:
        texts.load(task.sources for task, _ in todo)
    requests = [
        build_request(
            task,
            texts.text(task.sources) if texts is not None else "",
            attempt,
            temperature,
            max_tokens,
        )
        for task, attempt in todo
    ]
    if _needs_network(llm, requests):
        llm.check_key()  # a missing key is an error before any work, not after a batch
    if not _ends_cleanly(out):  # a line cut by a crash: start the next line on its own
        with out.open("a", encoding="utf-8") as handle:
            handle.write("\n")
    total = len(todo)
    step = max(1, batch)
    for start in range(0, total, step):
        chunk = todo[start : start + step]
        answers = llm.chat_many(requests[start : start + step])
        lines = []
        for (task, attempt), answer in zip(chunk, answers, strict=True):
            if isinstance(answer, BudgetExceeded):
                result.budget_stopped = True
                result.message = f"budget reached: {answer}"
                continue
            if isinstance(answer, Exception):  # LLMError, or anything chat_many caught
                result.errors.append(f"{task.task_id}#{attempt}: {answer}")
                continue
            lines.append(response_record(task.task_id, agent, attempt, answer))
        if lines:
            with out.open("a", encoding="utf-8") as handle:
                handle.writelines(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
        result.written += len(lines)
        result.stats = _stats(llm)
        if progress is not None:
            asked = start + len(chunk)
            progress(
                _progress_line(
                    agent, result.skipped + asked, result.planned, asked, total, result.stats
                )
            )
        if result.budget_stopped:
            result.message = (
                f"{result.message}; stopped with {result.remaining} attempts not asked "
                f"(rerun the same command with a larger budget to continue)"
            )
            break
    if result.errors and not result.message:
        result.message = (
            f"{len(result.errors)} attempts failed and were not written; "
            "rerun the same command to retry them"
        )
    return result


def solve_release(
    release_dir: Path,
    llm: Any,
    *,
    k: int = 1,
    out: Path | None = None,
    resume: bool = True,
    progress: Callable[[str], None] | None = None,
    data_paths: DataPaths | None = None,
    split: str = "test",
    agent: str | None = None,
    temperature: float | None = None,
    max_tokens: int = 2048,
) -> SolveResult:
    """Answer every public QA task of ``release_dir`` ``k`` times with ``llm``.

    Writes (appends to) ``out`` (default ``responses.jsonl`` in the working folder) in
    the format of :func:`pipeline.grade.runs.read_responses`. ``data_paths`` is the data
    root whose warehouse holds the source pages and cells; without it the model answers
    from the question alone. Returns a :class:`SolveResult`; a budget stop is not an
    exception (``budget_stopped`` and ``message`` say so), a missing API key is
    (``MissingKey``, before any request).
    """
    return solve_tasks(
        release_solve_tasks(release_dir, split),
        llm,
        out=Path(out) if out is not None else Path("responses.jsonl"),
        k=k,
        agent=agent,
        resume=resume,
        data_paths=data_paths,
        temperature=temperature,
        max_tokens=max_tokens,
        progress=progress,
    )
