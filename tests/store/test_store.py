from __future__ import annotations

import polars as pl
import pytest

from pipeline.store import BlobStore, Intake, SchemaError, Warehouse, run_sql, sha256_bytes


def test_blob_store_is_content_addressed(data_root):
    blobs = BlobStore(data_root.blobs_url)
    sha = blobs.put(b"hello ledger")
    assert sha == sha256_bytes(b"hello ledger")
    assert blobs.key(sha).endswith(f"sha256/{sha[:2]}/{sha[2:4]}/{sha}")
    assert blobs.put(b"hello ledger") == sha  # idempotent
    assert blobs.get(sha) == b"hello ledger"
    assert not blobs.exists(sha256_bytes(b"other"))


def test_warehouse_parts_schema_and_duckdb_views(data_root):
    wh = Warehouse(data_root)
    schema = {"doc": pl.String, "n": pl.Int64}
    wh.write("things", pl.DataFrame({"doc": ["a", "b"], "n": [1, 2]}), part="vol1", schema=schema)
    wh.write("things", pl.DataFrame({"doc": ["c"], "n": [5]}), part="vol2", schema=schema)
    assert sorted(p.name for p in wh.parts("things")) == ["vol1.parquet", "vol2.parquet"]
    assert wh.read("things", schema)["n"].sum() == 8
    con = wh.connect()
    assert con.execute("select sum(n) from things").fetchone()[0] == 8
    wh.replace("things", pl.DataFrame({"doc": ["z"], "n": [1]}), schema)
    assert [p.name for p in wh.parts("things")] == ["all.parquet"]
    with pytest.raises(SchemaError, match="missing columns"):
        wh.write("things", pl.DataFrame({"doc": ["a"]}), schema=schema)
    empty = wh.read("nothing_yet", schema)
    assert empty.is_empty() and empty.columns == ["doc", "n"]


def test_run_sql_reads_sql_files(data_root, tmp_path, monkeypatch):
    import pipeline.store.warehouse as warehouse_module

    (tmp_path / "sqlfiles").mkdir()
    (tmp_path / "sqlfiles" / "double.sql").write_text(
        "create temp table t as select range as x from range(4);\nselect sum(x) * $k as s from t\n"
    )
    monkeypatch.setattr(warehouse_module, "SQL_DIR", tmp_path / "sqlfiles")
    con = Warehouse(data_root).connect()
    assert run_sql(con, "double", {"k": 2})["s"][0] == 12


def test_intake_accounts_for_every_input():
    intake = Intake("scans")
    intake.ingest("a.pdf")
    intake.quarantine("b.pdf", "zero-byte file", "b.pdf has 0 bytes")
    assert intake.discovered == 2
    frame = intake.intake_frame()
    assert frame["status"].to_list() == ["ingested", "quarantined"]
    assert intake.quarantine_frame()["reason"].to_list() == ["zero-byte file"]
