"""Shared fixtures: every test gets its own data root under tmp_path."""

from __future__ import annotations

import pytest

from pipeline.config import SHARED_DATA, data_paths


@pytest.fixture
def data_root(tmp_path, monkeypatch):
    """A fresh data root; ``LEDGERFORGE_DATA`` points at it for the test."""
    root = tmp_path / "data"
    root.mkdir()
    monkeypatch.setenv("LEDGERFORGE_DATA", str(root))
    return data_paths(root)


@pytest.fixture
def shared_data():
    """The real samples in ../shared/data; skips the test where the folder is absent."""
    if not SHARED_DATA.exists():
        pytest.skip(f"real samples not found at {SHARED_DATA} (../shared/data is absent)")
    return SHARED_DATA
