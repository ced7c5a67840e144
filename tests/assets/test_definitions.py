"""The Dagster wiring loads, and the graph is the one ARCHITECTURE.md names."""

from __future__ import annotations

import dagster as dg

from assets.definitions import defs


def test_definitions_load_with_every_asset_and_check():
    graph = defs.resolve_asset_graph()
    keys = {k.to_user_string() for k in graph.get_all_asset_keys()}
    assert {
        "documents",
        "pages",
        "words",
        "tables",
        "table_cells",
        "identities",
        "anchored_cells",
        "repairs",
        "drafts",
        "contamination_index",
        "tasks",
        "release",
    } <= keys
    checks = {c.name for c in graph.asset_check_keys}
    assert {
        "every_pdf_accounted_for",
        "tables_have_numbers",
        "accepted_tasks_have_passing_oracles",
        "release_audits_clean",
    } <= checks
    defs.resolve_job_def("build")  # the full-rebuild job resolves


def test_graph_order_runs_from_corpus_to_release():
    graph = defs.resolve_asset_graph()
    upstream = {
        k.to_user_string(): {p.to_user_string() for p in graph.get(k).parent_keys}
        for k in graph.get_all_asset_keys()
    }
    assert "default_corpus" in upstream["documents"]
    assert "words" in upstream["tables"]
    assert {"tables", "table_cells"} <= upstream["anchored_cells"]
    assert "anchored_cells" in upstream["drafts"]
    assert {"drafts", "contamination_index"} <= upstream["tasks"]
    assert "tasks" in upstream["release"]


def test_resource_reads_scan_sources_from_the_environment(monkeypatch, tmp_path):
    from assets.resources import LedgerForge, parse_sources

    monkeypatch.setenv("LEDGERFORGE_SCANS", f"treasury={tmp_path},other=/x")
    assert LedgerForge().scan_source_pairs() == [("treasury", str(tmp_path)), ("other", "/x")]
    assert parse_sources("") == []
    import pytest

    with pytest.raises(ValueError, match="name=path"):
        parse_sources("nonsense")
    assert isinstance(defs.resources["lf"], dg.ConfigurableResource)
