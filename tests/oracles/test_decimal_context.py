"""Oracles cannot change how their checks are judged: every identity check, rounding and
interval of ``oracles.api`` runs in its own fixed decimal context, whatever context (or
default context) the oracle installed."""

from __future__ import annotations

import json
from decimal import (
    ROUND_CEILING,
    ROUND_DOWN,
    ROUND_FLOOR,
    ROUND_HALF_EVEN,
    Context,
    Decimal,
    DefaultContext,
    Inexact,
    InvalidOperation,
    Rounded,
    getcontext,
    setcontext,
)

import polars as pl
import pytest

from oracles import api
from oracles.api import IdentityFailed, emit, table_cell
from oracles.sandbox import run_oracles

DOC = "d0c1"

# Contexts an oracle may install with `setcontext(...)` (no attribute assignment needed).
HOSTILE_CONTEXTS = {
    "prec1_down": lambda: Context(prec=1, rounding=ROUND_DOWN),
    "prec2_floor": lambda: Context(prec=2, rounding=ROUND_FLOOR),
    "prec1_ceiling": lambda: Context(prec=1, rounding=ROUND_CEILING),
    "tiny_exponents": lambda: Context(prec=1, Emin=0, Emax=0, rounding=ROUND_DOWN),
    "no_traps": lambda: Context(prec=1, rounding=ROUND_DOWN, traps=[]),
    "trap_everything": lambda: Context(traps=[Inexact, Rounded, InvalidOperation]),
    "lower_case": lambda: Context(prec=3, capitals=0, clamp=1, Emax=3, Emin=-3),
}


@pytest.fixture
def fractional(tmp_path, monkeypatch):
    """The tiny warehouse with table d0c1:4:0, col 1948, printed 10 + 4.1 against a total of
    16 (residual 1.9) and a tolerance of 1.5: the identity fails, by 0.4."""
    from pipeline.config import data_paths
    from pipeline.detect.schemas import IDENTITIES_SCHEMA
    from pipeline.store import Warehouse
    from pipeline.tables.schemas import TABLE_CELLS_SCHEMA
    from tests.oracles.conftest import write_warehouse

    root = write_warehouse(tmp_path)
    wh = Warehouse(data_paths(tmp_path))
    cells = wh.read("table_cells", TABLE_CELLS_SCHEMA)
    other = (
        (pl.col("table_id") == f"{DOC}:4:0") & (pl.col("row_idx") == 1) & (pl.col("col_idx") == 0)
    )
    cells = cells.with_columns(value_str=pl.when(other).then(pl.lit("4.1")).otherwise("value_str"))
    wh.replace("table_cells", cells, TABLE_CELLS_SCHEMA)
    identities = wh.read("identities", IDENTITIES_SCHEMA).with_columns(
        tolerance=pl.when(pl.col("table_id") == f"{DOC}:4:0")
        .then(pl.lit(1.5))
        .otherwise("tolerance")
    )
    wh.replace("identities", identities, IDENTITIES_SCHEMA)
    monkeypatch.setenv(api.WAREHOUSE_ENV, str(root))
    api.load_warehouse(root)
    api.reset_session()
    saved = getcontext().copy()
    yield root
    setcontext(saved)
    api.reset_session()


def _emitted(capsys) -> dict:
    lines = [line for line in capsys.readouterr().out.splitlines() if line.strip()]
    return json.loads(lines[-1])


def test_the_identity_fails_in_the_default_context(fractional):
    with pytest.raises(IdentityFailed, match="residual|beyond tolerance"):
        table_cell(DOC, 4, 0, "Customs", "1948")
    assert [c["holds"] for c in api.session_log()["checks"]] == [False]
    assert api.session_log()["checks"][0]["residual"] == "1.9"


