"""A column whose header path the table stage could not read unambiguously
(``col_label_doubt``) yields no statable fact where a question names the column by that
path (periods in the rows): drafting rejects it as label_uncertain."""

from __future__ import annotations

import polars as pl

from pipeline.draft.archive import build_archive, fact_problems
from pipeline.draft.sample import sample_frames


def _facts(frames: dict[str, pl.DataFrame]):
    archive, _ = build_archive(
        frames["anchored_cells"], frames["tables"], frames["documents"], frames["table_cells"]
    )
    return [f for t in archive.tables for f in t.grid.values()]


def test_a_doubtful_column_head_makes_its_cells_label_uncertain() -> None:
    frames = sample_frames(seed=3)
    assert all("label_uncertain" not in " ".join(fact_problems(f)) for f in _facts(frames))
    cells = frames["table_cells"]
    # a table whose columns are items (periods in the rows): questions name the column
    target = cells.filter(pl.col("period_axis") == "row")["table_id"][0]
    frames["table_cells"] = cells.with_columns(
        col_label_doubt=pl.when((pl.col("table_id") == target) & (pl.col("col_idx") == 0))
        .then(pl.lit("spanning head 'Fiscal year' may or may not stand over it"))
        .otherwise(pl.col("col_label_doubt"))
    )
    facts = _facts(frames)
    hit = [f for f in facts if f.table_id == target and f.col_idx == 0]
    rest = [f for f in facts if not (f.table_id == target and f.col_idx == 0)]
    assert hit and rest
    for f in hit:
        problems = fact_problems(f)
        assert any(p.startswith("label_uncertain") and "may or may not" in p for p in problems)
    assert all("label_uncertain" not in " ".join(fact_problems(f)) for f in rest)


def test_a_doubtful_head_over_period_columns_leaves_the_row_items_statable() -> None:
    """Where the columns are periods the head only dates the cell (the period reader
    decides the period); the row item a question names is not in doubt."""
    frames = sample_frames(seed=3)
    cells = frames["table_cells"]
    target = cells.filter(pl.col("period_axis") == "col")["table_id"][0]
    frames["table_cells"] = cells.with_columns(
        col_label_doubt=pl.when(pl.col("table_id") == target)
        .then(pl.lit("spanning head 'Fiscal year' may or may not stand over it"))
        .otherwise(pl.col("col_label_doubt"))
    )
    hit = [f for f in _facts(frames) if f.table_id == target]
    assert hit and all("label_uncertain" not in " ".join(fact_problems(f)) for f in hit)


def test_a_warehouse_without_the_doubt_column_still_reads() -> None:
    frames = sample_frames(seed=3)
    frames["table_cells"] = frames["table_cells"].drop("col_label_doubt")
    assert _facts(frames)


def _scanned(frames: dict[str, pl.DataFrame], table_id: str) -> None:
    frames["tables"] = frames["tables"].with_columns(
        word_source=pl.when(pl.col("table_id") == table_id)
        .then(pl.lit("ocr"))
        .otherwise(pl.col("word_source"))
    )


def test_one_doubtful_head_on_a_scanned_table_names_no_column() -> None:
    """1939-12 "Public Debt Accounts" (scanned): "Special Series" stood under both the
    Receipts and the Expenditures spanners, both lost, beside heads read as "total" and
    "cone"; the question named "Special Series" and could mean either column. On an OCR
    page one doubtful head makes every column head of the table untrusted as a name."""
    frames = sample_frames(seed=3)
    cells = frames["table_cells"]
    target = cells.filter(pl.col("period_axis") == "row")["table_id"][0]
    _scanned(frames, target)
    assert all("label_uncertain" not in " ".join(fact_problems(f)) for f in _facts(frames))
    frames["table_cells"] = cells.with_columns(
        col_label=pl.when((pl.col("table_id") == target) & (pl.col("col_idx") == 0))
        .then(pl.lit("cone"))
        .otherwise(pl.col("col_label"))
    )
    facts = _facts(frames)
    hit = [f for f in facts if f.table_id == target]
    assert hit and len({f.col_idx for f in hit}) > 1
    for f in hit:
        assert any("header block misread" in p for p in fact_problems(f)), f
    assert all("header block" not in " ".join(fact_problems(f)) for f in facts if f not in hit)


