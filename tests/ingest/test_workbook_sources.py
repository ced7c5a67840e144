"""The workbook corpus: sources (attachments and corpus files) -> one workbook per sha256,
batched .xls conversion cached by sha256, hostile files quarantined with their reason
before anything parses them, values-only fallback recorded."""

from __future__ import annotations

import datetime as dt
import shutil
import zipfile
from collections import Counter
from pathlib import Path

import openpyxl
import polars as pl
import pytest
from openpyxl.styles import Font, PatternFill

from pipeline.config import SHARED_DATA
from pipeline.ingest import xls_conversion
from pipeline.ingest.workbook_sources import (
    WORKBOOK_SOURCES_SCHEMA,
    WorkbookLimits,
    WorkbookSource,
    ingest_workbook_sources,
    sources_from_attachments,
    sources_from_folder,
)
from pipeline.ingest.workbooks import read_workbook, workbook_frames
from pipeline.ingest.xls_conversion import (
    CONVERTED_LINK,
    convert_with_soffice,
    convert_xls_batch,
)
from pipeline.ingest.xlsx_reader import read_frames
from pipeline.store import BlobStore

needs_soffice = pytest.mark.skipif(
    shutil.which("soffice") is None, reason="LibreOffice (soffice) is not installed"
)


def _budget(path: Path, rows: int = 4, edit: int = 0) -> Path:
    """A small budget: items, amounts, a SUM total row; styles, a merge and a date."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Budget"
    ws["A1"] = "Item"
    ws["B1"] = "Amount"
    ws["A1"].font = Font(color="FF0000")
    for r in range(2, rows + 2):
        ws.cell(row=r, column=1, value=f"item {r - 1}")
        ws.cell(row=r, column=2, value=100 * (r - 1) + edit)
    total = rows + 2
    ws.cell(row=total, column=1, value="Total")
    ws.cell(row=total, column=2, value=f"=SUM(B2:B{total - 1})")
    ws.cell(row=total, column=2).fill = PatternFill("solid", fgColor="FFFF00")
    ws["D1"] = dt.datetime(2001, 5, 1)
    ws["D2"] = 0.25
    ws["D2"].number_format = "0.00%"
    ws.merge_cells("E1:F1")
    ws["E1"] = "merged"
    notes = wb.create_sheet("Notes")
    notes["A1"] = "prepared by the desk"
    notes["B2"] = True
    wb.save(path)
    return path


def _rewrite(src: Path, dest: Path, member: str, edit) -> Path:
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            zout.writestr(info, edit(data) if info.filename == member else data)
    return dest


def _store(tmp_path: Path) -> BlobStore:
    return BlobStore(str(tmp_path / "blobs"))


def test_one_pass_reader_gives_the_rows_of_the_two_load_reader(tmp_path):
    path = _budget(tmp_path / "b.xlsx")
    wb = read_workbook(path)
    old = workbook_frames(wb)
    new = read_frames(path, wb.workbook_id)
    assert new["read_mode"] == "formulas"
    key = ["sheet", "row", "col"]
    assert new["cells"].sort(key).equals(old["cells"].sort(key))
    assert new["sheets"].equals(old["sheets"])
    total = new["cells"].filter(pl.col("address") == "B6").row(0, named=True)
    assert total["formula"] == "=SUM(B2:B5)" and total["fill"] == "FFFF00"
    assert new["sheets"]["merged_ranges"][0].to_list() == ["E1:F1"]


def test_one_workbook_attached_to_many_mails_is_one_workbook_with_many_sources(tmp_path):
    blobs = _store(tmp_path)
    path = _budget(tmp_path / "budget.xlsx")
    sha = blobs.put_file(path)
    when = dt.datetime(2001, 5, 1, 9, tzinfo=dt.UTC)
    attachments = pl.DataFrame(
        {
            "message_key": ["m1", "m2", "m3", "m3"],
            "part_index": [1, 1, 1, 2],
            "file_name": ["budget.xlsx", "budget.xlsx", "Budget (2).xlsx", "memo.txt"],
            "content_type": ["application/vnd.ms-excel"] * 3 + ["text/plain"],
            "sha256": [sha, sha, sha, "0" * 64],
            "size": [path.stat().st_size] * 3 + [10],
            "is_spreadsheet": [True, True, True, False],
        }
    )
    messages = pl.DataFrame(
        {"message_key": ["m1", "m2", "m3"], "date": [when, when, None]},
        schema={"message_key": pl.String, "date": pl.Datetime("us", "UTC")},
    )
    items = sources_from_attachments(attachments, messages)
    assert [i.message_key for i in items] == ["m1", "m2", "m3"]
    items.append(WorkbookSource.corpus(path))

    out = ingest_workbook_sources(items, blobs, workers=1)

    assert out.workbooks.height == 1
    assert out.workbooks["workbook_id"][0] == sha
    assert out.workbooks["source_path"][0] == "attachment:m1:budget.xlsx"
    assert out.sources.schema == pl.Schema(WORKBOOK_SOURCES_SCHEMA)
    assert out.sources.height == 4 and set(out.sources["workbook_id"]) == {sha}
    assert out.sources["source_kind"].to_list() == ["attachment"] * 3 + ["corpus"]
    assert out.sources["file_date"][0] == when and out.sources["file_date"][2] is None
    assert out.intake.discovered == 4 and not out.intake.quarantined
    assert out.sheets.height == 2 and out.cells["workbook_id"].unique().to_list() == [sha]


def test_a_process_pool_reads_the_same_rows(tmp_path):
    from pipeline.ingest.workbook_sources import PARALLEL_FROM

    paths = [_budget(tmp_path / f"b{n}.xlsx", edit=n) for n in range(PARALLEL_FROM)]
    items = [WorkbookSource.corpus(p) for p in paths]
    one = ingest_workbook_sources(items, _store(tmp_path / "one"), workers=1)
    pool = ingest_workbook_sources(items, _store(tmp_path / "pool"), workers=2)
    assert pool.workbooks.equals(one.workbooks) and pool.sheets.equals(one.sheets)
    assert pool.cells.equals(one.cells) and pool.cells.height == 17 * PARALLEL_FROM


def test_hostile_files_are_quarantined_with_their_reason(tmp_path):
    from msoffcrypto.format.ooxml import OOXMLFile

    good = _budget(tmp_path / "good.xlsx")
    encrypted = tmp_path / "locked.xlsx"
    with open(good, "rb") as plain, open(encrypted, "wb") as out:
        OOXMLFile(plain).encrypt("secret", out)
    bomb = tmp_path / "bomb.xlsx"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml", "<Types/>")
        z.writestr("xl/workbook.xml", "<workbook/>")
        z.writestr("xl/worksheets/sheet1.xml", b"\0" * (40 * 2**20))  # ratio ~1000
    truncated = tmp_path / "truncated.xlsx"
    truncated.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    ole_garbage = tmp_path / "broken.xls"
    ole_garbage.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x07" * 600)
    html = tmp_path / "report.xls"
    html.write_text("<html><table><tr><td>1</td></tr></table></html>")
    files = [good, encrypted, bomb, truncated, ole_garbage, html]

    out = ingest_workbook_sources([WorkbookSource.corpus(p) for p in files], _store(tmp_path))

    reasons = {Path(q["path"]).name: q["reason"] for q in out.intake.quarantined}
    assert reasons == {
        "locked.xlsx": "encrypted",
        "bomb.xlsx": "zip_bomb",
        "truncated.xlsx": "corrupt",
        "broken.xls": "corrupt",
        "report.xls": "unreadable_workbook",
    }
    assert out.intake.ingested == [str(good)] and out.workbooks.height == 1
    details = {Path(q["path"]).name: q["detail"] for q in out.intake.quarantined}
    assert "EncryptedPackage" in details["locked.xlsx"]
    assert "compression ratio" in details["bomb.xlsx"]


def test_size_and_cell_limits_quarantine_as_oversized(tmp_path):
    small = _budget(tmp_path / "small.xlsx")
    big = _budget(tmp_path / "big.xlsx", rows=40)
    blobs = _store(tmp_path)
    by_size = ingest_workbook_sources(
        [WorkbookSource.corpus(small)], blobs, limits=WorkbookLimits(max_file_bytes=1000)
    )
    assert [q["reason"] for q in by_size.intake.quarantined] == ["oversized"]
    by_cells = ingest_workbook_sources(
        [WorkbookSource.corpus(p) for p in (small, big)], blobs, limits=WorkbookLimits(max_cells=30)
    )
    assert [Path(q["path"]).name for q in by_cells.intake.quarantined] == ["big.xlsx"]
    assert "more than 30 cells" in by_cells.intake.quarantined[0]["detail"]
    assert by_cells.intake.quarantined[0]["reason"] == "oversized"
    declared = ingest_workbook_sources(
        [WorkbookSource.corpus(big)], blobs, limits=WorkbookLimits(max_uncompressed_bytes=2000)
    )
    assert [q["reason"] for q in declared.intake.quarantined] == ["zip_bomb"]


def test_unreadable_formulas_fall_back_to_cached_values(tmp_path):
    src = _budget(tmp_path / "src.xlsx")
    # a data-table formula with no ref: openpyxl cannot build the formula, the value is fine
    bad = _rewrite(
        src,
        tmp_path / "bad.xlsx",
        "xl/worksheets/sheet1.xml",
        lambda xml: xml.replace(
            b"<f>SUM(B2:B5)</f><v />", b'<f t="dataTable" r1="B2"/><v>1000</v>'
        ),
    )
    out = ingest_workbook_sources([WorkbookSource.corpus(bad)], _store(tmp_path))
    row = out.workbooks.row(0, named=True)
    assert row["read_mode"] == "values_only" and "TypeError" in row["read_note"]
    total = out.cells.filter(pl.col("address") == "B6").row(0, named=True)
    assert total["value"] == "1000" and total["formula"] is None
    assert out.cells["formula"].null_count() == out.cells.height


def test_a_failing_chunk_is_retried_file_by_file(tmp_path, monkeypatch):
    """One file that crashes LibreOffice fails alone; the others of its chunk convert."""
    runs = []

    def fake_soffice(args, workdir, timeout, what):
        files = [Path(a) for a in args if a.endswith(".xls")]
        out = Path(args[args.index("--outdir") + 1])
        runs.append(len(files))
        if any(f.resolve().name == "poison.xls" for f in files):
            raise xls_conversion.ConversionError(f"{what}: LibreOffice exited with 134")
        for f in files:
            (out / f"{f.stem}.xlsx").write_bytes(b"converted " + f.read_bytes())

    monkeypatch.setattr(xls_conversion, "run_soffice", fake_soffice)
    files = {}
    for n in range(5):
        p = tmp_path / ("poison.xls" if n == 2 else f"f{n}.xls")
        p.write_bytes(f"xls {n}".encode())
        files[f"{n:064d}"] = p
    blobs = _store(tmp_path)
    got = convert_xls_batch(files, blobs, chunk_files=3)
    assert runs == [3, 1, 1, 1, 2]  # chunk 1 fails, its 3 files alone; chunk 2 at once
    assert sorted(got.failed) == [f"{2:064d}"] and "exited with 134" in got.failed[f"{2:064d}"]
    assert len(got.converted) == 4 and got.soffice_runs == 5
    again = convert_xls_batch(files, blobs, chunk_files=3)  # cached by sha256: no run
    assert again.cached == 4 and runs == [3, 1, 1, 1, 2, 1]  # only the failed one retried
    assert blobs.linked(CONVERTED_LINK, f"{0:064d}") == got.converted[f"{0:064d}"]


@needs_soffice
def test_xls_files_convert_in_one_batch_and_reruns_convert_nothing(tmp_path):
    a = _budget(tmp_path / "a.xlsx")
    b = _budget(tmp_path / "b.xlsx", edit=7)
    xls_dir = tmp_path / "xls"
    for p in (a, b):
        convert_with_soffice(p, xls_dir, "xls")  # LibreOffice writes the cached totals
    same_name = tmp_path / "other" / "a.xls"  # same name, other bytes: no clash
    same_name.parent.mkdir()
    shutil.copy(xls_dir / "b.xls", same_name)
    xls_b = xls_dir / "b.xls"
    html = tmp_path / "fake.xls"
    html.write_text("<html>not a workbook</html>")
    items = [WorkbookSource.corpus(p) for p in (xls_dir / "a.xls", xls_b, same_name, html)]
    blobs = _store(tmp_path)

    out = ingest_workbook_sources(items, blobs)

    assert len(out.intake.ingested) == 3 and len(out.intake.quarantined) == 1
    assert out.workbooks.height == 2  # b.xls and other/a.xls hold the same bytes
    assert set(out.workbooks["source_format"]) == {"xls"}
    assert out.workbooks["converted_sha256"].null_count() == 0
    totals = out.cells.filter(pl.col("formula") == "=SUM(B2:B5)").sort("value_num")
    assert totals["value_num"].to_list() == [1000.0, 1028.0]  # cached values kept
    files = {s: Path(p) for s, p in zip(out.workbooks["workbook_id"], ["x", "y"], strict=True)}
    rerun = convert_xls_batch(files, blobs)
    assert rerun.cached == 2 and rerun.soffice_runs == 0


# ------------------------------------------------------------------ real data

ENRON_HTML = SHARED_DATA / "enron" / "archive_html"
EUSES = SHARED_DATA / "euses"


@pytest.fixture(scope="module")
def real_ingest(tmp_path_factory):
    if not ENRON_HTML.exists() or not EUSES.exists():
        pytest.skip(f"real samples not found at {SHARED_DATA} (../shared/data is absent)")
    if shutil.which("soffice") is None:
        pytest.skip("LibreOffice (soffice) is not installed")
    blobs = BlobStore(str(tmp_path_factory.mktemp("real") / "blobs"))
    enron = [s for s in sources_from_folder(ENRON_HTML) if s.file_name.lower().endswith(".xls")]
    euses = sources_from_folder(EUSES)
    return enron, euses, ingest_workbook_sources(enron + euses, blobs)


@pytest.mark.real_data
def test_every_real_xls_attachment_is_parsed_or_quarantined(real_ingest):
    enron, euses, out = real_ingest
    assert len(enron) == 93  # every .xls attachment file of the five custodians
    assert len(euses) == 123  # 72 .xls (one named .XLS) and 51 .xlsx
    paths = set(out.intake.ingested) | {q["path"] for q in out.intake.quarantined}
    assert {s.source_path for s in enron + euses} == paths
    assert out.intake.discovered == len(enron) + len(euses)
    # measured 2026-12-02: all 93 Enron .xls parse (79 distinct workbooks), and all of EUSES
    enron_paths = {s.source_path for s in enron}
    enron_ingested = [p for p in out.intake.ingested if p in enron_paths]
    assert len(enron_ingested) == 93
    assert Counter(q["reason"] for q in out.intake.quarantined) == Counter()
    enron_books = out.sources.filter(pl.col("source_path").is_in(list(enron_paths)))
    assert enron_books["workbook_id"].n_unique() == 79
    assert out.workbooks.filter(pl.col("read_mode") != "formulas").is_empty()
    assert out.workbooks["n_formulas"].sum() > 10_000


@needs_soffice
def test_an_xls_with_a_filepass_record_is_encrypted_and_never_converted(tmp_path, monkeypatch):
    convert_with_soffice(_budget(tmp_path / "plain.xlsx"), tmp_path, "xls")
    data = bytearray((tmp_path / "plain.xls").read_bytes())
    bof = data.index(b"\x09\x08\x10\x00")  # the Workbook stream's BOF record (16 bytes)
    assert data[bof + 20 : bof + 24] == b"\xe1\x00\x02\x00"  # then INTERFACEHDR, 2 bytes
    data[bof + 20 : bof + 26] = b"\x2f\x00\x02\x00\x01\x00"  # now FILEPASS, RC4
    locked = tmp_path / "locked.xls"
    locked.write_bytes(bytes(data))
    calls = []
    monkeypatch.setattr(xls_conversion, "run_soffice", lambda *a: calls.append(a))

    out = ingest_workbook_sources([WorkbookSource.corpus(locked)], _store(tmp_path))

    assert [q["reason"] for q in out.intake.quarantined] == ["encrypted"]
    assert "FILEPASS" in out.intake.quarantined[0]["detail"] and not calls
