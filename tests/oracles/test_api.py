"""oracles.api in-process, on the tiny warehouse of conftest.py."""

from __future__ import annotations

import json
from decimal import Context, Decimal, localcontext

import polars as pl
import pytest

from oracles import api
from oracles.api import (
    AmbiguousCell,
    EmitError,
    IdentityFailed,
    UnconfirmedCell,
    UnknownIdentity,
    WarehouseError,
    check_identity,
    emit,
    table_cell,
    workbook_cell,
)

DOC = "d0c1"  # the document of the tiny warehouse (conftest.py)


@pytest.fixture
def on_warehouse(warehouse_dir, monkeypatch):
    """The api pointed at the tiny warehouse, with a fresh oracle session."""
    monkeypatch.setenv(api.WAREHOUSE_ENV, str(warehouse_dir))
    api.load_warehouse(warehouse_dir)
    api.reset_session()
    yield warehouse_dir
    api.reset_session()


def test_confirmed_cell_is_read_and_its_identity_checked(on_warehouse):
    value = table_cell(doc=DOC, page=3, table=0, row="Individual income tax", col="1948")
    assert value == Decimal("100") and isinstance(value, Decimal)
    log = api.session_log()
    assert [r["status"] for r in log["reads"]] == ["confirmed"]
    # 165 = 100 + 40 (repaired reading) + 25
    assert log["checks"] == [
        {
            "identity_id": f"{DOC}:3:0:col_total:c0",
            "kind": "col_total",
            "total": "165",
            "members_sum": "165",
            "residual": "0",
            "tolerance": "1.5",
            "holds": True,
        }
    ]


def test_contradicted_cell_returns_the_value_its_total_implies(on_warehouse):
    # Printed 35, but 185 - 110 - 45 = 30: the key follows the total.
    value = table_cell(doc=DOC, page=3, table=0, row="Excise taxes", col="1949")
    assert value == Decimal("30")
    read = api.session_log()["reads"][0]
    assert (read["status"], read["printed"], read["value"]) == ("contradicted", "35", "30")


def test_repaired_cell_returns_the_repaired_reading(on_warehouse):
    assert table_cell(DOC, 3, 0, "Corporation income tax", "1948") == Decimal("40")


def test_unanchored_and_missing_cells_raise_unconfirmed(on_warehouse):
    with pytest.raises(UnconfirmedCell, match="Memo: refunds"):
        table_cell(DOC, 3, 0, "Memo: refunds", "1948")
    with pytest.raises(UnconfirmedCell):
        table_cell(DOC, 3, 0, "Individual income tax", "1950")
    with pytest.raises(UnconfirmedCell):
        table_cell("another-doc", 3, 0, "Individual income tax", "1948")


def test_failing_identity_raises_even_for_a_cell_marked_confirmed(on_warehouse):
    # Table 4: 16 != 10 + 5 with tolerance 0, whatever anchored_cells says.
    with pytest.raises(IdentityFailed, match=r"total 16 - members 15 = 1"):
        table_cell(DOC, 4, 0, "Customs", "1948")
    assert api.session_log()["checks"][0]["holds"] is False
    with pytest.raises(IdentityFailed):
        check_identity(f"{DOC}:4:0:col_total:c0")


def test_check_identity_explicit_and_unknown(on_warehouse):
    check_identity(f"{DOC}:3:0:col_total:c1")  # holds with the implied 30
    with pytest.raises(UnknownIdentity):
        check_identity("no-such-identity")


def test_repeated_labels_need_indices(on_warehouse):
    with pytest.raises(AmbiguousCell, match="row=0 col=0, row=1 col=0"):
        table_cell(DOC, 5, 0, "Other", "1948")
    assert table_cell(DOC, 5, 0, 1, 0) == Decimal("3")
    assert table_cell(DOC, 5, 0, 0, "1949") == Decimal("2")


def test_missing_warehouse_env_is_a_clear_error(monkeypatch):
    monkeypatch.delenv(api.WAREHOUSE_ENV, raising=False)
    monkeypatch.setattr(api, "_warehouse", None)
    with pytest.raises(WarehouseError, match="LEDGERFORGE_WAREHOUSE is not set"):
        table_cell(DOC, 3, 0, "Total", "1948")


def test_workbook_cell_reads_the_cells_asset(tmp_path, monkeypatch):
    folder = tmp_path / "cells"
    folder.mkdir()
    pl.DataFrame(
        {
            "blob_sha256": ["ab12"] * 3,
            "sheet": ["Summary"] * 3,
            "address": ["B2", "B3", "A1"],
            "value": ["1234.50", "7", "Region"],
            "type": ["F", "I", "T"],
        }
    ).write_parquet(folder / "all.parquet")
    monkeypatch.setenv(api.WAREHOUSE_ENV, str(tmp_path))
    api.load_warehouse(tmp_path)
    api.reset_session()
    assert workbook_cell("ab12", "Summary", "b2") == Decimal("1234.50")
    assert workbook_cell("ab12", "Summary", "B3") == Decimal("7")
    assert workbook_cell("ab12", "Summary", "A1") == "Region"
    with pytest.raises(UnconfirmedCell, match="no cell C9"):
        workbook_cell("ab12", "Summary", "C9")


def test_workbook_cell_without_cells_asset(tmp_path, monkeypatch):
    monkeypatch.setenv(api.WAREHOUSE_ENV, str(tmp_path))
    api.load_warehouse(tmp_path)
    with pytest.raises(WarehouseError, match="workbooks are not ingested"):
        workbook_cell("ab12", "Summary", "B2")


