"""Shared fixtures: every test gets its own data root under tmp_path; one Dagster build of a
small generated corpus is shared by the tests that need a real release."""

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


@pytest.fixture(scope="session")
def built(tmp_path_factory):
    """The whole asset graph materialized by Dagster on a small generated corpus (seed 11,
    2 volumes of 5 tables, and the generated mailbox and spreadsheet corpus of seed 11 under
    ``<root>/mail``), built once per session: ``(root, corpus, lf, result)``; the
    release is ``<lf.data_root>/releases/v1``. Tests read it; only the rebuild test of
    tests/assets/test_build.py writes to it again, and leaves it unchanged."""
    import dagster as dg

    from assets.definitions import all_assets, all_checks
    from assets.resources import LedgerForge
    from pipeline.synth.mailbox import generate_mail_corpus
    from pipeline.synth.scans import generate_scans

    root = tmp_path_factory.mktemp("build")
    corpus = generate_scans(root / "scans", seed=11, volumes=2, tables_per_volume=5, progress=False)
    mail = generate_mail_corpus(root / "mail", seed=11)
    lf = LedgerForge(
        data_root=str(root / "data"),
        scan_sources=f"synth={corpus.root}",
        mail_sources=f"synth-mail={mail.maildir}",
        spreadsheet_sources=f"synth-spreadsheets={mail.spreadsheets}",
    )
    result = dg.materialize([*all_assets, *all_checks], resources={"lf": lf})
    return root, corpus, lf, result


@pytest.fixture(scope="session")
def layout_corpus(tmp_path_factory):
    """A generated corpus that prints every layout of the first round of the default
    recipe cycle (``pipeline.synth.statements.CYCLE_ROUNDS[0]``; seed 7, 2 volumes of 8
    series: one full round per volume) on clear pages (150 and 120 dpi), for the
    per-layout semantics scores of tests/synth and tests/tables. The recipes of the second
    round are read back in tests/synth/test_layouts_read_back.py (and printed in the
    default corpus, 16 series a volume)."""
    from pipeline.synth.scans import generate_scans

    root = tmp_path_factory.mktemp("layouts")
    return generate_scans(
        root / "scans",
        seed=7,
        volumes=2,
        tables_per_volume=8,
        dpi_choices=(150, 120),
        progress=False,
    )
