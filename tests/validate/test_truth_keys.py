"""Every accepted key is exactly right against the synth ground truth.

synth (truth only: the reading is perfect, built from truth_cells' printed numbers)
-> find_anchors -> draft_tasks -> validate_drafts, then each accepted key is compared
with the key recomputed from the true values of the cells its oracle reads.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from pipeline.synth.keys import score_keys
from pipeline.synth.reading import perfect_reading

synth = pytest.importorskip("pipeline.synth.scans", reason="pipeline.synth is not there yet")
anchors = pytest.importorskip(
    "pipeline.detect.anchors", reason="pipeline.detect.anchors is not there yet"
)


def truth_to_tasks(truth_dir: Path, data_root: Path) -> tuple[pl.DataFrame, dict]:
    """Run anchors -> drafts -> validation on a perfect reading; return tasks and frames."""
    from pipeline.config import data_paths
    from pipeline.draft import draft_tasks
    from pipeline.store import Warehouse
    from pipeline.validate import build_contamination_index, validate_drafts

    frames = perfect_reading(truth_dir)
    result = anchors.find_anchors(frames["tables"], frames["table_cells"])
    warehouse = Warehouse(data_paths(data_root))
    for name in ("documents", "tables", "table_cells"):
        warehouse.replace(name, frames[name])
    warehouse.replace("identities", result.identities)
    warehouse.replace("anchored_cells", result.anchored_cells)
    drafts = draft_tasks(
        result.anchored_cells,
        frames["tables"],
        frames["documents"],
        table_cells=frames["table_cells"],
    )
    tasks = validate_drafts(drafts, warehouse.root, build_contamination_index(warehouse.root))
    return tasks, frames


def test_every_accepted_key_matches_the_truth(tmp_path: Path) -> None:
    """Each accepted oracle is rerun in the sandbox on true values (pipeline.synth.keys):
    its key must equal the one the pipeline published."""
    corpus = synth.generate_scans(
        tmp_path / "corpus", seed=3, volumes=2, tables_per_volume=4, progress=False
    )
    tasks, _ = truth_to_tasks(corpus.truth_dir, tmp_path / "data")
    accepted = tasks.filter(pl.col("status") == "accepted")
    assert accepted.height >= 20
    assert accepted["kind"].n_unique() >= 6
    keys = score_keys(tasks, tmp_path / "data" / "warehouse", corpus.truth_dir, tmp_path)
    assert keys.n_right == accepted.height, keys.summary()
