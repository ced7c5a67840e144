"""The template drafter on the sample archive: kinds, wording, known-wrong answers, keys."""

from __future__ import annotations

import re
from decimal import Decimal

import polars as pl
import pytest

from pipeline.draft import DRAFTS_SCHEMA, TASK_KINDS, draft_tasks
from pipeline.draft.formulas import interval
from pipeline.draft.sample import MISPRINT, REVISION, sample_frames, true_values

SEVEN_KINDS = {
    "read_number",
    "sum_rows",
    "difference",
    "change_between_periods",
    "share_of_total",
    "percent_change",
    "multi_year_statistic",
}


@pytest.fixture(scope="module")
def frames() -> dict[str, pl.DataFrame]:
    return sample_frames(seed=3)


@pytest.fixture(scope="module")
def drafts(frames) -> pl.DataFrame:
    return draft_tasks(
        frames["anchored_cells"],
        frames["tables"],
        frames["documents"],
        frames["pages"],
        table_cells=frames["table_cells"],
    )


def test_registry_and_schema_cover_the_seven_kinds(drafts):
    assert set(TASK_KINDS) == SEVEN_KINDS
    assert set(drafts["kind"]) == SEVEN_KINDS
    assert drafts.schema == pl.Schema(DRAFTS_SCHEMA)
    assert drafts["task_id"].n_unique() == len(drafts)
    assert set(drafts["drafter"]) == {"template-v2"}
    assert drafts["tokens"].sum() == 0 and drafts["cost"].sum() == 0


def test_every_interval_excludes_every_known_wrong_answer(drafts):
    for row in drafts.iter_rows(named=True):
        key = Decimal(row["expected_answer"])
        lo, hi = interval(key, row["precision"])
        assert row["known_wrong"], row["task_id"]
        for wrong in row["known_wrong"]:
            assert not lo <= Decimal(wrong["value"]) <= hi, (row["task_id"], wrong)
            assert wrong["reason"] and wrong["family"]
        # half a unit of the last place each side: one dollar wide for whole dollars
        assert hi - lo == Decimal(1).scaleb(-row["precision"])


def test_questions_state_period_unit_precision_and_hide_the_source(drafts, frames):
    doc_words = set(frames["documents"]["file_name"]) | set(frames["documents"]["doc_id"])
    for row in drafts.iter_rows(named=True):
        q = row["question"]
        assert any(str(y) in q for y in range(1946, 1951)), q
        assert ("percent" in q) if row["unit"] == "percent" else (row["unit"] in q), q
        assert "whole number" in q or f"{row['precision']} decimal" in q, q
        assert not any(w in q for w in doc_words), q
        assert not re.search(r"\b(page|volume|bulletin)\b", q, re.IGNORECASE), q
        assert not re.search(r"\btable\s+[\w.-]*\d", q, re.IGNORECASE), q  # no table number


def test_wording_varies_within_a_kind_and_follows_the_seed(frames):
    args = (frames["anchored_cells"], frames["tables"], frames["documents"], frames["pages"])
    a, again, other = (
        draft_tasks(*args, seed=0, table_cells=frames["table_cells"]),
        draft_tasks(*args, seed=0, table_cells=frames["table_cells"]),
        draft_tasks(*args, seed=1, table_cells=frames["table_cells"]),
    )
    assert a.equals(again)
    assert not a["question"].equals(other["question"])
    for kind in SEVEN_KINDS:
        openings = {q.split(" ")[0] for q in a.filter(pl.col("kind") == kind)["question"]}
        assert len(openings) >= 2, (kind, openings)


def _reads(row: dict) -> set[tuple]:
    return {(s["doc_id"], s["row_label"], s["col_label"]) for s in row["sources"]}


def test_revised_figure_is_read_from_the_latest_volume(drafts):
    statement, item, year, volume, delta = REVISION
    revised = [
        r
        for r in drafts.iter_rows(named=True)
        if any(s["row_label"] == item and s["col_label"].endswith(str(year)) for s in r["sources"])
    ]
    assert revised, "some draft reads the revised figure"
    for row in revised:
        docs = {
            s["doc_id"]
            for s in row["sources"]
            if s["row_label"] == item and s["col_label"].endswith(str(year))
        }
        assert docs == {f"doc{volume}"}, row["task_id"]
        assert "revis" in row["question"], row["question"]
        earlier = [w for w in row["known_wrong"] if w["family"] == "earlier_printing"]
        if row["kind"] == "read_number":
            old = true_values(3)[(statement, item, year)]
            assert [w["value"] for w in earlier] == [str(old)]


def test_contradicted_input_gives_a_printed_vs_total_known_wrong(frames):
    statement, item, year, volume, delta = MISPRINT
    # the misprint is only in the middle volume; 1948 is reprinted (correct) in 1950,
    # so draft from the middle volume alone to read the contradicted cell
    keep = pl.col("doc_id") == f"doc{volume}"
    drafts = draft_tasks(
        frames["anchored_cells"].filter(keep),
        frames["tables"].filter(keep),
        frames["documents"].filter(keep),
        frames["pages"],
        seed=5,
        table_cells=frames["table_cells"].filter(keep),
    )
    hit = [
        r
        for r in drafts.iter_rows(named=True)
        if r["kind"] == "read_number"
        and any(s["row_label"] == item and s["col_label"].endswith(str(year)) for s in r["sources"])
    ]
    rows = drafts.to_dicts()
    reading = [
        r
        for r in rows
        if any(s["row_label"] == item and s["col_label"].endswith(str(year)) for s in r["sources"])
    ]
    assert reading
    true = true_values(3)[(statement, item, year)]
    for row in reading:
        printed = [w for w in row["known_wrong"] if w["family"] == "printed_vs_total"]
        # a max/min over years may not move when one input does
        assert printed or row["kind"] == "multi_year_statistic", row["task_id"]
    for row in hit:
        assert row["expected_answer"] == str(true)
        assert {w["value"] for w in row["known_wrong"] if w["family"] == "printed_vs_total"} == {
            str(true + delta)
        }


