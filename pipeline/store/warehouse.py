"""The warehouse: one folder of Parquet files per asset, DuckDB views over them.

``data/warehouse/<asset>/<part>.parquet``. An unpartitioned asset writes the part
``all``; a stage that works per volume may write one part per volume so that a new
volume adds a file instead of rewriting the others. Writes are atomic (temp file +
rename) and each asset folder has a single writer, so no DuckDB file is ever shared
between concurrent steps: SQL runs in an in-memory DuckDB that reads the Parquet.

polars and DuckDB take every path they are given as a glob pattern, so a data root such as
``data[1]`` or ``da[ta] {v1}`` would read nothing, or a neighbouring folder the pattern
matches. Parts are therefore listed by pathlib (which matches ``*.parquet`` against the
folder's entries and takes the folder's own path literally) and each file is handed over
as itself: ``glob=False`` to polars, an escaped literal (:func:`duckdb_file`) to DuckDB.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

import duckdb
import polars as pl

from pipeline.config import SQL_DIR, DataPaths, data_paths


def parquet_parts(folder: str | Path) -> list[Path]:
    """The Parquet files directly in ``folder``, sorted (none when it does not exist).

    Listed by pathlib: the folder's path is never read as a pattern.
    """
    return sorted(Path(folder).glob("*.parquet"))


def scan_parts(parts: Sequence[str | Path]) -> pl.LazyFrame:
    """A lazy scan of these Parquet files, each taken as it is named (never as a pattern);
    parts with different columns are unioned by name (a column a part lacks is null)."""
    if not parts:
        raise ValueError("no Parquet files to scan")
    return pl.concat([pl.scan_parquet(p, glob=False) for p in parts], how="diagonal_relaxed")


_DUCKDB_GLOB = re.compile(r"[\[*?]")


def duckdb_nameable(path: str | Path) -> bool:
    """Whether :func:`duckdb_file` can name ``path``: once a path has a glob character,
    DuckDB matches a backslash in it by no escape (only by ``?``, which matches more)."""
    return "\\" not in str(path)


def duckdb_file(path: str | Path) -> str:
    """A DuckDB SQL string literal that names the file at ``path`` and nothing else.

    DuckDB expands ``*``, ``?`` and ``[...]`` in every path ``read_parquet`` is given (a
    list's items included) and has no switch to turn that off; a glob character stands
    for itself inside a one-character class (``[[]``, ``[*]``, ``[?]``). Quotes are
    doubled for SQL. A path holding a backslash cannot be named (``ValueError``).
    """
    if not duckdb_nameable(path):
        raise ValueError(f"DuckDB cannot name a path holding a backslash: {path}")
    escaped = _DUCKDB_GLOB.sub(lambda m: f"[{m.group()}]", str(path))
    return "'" + escaped.replace("'", "''") + "'"


class SchemaError(ValueError):
    """A Parquet file does not carry the columns its stage declares."""


def check_schema(df: pl.DataFrame, schema: Mapping[str, pl.DataType], where: str) -> pl.DataFrame:
    """Check that ``df`` has every declared column with a compatible type; order them."""
    missing = [c for c in schema if c not in df.columns]
    if missing:
        raise SchemaError(f"{where}: missing columns {missing}")
    wrong = [
        f"{c}: {df.schema[c]} != {t}"
        for c, t in schema.items()
        if df.schema[c] != t and df.schema[c] != pl.Null and len(df)
    ]
    if wrong:
        raise SchemaError(f"{where}: wrong column types {wrong}")
    return df.select([pl.col(c).cast(t) for c, t in schema.items()])


class Warehouse:
    """Read and write asset tables under ``<data root>/warehouse``."""

    def __init__(self, paths: DataPaths | None = None):
        self.paths = paths or data_paths()
        self.root = self.paths.warehouse

    @classmethod
    def at(cls, folder: str | Path) -> Warehouse:
        """The warehouse in ``folder`` itself (e.g. a copy handed to the oracle sandbox)."""
        warehouse = cls(data_paths(Path(folder).parent))
        warehouse.root = Path(folder).resolve()
        return warehouse

    def folder(self, asset: str) -> Path:
        return self.root / asset

    def write(
        self,
        asset: str,
        df: pl.DataFrame,
        part: str = "all",
        schema: Mapping[str, pl.DataType] | None = None,
    ) -> Path:
        """Write one part of an asset atomically and return its path."""
        if schema is not None:
            df = check_schema(df, schema, f"{asset}/{part}")
        folder = self.folder(asset)
        folder.mkdir(parents=True, exist_ok=True)
        safe = re.sub(r"[^A-Za-z0-9_.=-]", "_", part)
        path = folder / f"{safe}.parquet"
        tmp = folder / f".{safe}.parquet.tmp"
        df.write_parquet(tmp, compression="zstd", statistics=True)
        os.replace(tmp, path)
        return path

    def replace(
        self, asset: str, df: pl.DataFrame, schema: Mapping[str, pl.DataType] | None = None
    ) -> Path:
        """Write the asset as a single part ``all`` and drop any other parts."""
        path = self.write(asset, df, "all", schema)
        for other in parquet_parts(self.folder(asset)):
            if other != path:
                other.unlink()
        return path

    def parts(self, asset: str) -> list[Path]:
        return parquet_parts(self.folder(asset))

    def exists(self, asset: str) -> bool:
        return bool(self.parts(asset))

    def read(self, asset: str, schema: Mapping[str, pl.DataType] | None = None) -> pl.DataFrame:
        """Read every part of an asset (empty frame with ``schema`` when there is none)."""
        parts = self.parts(asset)
        if not parts:
            if schema is None:
                raise FileNotFoundError(
                    f"asset {asset!r} has no Parquet under {self.folder(asset)}"
                )
            return pl.DataFrame(schema=dict(schema))
        # glob=False: the path is the file, whatever [ ] * ? its folders' names hold
        df = pl.concat([pl.read_parquet(p, glob=False) for p in parts], how="diagonal_relaxed")
        return check_schema(df, schema, asset) if schema is not None else df

    def scan(self, asset: str) -> pl.LazyFrame | None:
        """A lazy scan over every part of an asset (None when it has none)."""
        parts = self.parts(asset)
        return scan_parts(parts) if parts else None

    def connect(
        self, required: Mapping[str, Mapping[str, pl.DataType]] | None = None
    ) -> duckdb.DuckDBPyConnection:
        """An in-memory DuckDB with one view per asset folder.

        ``required`` names assets the caller's SQL reads: one that has no Parquet yet
        becomes an empty table of its schema, so a rule over it sees nothing rather than
        failing on a missing view (e.g. a corpus whose pages all have a text layer).
        A view reads the parts its folder holds when the connection is made.
        """
        con = duckdb.connect()
        present = set()
        if self.root.exists():
            for folder in sorted(p for p in self.root.iterdir() if p.is_dir()):
                parts = parquet_parts(folder)
                if not parts:
                    continue
                if all(map(duckdb_nameable, parts)):
                    # the parts of now, each named literally (never a pattern); no column
                    # from a 'key=value' folder of the data root's path
                    files = ", ".join(duckdb_file(p) for p in parts)
                    con.execute(
                        f"CREATE VIEW {folder.name} AS SELECT * FROM read_parquet([{files}], "
                        "union_by_name = true, hive_partitioning = false)"
                    )
                else:  # a backslash in the path: read by polars, handed over in memory
                    con.register(folder.name, self.read(folder.name))
                present.add(folder.name)
        for name, schema in (required or {}).items():
            if name not in present:
                con.register(f"{name}_empty", pl.DataFrame(schema=dict(schema)))
                con.execute(f"CREATE VIEW {name} AS SELECT * FROM {name}_empty")
        return con


def sql_text(name: str) -> str:
    """The text of ``sql/<name>.sql``."""
    path = SQL_DIR / f"{name}.sql"
    if not path.exists():
        raise FileNotFoundError(f"no SQL file {path}")
    return path.read_text()


def run_sql(
    con: duckdb.DuckDBPyConnection, name: str, params: Mapping[str, object] | None = None
) -> pl.DataFrame:
    """Run ``sql/<name>.sql`` (statements separated by ``;``); return the last result."""
    statements = [s.strip() for s in sql_text(name).split(";\n") if s.strip()]
    result = None
    for stmt in statements:
        used = {k: v for k, v in (params or {}).items() if f"${k}" in stmt}
        result = con.execute(stmt, used) if used else con.execute(stmt)
    if result is None:
        raise ValueError(f"sql/{name}.sql has no statement")
    return result.pl()
