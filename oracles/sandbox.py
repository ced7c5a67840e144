"""Run untrusted oracle programs: static check, then a sandboxed child process each.

``run_oracles`` checks every source against the AST allow-list (:mod:`oracles._static`),
then hands the ones that pass to a pool of long-lived worker processes
(:mod:`oracles._worker`). Each worker reads the warehouse once and forks a fresh
child per oracle; the child isolates itself (:mod:`oracles._child`: no network, no
files, no new processes, CPU and memory limits, restricted builtins) and the worker
enforces the wall clock. A worker that dies or hangs is replaced and only the oracle
it was running is lost, reported as ``killed``: hostile code never stops the run.

One oracle never stops the batch: any exception while checking, sending or running one
oracle (a check that fails on it, a request that cannot be encoded, a worker answering
something unreadable) becomes that oracle's failure status with the reason.

Statuses: ``ok`` (the oracle emitted its answer), ``rejected`` (static rule broken,
never run), ``error`` (it raised, e.g. ``UnconfirmedCell`` or ``IdentityFailed``, or
printed more than its one line), ``timeout`` (CPU or wall clock), ``memory``,
``killed`` (a signal, or its worker died).
"""

from __future__ import annotations

import json
import os
import selectors
import shutil
import subprocess
import sys
import tempfile
import time
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from oracles._static import ALLOWED_MODULES, FORBIDDEN_NAMES, Violation, check_source

__all__ = [
    "ALLOWED_MODULES",
    "FORBIDDEN_NAMES",
    "OracleResult",
    "SandboxError",
    "Violation",
    "check_source",
    "run_oracle",
    "run_oracles",
]

REPO_ROOT = Path(__file__).resolve().parent.parent
WORKER_COMMAND = [sys.executable, "-m", "oracles._worker"]
# Time a worker may take beyond an oracle's own wall clock before it counts as hung.
WORKER_GRACE_S = 10.0
STARTUP_TIMEOUT_S = 120.0


class SandboxError(RuntimeError):
    """The sandbox itself cannot run (e.g. workers keep failing to start)."""


@dataclass
class OracleResult:
    """The outcome of one oracle run."""

    task_id: str
    status: str  # ok | rejected | error | timeout | memory | killed
    output: dict | None = None  # the parsed JSON line: answer, interval, unit, reads, checks
    rule: str = ""  # the static rule, exception type or limit that stopped it
    line: int | None = None  # line of the first static violation
    error: str = ""
    stderr: str = ""  # tail of what the child wrote to stdout/stderr (tracebacks)
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    violations: list[Violation] = field(default_factory=list)
    isolation: dict = field(default_factory=dict)  # network / files / user actually applied
    log: dict = field(default_factory=dict)  # reads and checks made before a failure

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @property
    def answer(self) -> str | None:
        return self.output["answer"] if self.output else None

    @property
    def interval(self) -> tuple[str, str] | None:
        return tuple(self.output["interval"]) if self.output else None  # type: ignore[return-value]


def _rejected(task_id: str, violations: list[Violation]) -> OracleResult:
    first = violations[0]
    return OracleResult(
        task_id,
        "rejected",
        rule=first.rule,
        line=first.line,
        error="; ".join(str(v) for v in violations),
        violations=violations,
    )


def _static_check(task_id: str, source: object, guards: bool) -> OracleResult | None:
    """The oracle's ``rejected`` result, or None when it may run. Never raises."""
    try:
        if not isinstance(source, str):
            violations = check_source(source)  # type: ignore[arg-type]  # -> not-text
        else:
            violations = check_source(source) if guards else []
    except Exception as err:  # noqa: BLE001 - one oracle's failure, never the batch's
        violations = [Violation("static-check-failed", 0, f"{type(err).__name__}: {err}"[:500])]
    return _rejected(task_id, violations) if violations else None


STATUSES = frozenset({"ok", "rejected", "error", "timeout", "memory", "killed"})


def _from_worker(message: dict) -> OracleResult:
    """The result a worker reported; ValueError when it is not one."""
    status, output = message.get("status", "error"), message.get("output")
    if status not in STATUSES:
        raise ValueError(f"unknown status {status!r}")
    if output is not None and not isinstance(output, dict):
        raise ValueError(f"output is a {type(output).__name__}, not an object")
    if status == "ok" and not (
        output and "answer" in output and len(output.get("interval") or ()) == 2
    ):
        raise ValueError("status ok without an answer and an interval")
    return OracleResult(
        task_id=message["task_id"],
        status=status,
        output=output,
        rule=message.get("rule", ""),
        error=message.get("error", ""),
        stderr=message.get("stderr", ""),
        seconds=message.get("seconds", 0.0),
        cpu_seconds=message.get("cpu_seconds", 0.0),
        isolation=message.get("isolation", {}),
        log=message.get("log", {}),
    )


