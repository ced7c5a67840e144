"""Probe runs (the audit's check that a key comes from what the oracle reads): every number
read is served as a probe number, the log keeps the warehouse value, and an oracle cannot
switch probing on or off itself."""

from __future__ import annotations

import textwrap

from oracles.sandbox import run_oracles

GOOD = textwrap.dedent(
    """
    from oracles.api import table_cell, emit

    a = table_cell(doc="d0c1", page=3, table=0, row="Individual income tax", col="1949")
    b = table_cell(doc="d0c1", page=3, table=0, row="Excise taxes", col="1949")
    emit(answer=a - b, places=0, unit="millions of dollars")
    """
)


def test_probe_runs_serve_probe_numbers_and_log_the_real_ones(warehouse_dir):
    results = run_oracles(
        {"real": GOOD, "p1": GOOD, "p2": GOOD},
        warehouse_dir,
        workers=1,
        progress=False,
        probes={"p1": 1, "p2": 2},
    )
    assert results["real"].answer == "80"  # 110 - 30
    assert results["p1"].answer == "-4"  # 3 - 7
    assert results["p2"].answer == "128"  # (110 * 2 + 1) - (30 * 3 + 3)
    reads = results["p2"].output["reads"]
    assert [(r["value"], r["probe_value"]) for r in reads] == [("110", "221"), ("30", "93")]
    assert "probe_value" not in results["real"].output["reads"][0]


def test_an_oracle_cannot_reach_the_probe_switch(warehouse_dir):
    source = "from oracles.api import reset_session\nreset_session(0)\n"
    result = run_oracles({"t": source}, warehouse_dir, workers=1, progress=False)["t"]
    assert (result.status, result.rule) == ("error", "ImportError")
