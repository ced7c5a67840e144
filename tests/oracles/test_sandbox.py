"""oracles.sandbox: hostile oracles are stopped with the right status, good ones still run."""

from __future__ import annotations

import os
import socket
import textwrap
import uuid

import pytest

from oracles import sandbox
from oracles.sandbox import check_source, run_oracle, run_oracles

GOOD = textwrap.dedent(
    """
    from decimal import Decimal
    from oracles.api import table_cell, emit

    a = table_cell(doc="d0c1", page=3, table=0, row="Individual income tax", col="1949")
    b = table_cell(doc="d0c1", page=3, table=0, row="Excise taxes", col="1949")
    emit(answer=a - b, places=0, unit="millions of dollars")
    """
)

# name -> (source, status, rule)
HOSTILE = {
    "import_os": ("import os\nos.system('id')\n", "rejected", "import-not-allowed"),
    "import_subprocess": (
        "from subprocess import run\nrun(['id'])\n",
        "rejected",
        "import-not-allowed",
    ),
    "import_ctypes": ("import ctypes\n", "rejected", "import-not-allowed"),
    "import_socket": (
        "import socket\nsocket.create_connection(('127.0.0.1', 80))\n",
        "rejected",
        "import-not-allowed",
    ),
    "eval": ("x = eval('1 + 1')\n", "rejected", "forbidden-name"),
    "exec": ("exec('import os')\n", "rejected", "forbidden-name"),
    "write_file": ("open('leak.txt', 'w').write('x')\n", "rejected", "forbidden-name"),
    "read_outside": ("print(open('/etc/passwd').read())\n", "rejected", "forbidden-name"),
    "dunder_escape": (
        "subclasses = ().__class__.__base__.__subclasses__()\n",
        "rejected",
        "underscore-attribute",
    ),
    "builtins_escape": ("x = __builtins__\n", "rejected", "underscore-name"),
    "frame_escape": (
        "g = (x for x in [1])\nfr = g.gi_frame.f_back\n",
        "rejected",
        "introspection-attribute",
    ),
    "format_escape": ("s = '{0.__class__}'.format(1)\n", "rejected", "introspection-attribute"),
    "decimal_context_set": (
        "from decimal import getcontext\ngetcontext().prec = 1\n",
        "rejected",
        "attribute-assignment",
    ),
    "swap_emit": (
        "import oracles.api\noracles.api.emit = print\n",
        "rejected",
        "attribute-assignment",
    ),
    "infinite_loop": ("while True:\n    pass\n", "timeout", "cpu-time"),
    "memory_bomb": ("x = [0] * (10 ** 10)\n", "memory", "memory"),
    "memory_doubling": ("s = 'a'\nwhile True:\n    s = s + s\n", "memory", "memory"),
    "deep_recursion": ("def f(n):\n    return f(n + 1)\nf(0)\n", "error", "RecursionError"),
    "decimal_max_prec": (
        "from decimal import setcontext, Context, MAX_PREC, Decimal\n"
        "setcontext(Context(prec=MAX_PREC))\nx = Decimal(1) / Decimal(3)\n",
        "memory",
        "memory",
    ),
    "decimal_hidden_sys": ("import decimal\nm = decimal.sys.modules\n", "error", "AttributeError"),
    "statistics_hidden_sys": ("import statistics\nm = statistics.sys\n", "error", "AttributeError"),
    "unconfirmed_cell": (
        "from oracles.api import table_cell\ntable_cell('d0c1', 3, 0, 'Memo: refunds', '1948')\n",
        "error",
        "UnconfirmedCell",
    ),
    "failing_identity": (
        "from oracles.api import table_cell\ntable_cell('d0c1', 4, 0, 'Customs', '1948')\n",
        "error",
        "IdentityFailed",
    ),
    "no_emit": ("x = 1\n", "error", "OracleError"),
    "extra_output": (
        "from oracles.api import emit, D\nprint('debug')\nemit(D(1), 0)\n",
        "error",
        "OracleError",
    ),
}