class _Worker:
    """One worker process and the task it is running."""

    def __init__(self, env: dict[str, str], log: IO[bytes]):
        self.proc = subprocess.Popen(
            list(WORKER_COMMAND),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log,
            env=env,
            cwd=REPO_ROOT,
        )
        self.ready = False
        self.started = time.monotonic()
        self.task: str | None = None
        self.task_started = 0.0

    def send(self, request: dict) -> None:
        assert self.proc.stdin is not None
        self.task = request["task_id"]
        self.task_started = time.monotonic()
        self.proc.stdin.write((json.dumps(request) + "\n").encode())
        self.proc.stdin.flush()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream:
                stream.close()


SCRATCH_PREFIX = "ledgerforge-oracles-"
# A scratch folder of a dead parent is swept only when untouched this long: a live pool's
# folder changes with every oracle, and its pid may be one this process cannot see.
STALE_AFTER_S = 600.0
WORKER_ENV_NAMES = frozenset(
    {
        "LEDGERFORGE_WAREHOUSE",
        "LEDGERFORGE_ORACLE_SCRATCH",
        "PYTHONPATH",
        "PYTHONDONTWRITEBYTECODE",
        "PYTHONNOUSERSITE",
        "PATH",
        "LANG",
        "LC_ALL",
        "TMPDIR",
        "OMP_THREAD_LIMIT",
        "OMP_NUM_THREADS",
        "POLARS_MAX_THREADS",
    }
)


def worker_env(warehouse: Path, scratch: Path) -> dict[str, str]:
    """The whole environment of a worker (and so of every oracle child): built from
    nothing, so no API key, token or other variable of the parent reaches an oracle."""
    env = {
        "LEDGERFORGE_WAREHOUSE": str(Path(warehouse).resolve()),
        "LEDGERFORGE_ORACLE_SCRATCH": str(scratch),
        "PYTHONPATH": str(REPO_ROOT),
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONNOUSERSITE": "1",
        "PATH": os.defpath,
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "TMPDIR": str(scratch),
        # The worker forks: keep library thread pools from starting at all.
        "OMP_THREAD_LIMIT": "1",
        "OMP_NUM_THREADS": "1",
        "POLARS_MAX_THREADS": "1",
    }
    assert set(env) == WORKER_ENV_NAMES
    return env


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def sweep_stale_scratch(tmp: str | Path | None = None) -> list[Path]:
    """Remove the scratch folders of pools whose process is gone (killed before it could
    clean up), untouched for ``STALE_AFTER_S``; return what was removed."""
    removed = []
    root = Path(tmp or tempfile.gettempdir())
    try:
        entries = list(root.iterdir())
    except OSError:
        return removed
    for path in entries:
        name = path.name
        if not name.startswith(SCRATCH_PREFIX):
            continue
        pid = name[len(SCRATCH_PREFIX) :].split("-", 1)[0]
        try:
            stat = path.lstat()
        except OSError:
            continue
        if (
            not pid.isdigit()
            or not path.is_dir()
            or path.is_symlink()
            or stat.st_uid != os.getuid()
            or time.time() - stat.st_mtime < STALE_AFTER_S
            or _pid_alive(int(pid))
        ):
            continue
        remove_tree(path)
        removed.append(path)
    return removed


def remove_tree(path: Path) -> None:
    """Remove a tree, its read-only folders included (sandbox scratch, release staging)."""

    def writable_then_retry(func, name, _exc) -> None:  # noqa: ANN001 - rmtree's onerror
        try:
            os.chmod(os.path.dirname(name), 0o755)
            func(name)
        except OSError:
            pass

    shutil.rmtree(path, onerror=writable_then_retry)


