"""One validated sample archive shared by the release tests (the sandbox run is the slow part)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import polars as pl
import pytest

from pipeline.config import data_paths
from pipeline.draft import draft_tasks
from pipeline.draft.sample import write_sample_warehouse
from pipeline.store import Warehouse
from pipeline.validate import build_contamination_index, validate_drafts


@dataclass
class Validated:
    warehouse_dir: Path
    frames: dict[str, pl.DataFrame]
    drafts: pl.DataFrame
    tasks: pl.DataFrame


@pytest.fixture(scope="session")
def validated_sample(tmp_path_factory) -> Validated:
    root = tmp_path_factory.mktemp("sample_data")
    warehouse = Warehouse(data_paths(root))
    frames = write_sample_warehouse(warehouse, seed=21)
    drafts = draft_tasks(
        frames["anchored_cells"],
        frames["tables"],
        frames["documents"],
        seed=4,
        table_cells=frames["table_cells"],
    )
    tasks = validate_drafts(drafts, warehouse.root, build_contamination_index(warehouse.root))
    return Validated(warehouse.root, frames, drafts, tasks)
