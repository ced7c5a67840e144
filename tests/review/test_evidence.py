"""``ledgerforge show``: evidence sheets drawn from a real build (the session fixture ``built``)."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from PIL import Image
from typer.testing import CliRunner

from pipeline.cli import app
from pipeline.config import data_paths
from pipeline.review import find_task, render_evidence
from pipeline.review.evidence import OUTLINE_PAD, OUTLINE_WIDTH
from pipeline.review.lookup import oracle_reads, sample_task_ids
from pipeline.store import Warehouse

runner = CliRunner()


def _flat(text: str) -> str:
    """CLI output with rich's line wrapping undone (it may break inside a word)."""
    return "".join(text.split())


@pytest.fixture(scope="module")
def release(built):
    _, _, lf, _ = built
    paths = data_paths(lf.data_root)
    return paths, paths.releases / "v1"


def _task_on_two_pages(release_dir: Path) -> str:
    """A published task whose oracle reads at least two cells of two volumes."""
    test = pl.read_parquet(release_dir / "data/qa/test.parquet")
    multi = test.filter(pl.col("multi_document")).sort("task_id")
    return (multi if multi.height else test.sort("task_id"))["task_id"][0]


def _ring(box, panel) -> list[tuple[int, int]]:
    """Sheet pixels along the middle of the outline stroke around a page-pixel box."""
    (x0, y0), (x1, y1) = panel.to_sheet(box[0], box[1]), panel.to_sheet(box[2], box[3])
    d = OUTLINE_PAD + OUTLINE_WIDTH / 2
    left, top, right, bottom = x0 - d, y0 - d, x1 + d, y1 + d
    points = []
    for t in [i / 20 for i in range(1, 20)]:
        x, y = left + t * (right - left), top + t * (bottom - top)
        points += [(x, top), (x, bottom), (left, y), (right, y)]
    return [(round(x), round(y)) for x, y in points]


def test_sheet_outlines_every_cell_the_oracle_reads(release, tmp_path):
    paths, release_dir = release
    task_id = _task_on_two_pages(release_dir)
    out = tmp_path / "sheet.png"
    shown = runner.invoke(
        app, ["show", task_id, "--release-dir", str(release_dir), "--out", str(out)]
    )
    assert shown.exit_code == 0, shown.output
    sheet = Image.open(out).convert("RGB")
    assert 1_200 <= sheet.width <= 4_000 and 600 <= sheet.height <= 8_000, sheet.size

    # Where each cell should be: the drafter's own record of the sources, in table_cells.
    wh = Warehouse(paths)
    row = wh.read("tasks").filter(pl.col("task_id") == task_id).row(0, named=True)
    cells = wh.read("table_cells")
    evidence = render_evidence(find_task(task_id, paths, release_dir), paths)
    assert evidence.image.size == sheet.size  # the drawing is deterministic
    assert len(evidence.panels) == len({(s["doc_id"], s["page_no"]) for s in row["sources"]}) >= 2
    assert len(set(evidence.colours)) == len(row["sources"])
    for source, colour in zip(row["sources"], evidence.colours, strict=True):
        cell = cells.filter(
            (pl.col("doc_id") == source["doc_id"])
            & (pl.col("page_no") == source["page_no"])
            & (pl.col("table_no") == source["table_no"])
            & (pl.col("row_idx") == source["row_idx"])
            & (pl.col("col_idx") == source["col_idx"])
        ).row(0, named=True)
        box = (cell["x0"], cell["y0"], cell["x1"], cell["y1"])
        panel = evidence.panel(source["doc_id"], source["page_no"])
        ring = [sheet.getpixel(p) for p in _ring(box, panel)]
        share = sum(p == colour for p in ring) / len(ring)
        # an adjacent cited cell's outline may cross one side of this one (a side is a
        # quarter of the ring); measured 1.0 for every cell of the drawn task
        assert share >= 0.7, (source, colour, share)
        centre = panel.to_sheet((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)
        assert sheet.getpixel((round(centre[0]), round(centre[1]))) != colour  # digits not covered


def test_unknown_task_id_exits_2_naming_it(release):
    paths, release_dir = release
    in_release = runner.invoke(app, ["show", "nosuchtask00", "--release-dir", str(release_dir)])
    assert in_release.exit_code == 2
    message = _flat(in_release.output)
    assert "nosuchtask00" in message and "notfound" in message and "test.parquet" in message
    in_warehouse = runner.invoke(app, ["show", "nosuchtask00", "--data-root", str(paths.root)])
    assert in_warehouse.exit_code == 2
    message = _flat(in_warehouse.output)
    assert "nosuchtask00" in message and "warehouse" in message and "drafts" in message


def test_missing_page_image_exits_2(release, tmp_path, monkeypatch):
    paths, release_dir = release
    task_id = _task_on_two_pages(release_dir)
    monkeypatch.setenv("LEDGERFORGE_BLOBS_URL", str(tmp_path / "empty-blobs"))
    result = runner.invoke(
        app, ["show", task_id, "--release-dir", str(release_dir), "--out", str(tmp_path / "x.png")]
    )
    assert result.exit_code == 2
    assert "missingfromtheblobstore" in _flat(result.output)
    assert not (tmp_path / "x.png").exists()


def test_all_draws_a_seeded_sample_of_accepted_tasks(release, tmp_path):
    paths, _ = release
    runs = []
    for name in ("a", "b"):
        out_dir = tmp_path / name
        args = ["show", "--all", "3", "--seed", "5", "--out-dir", str(out_dir)]
        result = runner.invoke(app, [*args, "--data-root", str(paths.root)])
        assert result.exit_code == 0, result.output
        runs.append(sorted(p.stem for p in out_dir.glob("*.png")))
    assert runs[0] == runs[1] and len(runs[0]) == 3
    tasks = Warehouse(paths).read("tasks")
    accepted = set(tasks.filter(pl.col("status") == "accepted")["task_id"])
    assert set(runs[0]) <= accepted


def test_neither_id_nor_all_is_an_error(release):
    paths, _ = release
    result = runner.invoke(app, ["show", "--data-root", str(paths.root)])
    assert result.exit_code == 2 and "--all" in _flat(result.output)


def test_oracle_reads_in_order_with_their_notes():
    source = "\n".join(
        [
            '"""Oracle."""',
            "from oracles.api import emit, table_cell",
            "# Customs | fiscal year 1948",
            "x1 = table_cell(doc='abc', page=4, table=0, row='Customs', col='1948')",
            "# Excise | fiscal year 1948",
            "x2 = table_cell(doc='abc', page=5, table=1, row=3, col=2)",
            "emit(answer=x1 - x2, places=0, unit='millions of dollars')",
        ]
    )
    refs = oracle_reads(source)
    assert [(r.page_no, r.table_no, r.row, r.col) for r in refs] == [
        (4, 0, "Customs", "1948"),
        (5, 1, 3, 2),
    ]
    assert refs[0].note == "Customs | fiscal year 1948" and refs[1].table_id == "abc:5:1"


def test_sample_is_seeded_and_bounded():
    ids = [f"t{i}" for i in range(20)]
    assert sample_task_ids(ids, 4, seed=1) == sample_task_ids(list(reversed(ids)), 4, seed=1)
    assert sample_task_ids(ids, 50, seed=1) == sorted(ids)