class _Pool:
    """The workers of one ``run_oracles`` call and the scratch folder they run in.

    The scratch folder (``<tmp>/ledgerforge-oracles-<parent pid>-*``, one sub-folder per
    worker) is made and removed by this parent, so a worker that is killed (or hangs and
    is killed) leaves nothing behind; folders of a parent that was itself killed are
    swept by the next pool.
    """

    def __init__(self, warehouse: Path, workers: int):
        sweep_stale_scratch()
        self.warehouse = Path(warehouse)
        self.scratch = Path(tempfile.mkdtemp(prefix=f"{SCRATCH_PREFIX}{os.getpid()}-"))
        os.chmod(self.scratch, 0o755)
        self.started = 0
        self.log = tempfile.TemporaryFile()
        self.sel = selectors.DefaultSelector()
        self.failed_starts = 0
        self.workers: list[_Worker] = []
        self.folders: dict[_Worker, Path] = {}
        try:
            for _ in range(workers):
                self.workers.append(self._start())
        except BaseException:
            self.close()
            raise

    def _start(self) -> _Worker:
        folder = self.scratch / f"w{self.started}"
        self.started += 1
        folder.mkdir(mode=0o755)
        worker = _Worker(worker_env(self.warehouse, folder), self.log)
        self.folders[worker] = folder
        assert worker.proc.stdout is not None
        self.sel.register(worker.proc.stdout, selectors.EVENT_READ, worker)
        return worker

    def _log_tail(self) -> str:
        self.log.seek(0)
        return self.log.read().decode("utf-8", "replace")[-2000:]

    def _stop(self, worker: _Worker) -> None:
        worker.stop()
        folder = self.folders.pop(worker, None)
        if folder is not None:
            remove_tree(folder)

    def replace(self, worker: _Worker) -> None:
        assert worker.proc.stdout is not None
        self.sel.unregister(worker.proc.stdout)
        self._stop(worker)
        self.workers.remove(worker)
        if not worker.ready:
            self.failed_starts += 1
            if self.failed_starts >= 3:
                raise SandboxError(f"oracle workers fail to start: {self._log_tail()}")
        self.workers.append(self._start())

    def close(self) -> None:
        for worker in self.workers:
            self._stop(worker)
        self.sel.close()
        self.log.close()
        remove_tree(self.scratch)


def run_oracles(
    oracles: Mapping[str, str],
    warehouse: Path,
    workers: int | None = None,
    timeout_s: float = 10,
    cpu_s: float = 5,
    memory_mb: int = 1024,
    progress: bool = True,
    *,
    python_guards: bool = True,
    probes: Mapping[str, int] | None = None,
    workbooks: Mapping[str, Mapping[str, str]] | None = None,
) -> dict[str, OracleResult]:
    """Run every oracle (task_id -> source) against the read-only warehouse folder.

    Sources that break a static rule come back ``rejected`` without running. The
    rest run in ``workers`` long-lived processes (default: CPU count, at most one
    per oracle), each oracle in its own forked child limited to ``cpu_s`` seconds
    of CPU, ``memory_mb`` MiB of address space beyond the warm worker's and
    ``timeout_s`` seconds of wall clock. ``python_guards=False`` drops the
    restricted builtins and import facades (never for real oracles: it exists so
    tests can show the operating-system layer holds on its own). ``probes`` makes the
    run of a task a probe run (task_id -> probe number, see ``oracles.api.reset_session``):
    the numbers it reads are served as probe numbers. ``workbooks`` attaches workbook
    files to a task's run (task_id -> {"under_test": path, <sha256>: path}): a workflow
    checker reads them through ``oracles.api.workbook_under_test`` / ``workbook_blob``;
    the child reads their bytes before it isolates itself.
    """
    if not Path(warehouse).is_dir():
        raise SandboxError(f"warehouse folder {warehouse} does not exist")
    results: dict[str, OracleResult] = {}
    pending: deque[tuple[str, str]] = deque()
    for task_id, source in oracles.items():
        rejected = _static_check(task_id, source, python_guards)
        if rejected is not None:
            results[task_id] = rejected
        else:
            pending.append((task_id, source))
    if not pending:
        return results
    limits = {"timeout_s": timeout_s, "cpu_s": cpu_s, "memory_mb": memory_mb}
    count = max(1, min(workers or os.cpu_count() or 1, len(pending)))
    with _progress(progress, len(oracles), len(results)) as advance:
        pool = _Pool(warehouse, count)
        try:
            _dispatch(
                pool,
                pending,
                limits,
                python_guards,
                results,
                advance,
                probes or {},
                workbooks or {},
            )
        finally:
            pool.close()
    return {task_id: results[task_id] for task_id in oracles}


