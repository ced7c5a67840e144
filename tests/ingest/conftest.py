"""Fixtures of the scan-ingestion tests."""

from __future__ import annotations

import pytest

from pipeline.config import DataPaths
from pipeline.store import BlobStore, Warehouse


@pytest.fixture
def store(data_root: DataPaths) -> tuple[Warehouse, BlobStore]:
    """A warehouse and blob store under the test's own data root."""
    return Warehouse(data_root), BlobStore(data_root.blobs_url)


@pytest.fixture
def real_excerpts(shared_data, tmp_path):
    """A folder with two pages of a real 1939 scan and one page of the born-digital 2011
    bulletin (excerpts keep the real-data tests short)."""
    import pymupdf

    folder = tmp_path / "excerpts"
    folder.mkdir()
    scans = shared_data / "treasury" / "scans"
    excerpts = {"treasury_bulletin_1939_01.pdf": [8, 10], "treasury_bulletin_2011_09.pdf": [4]}
    for name, page_indices in excerpts.items():
        with pymupdf.open(scans / name) as doc:
            doc.select(page_indices)
            doc.save(folder / name)
    return folder
