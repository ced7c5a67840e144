"""The runtime that oracle programs import: read confirmed source numbers, emit the key.

An oracle reads every source number through this module, computes with
``decimal.Decimal`` and calls :func:`emit` once::

    from oracles.api import table_cell, emit

    a = table_cell(doc="3f2a...", page=4, table=0, row="Individual income tax", col="1948")
    b = table_cell(doc="3f2a...", page=4, table=0, row="Corporation income tax", col="1948")
    emit(answer=a - b, places=0, unit="millions of dollars")

Only numbers anchored by a total of their table are served (``anchored_cells``),
and every identity a served number takes part in is recomputed here from the
printed ``table_cells`` before the number is handed out, so an oracle can never
use a number its own table does not confirm.

Every identity check, rounding and interval here runs in the API's own fixed decimal
context (:func:`_fixed_context`), never in the oracle's: an oracle that installs a
one-digit context, or changes the default context, cannot make a failing identity hold
or move its key or interval.

Workflow checkers grade a workbook (:mod:`oracles._checker`, re-exported here): the sandbox
attaches the workbook under test and the task's input by path before the child is
isolated (``oracles._checker.attach_workbooks``); the checker reads them with
:func:`workbook_under_test` and :func:`workbook_blob` (by sha256, the digest verified),
compares cells with :func:`check_cell` and :func:`kept_cell_failures`, and prints its
verdict with :func:`emit_verdict` (``{"passed", "failures", ...}``; ``answer`` is
``"1"`` for a pass, ``"0"`` for a fail, so the sandbox's ``answer``/``interval``
contract holds).

The warehouse folder comes from ``LEDGERFORGE_WAREHOUSE`` (the sandbox sets it) and
is read once per process into plain Python dictionaries. Plain dictionaries, not
Arrow or polars frames, because the sandbox forks a child per oracle from a warm
worker: the child must not touch libraries whose thread pools do not survive a fork.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from decimal import (
    MAX_EMAX,
    MIN_EMIN,
    ROUND_HALF_UP,
    Context,
    Decimal,
    DivisionByZero,
    InvalidOperation,
    Overflow,
    localcontext,
)
from pathlib import Path
from typing import ParamSpec, TypeVar

import pyarrow as pa
import pyarrow.parquet as pq

from oracles._workbook import (
    WorkbookReadError,
    check_cell,
    kept_cell_failures,
    sheet_features,
)

__all__ = [
    "D",
    "Decimal",
    "AmbiguousCell",
    "EmitError",
    "IdentityFailed",
    "OracleError",
    "UnconfirmedCell",
    "UnknownIdentity",
    "WarehouseError",
    "WorkbookReadError",
    "check_cell",
    "check_identity",
    "emit",
    "emit_verdict",
    "kept_cell_failures",
    "sheet_features",
    "table_cell",
    "workbook_blob",
    "workbook_cell",
    "workbook_under_test",
]

D = Decimal

WAREHOUSE_ENV = "LEDGERFORGE_WAREHOUSE"

# Statuses of anchored_cells whose number may be used, and which column holds it.
_VALUE_COLUMN = {"confirmed": "value_str", "repaired": "value_str", "contradicted": "implied_str"}


class OracleError(Exception):
    """Base class of every failure an oracle can meet through this API."""


class WarehouseError(OracleError):
    """The warehouse folder or one of its assets is missing or unreadable."""


class UnconfirmedCell(OracleError):
    """The cell is not anchored by any identity of its table, so its number is never used."""


class AmbiguousCell(OracleError):
    """The row or column label repeats in the table; address the cell by index instead."""


class IdentityFailed(OracleError):
    """A table identity the cell takes part in does not hold within its tolerance."""


class UnknownIdentity(OracleError):
    """No identity with this id in the warehouse."""


class EmitError(OracleError):
    """``emit`` was called twice or with an answer that is not an exact number."""


@dataclass
class _Anchor:
    table_id: str
    doc_id: str
    page_no: int
    table_no: int
    row_idx: int
    col_idx: int
    row_label: str
    col_label: str
    status: str
    value_str: str | None
    printed_str: str | None
    implied_str: str | None
    identity_ids: list[str]

    def usable_str(self) -> str | None:
        column = _VALUE_COLUMN.get(self.status)
        return getattr(self, column) if column else None


@dataclass
class _Identity:
    identity_id: str
    table_id: str
    kind: str
    total: tuple[int, int]
    members: list[tuple[int, int]]
    tolerance: str
    holds: bool = True  # as the anchoring stage recorded it


@dataclass
class _Warehouse:
    """The parts of the warehouse the API serves, as plain dictionaries."""

    root: Path
    anchors_by_label: dict[tuple, list[_Anchor]] = field(default_factory=dict)
    anchors_by_cell: dict[tuple, _Anchor] = field(default_factory=dict)
    anchors_by_table: dict[tuple, list[_Anchor]] = field(default_factory=dict)
    identities: dict[str, _Identity] = field(default_factory=dict)
    printed: dict[tuple, str | None] = field(default_factory=dict)
    workbook_cells: dict[tuple, tuple] | None = None
    loaded: set[str] = field(default_factory=set)


@dataclass
class _Session:
    """What one oracle run has done: reads, identity checks, the emitted payload."""

    reads: list[dict] = field(default_factory=list)
    checks: list[dict] = field(default_factory=list)
    checked: dict[str, dict] = field(default_factory=dict)
    emitted: dict | None = None
    probe: int = 0  # 0: serve the warehouse's numbers; else a probe run (see _probe_value)


_warehouse: _Warehouse | None = None
_session = _Session()


# --------------------------------------------------------------------------- loading


def _asset_table(root: Path, asset: str, columns: list[str]) -> pa.Table:
    folder = root / asset
    parts = sorted(folder.glob("*.parquet"))
    if not parts:
        raise WarehouseError(f"asset {asset!r} has no Parquet files under {folder}")
    tables = []
    for part in parts:
        try:
            # Opened read-only; the sandboxed oracle never gets a file handle.
            tables.append(pq.read_table(part, columns=columns))
        except (OSError, pa.ArrowException, KeyError) as err:
            raise WarehouseError(f"{part}: cannot read columns {columns}: {err}") from err
    return pa.concat_tables(tables, promote_options="default")


def _rows(table: pa.Table) -> Iterable[tuple]:
    return zip(*(table.column(name).to_pylist() for name in table.column_names), strict=True)


def _load_anchors(wh: _Warehouse) -> None:
    columns = [
        "table_id", "doc_id", "page_no", "table_no", "row_idx", "col_idx", "row_label",
        "col_label", "status", "value_str", "printed_str", "implied_str", "identity_ids",
    ]  # fmt: skip
    for row in _rows(_asset_table(wh.root, "anchored_cells", columns)):
        anchor = _Anchor(*row[:-1], identity_ids=list(row[-1] or []))
        where = (anchor.doc_id, anchor.page_no, anchor.table_no)
        wh.anchors_by_label.setdefault((*where, anchor.row_label, anchor.col_label), []).append(
            anchor
        )
        wh.anchors_by_table.setdefault(where, []).append(anchor)
        wh.anchors_by_cell[(anchor.table_id, anchor.row_idx, anchor.col_idx)] = anchor


def _load_identities(wh: _Warehouse) -> None:
    columns = [
        "identity_id", "table_id", "kind", "total_row_idx", "total_col_idx",
        "member_rows", "member_cols", "tolerance", "holds",
    ]  # fmt: skip
    for iid, tid, kind, trow, tcol, mrows, mcols, tol, holds in _rows(
        _asset_table(wh.root, "identities", columns)
    ):
        mrows, mcols = list(mrows or []), list(mcols or [])
        if len(mrows) != len(mcols):
            raise WarehouseError(
                f"{wh.root / 'identities'}: identity {iid} has {len(mrows)} member rows "
                f"but {len(mcols)} member columns"
            )
        # repr() of a float is its shortest round-trip text, so 0.5 stays exactly 0.5.
        wh.identities[iid] = _Identity(
            iid,
            tid,
            kind,
            (trow, tcol),
            list(zip(mrows, mcols, strict=True)),
            repr(tol or 0.0),
            bool(holds),
        )


def _load_printed(wh: _Warehouse) -> None:
    table = _asset_table(wh.root, "table_cells", ["table_id", "row_idx", "col_idx", "value_str"])
    for tid, r, c, value in _rows(table):
        wh.printed[(tid, r, c)] = value


_LOADERS = {
    "anchored_cells": _load_anchors,
    "identities": _load_identities,
    "table_cells": _load_printed,
}


def _need(asset: str) -> _Warehouse:
    """The warehouse with ``asset`` loaded (once per process)."""
    global _warehouse
    if _warehouse is None:
        root = os.environ.get(WAREHOUSE_ENV)
        if not root:
            raise WarehouseError(
                f"{WAREHOUSE_ENV} is not set: oracles run through oracles.sandbox, "
                "which points it at the warehouse folder"
            )
        if not Path(root).is_dir():
            raise WarehouseError(f"{WAREHOUSE_ENV}={root}: no such folder")
        _warehouse = _Warehouse(Path(root))
    if asset not in _warehouse.loaded:
        _LOADERS[asset](_warehouse)
        _warehouse.loaded.add(asset)
    return _warehouse


def load_warehouse(root: str | Path | None = None, assets: Iterable[str] | None = None) -> None:
    """Read the warehouse into this process's cache (the sandbox workers call it once).

    ``root`` defaults to ``LEDGERFORGE_WAREHOUSE``. Assets that do not exist yet are
    skipped here; an oracle that needs them gets a ``WarehouseError`` naming the folder.
    """
    global _warehouse
    if root is not None:
        os.environ[WAREHOUSE_ENV] = str(root)
        _warehouse = None
    for asset in assets or ("anchored_cells", "identities", "table_cells", "cells"):
        try:
            if asset == "cells":
                _workbook_cells()
            else:
                _need(asset)
        except WarehouseError:
            continue


def reset_session(probe: int = 0) -> None:
    """Forget the reads, checks and emitted answer (a fresh oracle run in this process).

    ``probe`` other than 0 makes this run a probe run: every number read is served as a
    probe number in place of its warehouse value (identity checks still run on the
    warehouse). The audit runs each oracle on probes to see that its key comes from what
    it reads: an oracle that emits the same key whatever it reads ignores its sources.
    Oracles cannot reach this function (it is not among the names they may import).
    """
    global _session
    _session = _Session(probe=int(probe))


_PROBE_PRIMES = (3, 7, 13, 29, 61, 127, 251, 509, 1021, 2039, 4093, 8191)


def _probe_value(value: Decimal, index: int) -> Decimal:
    """The number served for the ``index``-th read of a probe run. Probe 1 serves distinct
    primes whatever was read; probe 2 an affine map of the real value (another slope and
    offset per read); any other probe a map of its own. Two probes that both leave an
    oracle's key unchanged say it does not compute from what it reads."""
    seed = _session.probe
    if seed == 1:
        base = _PROBE_PRIMES[index % len(_PROBE_PRIMES)]
        return Decimal(base * (1 + index // len(_PROBE_PRIMES)))
    if seed == 2:
        return value * (index + 2) + (2 * index + 1)
    return value * (seed + index + 1) + seed * (index + 1)


def session_log() -> dict:
    """The reads and identity checks made so far, and the emitted payload if any."""
    return {"reads": _session.reads, "checks": _session.checks, "emitted": _session.emitted}


# --------------------------------------------------------------------------- table cells


def _context(prec: int) -> Context:
    """A context with every field given, so nothing comes from ``DefaultContext`` (which
    an oracle can alter): half-up rounding, the widest exponents, and traps on invalid
    operations, division by zero and overflow."""
    return Context(
        prec=prec,
        rounding=ROUND_HALF_UP,
        Emin=MIN_EMIN,
        Emax=MAX_EMAX,
        capitals=1,
        clamp=0,
        flags=[],
        traps=[InvalidOperation, DivisionByZero, Overflow],
    )


# Enough digits for any printed table number, so a sum of them is exact.
_EXACT = _context(200)

_P = ParamSpec("_P")
_R = TypeVar("_R")


def _fixed_context(fn: Callable[_P, _R]) -> Callable[_P, _R]:
    """Run ``fn`` in a copy of the API's own context, whatever context the caller set.

    ``localcontext`` copies ``_EXACT`` on entry and restores the caller's on exit, so the
    oracle's context is neither used nor changed. (No ``functools.wraps``: it would hang
    the unwrapped function on the wrapper as ``__wrapped__``.)
    """

    def fixed(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        with localcontext(_EXACT):
            return fn(*args, **kwargs)

    fixed.__name__, fixed.__qualname__, fixed.__doc__ = fn.__name__, fn.__qualname__, fn.__doc__
    return fixed


def _decimal(text: str | None, what: str) -> Decimal:
    if text is None:
        raise IdentityFailed(f"{what} has no number")
    try:
        return Decimal(text)
    except InvalidOperation as err:
        raise WarehouseError(f"{what}: {text!r} is not a decimal number") from err


def _find_anchor(doc: str, page: int, table: int, row: str | int, col: str | int) -> _Anchor:
    wh = _need("anchored_cells")
    where = (doc, page, table)
    if isinstance(row, str) and isinstance(col, str):
        found = wh.anchors_by_label.get((*where, row, col), [])
    else:
        # Index addressing (row labels repeat in a table); a label on the other axis still works.
        found = [
            a
            for a in wh.anchors_by_table.get(where, [])
            if (a.row_idx == row if isinstance(row, int) else a.row_label == row)
            and (a.col_idx == col if isinstance(col, int) else a.col_label == col)
        ]
    if len(found) > 1:
        spots = ", ".join(f"row={a.row_idx} col={a.col_idx}" for a in found)
        raise AmbiguousCell(
            f"doc={doc} page={page} table={table}: row {row!r} col {col!r} matches "
            f"{len(found)} cells ({spots}); address it by index"
        )
    if not found:
        raise UnconfirmedCell(
            f"doc={doc} page={page} table={table} row={row!r} col={col!r}: "
            "not an anchored cell (no total of its table confirms it), so it is never used"
        )
    return found[0]


def _cell_value(wh: _Warehouse, table_id: str, r: int, c: int) -> Decimal:
    """The value a cell contributes to an identity: anchored when repaired or contradicted."""
    anchor = wh.anchors_by_cell.get((table_id, r, c))
    if anchor is not None and anchor.status in ("repaired", "contradicted"):
        return _decimal(anchor.usable_str(), f"anchored cell {table_id} ({r},{c})")
    if (table_id, r, c) not in wh.printed:
        raise IdentityFailed(f"table {table_id}: cell ({r},{c}) is not in table_cells")
    return _decimal(wh.printed[(table_id, r, c)], f"table {table_id} cell ({r},{c})")


@_fixed_context
def check_identity(identity_id: str) -> None:
    """Recompute one identity from the printed cells with Decimal; raise if it fails.

    Members and total take ``table_cells.value_str``; a repaired or contradicted cell
    takes its anchored value. The identity holds when ``|total - sum(members)|`` is
    within its tolerance. Each identity is checked and logged once per oracle run.
    """
    if identity_id in _session.checked:
        if not _session.checked[identity_id]["holds"]:
            raise IdentityFailed(f"identity {identity_id} does not hold")
        return
    _need("anchored_cells")
    _need("table_cells")
    wh = _need("identities")
    ident = wh.identities.get(identity_id)
    if ident is None:
        raise UnknownIdentity(f"no identity {identity_id!r} in {wh.root / 'identities'}")
    total = _cell_value(wh, ident.table_id, *ident.total)
    members = _EXACT.create_decimal(0)
    for r, c in ident.members:
        members = _EXACT.add(members, _cell_value(wh, ident.table_id, r, c))
    residual = _EXACT.subtract(total, members)
    tolerance = Decimal(ident.tolerance)
    holds = abs(residual) <= tolerance
    entry = {
        "identity_id": identity_id,
        "kind": ident.kind,
        "total": str(total),
        "members_sum": str(members),
        "residual": str(residual),
        "tolerance": str(tolerance),
        "holds": holds,
    }
    _session.checked[identity_id] = entry
    _session.checks.append(entry)
    if not holds:
        raise IdentityFailed(
            f"identity {identity_id} ({ident.kind}, table {ident.table_id}): total {total} "
            f"- members {members} = {residual}, beyond tolerance {tolerance}"
        )


@_fixed_context
def table_cell(doc: str, page: int, table: int, row: str | int, col: str | int) -> Decimal:
    """The confirmed number of one table cell, with every identity it is in re-asserted.

    ``row`` and ``col`` are the printed labels (exact match), or the 0-based
    ``row_idx`` / ``col_idx`` where labels repeat. A confirmed or repaired cell gives
    its value; a contradicted cell gives the value its total implies (the key follows
    the total). Raises ``UnconfirmedCell`` for a cell no identity anchors,
    ``AmbiguousCell`` for a repeated label, ``IdentityFailed`` when an identity of the
    cell does not hold on recomputation.
    """
    anchor = _find_anchor(doc, page, table, row, col)
    where = f"doc={doc} page={page} table={table} row={row!r} col={col!r}"
    usable = anchor.usable_str()
    if usable is None:
        raise UnconfirmedCell(f"{where}: status {anchor.status!r} has no usable value")
    value = _decimal(usable, where)
    _session.reads.append(
        {
            "doc": doc,
            "page": page,
            "table": table,
            "row": row,
            "col": col,
            "table_id": anchor.table_id,
            "row_idx": anchor.row_idx,
            "col_idx": anchor.col_idx,
            "status": anchor.status,
            "printed": anchor.printed_str,
            "value": str(value),
            "identity_ids": list(anchor.identity_ids),
        }
    )
    confirming = _confirming_identities(anchor)
    if not confirming:
        raise UnconfirmedCell(f"{where}: no identity that holds confirms it")
    for identity_id in confirming:
        check_identity(identity_id)
    if _session.probe:
        value = _probe_value(value, len(_session.reads) - 1)
        _session.reads[-1]["probe_value"] = str(value)
    return value


def _confirming_identities(anchor: _Anchor) -> list[str]:
    """The identities that confirm a cell, all of which are re-asserted.

    A confirmed cell is confirmed by the identities the anchoring stage found holding; an
    identity it recorded as failing (e.g. one with an unreadable member elsewhere in the
    row) is evidence about another cell, not this one. A repaired or contradicted cell
    must make every one of its identities hold with its anchored value.
    """
    wh = _need("identities")
    if anchor.status != "confirmed":
        return list(anchor.identity_ids)
    return [
        iid for iid in anchor.identity_ids if iid not in wh.identities or wh.identities[iid].holds
    ]


# --------------------------------------------------------------------------- workbook cells

# Column names tried for the workbook key of the `cells` asset (its schema is still open).
_WORKBOOK_KEYS = ("blob_sha256", "workbook_sha256", "sha256", "workbook_id")


def _workbook_cells() -> dict[tuple, tuple]:
    wh = _warehouse or _root_only()
    if wh.workbook_cells is not None:
        return wh.workbook_cells
    folder = wh.root / "cells"
    parts = sorted(folder.glob("*.parquet"))
    if not parts:
        raise WarehouseError(
            f"asset 'cells' has no Parquet files under {folder}: workbooks are not ingested"
        )
    names = pq.read_schema(parts[0]).names
    key = next((k for k in _WORKBOOK_KEYS if k in names), None)
    missing = [c for c in ("sheet", "address", "value") if c not in names]
    if key is None or missing:
        raise WarehouseError(
            f"{parts[0]}: cells needs a workbook key (one of {_WORKBOOK_KEYS}) and columns "
            f"sheet, address, value; missing {missing or list(_WORKBOOK_KEYS)}"
        )
    columns = [key, "sheet", "address", "value"] + (["type"] if "type" in names else [])
    table = _asset_table(wh.root, "cells", columns)
    table = table.cast(pa.schema([pa.field(n, pa.string()) for n in table.column_names]))
    wh.workbook_cells = {
        (row[0], row[1], (row[2] or "").upper()): (row[3], row[4] if len(row) > 4 else None)
        for row in _rows(table)
    }
    return wh.workbook_cells


def _root_only() -> _Warehouse:
    global _warehouse
    root = os.environ.get(WAREHOUSE_ENV)
    if not root or not Path(root).is_dir():
        raise WarehouseError(f"{WAREHOUSE_ENV}={root!r}: no such warehouse folder")
    _warehouse = _Warehouse(Path(root))
    return _warehouse


@_fixed_context
def workbook_cell(blob_sha256: str, sheet: str, address: str) -> Decimal | str:
    """The value of one workbook cell (cached value for formulas) from the ``cells`` asset.

    Numbers (type I or F, or any value that parses as a number when no type is
    stored) come back as ``Decimal``; text, dates, booleans and errors as ``str``.
    """
    cells = _workbook_cells()
    found = cells.get((blob_sha256, sheet, address.upper()))
    if found is None:
        raise UnconfirmedCell(f"workbook {blob_sha256} sheet {sheet!r}: no cell {address}")
    value, kind = found
    number = kind in ("I", "F") or kind is None
    result: Decimal | str
    try:
        result = Decimal(value) if number and value is not None else (value or "")
    except InvalidOperation:
        result = value
    _session.reads.append(
        {"workbook": blob_sha256, "sheet": sheet, "address": address, "value": str(result)}
    )
    if _session.probe and isinstance(result, Decimal) and result.is_finite():
        result = _probe_value(result, len(_session.reads) - 1)
        _session.reads[-1]["probe_value"] = str(result)
    return result


# --------------------------------------------------------------------------- emit


def _text(value: Decimal) -> str:
    """Plain decimal text (never exponent notation), with no negative zero."""
    if value == 0:
        value = abs(value)
    return format(value, "f")


def _exact(value: object, what: str) -> Decimal:
    if isinstance(value, bool) or not isinstance(value, (Decimal, int)):
        raise EmitError(f"{what} must be a Decimal (or int), not {type(value).__name__}")
    value = Decimal(value)
    if not value.is_finite():
        raise EmitError(f"{what} is not a finite number: {value}")
    return value


@_fixed_context
def emit(
    answer: Decimal,
    places: int,
    unit: str = "",
    *,
    interval: tuple[Decimal, Decimal] | None = None,
) -> None:
    """Round the answer once and print the one JSON line of this oracle.

    Rounds ``answer`` half-up to ``places`` decimal places (negative places round to
    tens, hundreds, ...) with its own context, so whatever the oracle did to the
    decimal context does not change the rounding. The default acceptance interval is
    the key plus or minus half a unit of the last requested place. Prints
    ``{"answer", "interval": [lo, hi], "unit", "reads", "checks"}`` and may be called
    only once.
    """
    if _session.emitted is not None:
        raise EmitError("emit may be called only once per oracle")
    if isinstance(places, bool) or not isinstance(places, int):
        raise EmitError(f"places must be an int, not {type(places).__name__}")
    exact = _exact(answer, "answer")
    digits = max(exact.adjusted(), 0) + abs(places) + 10
    ctx = _context(digits)
    key = exact.quantize(Decimal(1).scaleb(-places), context=ctx)
    if interval is None:
        half = Decimal(5).scaleb(-(places + 1))
        lo, hi = ctx.subtract(key, half), ctx.add(key, half)
    else:
        lo, hi = (_exact(v, "interval bound") for v in interval)
        if lo > hi:
            raise EmitError(f"interval lower bound {lo} is above its upper bound {hi}")
    payload = {
        "answer": _text(key),
        "interval": [_text(lo), _text(hi)],
        "unit": str(unit),
        "reads": _session.reads,
        "checks": _session.checks,
    }
    _session.emitted = payload
    sys.stdout.write(json.dumps(payload) + "\n")
    sys.stdout.flush()


# Workflow checkers (workbooks under test) live in their own module; their names are
# part of this API. Imported last: the module uses this one's session and errors.
from oracles._checker import (  # noqa: E402
    emit_verdict,
    workbook_blob,
    workbook_under_test,
)