def _print_twice(
    frames: dict[str, pl.DataFrame], target: str, dimension: str | None
) -> tuple[int, int]:
    """The second column of ``target`` given the first column's period (and, if given,
    a ``dimension`` of its own): one period printed over two columns. Returns both."""
    cells = frames["table_cells"]
    table = cells.filter(pl.col("table_id") == target)
    first, second = sorted(set(table["col_idx"]))[:2]
    start, end, text, kind = (
        table.filter(pl.col("col_idx") == first)
        .select("period_start", "period_end", "period_text", "period_kind")
        .row(0)
    )
    twin = (pl.col("table_id") == target) & (pl.col("col_idx") == second)
    update = {
        "period_start": pl.when(twin).then(pl.lit(start)).otherwise("period_start"),
        "period_end": pl.when(twin).then(pl.lit(end)).otherwise("period_end"),
        "period_text": pl.when(twin).then(pl.lit(text)).otherwise("period_text"),
        "period_kind": pl.when(twin).then(pl.lit(kind)).otherwise("period_kind"),
    }
    if dimension is not None:
        update["dimension"] = pl.when(twin).then(pl.lit(dimension)).otherwise("dimension")
    frames["table_cells"] = cells.with_columns(**update)
    return first, second


def test_a_period_over_two_columns_without_a_dimension_is_ambiguous() -> None:
    """1967-08 "Foreign Credit and Debit Balances": "December 1966" heads a credit and a
    debit column, the spanner read over one of them only; a question naming only the
    period and the row could mean either."""
    frames = sample_frames(seed=3)
    target = frames["table_cells"].filter(pl.col("period_axis") == "col")["table_id"][0]
    first, second = _print_twice(frames, target, "Debit balances")
    facts = [f for f in _facts(frames) if f.table_id == target]
    bare = [f for f in facts if f.col_idx == first]
    named = [f for f in facts if f.col_idx == second]
    assert bare and named
    for f in bare:
        assert any("heads several columns" in p for p in fact_problems(f)), f
    for f in named:  # the column whose dimension was read is named by it
        assert not any("heads several columns" in p for p in fact_problems(f)), f


def test_a_text_layer_block_with_most_heads_in_doubt_names_no_column() -> None:
    """1997-09 CM-V-4 (text layer): nine of fourteen heads in doubt, and an undoubted
    one read "Foreign Bonds Stocks securities" (two heads spliced). A born-digital block
    with one doubtful head of several keeps its other heads."""
    frames = sample_frames(seed=3)
    cells = frames["table_cells"]
    target = cells.filter(pl.col("period_axis") == "row")["table_id"][0]
    n_cols = cells.filter(pl.col("table_id") == target)["col_idx"].n_unique()
    assert n_cols >= 2

    def doubt(cols: int) -> dict[str, pl.DataFrame]:
        out = dict(frames)
        out["table_cells"] = cells.with_columns(
            col_label_doubt=pl.when((pl.col("table_id") == target) & (pl.col("col_idx") < cols))
            .then(pl.lit("head line 'Total' stands among spanning heads"))
            .otherwise(pl.col("col_label_doubt"))
        )
        return out

    facts = [f for f in _facts(doubt(1)) if f.table_id == target and f.col_idx >= 1]
    assert facts and all("header block" not in " ".join(fact_problems(f)) for f in facts)
    most = (n_cols + 1) // 2 + (n_cols % 2 == 0)
    facts = [f for f in _facts(doubt(most)) if f.table_id == target and f.col_idx >= most]
    assert facts and all("header block misread" in " ".join(fact_problems(f)) for f in facts)


