"""The synthetic scan corpus: determinism, image-only pages, and a self-consistent truth."""

from __future__ import annotations

import hashlib
from collections import Counter
from decimal import Decimal
from pathlib import Path

import numpy as np
import polars as pl
import pymupdf
import pytest

from pipeline.synth import default_corpus, generate_scans
from pipeline.synth.scans import DEFAULT_PARAMS
from pipeline.synth.statements import (
    OCR_CONFUSABLE,
    build_bulletins,
    format_amount,
    misprint_digits,
)
from pipeline.synth.truth import TRUTH_SCHEMAS

SMALL = {"volumes": 2, "tables_per_volume": 3}


def _digests(folder: Path) -> dict[str, str]:
    files = sorted(folder.glob("*.pdf")) + sorted((folder / "truth").glob("*"))
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest() for p in files}


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory):
    """Two volumes of three tables (a few pages): enough for the page-level checks."""
    return generate_scans(tmp_path_factory.mktemp("small"), seed=11, **SMALL)


def test_same_seed_gives_identical_bytes_and_other_seed_differs(small, tmp_path: Path) -> None:
    again = generate_scans(tmp_path / "again", seed=11, **SMALL)
    other = generate_scans(tmp_path / "other", seed=12, **SMALL)
    first, second = _digests(small.root), _digests(again.root)
    assert first == second
    assert len([k for k in first if k.endswith(".pdf")]) == 2
    third = _digests(other.root)
    pdf_names = [k for k in first if k.endswith(".pdf")]
    assert all(first[k] != third[k] for k in pdf_names)
    assert first["truth/truth_cells.parquet"] != third["truth/truth_cells.parquet"]


def test_pages_are_image_only_and_match_the_truth(small) -> None:
    pages = small.truth("truth_pages")
    tables = small.truth("truth_tables")
    for pdf in small.pdfs:
        doc = pymupdf.open(pdf)
        mine = pages.filter(pl.col("file_name") == pdf.name).sort("page_no")
        assert doc.page_count == mine.height
        assert mine["kind"].to_list() == ["contents"] + ["tables"] * (mine.height - 1)
        for page, truth in zip(doc, mine.iter_rows(named=True), strict=True):
            assert page.get_text().strip() == ""
            assert (page.rect.width, page.rect.height) == (612, 792)
            images = page.get_images(full=True)
            assert len(images) == 1
            width_px, height_px = images[0][2], images[0][3]
            assert width_px == round(8.5 * truth["dpi"]) and height_px == round(11 * truth["dpi"])
            assert abs(truth["skew_deg"]) <= 0.6
        assert doc.metadata["creationDate"] == "D:20000101000000Z"
    per_page = tables.group_by("file_name", "page_no").len()
    joined = pages.join(per_page, on=["file_name", "page_no"], how="left").fill_null(0)
    assert (joined["n_tables"] == joined["len"]).all()
    # one printed table per series and volume, two for a series continued on the next page
    n_series = SMALL["volumes"] * SMALL["tables_per_volume"]
    assert tables.select("file_name", "series_id").unique().height == n_series
    assert tables.height == n_series + tables["continued"].sum()
    assert (pages.filter(pl.col("kind") == "tables")["n_tables"] <= 2).all()


def test_truth_follows_declared_schemas(small) -> None:
    for name, schema in TRUTH_SCHEMAS.items():
        df = pl.read_parquet(small.truth_dir / f"{name}.parquet")
        assert dict(df.schema) == schema, name


def _cell_values(cells: pl.DataFrame, column: str) -> dict[tuple, Decimal]:
    return {
        (r["file_name"], r["page_no"], r["table_no"], r["row_idx"], r["col_idx"]): Decimal(
            r[column]
        )
        for r in cells.iter_rows(named=True)
    }


@pytest.fixture(scope="module")
def statements():
    """The model of a 60-table corpus (no rendering: fast) as truth-like frames."""
    bulletins, revisions = build_bulletins(3, volumes=6, tables_per_volume=10)
    return bulletins, revisions


