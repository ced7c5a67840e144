"""Validation on the sample archive: clean drafts pass, each rule rejects its case, reason kept."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import polars as pl
import pytest

from pipeline.config import data_paths
from pipeline.draft import draft_tasks
from pipeline.draft.sample import write_sample_warehouse
from pipeline.store import Warehouse
from pipeline.validate import TASKS_SCHEMA, build_contamination_index, validate_drafts

CELL = "table_cell(doc='doc1949', page=2, table=0, row={item!r}, col='Fiscal year / 1947')"


def _variant(row: dict, task_id: str, **changes) -> dict:
    return {**row, "task_id": task_id, **changes}


@pytest.fixture(scope="module")
def validated(tmp_path_factory) -> dict:
    root: Path = tmp_path_factory.mktemp("data")
    warehouse = Warehouse(data_paths(root))
    frames = write_sample_warehouse(warehouse, seed=11)
    drafts = draft_tasks(
        frames["anchored_cells"],
        frames["tables"],
        frames["documents"],
        seed=2,
        table_cells=frames["table_cells"],
    )
    rows = drafts.to_dicts()
    read = next(r for r in rows if r["kind"] == "read_number")
    summed = next(r for r in rows if r["kind"] == "sum_rows")
    key = Decimal(read["expected_answer"])
    # a 1947 receipt (printed in 1948 and 1949) that no template read_number task reads
    read_cells = {
        (s["doc_id"], s["row_label"], s["col_label"])
        for r in rows
        if r["kind"] == "read_number"
        for s in r["sources"]
    }
    customs = next(
        r
        for r in frames["anchored_cells"].to_dicts()
        if r["doc_id"] == "doc1949"
        and r["col_label"].endswith("1947")
        and r["row_label"] != "Total"
        and ("doc1949", r["row_label"], r["col_label"]) not in read_cells
    )
    item = customs["row_label"]
    customs_src = {
        k: customs[k]
        for k in ("doc_id", "page_no", "table_no", "row_idx", "col_idx", "row_label", "col_label")
    }
    reprint_src = {**customs_src, "doc_id": "doc1948", "col_idx": 1}
    one_cell = f"from oracles.api import emit, table_cell\nx1 = {CELL.format(item=item)}\n"
    cases = {
        "no_oracle": _variant(read, "case_no_oracle", oracle_source=None),
        "static": _variant(
            read, "case_static", oracle_source="import os\n" + read["oracle_source"]
        ),
        "raises": _variant(
            read,
            "case_raises",
            oracle_source="from oracles.api import emit, table_cell\n"
            "x1 = table_cell(doc='doc1949', page=2, table=0, row='No such row', col='x')\n"
            "emit(answer=x1, places=0)\n",
        ),
        "no_known_wrong": _variant(read, "case_no_kw", known_wrong=[]),
        "kw_inside": _variant(
            read,
            "case_kw_inside",
            known_wrong=[
                *read["known_wrong"],
                {"value": str(key), "reason": "same", "family": "misread_digit"},
            ],
        ),
        "outside": _variant(
            read,
            "case_outside",
            oracle_source=one_cell + "emit(answer=x1, places=0, interval=(x1 + 1, x1 + 2))\n",
            sources=[customs_src],
            expected_answer=None,
        ),
        "wide": _variant(
            read,
            "case_wide",
            oracle_source=one_cell + "emit(answer=x1, places=0, interval=(x1 - 5, x1 + 5))\n",
            sources=[customs_src],
            expected_answer=None,
        ),
        "mismatch": _variant(
            summed, "case_mismatch", expected_answer=str(Decimal(summed["expected_answer"]) + 1)
        ),
        "same_id": dict(summed),  # the same draft twice
        "same_sources": _variant(
            summed, "case_same_sources", question=summed["question"] + " Show no work."
        ),
        "near_a": _variant(
            read,
            "case_near_a",
            oracle_source=one_cell + "emit(answer=x1, places=0)\n",
            sources=[customs_src],
            expected_answer=None,
            known_wrong=[{"value": "1", "reason": "r", "family": "other_base"}],
            question=f"What was {item} in fiscal year 1947 (table: Budget receipts by source)? "
            "Answer in millions of dollars. Give a whole number.",
        ),
        "near_b": _variant(
            read,
            "case_near_b",
            oracle_source=one_cell.replace("doc1949", "doc1948").replace("1947')", "1947')")
            + "emit(answer=x1, places=0)\n",
            sources=[reprint_src],
            expected_answer=None,
            known_wrong=[{"value": "1", "reason": "r", "family": "other_base"}],
            question=f"What was {item} in fiscal year 1947 (table: Budget receipts by source)?  "
            "Answer in millions of dollars.  Give a whole number.",
        ),
        "unconfirmed": _variant(summed, "case_unconfirmed", kind="difference"),
    }
    # contamination: the sum's key printed in a footnote of a page of the same statement
    # (receipts, page 2 of another volume); the read task's short key printed on a page
    # of another statement (debt, page 3) is a coincidence, not a leak
    words = frames["words"]

    def footnote(page: int, key: str) -> pl.DataFrame:
        return words.head(1).with_columns(
            pl.lit("doc1950").alias("doc_id"),
            pl.lit(page, dtype=pl.Int32).alias("page_no"),
            pl.lit(f"{int(Decimal(key)):,}").alias("text"),
            pl.lit(500.0).alias("x0"),
            pl.lit(3100.0).alias("y0"),
        )

    extra = [footnote(2, summed["expected_answer"]), footnote(3, read["expected_answer"])]
    warehouse.replace("words", pl.concat([words, *extra]))
    # unconfirmed: drop the anchored cell the "unconfirmed" case reads first
    first = summed["sources"][0]
    anchored = frames["anchored_cells"]
    gone = (
        (pl.col("doc_id") == first["doc_id"])
        & (pl.col("row_idx") == first["row_idx"])
        & (pl.col("col_idx") == first["col_idx"])
        & (pl.col("page_no") == first["page_no"])
    )
    cases["unconfirmed"] = _variant(summed, "case_unconfirmed", kind="difference")
    all_rows = rows + list(cases.values())
    tasks = validate_drafts(
        pl.DataFrame(all_rows, schema=drafts.schema),
        warehouse.root,
        build_contamination_index(warehouse.root),
    )
    # the unconfirmed case needs the cell gone from anchored_cells: validate it separately
    warehouse.replace("anchored_cells", anchored.filter(~gone))
    lone = validate_drafts(
        pl.DataFrame([cases["unconfirmed"]], schema=drafts.schema),
        warehouse.root,
        build_contamination_index(warehouse.root),
    )
    return {"tasks": tasks, "lone": lone, "drafts": drafts, "summed": summed, "read": read}


def _reasons(tasks: pl.DataFrame, task_id: str) -> list[str]:
    rows = tasks.filter(pl.col("task_id") == task_id)["reasons"].to_list()
    return [reason for reasons in rows for reason in reasons]


def _rules(tasks: pl.DataFrame, task_id: str) -> set[str]:
    return {r.split(":")[0] for r in _reasons(tasks, task_id)}


def test_clean_drafts_are_accepted_with_their_oracle_results(validated):
    tasks, drafts = validated["tasks"], validated["drafts"]
    assert tasks.schema == pl.Schema(TASKS_SCHEMA)
    clean = tasks.head(len(drafts))
    summed_id = validated["summed"]["task_id"]
    accepted = clean.filter(pl.col("status") == "accepted")
    # only the sum (contaminated on purpose, and duplicated) may be rejected
    assert set(clean.filter(pl.col("status") == "rejected")["task_id"]) <= {summed_id}
    assert len(accepted) >= len(drafts) - 1
    assert (accepted["answer"] == accepted["expected_answer"]).all()
    assert accepted["oracle_checks"].str.contains('"holds": true').all()
    assert set(accepted["kind"]) >= {"read_number", "sum_rows", "difference", "share_of_total"}


@pytest.mark.parametrize(
    ("task_id", "rule"),
    [
        ("case_no_oracle", "no_oracle"),
        ("case_static", "oracle_failed"),
        ("case_raises", "oracle_failed"),
        ("case_no_kw", "no_known_wrong"),
        ("case_kw_inside", "known_wrong_inside_interval"),
        ("case_outside", "key_outside_interval"),
        ("case_wide", "interval_too_wide"),
        ("case_mismatch", "drafter_key_mismatch"),
        ("case_same_sources", "duplicate"),
        ("case_near_b", "near_duplicate"),
    ],
)
def test_each_rule_rejects_its_case_with_the_reason(validated, task_id, rule):
    tasks = validated["tasks"]
    assert tasks.filter(pl.col("task_id") == task_id)["status"].to_list() == ["rejected"]
    assert rule in _rules(tasks, task_id), _reasons(tasks, task_id)


def test_static_and_runtime_failures_name_the_cause(validated):
    tasks = validated["tasks"]
    assert any("import" in r for r in _reasons(tasks, "case_static"))
    assert any("UnconfirmedCell" in r or "error" in r for r in _reasons(tasks, "case_raises"))


def test_the_same_draft_twice_keeps_one(validated):
    tasks, summed = validated["tasks"], validated["summed"]
    copies = tasks.filter(pl.col("task_id") == summed["task_id"])
    assert len(copies) == 2
    assert sum("duplicate" in {r.split(":")[0] for r in rs} for rs in copies["reasons"]) == 1
    # the near-duplicate's original stays accepted
    assert tasks.filter(pl.col("task_id") == "case_near_a")["status"].to_list() == ["accepted"]


def test_key_printed_elsewhere_is_contamination(validated):
    tasks, summed = validated["tasks"], validated["summed"]
    reasons = _reasons(tasks, summed["task_id"])
    assert any(r.startswith("contaminated") and "doc1950 p.2" in r for r in reasons), reasons
    # a key printed only at the cell the task reads, or (a short number) on a page of
    # another statement, is not contamination
    assert "contaminated" not in _rules(tasks, validated["read"]["task_id"])


def test_unconfirmed_input_is_rejected_and_the_oracle_refuses_it(validated):
    lone = validated["lone"]
    rules = _rules(lone, "case_unconfirmed")
    assert {"unconfirmed_input", "oracle_failed"} <= rules, _reasons(lone, "case_unconfirmed")
    assert lone["answer"].to_list() == [None]