def _dispatch(
    pool: _Pool,
    pending: deque[tuple[str, str]],
    limits: dict,
    guards: bool,
    results: dict[str, OracleResult],
    advance,
    probes: Mapping[str, int],
    workbooks: Mapping[str, Mapping[str, str]],
) -> None:
    sources = dict(pending)

    def lost(worker: _Worker, why: str) -> None:
        if worker.task is not None:
            results[worker.task] = OracleResult(worker.task, "killed", rule="worker", error=why)
            advance()
            worker.task = None
        pool.replace(worker)

    def feed(worker: _Worker) -> None:
        if worker.ready and worker.task is None and pending:
            task_id, source = pending.popleft()
            request = {"task_id": task_id, "source": source, "guards": guards, **limits}
            if probes.get(task_id):
                request["probe"] = probes[task_id]
            if workbooks.get(task_id):
                request["workbooks"] = {str(k): str(v) for k, v in workbooks[task_id].items()}
            try:
                json.dumps(request)
            except (TypeError, ValueError) as err:
                results[task_id] = OracleResult(
                    task_id, "error", rule="request", error=f"cannot send the oracle: {err}"
                )
                advance()
                return
            try:
                worker.send(request)
            except OSError:
                lost(worker, f"worker {worker.proc.pid} closed its input")

    def answer(worker: _Worker, line: bytes) -> None:
        """Take one line from a worker; anything unreadable loses the worker (and only
        the oracle it was running)."""
        try:
            message = json.loads(line)
            if not isinstance(message, dict):
                raise ValueError(f"a JSON {type(message).__name__}, not an object")
            if message.get("ready"):
                worker.ready = True
                pool.failed_starts = 0
            elif worker.task is not None and message.get("task_id") == worker.task:
                result = _from_worker(message)
                results[worker.task] = result
                worker.task = None
                advance()
        except Exception as err:  # noqa: BLE001 - a garbled worker is replaced, the batch goes on
            snippet = line[:200].decode("utf-8", "replace").strip()
            lost(
                worker,
                f"unreadable answer from worker {worker.proc.pid} "
                f"({type(err).__name__}: {err}): {snippet!r}",
            )

    while pending or any(w.task is not None for w in pool.workers):
        for worker in list(pool.workers):
            feed(worker)
        for key, _ in pool.sel.select(timeout=0.5):
            worker = key.data
            line = worker.proc.stdout.readline()
            if not line:
                lost(worker, f"worker {worker.proc.pid} died (exit {worker.proc.poll()})")
                continue
            answer(worker, line)
        now = time.monotonic()
        for worker in list(pool.workers):
            hung = worker.task is not None and now - worker.task_started > (
                limits["timeout_s"] + WORKER_GRACE_S
            )
            slow_start = not worker.ready and now - worker.started > STARTUP_TIMEOUT_S
            if hung or slow_start:
                lost(worker, f"worker {worker.proc.pid} stopped answering")
    missing = set(sources) - set(results)
    if missing:  # cannot happen unless the loop above is wrong; never drop silently
        raise SandboxError(f"oracles without a result: {sorted(missing)[:5]}")


class _progress:
    """A rich progress bar on stderr, or nothing."""

    def __init__(self, enabled: bool, total: int, done: int):
        self.enabled, self.total, self.done = enabled, total, done
        self.bar = None

    def __enter__(self):
        if not self.enabled:
            return lambda: None
        from rich.console import Console
        from rich.progress import Progress

        self.bar = Progress(console=Console(stderr=True), transient=True)
        self.bar.start()
        task = self.bar.add_task("oracles", total=self.total, completed=self.done)
        return lambda: self.bar.advance(task)

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()


def run_oracle(
    source: str,
    warehouse: Path,
    timeout_s: float = 10,
    cpu_s: float = 5,
    memory_mb: int = 1024,
    *,
    task_id: str = "oracle",
    python_guards: bool = True,
    workbooks: Mapping[str, str] | None = None,
) -> OracleResult:
    """Run one oracle source in the sandbox (starts one worker; use ``run_oracles``
    for many). ``workbooks``: the files this run may read (see ``run_oracles``)."""
    return run_oracles(
        {task_id: source},
        warehouse,
        workers=1,
        timeout_s=timeout_s,
        cpu_s=cpu_s,
        memory_mb=memory_mb,
        progress=False,
        python_guards=python_guards,
        workbooks={task_id: workbooks} if workbooks else None,
    )[task_id]
