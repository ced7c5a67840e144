"""Sandbox workers get an explicit minimal environment (no API key of the parent reaches an
oracle, even with the Python guards off), and their temp folders are removed by the parent,
also when a worker is killed."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import textwrap
import time

import pytest

from oracles import sandbox
from oracles.sandbox import run_oracles

GOOD = textwrap.dedent(
    """
    from oracles.api import table_cell, emit

    a = table_cell(doc="d0c1", page=3, table=0, row="Individual income tax", col="1949")
    b = table_cell(doc="d0c1", page=3, table=0, row="Excise taxes", col="1949")
    emit(answer=a - b, places=0, unit="millions of dollars")
    """
)

SENTINELS = {
    "OPENAI_API_KEY": "sk-sentinel-openai-4f1c",
    "ANTHROPIC_API_KEY": "sk-ant-sentinel-77aa",
    "HF_TOKEN": "hf_sentinel_91be",
    "LF_SENTINEL_SECRET": "sentinel-value-0d3e",
}

# Runs with python_guards=False: real os, full builtins; only what the sandbox passes is there.
READ_ENVIRON = textwrap.dedent(
    """
    import os
    from oracles.api import emit, D
    values = " ".join(f"{k}={v}" for k, v in os.environ.items())
    emit(D(len(os.environ) * 1000 + values.lower().count("sentinel")), 0)
    """
)


@pytest.fixture
def secrets(monkeypatch):
    for name, value in SENTINELS.items():
        monkeypatch.setenv(name, value)


def test_workers_start_with_only_the_sandbox_variables(warehouse_dir, secrets, monkeypatch):
    seen: dict[int, bytes] = {}
    send = sandbox._Worker.send

    def send_and_look(worker, request):
        # the worker is ready, so it has exec'd: this is the environment it was given
        with open(f"/proc/{worker.proc.pid}/environ", "rb") as f:
            seen[worker.proc.pid] = f.read()
        send(worker, request)

    monkeypatch.setattr(sandbox._Worker, "send", send_and_look)
    results = run_oracles({"good": GOOD}, warehouse_dir, workers=1, progress=False)
    assert results["good"].answer == "80"
    (environ,) = seen.values()
    names = {entry.split(b"=", 1)[0].decode() for entry in environ.split(b"\0") if entry}
    assert b"sentinel" not in environ.lower()
    assert names <= sandbox.WORKER_ENV_NAMES, names - sandbox.WORKER_ENV_NAMES
    assert "LEDGERFORGE_WAREHOUSE" in names


def test_an_oracle_without_python_guards_sees_an_empty_environment(warehouse_dir, secrets):
    results = run_oracles(
        {"environ": READ_ENVIRON, "good": GOOD},
        warehouse_dir,
        workers=1,
        progress=False,
        python_guards=False,
    )
    assert results["environ"].answer == "0", results["environ"].error
    assert results["good"].answer == "80"


@pytest.fixture
def private_tmp(tmp_path, monkeypatch):
    """A temp directory of our own, so only this test's folders are in it."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setenv("TMPDIR", str(tmp))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    return tmp


def _leftovers(tmp) -> list[str]:
    return sorted(p.name for p in tmp.iterdir() if p.name.startswith("ledgerforge-oracles-"))


def test_a_killed_worker_leaves_no_temp_folder(warehouse_dir, private_tmp, monkeypatch):
    send = sandbox._Worker.send

    def send_then_die(worker, request):
        send(worker, request)
        if request["task_id"].startswith("victim"):
            time.sleep(0.3)  # let it start the oracle: a chroot folder exists too
            worker.proc.kill()

    monkeypatch.setattr(sandbox._Worker, "send", send_then_die)
    busy = "x = 0\nwhile x < 10 ** 9:\n    x = x + 1\n"  # still running when its worker dies
    oracles = {"before": GOOD, "victim1": busy, "middle": GOOD, "victim2": busy, "after": GOOD}
    results = run_oracles(oracles, warehouse_dir, workers=1, timeout_s=5, progress=False)
    assert [results[t].status for t in ("victim1", "victim2")] == ["killed", "killed"]
    assert [results[t].answer for t in ("before", "middle", "after")] == ["80"] * 3
    assert _leftovers(private_tmp) == []


def test_a_hung_worker_is_killed_and_its_folder_removed(warehouse_dir, private_tmp, monkeypatch):
    monkeypatch.setattr(sandbox, "WORKER_GRACE_S", 0.5)
    send = sandbox._Worker.send

    def send_then_stop(worker, request):
        send(worker, request)
        if request["task_id"] == "hung":
            os.kill(worker.proc.pid, 19)  # SIGSTOP: the worker stops answering

    monkeypatch.setattr(sandbox._Worker, "send", send_then_stop)
    results = run_oracles(
        {"hung": GOOD, "after": GOOD}, warehouse_dir, workers=1, timeout_s=1, progress=False
    )
    assert results["hung"].status == "killed" and "stopped answering" in results["hung"].error
    assert results["after"].answer == "80"
    assert _leftovers(private_tmp) == []


def test_stale_folders_of_dead_parents_are_swept(warehouse_dir, private_tmp):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], check=True,
                          capture_output=True, text=True)  # fmt: skip
    dead_pid = int(dead.stdout)
    stale = private_tmp / f"ledgerforge-oracles-{dead_pid}-abcd1234"
    (stale / "w0" / "oracle-xyz").mkdir(parents=True)
    (stale / "w0" / "oracle-xyz").chmod(0o555)
    old = time.time() - 3600
    os.utime(stale, (old, old))
    live = private_tmp / f"ledgerforge-oracles-{os.getpid()}-live0000"
    live.mkdir()
    os.utime(live, (old, old))
    fresh = private_tmp / f"ledgerforge-oracles-{dead_pid}-fresh000"
    fresh.mkdir()  # just made: it may belong to a pool of another pid namespace
    results = run_oracles({"good": GOOD}, warehouse_dir, workers=1, progress=False)
    assert results["good"].answer == "80"
    assert _leftovers(private_tmp) == sorted([live.name, fresh.name])
