"""Storage: the Parquet warehouse, the blob store and the quarantine."""

from pipeline.store.blobs import BlobStore, sha256_bytes
from pipeline.store.quarantine import INTAKE_SCHEMA, QUARANTINE_SCHEMA, Intake, storable_path
from pipeline.store.warehouse import (
    SchemaError,
    Warehouse,
    check_schema,
    duckdb_file,
    parquet_parts,
    run_sql,
    scan_parts,
    sql_text,
)

__all__ = [
    "BlobStore",
    "INTAKE_SCHEMA",
    "Intake",
    "QUARANTINE_SCHEMA",
    "SchemaError",
    "Warehouse",
    "check_schema",
    "duckdb_file",
    "parquet_parts",
    "run_sql",
    "scan_parts",
    "sql_text",
    "sha256_bytes",
    "storable_path",
]
