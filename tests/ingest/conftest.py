"""Fixtures of the scan-ingestion tests."""

from __future__ import annotations

import pytest

from pipeline.config import DataPaths
from pipeline.store import BlobStore, Warehouse


@pytest.fixture
def store(data_root: DataPaths) -> tuple[Warehouse, BlobStore]:
    """A warehouse and blob store under the test's own data root."""
    return Warehouse(data_root), BlobStore(data_root.blobs_url)
