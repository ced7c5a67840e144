"""A long-lived sandbox worker: warm the warehouse once, fork a fresh child per oracle.

Started by :mod:`oracles.sandbox` as ``python -m oracles._worker`` with an explicit
minimal environment: ``LEDGERFORGE_WAREHOUSE`` and ``LEDGERFORGE_ORACLE_SCRATCH`` (the
folder the parent made for this worker's chroot folders) among a few others. Protocol
on stdin/stdout, one JSON object per line: the worker first writes ``{"ready": true}``;
then for each request ``{"task_id", "source", "timeout_s", "cpu_s", "memory_mb",
"guards"}`` it writes one result ``{"task_id", "status", ...}`` (see :func:`run_in_child`).

Forking from a warm worker costs a few milliseconds, where a fresh interpreter per
oracle pays the imports and the Parquet read every time; the fork also gives every
oracle a pristine copy of the API state and its own limits.
"""

from __future__ import annotations

import gc
import json
import os
import selectors
import shutil
import signal
import sys
import tempfile
import time
from functools import partial

import oracles.api as api
from oracles._child import Limits, build_facades, isolate, run_oracle_in_child
from oracles._workbook import warm_up

STDERR_TAIL = 4_000
_MAX_MESSAGE = 8_000_000  # bytes of result JSON accepted from one child


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _child_fds(result_fd: int, output_fd: int) -> None:
    """In the child: stdin from /dev/null, stdout and stderr to the capture pipe,
    every other descriptor (the worker's protocol pipes included) closed."""
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(output_fd, 1)
    os.dup2(output_fd, 2)
    keep = sorted({0, 1, 2, result_fd})
    for low, high in zip(keep, [*keep[1:], os.sysconf("SC_OPEN_MAX")], strict=True):
        os.closerange(low + 1, high)


def run_in_child(request: dict, facades: dict, scratch: str) -> dict:
    """Fork a child for one oracle, enforce the wall clock, and classify the outcome."""
    limits = Limits(request["timeout_s"], request["cpu_s"], request["memory_mb"])
    root = tempfile.mkdtemp(prefix="oracle-", dir=scratch)
    os.chmod(root, 0o555)
    result_r, result_w = os.pipe()
    output_r, output_w = os.pipe()
    started = time.monotonic()
    pid = os.fork()
    if pid == 0:  # the child never returns from this branch
        try:
            os.close(result_r)
            os.close(output_r)
            _child_fds(result_w, output_w)
            run_oracle_in_child(request, result_w, partial(isolate, limits, root), facades)
        finally:
            os._exit(70)
    os.close(result_w)
    os.close(output_w)
    chunks: dict[int, list[bytes]] = {result_r: [], output_r: []}
    sizes = {result_r: 0, output_r: 0}
    timed_out = False
    with selectors.DefaultSelector() as sel:
        sel.register(result_r, selectors.EVENT_READ)
        sel.register(output_r, selectors.EVENT_READ)
        pidfd = os.pidfd_open(pid)
        sel.register(pidfd, selectors.EVENT_READ)
        exited = False
        deadline = started + limits.timeout_s
        while len(sel.get_map()) > 1 or not exited:
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                break
            for key, _ in sel.select(left):
                if key.fd == pidfd:
                    exited = True
                    sel.unregister(pidfd)
                    continue
                data = os.read(key.fd, 65536)
                if not data:
                    sel.unregister(key.fd)
                    continue
                sizes[key.fd] += len(data)
                # Keep a bounded amount: the result whole (up to a cap), output as a tail.
                if key.fd == output_r or sizes[key.fd] <= _MAX_MESSAGE:
                    chunks[key.fd].append(data)
                if key.fd == output_r and sizes[output_r] > 4 * STDERR_TAIL:
                    tail = b"".join(chunks[output_r])[-STDERR_TAIL:]
                    chunks[output_r] = [tail]
                    sizes[output_r] = len(tail)
        os.close(pidfd)
    if timed_out:
        for kill in (partial(os.killpg, pid), partial(os.kill, pid)):
            try:
                kill(signal.SIGKILL)
            except ProcessLookupError:
                pass
    _, status, usage = os.wait4(pid, 0)
    cpu_used = usage.ru_utime + usage.ru_stime
    seconds = time.monotonic() - started
    for fd in (result_r, output_r):
        os.close(fd)
    shutil.rmtree(root, ignore_errors=True)
    stderr = b"".join(chunks[output_r]).decode("utf-8", "replace")[-STDERR_TAIL:]
    raw = b"".join(chunks[result_r])
    result = {"task_id": request["task_id"], "seconds": round(seconds, 4), "stderr": stderr}
    result["cpu_seconds"] = round(cpu_used, 4)
    result.update(_classify(raw, status, timed_out, cpu_used, limits))
    return result


