"""Two tables of one volume under one title. 1984-06 prints "Total Claims by Country" as
Table CM-II-2 (p58) and as Table CM-IV-4 (p65); a task mixed them. Where both numbers
are read cleanly, each table is named by number and title; where a number is missing or
garbled, the question stays rejected."""

from __future__ import annotations

import random

import polars as pl
import pytest

from pipeline.draft.archive import build_archive, fact_problems
from pipeline.draft.kinds import read_number
from pipeline.draft.sample import sample_frames
from pipeline.draft.twins import named_statement, table_code, twinned_names

TWIN = "same title"


@pytest.mark.parametrize(
    ("number", "code"),
    [
        ("Table CM-IV-4", "CM-IV-4"),  # 1984-06 p65 as split_title reads it
        ("TABLE CM-II-2", "CM-II-2"),  # 1984-06 p58
        ("TABLE FFO-3", "FFO-3"),
        ("Table 3", "3"),
        ("Table CM-ltiI-1", ""),  # 1984-06 p60: OCR garbled "CM-III-1"
        ("Table CM-1V-4", ""),  # a figure read for a roman numeral
        ("", ""),
    ],
)
def test_only_a_cleanly_read_code_names_a_table(number: str, code: str) -> None:
    assert table_code(number) == code


def test_twins_with_distinct_clean_codes_are_named_by_number() -> None:
    printed = [(58, "CM-II-2"), (65, "CM-IV-4")]
    name = "Total Claims by Country"
    assert named_statement(name, "Table CM-IV-4", 65, printed, True) == (
        "Table CM-IV-4, Total Claims by Country",
        set(),
    )
    # a garbled or missing number on either twin: still twins, rejected
    garbled = [(58, ""), (65, "CM-IV-4")]
    assert named_statement(name, "Table CM-IV-4", 65, garbled, True)[1] == {58}
    assert named_statement(name, "Table CM-ltiI-4", 65, printed, True)[1] == {58}
    # one table continued on the next page is no twin, and the title stays bare
    assert named_statement(name, "Table 2", 58, [(58, "2"), (59, "")], False) == (name, set())


def test_facing_pages_under_two_clean_codes_are_twins() -> None:
    """2022-09 prints "Weekly Report of Major Market Participants" as FCP-I-1 (p60),
    FCP-II-1 (p62) ... and a volume may set two of them on facing pages: two tables, not
    one continued; a page without a code on the next page is its continuation."""
    name = "Weekly Report of Major Market Participants"
    facing = {("d", name): [(100, "FCP-I-1"), (101, "FCP-II-1")]}
    assert twinned_names(facing) == {name}
    assert named_statement(name, "TABLE FCP-I-1", 100, facing[("d", name)], True) == (
        f"Table FCP-I-1, {name}",
        set(),
    )
    continued = {("d", name): [(100, "FCP-I-1"), (101, "")]}
    assert twinned_names(continued) == set()


def test_a_table_continued_over_three_pages_is_not_twinned() -> None:
    printed = {
        ("d", "A"): [(10, "3"), (11, "3"), (12, "3")],
        ("d", "B"): [(58, "CM-II-2"), (65, "")],
    }
    assert twinned_names(printed) == {"B"}


def _facts(frames: dict[str, pl.DataFrame]):
    archive, _ = build_archive(
        frames["anchored_cells"], frames["tables"], frames["documents"], frames["table_cells"]
    )
    return archive, [f for t in archive.tables for f in t.grid.values()]


def _twin(frames: dict[str, pl.DataFrame], number: str, twin_number: str) -> tuple[str, str]:
    """The sample's table copied five pages on, each under a table number of its own."""
    target = frames["table_cells"].filter(pl.col("period_axis") == "row")["table_id"][0]
    doc, page, table_no = target.split(":")
    twin = f"{doc}:{int(page) + 5}:{table_no}"

    def copy(frame: pl.DataFrame) -> pl.DataFrame:
        rows = frame.filter(pl.col("table_id") == target).with_columns(
            table_id=pl.lit(twin), page_no=pl.lit(int(page) + 5, dtype=frame.schema["page_no"])
        )
        return pl.concat([frame, rows])

    for name in ("tables", "table_cells", "anchored_cells"):
        frames[name] = copy(frames[name])
    frames["tables"] = frames["tables"].with_columns(
        table_number=pl.when(pl.col("table_id") == target)
        .then(pl.lit(number))
        .when(pl.col("table_id") == twin)
        .then(pl.lit(twin_number))
        .otherwise(pl.col("table_number"))
    )
    return target, twin


def test_twin_tables_with_clean_numbers_give_well_posed_questions() -> None:
    frames = sample_frames(seed=3)
    target, twin = _twin(frames, "TABLE CM-II-2", "Table CM-IV-4")
    archive, facts = _facts(frames)
    mine = [f for f in facts if f.table_id in (target, twin)]
    assert {f.table_id for f in mine} == {target, twin}
    for f in mine:
        assert not any(TWIN in p or "another table" in p for p in fact_problems(f)), f
    named = {f.table_id: f.statement for f in mine}
    assert named[target].startswith("Table CM-II-2, ")
    assert named[twin].startswith("Table CM-IV-4, ")
    # a bare "Total" is named with the title alone, never with the number
    assert not any("Table " in f.item for f in mine)
    # the question text names the table by number and title
    table = next(t for t in archive.tables if t.table_id == twin)
    question = next(read_number(archive, table, random.Random(1))).question
    assert "Table CM-IV-4, " + named[twin].split(", ", 1)[1] in question


def test_twin_tables_with_a_garbled_number_stay_rejected() -> None:
    frames = sample_frames(seed=3)
    target, twin = _twin(frames, "TABLE CM-II-2", "Table CM-ltiI-1")
    _, facts = _facts(frames)
    mine = [f for f in facts if f.table_id in (target, twin)]
    assert mine
    for f in mine:
        assert any(TWIN in p for p in fact_problems(f)), f
