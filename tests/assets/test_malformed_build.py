"""A build over the malformed-input corpus next to a good corpus (acceptance of issue 8):
no step fails, every malformed entry is accounted for with a reason, and the good
corpus's tasks are the ones a build over it alone gives (the session build ``built``,
whose page and OCR caches the build reuses: they are keyed by content)."""

from __future__ import annotations

import shutil

import dagster as dg
import polars as pl

from assets.definitions import all_assets, all_checks
from assets.resources import LedgerForge
from pipeline.config import data_paths
from pipeline.draft.workbook_qa import WORKBOOK_KINDS
from pipeline.store import Warehouse, storable_path
from pipeline.synth.malformed import write_malformed_corpus
from tests.ingest.malformed_expectations import lock_folder, reason_words

TASK_COLUMNS = [
    "task_id",
    "kind",
    "status",
    "question",
    "answer",
    "lo",
    "hi",
    "reasons",
    "source_docs",
    "known_wrong",
    "sources",
]


def test_a_build_next_to_the_malformed_corpus(built, tmp_path, monkeypatch):
    _, corpus, good_lf, _ = built
    bad = tmp_path / "bad"
    cases = write_malformed_corpus(bad)
    lock_folder(monkeypatch, bad / "locked")
    lf = LedgerForge(
        data_root=str(tmp_path / "data"), scan_sources=f"synth={corpus.root},bad={bad}"
    )
    # the good build's page and OCR caches (keyed by content) spare re-running tesseract
    shutil.copytree(data_paths(good_lf.data_root).cache, data_paths(lf.data_root).cache)
    try:
        result = dg.materialize([*all_assets, *all_checks], resources={"lf": lf})
    finally:
        (bad / "locked").chmod(0o755)

    assert result.success
    checks = result.get_asset_check_evaluations()
    assert checks and all(c.passed for c in checks), [
        (c.check_name, c.metadata) for c in checks if not c.passed
    ]
    wh = Warehouse(data_paths(lf.data_root))
    intake = wh.read("intake").filter(pl.col("stage") == "documents")
    status = dict(intake.select("path", "status").iter_rows())
    quarantine = wh.read("quarantine").filter(pl.col("stage") == "documents")
    reasons = dict(quarantine.select("path", "reason").iter_rows())
    for case in cases:
        path = storable_path(bad / case.path)
        assert status.get(path) == case.expect, (case, status.get(path))
        if case.expect == "quarantined":
            assert any(w in reasons[path] for w in reason_words(case)), (case, reasons[path])
    good = Warehouse(data_paths(good_lf.data_root))
    n_good = good.read("documents").height
    assert intake.height == n_good + len(cases)  # discovered = good volumes + every entry

    def tasks(warehouse: Warehouse) -> pl.DataFrame:
        # the scanned half: the session build also holds the generated mailbox's tasks
        scanned = ~pl.col("kind").is_in(list(WORKBOOK_KINDS))
        return warehouse.read("tasks").filter(scanned).select(TASK_COLUMNS).sort("task_id")

    assert tasks(good).height > 0
    assert tasks(wh).equals(tasks(good))