def _emitted(capsys) -> dict:
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1
    return json.loads(lines[0])


@pytest.mark.parametrize(
    ("answer", "places", "key", "lo", "hi"),
    [
        ("2.445", 2, "2.45", "2.445", "2.455"),  # half-up, where half-even gives 2.44
        ("0.4449", 2, "0.44", "0.435", "0.445"),  # once: rounding via 0.445 would give 0.45
        ("2.5", 0, "3", "2.5", "3.5"),
        ("-2.5", 0, "-3", "-3.5", "-2.5"),  # half away from zero
        ("-0.4", 0, "0", "-0.5", "0.5"),  # no negative zero
        ("123456789.5", 0, "123456790", "123456789.5", "123456790.5"),
        ("1234567", -3, "1235000", "1234500", "1235500"),
        ("12.3", 1, "12.3", "12.25", "12.35"),
    ],
)
def test_emit_rounds_once_half_up_with_half_unit_interval(
    on_warehouse, capsys, answer, places, key, lo, hi
):
    emit(Decimal(answer), places, unit="millions of dollars")
    out = _emitted(capsys)
    assert out["answer"] == key
    assert out["interval"] == [lo, hi]
    assert Decimal(hi) - Decimal(lo) == Decimal(1).scaleb(-places)
    assert out["unit"] == "millions of dollars"
    assert set(out) == {"answer", "interval", "unit", "reads", "checks"}


def test_emit_carries_reads_and_checks_and_only_once(on_warehouse, capsys):
    a = table_cell(DOC, 3, 0, "Individual income tax", "1949")
    b = table_cell(DOC, 3, 0, "Excise taxes", "1949")
    emit(a - b, 0, "millions of dollars")
    out = _emitted(capsys)
    assert out["answer"] == "80"
    assert [r["value"] for r in out["reads"]] == ["110", "30"]
    assert [c["identity_id"] for c in out["checks"]] == [f"{DOC}:3:0:col_total:c1"]
    with pytest.raises(EmitError, match="only once"):
        emit(a, 0)


def test_emit_with_explicit_interval_and_bad_answers(on_warehouse, capsys):
    emit(Decimal("10.04"), 1, interval=(Decimal("9.9"), Decimal("10.2")))
    assert _emitted(capsys)["interval"] == ["9.9", "10.2"]
    api.reset_session()
    with pytest.raises(EmitError, match="not float"):
        emit(1.5, 0)  # type: ignore[arg-type]
    with pytest.raises(EmitError, match="not a finite"):
        emit(Decimal("NaN"), 0)
    with pytest.raises(EmitError, match="above its upper bound"):
        emit(Decimal(1), 0, interval=(Decimal(2), Decimal(1)))


def test_emit_ignores_the_callers_decimal_context(on_warehouse, capsys):
    with localcontext(Context(prec=2)):
        emit(Decimal("1234.5"), 0)
    assert _emitted(capsys)["answer"] == "1235"


def test_a_failing_identity_elsewhere_in_the_row_does_not_unconfirm_a_cell(tmp_path, monkeypatch):
    """A confirmed cell is re-asserted through the identities that confirm it: a row
    identity recorded as failing (an unreadable member elsewhere) is skipped, while the
    column identity that holds is recomputed; with no holding identity the read fails."""
    from pipeline.config import data_paths
    from pipeline.detect.schemas import ANCHORED_CELLS_SCHEMA, IDENTITIES_SCHEMA
    from pipeline.store import Warehouse
    from tests.oracles.conftest import write_warehouse

    root = write_warehouse(tmp_path)
    wh = Warehouse(data_paths(tmp_path))
    failing = f"{DOC}:3:0:row_total:r0"
    identities = wh.read("identities", IDENTITIES_SCHEMA)
    row_identity = identities.head(1).with_columns(
        identity_id=pl.lit(failing), kind=pl.lit("row_total"), holds=pl.lit(False)
    )
    wh.replace("identities", pl.concat([identities, row_identity]), IDENTITIES_SCHEMA)
    anchored = wh.read("anchored_cells", ANCHORED_CELLS_SCHEMA).with_columns(
        identity_ids=pl.when((pl.col("table_id") == f"{DOC}:3:0") & (pl.col("row_idx") == 0))
        .then(pl.col("identity_ids").list.concat(pl.lit([failing])))
        .otherwise(pl.col("identity_ids"))
    )
    wh.replace("anchored_cells", anchored, ANCHORED_CELLS_SCHEMA)
    monkeypatch.setenv(api.WAREHOUSE_ENV, str(root))
    api.load_warehouse(root)
    api.reset_session()
    assert table_cell(DOC, 3, 0, "Individual income tax", "1948") == Decimal("100")
    assert [c["identity_id"] for c in api.session_log()["checks"]] == [f"{DOC}:3:0:col_total:c0"]

    only_failing = anchored.with_columns(
        identity_ids=pl.when((pl.col("table_id") == f"{DOC}:3:0") & (pl.col("row_idx") == 0))
        .then(pl.lit([failing]))
        .otherwise(pl.col("identity_ids"))
    )
    wh.replace("anchored_cells", only_failing, ANCHORED_CELLS_SCHEMA)
    api.load_warehouse(root)
    api.reset_session()
    with pytest.raises(UnconfirmedCell, match="no identity that holds"):
        table_cell(DOC, 3, 0, "Individual income tax", "1949")
    api.reset_session()
