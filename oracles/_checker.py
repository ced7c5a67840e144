"""Workbooks under test: what a workflow checker (an oracle program) grades.

The sandbox attaches the workbook under test and the task's input by path before the
child isolates itself (:func:`attach_workbooks`); the checker reads them with
:func:`workbook_under_test` and :func:`workbook_blob` (by sha256, the digest verified),
compares cells with ``check_cell`` / ``kept_cell_failures`` (:mod:`oracles._workbook`)
and prints its verdict with :func:`emit_verdict`. Oracle programs import these names from
:mod:`oracles.api`, which re-exports them.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Mapping

from oracles import api
from oracles._workbook import WorkbookView, read_workbook_bytes

UNDER_TEST = "under_test"
MAX_ATTACHED_BYTES = 256 * 1024 * 1024
MAX_FAILURES_SHOWN = 100

_attached: dict[str, bytes] = {}  # name ("under_test" or a sha256) -> bytes
_attached_digest: dict[str, str] = {}
_parsed: dict[str, WorkbookView] = {}


def attach_workbooks(paths: Mapping[str, str] | None) -> None:
    """Read the workbooks an oracle run may see (``{"under_test": path, <sha256>: path}``).

    Called by the sandbox child *before* it isolates itself (after the chroot no file is
    visible); the bytes are parsed later, under the oracle's limits. The paths come from
    the caller of ``oracles.sandbox.run_oracles``, never from the oracle. Oracles cannot
    reach this function (it is not among the names they may import).
    """
    _attached.clear()
    _attached_digest.clear()
    _parsed.clear()
    for name, path in (paths or {}).items():
        with open(path, "rb") as fh:
            data = fh.read(MAX_ATTACHED_BYTES + 1)
        if len(data) > MAX_ATTACHED_BYTES:
            raise api.WarehouseError(f"{path}: more than {MAX_ATTACHED_BYTES} bytes")
        _attached[str(name)] = data
        _attached_digest[str(name)] = hashlib.sha256(data).hexdigest()


def _attached_workbook(name: str, what: str) -> WorkbookView:
    if name not in _attached:
        raise api.WarehouseError(
            f"{what}: not attached to this run (run_oracles(..., workbooks={{task_id: "
            f"{{{name!r}: path}}}}) attaches it)"
        )
    if name not in _parsed:
        _parsed[name] = read_workbook_bytes(_attached[name], what)
    return _parsed[name]


def workbook_under_test() -> WorkbookView:
    """The workbook the checker grades (an agent's output, or the task's own reference
    and input when the task is validated or audited)."""
    view = _attached_workbook(UNDER_TEST, "the workbook under test")
    api._session.reads.append({"workbook": UNDER_TEST, "sha256": _attached_digest[UNDER_TEST]})
    return view


def workbook_blob(sha256: str) -> WorkbookView:
    """A workbook of the blob store by its sha256; the bytes must hash to it (a tampered
    or substituted file is an error, never read)."""
    sha = str(sha256).lower()
    if sha in _attached and _attached_digest[sha] != sha:
        raise api.IdentityFailed(
            f"blob {sha}: its bytes hash to {_attached_digest[sha]} (tampered)"
        )
    view = _attached_workbook(sha, f"blob {sha}")
    api._session.reads.append({"workbook": sha, "sha256": sha})
    return view


def emit_verdict(failures: list, checked: int = 0) -> None:
    """Print the checker's one JSON line: ``{"passed", "failures", "n_failures",
    "checked", "answer", "interval", ...}``. ``answer`` is "1" when nothing failed and
    "0" otherwise; the interval is ["1", "1"] (a pass is the only right answer)."""
    if api._session.emitted is not None:
        raise api.EmitError("emit may be called only once per oracle")
    if not isinstance(failures, list):
        raise api.EmitError(f"failures must be a list, not {type(failures).__name__}")
    passed = not failures
    payload = {
        "answer": "1" if passed else "0",
        "interval": ["1", "1"],
        "unit": "verdict",
        "passed": passed,
        "failures": [f if isinstance(f, dict) else str(f) for f in failures[:MAX_FAILURES_SHOWN]],
        "n_failures": len(failures),
        "checked": int(checked),
        "reads": api._session.reads,
        "checks": api._session.checks,
    }
    api._session.emitted = payload
    sys.stdout.write(json.dumps(payload, default=str) + "\n")
    sys.stdout.flush()
