"""Scoring against a hand-made ground truth: pairwise thread scores, chain links (a
reversed link is wrong), seeded edits found and phantom edits."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from pipeline.detect.diffs import DIFFS_SCHEMA
from pipeline.detect.mail_truth import evaluate_mail_truth, score_chains, score_threads
from pipeline.detect.steps import VERSION_DIFFS_SCHEMA
from pipeline.detect.threads import build_threads
from pipeline.detect.versions import VERSION_CHAINS_SCHEMA
from tests.detect.mail_frames import frame, msg

A, B, C = "a@x.com", "b@x.com", "c@x.com"

TRUTH = {
    "seed": 1,
    "messages": [
        {"message_id": "m1", "thread": "t1", "paths": [], "duplicate_of": None},
        {"message_id": "m2", "thread": "t1", "paths": [], "duplicate_of": None},
        {"message_id": "m3", "thread": "t1", "paths": [], "duplicate_of": None},
        {"message_id": "m2", "thread": "t1", "paths": ["dup"], "duplicate_of": "m2"},
        {"message_id": "n1", "thread": "t2", "paths": [], "duplicate_of": None},
        {"message_id": "n2", "thread": "t2", "paths": [], "duplicate_of": None},
    ],
    "families": [
        {
            "family": "f1",
            "versions": [
                {"file_name": "b.xls", "where": "attachment", "sha256": "s0", "order": 0},
                {"file_name": "b v2.xls", "where": "attachment", "sha256": "s1", "order": 1},
                {"file_name": "b v3.xls", "where": "corpus", "sha256": "s2", "order": 2},
            ],
        },
        {
            "family": "f2",
            "versions": [
                {"file_name": "p.xls", "where": "corpus", "sha256": "p0", "order": 0},
                {"file_name": "p.xls", "where": "corpus", "sha256": "p1", "order": 1},
            ],
        },
    ],
    "edits": [
        {"family": "f1", "step": 1, "kind": "row_inserted", "sheet": "Budget", "address": "7:7"},
        {
            "family": "f1",
            "step": 1,
            "kind": "formula_changed",
            "sheet": "Budget",
            "address": "B12",
            "implied": True,
        },
        {"family": "f1", "step": 2, "kind": "value_changed", "sheet": "Budget", "address": "C4"},
        {"family": "f2", "step": 1, "kind": "sheet_added", "sheet": "Check", "address": None},
    ],
    "pii": [],
}


def test_threads_pairwise() -> None:
    rows = [
        msg("m1", "Budget", 0, A, [B]),
        msg("m2", "Re: Budget", 1, B, [A], reply_to="m1"),
        msg("m3", "Re: Budget", 2, A, [B]),  # subject join
        msg("n1", "Curves", 0, C, [A]),
        msg("n2", "Curves", 50, C, [A]),  # truth says same thread; we cannot know
    ]
    messages = frame(rows)
    score = score_threads(build_threads(messages), messages, TRUTH)
    assert (score.n_messages, score.n_true_pairs, score.n_pred_pairs) == (5, 4, 3)
    assert score.precision == 1.0 and score.recall == pytest.approx(0.75)
    assert score.f1 == pytest.approx(2 * 0.75 / 1.75)


def chains_frame(links: list[tuple[str, list[str]]]) -> pl.DataFrame:
    rows = []
    for chain, ids in links:
        for i, w in enumerate(ids):
            rows.append(
                {
                    "chain_id": chain,
                    "position": i,
                    "workbook_id": w,
                    "prev_workbook_id": ids[i - 1] if i else None,
                }
            )
    return pl.DataFrame(rows, schema=VERSION_CHAINS_SCHEMA)


def test_chain_links_and_reversals() -> None:
    chains = chains_frame([("c1", ["s0", "s1", "s2"]), ("c2", ["p1", "p0"]), ("c3", ["x", "y"])])
    score = score_chains(chains, TRUTH)
    assert (score.n_true_links, score.n_pred_links, score.n_correct) == (3, 4, 2)
    assert score.n_reversed == 1
    assert score.precision == 0.5 and score.recall == pytest.approx(2 / 3)
    assert ("p0", "p1") in score.missed


def diff_rows(rows: list[dict]) -> pl.DataFrame:
    full = [{k: None for k in DIFFS_SCHEMA} | {"count": 1, "n_cells": 1} | r for r in rows]
    return pl.DataFrame(full, schema=VERSION_DIFFS_SCHEMA)


def test_edits_found_and_phantoms(tmp_path: Path) -> None:
    diffs = diff_rows(
        [
            dict(
                before_id="s0",
                after_id="s1",
                sheet="Budget",
                kind="row_inserted",
                after_address="7:7",
            ),
            dict(
                before_id="s0",
                after_id="s1",
                sheet="Budget",
                kind="formula_changed",
                after_address="B12",
            ),
            # the cascade a misaligned insertion would make
            dict(
                before_id="s0",
                after_id="s1",
                sheet="Budget",
                kind="value_changed",
                after_address="B8",
            ),
            dict(
                before_id="s0",
                after_id="s1",
                sheet="Budget",
                kind="value_changed",
                after_address="B9",
            ),
            dict(
                before_id="s1",
                after_id="s2",
                sheet="Budget",
                kind="value_changed",
                after_address="$C$4",
            ),
        ]
    )
    path = tmp_path / "truth.json"
    path.write_text(json.dumps(TRUTH))
    score = evaluate_mail_truth(path, version_diffs=diffs)
    edits = score.edits
    assert (edits.n_seeded, edits.n_found, edits.n_phantom) == (3, 2, 2)
    assert (edits.n_steps, edits.n_steps_diffed) == (3, 2)
    assert edits.missed[0]["kind"] == "sheet_added"
    assert {p["address"] for p in edits.phantoms} == {"B8", "B9"}
    assert score.threads is None and score.chains is None
    assert not score.passed
    assert score.lines() == ["edits: 2/3 seeded edits found, 2 phantom (2/3 true steps diffed)"]


def test_appended_column_and_cells_typed_into_a_new_row_are_found() -> None:
    truth = {
        "families": [
            {"family": "f", "versions": [{"sha256": "a", "order": 0}, {"sha256": "b", "order": 1}]}
        ],
        "edits": [
            {"family": "f", "step": 1, "kind": "cell_added", "sheet": "S", "address": f"F{r}"}
            for r in (4, 5, 6)
        ]
        + [
            {"family": "f", "step": 1, "kind": "row_inserted", "sheet": "S", "address": "9:9"},
            {"family": "f", "step": 1, "kind": "value_changed", "sheet": "S", "address": "B9"},
        ],
    }
    diffs = diff_rows(
        [
            dict(before_id="a", after_id="b", sheet="S", kind="col_inserted", after_address="F:F"),
            dict(before_id="a", after_id="b", sheet="S", kind="row_inserted", after_address="9:9"),
        ]
    )
    edits = evaluate_mail_truth(truth, version_diffs=diffs).edits
    assert (edits.n_seeded, edits.n_found, edits.n_phantom) == (5, 5, 0)