def _classify(raw: bytes, status: int, timed_out: bool, cpu_used: float, limits: Limits) -> dict:
    if timed_out:
        return {
            "status": "timeout",
            "rule": "wall-clock",
            "error": f"killed after {limits.timeout_s} s of wall-clock time",
        }
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        if sig == signal.SIGXCPU or (sig == signal.SIGKILL and cpu_used >= limits.cpu_s):
            # SIGXCPU at the soft CPU limit, SIGKILL at the hard one.
            return {
                "status": "timeout",
                "rule": "cpu-time",
                "error": f"{_signal_name(sig)} after {limits.cpu_s} s of CPU time",
            }
        return {"status": "killed", "rule": _signal_name(sig), "error": "killed by a signal"}
    if not raw:
        code = os.WEXITSTATUS(status)
        return {"status": "error", "rule": "no-result", "error": f"exited {code} without a result"}
    try:
        message = json.loads(raw)
    except ValueError:
        return {"status": "error", "rule": "bad-result", "error": "unreadable result from child"}
    kind = message.get("kind")
    out = {
        "isolation": message.get("isolation", {}),
        "log": message.get("log", {}),
        "error": message.get("error", ""),
    }
    if kind == "ok":
        return {"status": "ok", "rule": "", "output": message.get("output"), **out}
    if kind == "memory":
        return {"status": "memory", "rule": "memory", **out}
    error = str(message.get("error", ""))
    return {"status": "error", "rule": error.split(":", 1)[0], **out}


def main() -> None:
    """Serve oracle requests from stdin until it closes."""
    # Children inherit the warm cache: read the warehouse once, drop Arrow objects.
    api.load_warehouse()
    warm_up()  # workflow checkers read workbooks: load openpyxl's lazy modules now
    gc.collect()
    facades = build_facades()
    # Keep the collector off the warm objects, so children do not copy their pages.
    gc.freeze()
    # The parent makes this folder and removes it, also when it has to kill this worker;
    # alone (no parent folder given) the worker makes its own and removes it on exit.
    given = os.environ.get("LEDGERFORGE_ORACLE_SCRATCH")
    scratch = given or tempfile.mkdtemp(prefix="ledgerforge-oracles-")
    os.chmod(scratch, 0o755)
    out = sys.stdout
    try:
        out.write(json.dumps({"ready": True, "pid": os.getpid()}) + "\n")
        out.flush()
        for line in sys.stdin:
            if not line.strip():
                continue
            request: dict = {}
            try:
                request = json.loads(line)
                result = run_in_child(request, facades, scratch)
            except Exception as err:  # noqa: BLE001 - fork, pipe or request failure: report it,
                # keep serving
                result = {
                    "task_id": request.get("task_id") if isinstance(request, dict) else None,
                    "status": "killed",
                    "rule": "worker",
                    "error": f"worker could not run the oracle: {type(err).__name__}: {err}",
                }
            out.write(json.dumps(result, default=str) + "\n")
            out.flush()
    finally:
        if not given:
            shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