def test_change_between_periods_reads_two_volumes_where_the_series_is_reprinted(drafts):
    changes = drafts.filter(pl.col("kind") == "change_between_periods")
    assert changes["multi_document"].any()
    for row in changes.filter(pl.col("multi_document")).iter_rows(named=True):
        assert len(row["source_docs"]) == 2


def test_keys_recomputed_from_true_values(drafts, frames):
    """Every drafted key equals the formula applied to the true (latest) values."""
    truth = true_values(3)
    statement_of = {
        "Table 1.- Budget receipts by source": "receipts",
        "Table 2.- Public debt by type": "debt",
    }
    titles = dict(zip(frames["tables"]["table_id"], frames["tables"]["title"], strict=True))
    from pipeline.draft.formulas import FORMULAS, round_half_up

    checked = 0
    for row in drafts.iter_rows(named=True):
        formula = row["oracle_source"].split("emit(answer=")[1].split(", places")[0]
        values = {}
        for n, s in enumerate(row["sources"], start=1):
            statement = statement_of[titles[f"{s['doc_id']}:{s['page_no']}:{s['table_no']}"]]
            if statement == "receipts":
                item, year = s["row_label"], int(s["col_label"][-4:])
            else:
                item, year = s["col_label"], int(s["row_label"][-4:])
            if item == "Total":
                items = [k for k in truth if k[0] == statement and k[2] == year]
                value = sum(truth[k] + _revision(k) for k in items)
            else:
                value = truth[(statement, item, year)] + _revision((statement, item, year))
            values[f"x{n}"] = Decimal(value)
        exact = eval(formula, {"max": max, "min": min}, values)  # noqa: S307 - our own template text
        assert str(round_half_up(exact, row["precision"])) == row["expected_answer"], row["task_id"]
        checked += 1
    assert checked == len(drafts) and set(FORMULAS)


def _revision(key: tuple) -> int:
    statement, item, year, _, delta = REVISION
    return delta if key == (statement, item, year) else 0


def test_a_signed_difference_line_is_never_a_share_of_a_total(frames):
    """1948-05 Table 8 prints "Excess of receipts, or expenditures (-)" = -2.3 under
    receipts 121.0 and expenditures 123.3; OCR lost the minus sign, receipts + 2.3 then
    "added up" to expenditures, and the drafter asked what share of the expenditures
    total the excess was. A balance line (excess, deficit, surplus, "(-)") is never a part."""
    balance = "Excess of receipts, or expenditures (-)"
    renamed = {
        name: frame.with_columns(
            pl.col(c).str.replace_all("Customs", balance, literal=True)
            for c, t in frame.schema.items()
            if t == pl.Utf8
        )
        for name, frame in frames.items()
    }
    drafts = draft_tasks(
        renamed["anchored_cells"],
        renamed["tables"],
        renamed["documents"],
        renamed["pages"],
        table_cells=renamed["table_cells"],
    )
    shares = drafts.filter(pl.col("kind") == "share_of_total").to_dicts()
    assert shares, "the other receipts lines still make share tasks"
    assert any(balance in lbl for r in drafts.to_dicts() for _, lbl, _ in _reads(r))
    for row in shares:
        assert all(balance not in lbl for _, lbl, _ in _reads(row)), row["question"]


def test_a_run_of_years_is_never_a_step_of_a_series(frames):
    """1953-09 p29 prints "1941-1945" under "Fiscal years:" before 1946 ... 1953: a
    period a question can state (fiscal years 1941-1945), but five years together.
    Compared with one year or averaged among single years it would make a wrong
    question; only the kinds that read one period take it. Here the sample's fiscal
    year 1946 is made such a span (fiscal years 1942-1946)."""
    from datetime import date

    span = pl.col("period_start") == date(1945, 7, 1)
    cells = frames["table_cells"].with_columns(
        period_start=pl.when(span).then(date(1941, 7, 1)).otherwise(pl.col("period_start")),
        period_text=pl.when(span)
        .then(pl.lit("fiscal years 1942-1946"))
        .otherwise(pl.col("period_text")),
    )
    before = draft_tasks(
        frames["anchored_cells"], frames["tables"], frames["documents"], frames["pages"],
        table_cells=frames["table_cells"],
    )  # fmt: skip
    series_kinds = {"change_between_periods", "percent_change", "multi_year_statistic"}
    assert any(
        "fiscal year 1946" in r["question"] for r in before.iter_rows(named=True)
        if r["kind"] in series_kinds
    )  # fmt: skip
    after = draft_tasks(
        frames["anchored_cells"], frames["tables"], frames["documents"], frames["pages"],
        table_cells=cells,
    )  # fmt: skip
    spans = [r["question"] for r in after.iter_rows(named=True) if "1942-1946" in r["question"]]
    assert spans  # still stated where one period is read (a share, an excess in that span)
    for q in spans:
        assert not re.search(r"fiscal year 19\d\d", q), q  # never beside a single year
