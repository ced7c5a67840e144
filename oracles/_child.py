"""What happens inside the forked child that runs one oracle.

Two layers, so that a hole in one is caught by the other:

- Python: the code runs with a small set of builtins (no ``open``, ``eval``...), and
  ``import`` hands out *facades* of the allowed modules that carry only their public
  names (``fractions.sys`` or ``statistics.sys`` would otherwise reach ``os``).
- Operating system (:func:`isolate`): a new network namespace (no interface is up, so
  even 127.0.0.1 is unreachable), chroot into an empty read-only directory (no file
  of the machine is visible; the warehouse is already in memory), resource limits
  (CPU seconds, address space, file size 0, no new processes, no core dumps),
  ``no_new_privs`` and the ``nobody`` user, and death with the worker.

Everything the child needs is imported by the worker before it forks: after the
chroot no module file can be found.
"""

from __future__ import annotations

import builtins
import ctypes
import gc
import io
import json
import linecache
import math
import os
import resource
import signal
import socket
import sys
import traceback
import types
from collections.abc import Callable
from dataclasses import dataclass

import oracles._checker as checker
import oracles.api as api
from oracles._static import ALLOWED_MODULES

CLONE_NEWNET = 0x40000000
PR_SET_PDEATHSIG = 1
PR_SET_NO_NEW_PRIVS = 38
NOBODY = 65534
OUTPUT_LIMIT = 64_000  # characters of captured stdout / error text sent back

_SAFE_BUILTIN_NAMES = (
    "abs all any bool callable chr dict divmod enumerate filter float frozenset hash "
    "int isinstance issubclass iter len list map max min next object ord pow print range "
    "repr reversed round set slice sorted str sum tuple zip "
    "ArithmeticError AssertionError Exception IndexError KeyError LookupError "
    "NotImplementedError OverflowError RuntimeError StopIteration TypeError ValueError "
    "ZeroDivisionError True False None"
).split()


@dataclass(frozen=True)
class Limits:
    """Per-oracle limits. ``memory_mb`` is address space on top of the warm worker's."""

    timeout_s: float = 10.0
    cpu_s: int = 5
    memory_mb: int = 1024


def _public(module: types.ModuleType) -> list[str]:
    names = getattr(module, "__all__", None)
    return list(names) if names else [n for n in dir(module) if not n.startswith("_")]


def build_facades() -> dict[str, types.ModuleType]:
    """One facade module per allowed import, holding only the module's public names."""
    import decimal
    import fractions
    import statistics

    facades: dict[str, types.ModuleType] = {}
    for module in (decimal, math, fractions, statistics, api):
        facade = types.ModuleType(module.__name__)
        for name in _public(module):
            setattr(facade, name, getattr(module, name))
        facades[module.__name__] = facade
    # `import oracles.api` binds the package `oracles`; give it the api facade only.
    package = types.ModuleType("oracles")
    package.api = facades["oracles.api"]
    facades["oracles"] = package
    assert set(facades) >= ALLOWED_MODULES
    return facades


def safe_builtins(facades: dict[str, types.ModuleType]) -> dict[str, object]:
    """The builtins an oracle sees: plain computation, print, and the facade importer."""
    table = {name: getattr(builtins, name) for name in _SAFE_BUILTIN_NAMES}

    def restricted_import(
        name: str,
        globals: dict | None = None,  # noqa: A002 - the signature of __import__
        locals: dict | None = None,  # noqa: A002
        fromlist: tuple = (),
        level: int = 0,
    ) -> types.ModuleType:
        if level or name not in ALLOWED_MODULES:
            raise ImportError(f"import of {name!r} is not allowed in an oracle")
        if name == "oracles.api" and not fromlist:
            return facades["oracles"]
        return facades[name]

    table["__import__"] = restricted_import
    table["__build_class__"] = builtins.__build_class__
    return table


# --------------------------------------------------------------------------- isolation


def _no_network(*args: object, **kwargs: object) -> socket.socket:
    raise PermissionError("network access is disabled in the oracle sandbox")