def test_a_row_printed_twice_is_named_with_its_heading_despite_a_footnote_number() -> None:
    """2006-12 p73 "Total Liabilities by Country": "Oil exporting countries" under Asia
    and "Oil exporting countries 10" (a footnote number the text layer kept) under
    Africa; the question named the first without its heading, and a reader could take
    either. Rows whose labels differ only by such a number are the same name."""
    frames = sample_frames(seed=3)
    cells = frames["table_cells"]
    target = cells.filter(pl.col("period_axis") == "col")["table_id"][0]
    labels = cells.filter(pl.col("table_id") == target)["row_label"].unique(maintain_order=True)
    first, second = labels[0], labels[1]
    renamed = {
        first: ("Oil exporting countries", "Asia"),
        second: ("Oil exporting countries 10", "Africa"),
    }
    for name in ("table_cells", "anchored_cells"):
        frame = frames[name]
        mine = pl.col("table_id") == target
        for old, (new, parent) in renamed.items():
            hit = mine & (pl.col("row_label") == old)
            update = {"row_label": pl.when(hit).then(pl.lit(new)).otherwise("row_label")}
            if "row_parent" in frame.columns:
                update["row_parent"] = pl.when(hit).then(pl.lit(parent)).otherwise("row_parent")
            frame = frame.with_columns(**update)
        frames[name] = frame
    items = {f.item for f in _facts(frames) if f.table_id == target}
    assert "Oil exporting countries (asia)" in items
    assert "Oil exporting countries" not in items


def test_a_table_continued_over_pages_with_sections_named_alike_is_ambiguous() -> None:
    """2006-12 SBN-3: the "Series E and EE" section and, on the facing page, the
    "Series I" section print the same columns and months; their section heads lost, a
    question about "Total (calendar years)" in September 2005 could mean either."""
    frames = sample_frames(seed=3)
    target = frames["table_cells"].filter(pl.col("period_axis") == "row")["table_id"][0]
    doc, page, table_no = target.split(":")
    twin = f"{doc}:{int(page) + 1}:{int(table_no) + 5}"

    def copy(frame: pl.DataFrame) -> pl.DataFrame:
        rows = frame.filter(pl.col("table_id") == target).with_columns(
            table_id=pl.lit(twin),
            page_no=pl.lit(int(page) + 1, dtype=frame.schema["page_no"]),
            table_no=pl.lit(int(table_no) + 5, dtype=frame.schema["table_no"]),
        )
        return pl.concat([frame, rows])

    before = [f for f in _facts(frames) if f.table_id == target]
    assert before and all("another table" not in " ".join(fact_problems(f)) for f in before)
    for name in ("tables", "table_cells", "anchored_cells"):
        frames[name] = copy(frames[name])
    facts = [f for f in _facts(frames) if f.table_id in (target, twin)]
    assert {f.table_id for f in facts} == {target, twin}
    for f in facts:
        assert any("another table under the same name" in p for p in fact_problems(f)), f


def test_scanned_heads_repeating_a_period_leave_no_column_period_sure() -> None:
    """1967-08 p107 (scanned): three columns read "Calendar year / 1967" and the "1967
    through June p" column (January-June) read "1967 / June"; a key took the half-year
    total as June's. On an OCR page, a period printed over several columns with no
    dimension between them means words of the heads were lost: no column is dated."""
    frames = sample_frames(seed=3)
    target = frames["table_cells"].filter(pl.col("period_axis") == "col")["table_id"][0]
    _scanned(frames, target)
    first, second = _print_twice(frames, target, None)
    # the twin column printed but not anchored (as on the page): no two facts collide
    frames["anchored_cells"] = frames["anchored_cells"].filter(
        ~((pl.col("table_id") == target) & (pl.col("col_idx") == second))
    )
    facts = [f for f in _facts(frames) if f.table_id == target]
    assert facts and {f.col_idx for f in facts} - {first}
    for f in facts:
        assert any("repeat a period" in p for p in fact_problems(f)), f


def test_a_heading_that_only_names_the_rows_kind_is_not_part_of_the_item() -> None:
    """2006-12 SBN-3: month rows continue under the "Calendar years" heading; a December
    2005 value was asked as "Sales plus accrued discount (calendar years)", which reads as
    the calendar year 2005 row. A panel name ("Series E and EE") stays in the item."""
    frames = sample_frames(seed=3)
    cells = frames["table_cells"]
    target = cells.filter(pl.col("period_axis") == "row")["table_id"][0]
    mine = pl.col("table_id") == target
    for parent, kept in (("Calendar years:", False), ("Series E and EE", True)):
        frames["table_cells"] = cells.with_columns(
            row_parent=pl.when(mine).then(pl.lit(parent)).otherwise("row_parent")
        )
        items = {f.item for f in _facts(frames) if f.table_id == target}
        assert items
        assert all(("(series e and ee)" in i.lower()) == kept for i in items), items
        assert not any("calendar years" in i.lower() for i in items), items