@pytest.fixture(scope="module")
def batch(warehouse_dir):
    """Every hostile oracle and two good ones in one pool run."""
    oracles = {name: source for name, (source, _, _) in HOSTILE.items()}
    oracles["good_first"] = GOOD
    oracles["good"] = GOOD
    oracles["decimal_low_precision_context"] = (
        "from decimal import setcontext, Context, Decimal, ROUND_DOWN\n"
        "from oracles.api import emit\n"
        "setcontext(Context(prec=2, rounding=ROUND_DOWN))\n"
        "emit(Decimal('1234.5'), 0)\n"
    )
    return run_oracles(oracles, warehouse_dir, workers=2, timeout_s=5, cpu_s=1, memory_mb=256)


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_oracle_is_stopped_with_its_status(batch, name):
    _, status, rule = HOSTILE[name]
    result = batch[name]
    assert (result.status, result.rule) == (status, rule), result.error
    assert result.output is None


def test_good_oracles_in_the_same_batch_succeed(batch):
    for name in ("good_first", "good"):
        result = batch[name]
        assert result.ok, result.error
        assert result.answer == "80"  # 110 - 30 (the total-implied excise figure)
        assert result.interval == ("79.5", "80.5")
        assert result.output["unit"] == "millions of dollars"
        assert [c["holds"] for c in result.output["checks"]] == [True]
    assert batch["good"].isolation == {"network": "netns", "files": "chroot", "user": "nobody"}


def test_decimal_context_tricks_do_not_change_the_rounding(batch):
    assert batch["decimal_low_precision_context"].answer == "1235"


def test_results_name_rule_line_and_trace(batch):
    assert batch["import_os"].line == 1
    assert "import os" in batch["import_os"].error
    assert batch["frame_escape"].line == 2
    assert "Memo: refunds" in batch["unconfirmed_cell"].error
    assert "<oracle failing_identity>" in batch["failing_identity"].stderr
    # the read made before the identity failed is kept for the report
    assert batch["failing_identity"].log["checks"][0]["holds"] is False
    assert batch["infinite_loop"].cpu_seconds > 0.5  # SIGXCPU near the 1 s CPU limit


@pytest.mark.parametrize(
    ("source", "rule", "line"),
    [
        ("from decimal import *\n", "star-import", 1),
        ("from . import api\n", "relative-import", 1),
        ("from oracles import api\n", "import-not-allowed", 1),
        ("import math\n\nx = globals()\n", "forbidden-name", 3),
        ("def _hidden():\n    pass\n", "underscore-name", 1),
        ("match 1:\n    case int(__class__=c):\n        pass\n", "underscore-attribute", 2),
        ("x = (\n", "syntax", 1),
        ("from math import _private\n", "underscore-name", 1),
    ],
)
def test_static_rules_report_rule_and_line(source, rule, line):
    violations = check_source(source)
    assert (violations[0].rule, violations[0].line) == (rule, line)


def test_a_template_oracle_passes_the_static_check():
    assert check_source(GOOD) == []
    assert check_source("import oracles.api as api\nfrom fractions import Fraction\n") == []


OS_LAYER = {
    # python_guards=False: full builtins and real imports; only the OS layer stops these.
    "network": textwrap.dedent(
        """
        import socket
        from oracles.api import emit, D
        try:
            # A raw connect: create_connection would need the idna codec, which the
            # chroot already hides, and so would fail before reaching the network.
            s = socket.socket()
            s.settimeout(2)
            s.connect(("127.0.0.1", PORT))
            emit(D(1), 0)
        except OSError:
            emit(D(0), 0)
        """
    ),
    "write_file": textwrap.dedent(
        """
        from oracles.api import emit, D
        failed = 0
        for path in ("LEAK", "leak.txt", "/leak.txt"):
            try:
                with open(path, "w") as f:
                    f.write("x")
            except OSError:
                failed += 1
        emit(D(failed), 0)
        """
    ),
    "read_outside": textwrap.dedent(
        """
        from oracles.api import emit, D
        failed = 0
        for path in ("/etc/passwd", "WAREHOUSE/anchored_cells/all.parquet"):
            try:
                open(path, "rb").read()
            except OSError:
                failed += 1
        emit(D(failed), 0)
        """
    ),
    "spawn": textwrap.dedent(
        """
        import os, subprocess
        from oracles.api import emit, D
        failed = 0
        try:
            pid = os.fork()
            if pid == 0:
                os._exit(0)
        except OSError:
            failed += 1
        try:
            subprocess.run(["/bin/true"], check=True)
        except OSError:
            failed += 1
        emit(D(failed), 0)
        """
    ),
    "kill_worker": textwrap.dedent(
        """
        import os, signal
        from oracles.api import emit, D
        try:
            os.kill(os.getppid(), signal.SIGKILL)
            emit(D(1), 0)
        except OSError:
            emit(D(0), 0)
        """
    ),
    "sleep": "import time\ntime.sleep(60)\n",
}