def isolate(limits: Limits, root_dir: str) -> dict[str, object]:
    """Cut the child off from network, files, processes and the worker; return what held."""
    libc = ctypes.CDLL(None, use_errno=True)
    applied: dict[str, object] = {}
    os.setsid()  # own process group: the worker kills the whole group on timeout
    # Memory: the fork inherits the worker's (large, mostly shared) address space, so
    # the limit is what the oracle may add; read it before the chroot hides /proc.
    with open("/proc/self/statm") as f:
        current = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    address_space = current + limits.memory_mb * 1024 * 1024
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if libc.unshare(CLONE_NEWNET) == 0:
        applied["network"] = "netns"
    else:
        # Without CAP_SYS_ADMIN: no namespace, so take socket creation away instead.
        socket.socket = _no_network  # type: ignore[misc,assignment]
        socket.create_connection = _no_network  # type: ignore[assignment]
        socket.socketpair = _no_network  # type: ignore[assignment]
        applied["network"] = "socket-patch"
    try:
        os.chroot(root_dir)
        os.chdir("/")
        applied["files"] = "chroot"
    except OSError:
        os.chdir(root_dir)
        applied["files"] = "empty-cwd"
    cpu = max(1, int(math.ceil(limits.cpu_s)))
    for which, value in (
        (resource.RLIMIT_CPU, (cpu, cpu + 1)),
        (resource.RLIMIT_AS, (address_space, address_space)),
        (resource.RLIMIT_FSIZE, (0, 0)),
        (resource.RLIMIT_CORE, (0, 0)),
        (resource.RLIMIT_NPROC, (0, 0)),
    ):
        resource.setrlimit(which, value)
    libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    try:
        os.setgroups([])
        os.setgid(NOBODY)
        os.setuid(NOBODY)  # RLIMIT_NPROC binds only once we are not root
        applied["user"] = "nobody"
    except OSError:
        applied["user"] = str(os.getuid())
    return applied


# --------------------------------------------------------------------------- run


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _tail(text: str) -> str:
    return text[-OUTPUT_LIMIT:]


def run_oracle_in_child(
    request: dict,
    result_fd: int,
    isolate_fn: Callable[[], dict[str, object]],
    facades: dict[str, types.ModuleType],
) -> None:
    """Run one oracle in this (already forked) process and write one JSON result to
    ``result_fd``. Never returns: the child ends with ``os._exit``."""
    message: dict[str, object]
    try:
        try:
            # Workflow checkers read workbooks: their bytes now, before no file is visible.
            checker.attach_workbooks(request.get("workbooks"))
        except Exception as err:  # noqa: BLE001 - a missing file is this oracle's failure
            error = _tail(f"WarehouseError: cannot attach the workbooks: {err}")
            _write_all(result_fd, json.dumps({"kind": "error", "error": error}).encode())
            return
        isolation = isolate_fn()
        # The worker's environment is already minimal; the oracle gets none at all.
        os.environ.clear()
        api.reset_session(probe=int(request.get("probe") or 0))
        captured = io.StringIO()
        sys.stdout = captured
        filename = f"<oracle {request['task_id']}>"
        source = request["source"]
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        if request.get("guards", True):
            scope: dict[str, object] = {"__builtins__": safe_builtins(facades)}
        else:  # only to test the operating-system layer on its own
            scope = {"__builtins__": builtins}
        scope["__name__"] = "__oracle__"
        try:
            exec(compile(source, filename, "exec"), scope)
            message = _finished(captured.getvalue())
        except MemoryError:
            scope.clear()
            gc.collect()
            message = {"kind": "memory", "error": "MemoryError: the oracle ran out of memory"}
        except BaseException as err:  # noqa: BLE001 - everything the oracle raises is its failure
            scope.clear()
            # Skip this runner's own frame: the trace starts in the oracle.
            trace = "".join(traceback.format_exception(type(err), err, err.__traceback__.tb_next))
            sys.stderr.write(trace)
            message = {"kind": "error", "error": _tail(f"{type(err).__name__}: {err}")}
        message["isolation"] = isolation
        message["log"] = {k: v for k, v in api.session_log().items() if k != "emitted"}
        _write_all(result_fd, json.dumps(message, default=str).encode())
    except MemoryError:
        _write_all(result_fd, b'{"kind": "memory", "error": "MemoryError"}')
    finally:
        os._exit(0)


def _finished(stdout: str) -> dict[str, object]:
    emitted = api.session_log()["emitted"]
    if emitted is None:
        return {"kind": "error", "error": "OracleError: the oracle finished without emit()"}
    lines = [line for line in stdout.splitlines() if line.strip()]
    if len(lines) != 1:
        return {
            "kind": "error",
            "error": f"OracleError: stdout must be exactly one JSON line, got {len(lines)}",
            "stdout": _tail(stdout),
        }
    return {"kind": "ok", "output": emitted}