@pytest.mark.parametrize("name", sorted(HOSTILE_CONTEXTS))
def test_a_hostile_context_does_not_make_a_failing_identity_hold(fractional, name):
    setcontext(HOSTILE_CONTEXTS[name]())
    with pytest.raises(IdentityFailed):
        table_cell(DOC, 4, 0, "Customs", "1948")
    check = api.session_log()["checks"][0]
    assert (check["holds"], check["residual"], check["members_sum"]) == (False, "1.9", "14.1")
    # a holding identity still holds, and its log is written the same way
    api.reset_session()
    assert table_cell(DOC, 3, 0, "Individual income tax", "1948") == Decimal(100)
    assert api.session_log()["checks"][0]["total"] == "165"


@pytest.mark.parametrize("name", sorted(HOSTILE_CONTEXTS))
@pytest.mark.parametrize(
    ("answer", "places", "key", "lo", "hi"),
    [
        ("1234.5", 0, "1235", "1234.5", "1235.5"),
        ("0.125", 2, "0.13", "0.125", "0.135"),
        ("-2.5", 0, "-3", "-3.5", "-2.5"),
        ("1234567", -3, "1235000", "1234500", "1235500"),
    ],
)
def test_a_hostile_context_does_not_change_rounding_or_interval(
    fractional, capsys, name, answer, places, key, lo, hi
):
    setcontext(HOSTILE_CONTEXTS[name]())
    emit(Decimal(answer), places)
    out = _emitted(capsys)
    assert (out["answer"], out["interval"]) == (key, [lo, hi])


def test_an_explicit_interval_is_checked_in_the_fixed_context(fractional, capsys):
    setcontext(Context(prec=1, rounding=ROUND_DOWN))
    # at one digit 1.4 and 1.3 compare as they are: the bounds are not rounded first
    with pytest.raises(api.EmitError, match="above its upper bound"):
        emit(Decimal("1.35"), 2, interval=(Decimal("1.4"), Decimal("1.3")))
    emit(Decimal("1.35"), 2, interval=(Decimal("1.34"), Decimal("1.36")))
    assert _emitted(capsys)["interval"] == ["1.34", "1.36"]


def test_a_changed_default_context_does_not_leak_into_the_api(fractional, capsys):
    """``DefaultContext`` is the template of every ``Context()``; an oracle can reach its
    traps by subscript (no attribute assignment), and in-process code can change it all."""
    saved = (DefaultContext.prec, DefaultContext.rounding, DefaultContext.traps.copy())
    try:
        DefaultContext.prec = 1
        DefaultContext.rounding = ROUND_HALF_EVEN
        DefaultContext.traps[Inexact] = True
        DefaultContext.traps[Rounded] = True
        setcontext(Context())
        emit(Decimal("2.5"), 0)
        assert _emitted(capsys)["answer"] == "3"
        api.reset_session()
        with pytest.raises(IdentityFailed):
            table_cell(DOC, 4, 0, "Customs", "1948")
    finally:
        DefaultContext.prec, DefaultContext.rounding = saved[0], saved[1]
        for signal, on in saved[2].items():
            DefaultContext.traps[signal] = on


def test_in_the_sandbox_the_context_trick_is_caught(fractional):
    set_low = "setcontext(Context(prec=1, rounding=ROUND_DOWN))\n"
    header = (
        "from decimal import setcontext, Context, ROUND_DOWN, DefaultContext, Inexact\n"
        "from oracles.api import table_cell, emit, D\n"
    )
    oracles = {
        "low_precision": header + set_low + "x = table_cell('d0c1', 4, 0, 'Customs', '1948')\n"
        "emit(x, 0)\n",
        "default_traps": header + "DefaultContext.traps[Inexact] = True\n"
        "setcontext(Context(prec=1))\nemit(D('2.5'), 0)\n",
        "low_precision_emit": header + set_low + "emit(D('0.125'), 2)\n",
    }
    results = run_oracles(oracles, fractional, workers=1, progress=False)
    low = results["low_precision"]
    assert (low.status, low.rule) == ("error", "IdentityFailed"), low.error
    assert [c["holds"] for c in low.log["checks"]] == [False]
    assert results["default_traps"].answer == "3", results["default_traps"].error
    assert results["low_precision_emit"].interval == ("0.125", "0.135")
    assert results["low_precision_emit"].answer == "0.13"