def test_identities_hold_on_true_values_and_fail_only_at_misprints(small) -> None:
    cells = small.truth("truth_cells")
    identities = small.truth("truth_identities")
    true = _cell_values(cells, "true_value_str")
    printed = _cell_values(cells, "printed_value_str")
    misprinted = {k for k, m in zip(printed, cells["misprint"], strict=True) if m}
    assert identities.height > 0
    for ident in identities.iter_rows(named=True):
        where = (ident["file_name"], ident["page_no"], ident["table_no"])
        members = list(zip(ident["member_rows"], ident["member_cols"], strict=True))
        total = (*where, ident["total_row_idx"], ident["total_col_idx"])
        assert true[total] == sum(true[(*where, r, c)] for r, c in members)
        holds = printed[total] == sum(printed[(*where, r, c)] for r, c in members)
        assert holds == ident["holds_as_printed"]
        touches_misprint = any((*where, r, c) in misprinted for r, c in members)
        assert holds != touches_misprint


def test_misprints_are_about_one_table_in_ten_and_not_ocr_confusions(statements) -> None:
    bulletins, _ = statements
    tables = [t for b in bulletins for t in b.tables]
    flagged = [t for t in tables if t.has_misprint]
    assert len({(b.volume, t.spec.series_id) for b in bulletins for t in b.tables}) == 60
    assert len(flagged) == round(0.1 * len(tables))
    for table in flagged:
        bad = [c for row in table.cells for c in row if c.misprint]
        assert len(bad) == 1
        cell = bad[0]
        assert not cell.is_total and cell.printed != cell.true
        assert any(not table.holds_as_printed(i) for i in table.identities)
        a, b = str(abs(cell.true)), str(abs(cell.printed))
        diffs = [(x, y) for x, y in zip(a, b, strict=False) if x != y]
        # Never a single confusable digit: either two digits moved or a safe change.
        assert len(a) == len(b)
        assert not (len(diffs) == 1 and frozenset(diffs[0]) in OCR_CONFUSABLE)


def test_misprint_digits_avoids_confusable_single_swaps() -> None:
    rng = np.random.default_rng(0)
    for value in [12, 88, 1_000, 5_555, -31_415, 868_686, 70_000]:
        for _ in range(20):
            wrong = misprint_digits(value, rng)
            assert wrong != value and (wrong < 0) == (value < 0)
            a, b = str(abs(value)), str(abs(wrong))
            assert len(a) == len(b)
            diffs = [(x, y) for x, y in zip(a, b, strict=True) if x != y]
            assert not (len(diffs) == 1 and frozenset(diffs[0]) in OCR_CONFUSABLE)


def test_revisions_are_marked_and_consistent_across_volumes(statements) -> None:
    bulletins, revisions = statements
    assert len(revisions) > 10
    # a row is named by its label and the stub heading over it (a sections table prints
    # "1949" under "Fiscal years" and under "Calendar years")
    printed: dict[tuple[str, str, str, str, str], tuple[int, bool, int]] = {}
    for b in bulletins:
        for t in b.tables:
            for row in t.cells:
                for c in row:
                    parent = t.row_parents[c.row_idx]
                    key = (t.spec.series_id, parent, c.row_label, c.col_label, b.volume)
                    assert key not in printed, key
                    printed[key] = (c.true, c.revised, t.spec.decimals)
    assert any(rev.row_parent for rev in revisions)  # rows under stub headings revised too
    for rev in revisions:
        first = (rev.first_row_parent, rev.first_row_label, rev.first_col_label)
        old = printed[(rev.series_id, *first, rev.first_volume)]
        new = printed[
            (rev.series_id, rev.row_parent, rev.row_label, rev.col_label, rev.revised_volume)
        ]
        assert rev.first_volume < rev.revised_volume
        assert Decimal(rev.first_value_str) != Decimal(rev.revised_value_str)
        assert Decimal(rev.revised_value_str) == Decimal(new[0]).scaleb(-new[2])
        assert Decimal(rev.first_value_str) == Decimal(old[0]).scaleb(-old[2])
        assert new[1], "a revised figure carries an r mark"
    marked = sum(1 for _, (_, rev, _) in printed.items() if rev)
    assert marked == len(revisions)


