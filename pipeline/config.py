"""Where LedgerForge keeps its data.

Everything lives under one data root (``LEDGERFORGE_DATA``, default ``<repo>/data``):

- ``corpus/``     the generated default corpus (``pipeline.synth``)
- ``warehouse/``  one folder of Parquet files per asset
- ``blobs/``      content-addressed raw bytes (``BlobStore``); its root may be any fsspec URL
- ``cache/``      content-keyed intermediate work (OCR by page-image hash) reused across runs
- ``releases/``   immutable published releases
- ``dagster_home/`` Dagster run history
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
SQL_DIR = REPO_ROOT / "sql"
SHARED_DATA = REPO_ROOT.parent / "shared" / "data"


@dataclass(frozen=True)
class DataPaths:
    """The folders under one data root."""

    root: Path

    @property
    def corpus(self) -> Path:
        return self.root / "corpus"

    @property
    def warehouse(self) -> Path:
        return self.root / "warehouse"

    @property
    def cache(self) -> Path:
        return self.root / "cache"

    @property
    def releases(self) -> Path:
        return self.root / "releases"

    @property
    def dagster_home(self) -> Path:
        return self.root / "dagster_home"

    @property
    def blobs_url(self) -> str:
        return os.environ.get("LEDGERFORGE_BLOBS_URL", str(self.root / "blobs"))


def data_paths(root: str | Path | None = None) -> DataPaths:
    """The data root from the argument, ``LEDGERFORGE_DATA``, or ``<repo>/data``."""
    chosen = root or os.environ.get("LEDGERFORGE_DATA") or (REPO_ROOT / "data")
    return DataPaths(Path(chosen).resolve())