def test_os_layer_holds_without_the_python_guards(warehouse_dir, tmp_path):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    listener.setblocking(False)
    port = listener.getsockname()[1]
    leak = tmp_path / f"leak-{uuid.uuid4().hex}"
    oracles = dict(OS_LAYER)
    oracles["network"] = oracles["network"].replace("PORT", str(port))
    oracles["write_file"] = oracles["write_file"].replace("LEAK", str(leak))
    oracles["read_outside"] = oracles["read_outside"].replace("WAREHOUSE", str(warehouse_dir))
    oracles["good"] = GOOD
    try:
        results = run_oracles(
            oracles, warehouse_dir, workers=2, timeout_s=2, cpu_s=2, python_guards=False
        )
        with pytest.raises(BlockingIOError):
            listener.accept()  # nothing ever reached the host's loopback
    finally:
        listener.close()
    answers = {name: r.answer for name, r in results.items()}
    assert answers["network"] == "0"
    assert answers["write_file"] == "3" and not leak.exists()
    assert answers["read_outside"] == "2"
    assert answers["spawn"] == "2"
    assert answers["kill_worker"] == "0"
    assert (results["sleep"].status, results["sleep"].rule) == ("timeout", "wall-clock")
    assert answers["good"] == "80"


def test_a_dead_worker_is_replaced_and_only_its_oracle_is_lost(warehouse_dir, monkeypatch):
    send = sandbox._Worker.send

    def send_then_die(worker, request):
        send(worker, request)
        if request["task_id"] == "victim":
            worker.proc.kill()

    monkeypatch.setattr(sandbox._Worker, "send", send_then_die)
    oracles = {"before": GOOD, "victim": GOOD, "after": GOOD, "last": GOOD}
    results = run_oracles(oracles, warehouse_dir, workers=1, progress=False)
    assert results["victim"].status == "killed" and "died" in results["victim"].error
    assert [results[t].answer for t in ("before", "after", "last")] == ["80"] * 3


def test_run_oracle_single(warehouse_dir):
    result = run_oracle(GOOD, warehouse_dir, task_id="t1")
    assert (result.task_id, result.status, result.answer) == ("t1", "ok", "80")
    rejected = run_oracle("import os\n", warehouse_dir)
    assert rejected.status == "rejected" and rejected.rule == "import-not-allowed"


def test_no_worker_left_behind(batch):
    # The pool stopped every worker it started (the batch has finished).
    assert len(batch) == len(HOSTILE) + 3
    assert not [pid for pid in os.listdir("/proc") if pid.isdigit() and _our_worker(pid)]


def _our_worker(pid: str) -> bool:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            cmd = f.read()
        with open(f"/proc/{pid}/stat") as f:
            ppid = int(f.read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return False
    return b"oracles._worker" in cmd and ppid == os.getpid()


def test_missing_warehouse_is_refused(tmp_path):
    with pytest.raises(sandbox.SandboxError, match="does not exist"):
        run_oracles({"t": GOOD}, tmp_path / "nowhere", progress=False)


def test_socket_patch_when_no_network_namespace_is_allowed(tmp_path, monkeypatch):
    # Where unshare(CLONE_NEWNET) is refused, socket creation itself is taken away.
    import ctypes

    from oracles import _child

    real_cdll = ctypes.CDLL

    class NoUnshare:
        def __init__(self, *args, **kwargs):
            self.libc = real_cdll(*args, **kwargs)

        def unshare(self, flags):
            return -1

        def __getattr__(self, name):
            return getattr(self.libc, name)

    monkeypatch.setattr(_child.ctypes, "CDLL", NoUnshare)
    root = tmp_path / "root"
    root.mkdir(mode=0o555)
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the forked child
        try:
            applied = _child.isolate(_child.Limits(), str(root))
            try:
                socket.socket()
                blocked = False
            except PermissionError:
                blocked = True
            os.write(write_fd, f"{applied['network']} {blocked}".encode())
        finally:
            os._exit(0)
    os.close(write_fd)
    os.waitpid(pid, 0)
    with os.fdopen(read_fd) as f:
        assert f.read() == "socket-patch True"