def test_printed_text_carries_marks_and_formats(small) -> None:
    cells = small.truth("truth_cells")
    for r in cells.iter_rows(named=True):
        text = r["printed_text"]
        if r["revised"]:
            assert "r" in text
        if r["footnote"]:
            assert text.endswith(r["footnote"])
        if r["printed_value_str"] == "0":
            assert text.replace("r", "") == "-"
        else:
            digits = "".join(ch for ch in text.removesuffix(r["footnote"]) if ch.isdigit())
            assert digits == r["printed_value_str"].replace("-", "").replace(".", "")
    assert format_amount(-123456, 0, "paren") == "(123,456)"
    assert format_amount(-123456, 1, "minus") == "-12,345.6"
    assert format_amount(0, 1, "paren") == "-"


def test_truth_tables_describe_the_cell_grid(small) -> None:
    tables = small.truth("truth_tables")
    cells = small.truth("truth_cells")
    for t in tables.iter_rows(named=True):
        mine = cells.filter(
            (pl.col("file_name") == t["file_name"])
            & (pl.col("page_no") == t["page_no"])
            & (pl.col("table_no") == t["table_no"])
        )
        assert mine.height == t["n_rows"] * t["n_cols"]
        assert mine["row_idx"].max() == t["n_rows"] - 1
        by_row = mine.sort("row_idx").unique("row_idx", keep="first", maintain_order=True)
        assert by_row["row_label"].to_list() == t["row_labels"]
        by_col = mine.sort("col_idx").unique("col_idx", keep="first", maintain_order=True)
        assert by_col["col_label"].to_list() == t["col_labels"]
        if t["unit_source"] == "none":
            assert t["unit_multiplier"] is None and t["unit_words"] == "unknown"
        else:
            assert t["unit_multiplier"] in (1_000, 1_000_000, 1_000_000_000)
        assert t["title"].startswith("Table ")
        assert 0 < t["y0"] < t["y1"] < 792


def test_default_corpus_is_reused_when_complete(tmp_path: Path, monkeypatch) -> None:
    small_params = {**DEFAULT_PARAMS, "volumes": 1, "tables_per_volume": 2}
    monkeypatch.setattr("pipeline.synth.scans.DEFAULT_PARAMS", small_params)
    first = default_corpus(tmp_path)
    stamp = {p: p.stat().st_mtime_ns for p in first.pdfs}
    second = default_corpus(tmp_path)
    assert second.pdfs == first.pdfs
    assert {p: p.stat().st_mtime_ns for p in second.pdfs} == stamp
    first.pdfs[0].write_bytes(b"damaged")
    third = default_corpus(tmp_path)
    assert (
        hashlib.sha256(third.pdfs[0].read_bytes()).hexdigest()
        != hashlib.sha256(b"damaged").hexdigest()
    )
    assert Counter(p.suffix for p in tmp_path.iterdir()) == Counter({".pdf": 1, "": 1})


def test_worker_processes_give_the_same_bytes(tmp_path: Path) -> None:
    serial = generate_scans(tmp_path / "serial", seed=5, volumes=1, tables_per_volume=2)
    parallel = generate_scans(
        tmp_path / "parallel", seed=5, volumes=1, tables_per_volume=2, workers=2
    )
    assert _digests(serial.root) == _digests(parallel.root)


def test_both_negative_styles_dashes_decimals_and_marks_appear(statements) -> None:
    bulletins, _ = statements
    texts = [c.text for b in bulletins for t in b.tables for row in t.cells for c in row]
    assert any(t.lstrip("r").startswith("(") for t in texts)
    assert any(t.lstrip("r").startswith("-") and t.lstrip("r") != "-" for t in texts)
    assert "-" in texts
    assert any("." in t for t in texts) and any("." not in t and "," in t for t in texts)
    assert any(t.endswith("/") for t in texts) and any(t.endswith("*") for t in texts)
    assert any(t.startswith("r") for t in texts) or any(
        t.rstrip("*/12 ").endswith("r") for t in texts
    )
