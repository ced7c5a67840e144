"""The whole asset graph, materialized by Dagster on a small generated corpus, scored
against the generator's ground truth (the build is the session fixture ``built``)."""

from __future__ import annotations

from pathlib import Path

import dagster as dg
import polars as pl

from assets.definitions import all_assets
from pipeline.config import data_paths
from pipeline.draft.workbook_qa import WORKBOOK_KINDS
from pipeline.publish.audit import audit_release
from pipeline.store import Warehouse
from pipeline.synth.keys import score_keys
from pipeline.tables.evaluate import evaluate_tables


def test_every_asset_and_check_succeeds(built):
    _, _, _, result = built
    assert result.success
    checks = result.get_asset_check_evaluations()
    assert len(checks) == 6
    assert all(c.passed for c in checks), [
        (c.check_name, c.metadata) for c in checks if not c.passed
    ]


def test_tables_match_the_ground_truth(built):
    _, corpus, lf, _ = built
    wh = Warehouse(data_paths(lf.data_root))
    scores = evaluate_tables(
        wh.read("tables"),
        wh.read("table_cells"),
        corpus.truth_dir,
        wh.read("documents"),
        wh.read("pages"),
    )
    assert scores.recall >= 0.95, scores.summary()
    clear = scores.by_quality.filter(pl.col("quality") == "clear")
    assert clear.height == 1 and clear["cell_accuracy"][0] >= 0.98, scores.summary()


def test_every_accepted_key_is_right_and_the_release_audits(built, tmp_path):
    _, corpus, lf, _ = built
    paths = data_paths(lf.data_root)
    tasks = Warehouse(paths).read("tasks")
    accepted = tasks.filter(
        (pl.col("status") == "accepted") & ~pl.col("kind").is_in(list(WORKBOOK_KINDS))
    )
    assert accepted.height >= 30
    assert accepted["kind"].n_unique() == 7
    keys = score_keys(tasks, paths.warehouse, corpus.truth_dir, tmp_path)
    assert keys.n_wrong == 0 and keys.n_unverifiable == 0, keys.summary()
    release = paths.releases / "v1"
    assert (release / "MANIFEST.json").exists()
    assert audit_release(release, paths.warehouse).ok


def test_rebuild_reuses_ocr_and_the_release(built):
    _, _, lf, _ = built
    again = dg.materialize([*all_assets], resources={"lf": lf})
    words = again.asset_materializations_for_node("words")[0].metadata
    assert words["ocr_run"].value == 0 and words["ocr_cached"].value > 0
    release = [
        m for m in again.get_asset_materialization_events() if m.asset_key.path == ["release"]
    ]
    meta = release[0].materialization.metadata
    assert meta["new_release"].value is False and meta["version"].value == "v1"
    assert sorted(p.name for p in Path(data_paths(lf.data_root).releases).iterdir()) == ["v1"]


def test_evaluate_command_scores_the_build(built):
    from typer.testing import CliRunner

    from pipeline.cli import app

    _, corpus, lf, _ = built
    result = CliRunner().invoke(
        app, ["evaluate", "--data-root", lf.data_root, "--truth", str(corpus.truth_dir)]
    )
    assert result.exit_code == 0, result.output
    assert "wrong 0, unverifiable 0" in result.output
    assert "precision: 1.0" in result.output
