"""The cached formula values the synthetic corpus writes are the values a spreadsheet
program computes: a sample of the default mail corpus's workbooks is recalculated by
headless LibreOffice and every formula cell compared.

An earlier generator rounded every intermediate result to 6 decimals, so a cost
allocation's ``=C5*Pool!$B$9`` cached 489109.01 where LibreOffice computes 489108.306,
and 27 workflow tasks built on those workbooks could not be passed by anyone working
in Excel or LibreOffice. It also left a typed headcount total unchanged after a row
was inserted, so the shares summed to 168%; the last test checks totals.

The sample is every .xlsx version of every family (the few .xls versions are
LibreOffice conversions of generated .xlsx books, so their values come from the same
computation; without xlrd the test cannot read them). The copies given to LibreOffice
are saved by openpyxl, which drops cached values, so LibreOffice computes every
formula; all of them go through one batched ``soffice`` start.
"""

from __future__ import annotations

import hashlib
import io
import math
import shutil
from email import policy
from email.parser import BytesParser
from pathlib import Path

import openpyxl
import pytest

from pipeline.ingest.xls_conversion import XLSX_FILTER, run_soffice
from pipeline.synth.mailbox import generate_mail_corpus

pytestmark = pytest.mark.skipif(
    shutil.which("soffice") is None and shutil.which("libreoffice") is None,
    reason="LibreOffice is needed to recalculate",
)
REL_TOL = 1e-9


def _workbook_bytes(root: Path) -> dict[str, bytes]:
    """Every workbook of the corpus (files and mail attachments, nested ones included)
    by sha256."""
    found: dict[str, bytes] = {}
    for p in (root / "spreadsheets").rglob("*"):
        if p.is_file():
            data = p.read_bytes()
            found[hashlib.sha256(data).hexdigest()] = data
    parser = BytesParser(policy=policy.default)
    for p in (root / "maildir").rglob("*"):
        if not p.is_file():
            continue
        stack = [parser.parsebytes(p.read_bytes())]
        while stack:
            msg = stack.pop()
            for part in msg.walk():
                if part.get_content_type() == "message/rfc822":
                    stack.append(part.get_content())
                elif part.get_filename():
                    data = part.get_payload(decode=True) or b""
                    found[hashlib.sha256(data).hexdigest()] = data
    return found


def _sample(truth: dict) -> list[dict]:
    """Every .xlsx version of every family (so each template and each family's last
    version is in); about 130 files, 20 s of LibreOffice."""
    picked = [
        {**v, "family": fam["family"]}
        for fam in truth["families"]
        for v in fam["versions"]
        if v["format"] == "xlsx"
    ]
    templates = {fam["template"] for fam in truth["families"]}
    assert templates == {"budget", "positions", "allocation", "pnl"}
    return picked


def _formula_values(data: bytes) -> dict[tuple[str, str], object]:
    formulas = openpyxl.load_workbook(io.BytesIO(data))
    values = openpyxl.load_workbook(io.BytesIO(data), data_only=True)
    out = {}
    for ws in formulas.worksheets:
        for row in ws.iter_rows():
            for cell in row:
                if isinstance(cell.value, str) and cell.value.startswith("="):
                    out[(ws.title, cell.coordinate)] = values[ws.title][cell.coordinate].value
    return out


def _same(ours: object, engine: object) -> bool:
    if isinstance(ours, (int, float)) and isinstance(engine, (int, float)):
        return math.isclose(float(ours), float(engine), rel_tol=REL_TOL, abs_tol=0.0)
    return ours == engine


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    return generate_mail_corpus(tmp_path_factory.mktemp("mail") / "a", seed=7)


def test_cached_values_equal_libreoffice(corpus, tmp_path):
    truth = corpus.truth()
    books = _workbook_bytes(corpus.root)
    sample = _sample(truth)
    src, out = tmp_path / "in", tmp_path / "out"
    src.mkdir()
    names = []
    for v in sample:
        wb = openpyxl.load_workbook(io.BytesIO(books[v["sha256"]]))  # drops cached values
        path = src / f"{v['sha256']}.xlsx"
        wb.save(path)
        names.append(str(path))
    run_soffice(
        ["--convert-to", XLSX_FILTER, "--outdir", str(out), *names],
        tmp_path,
        60.0 + 5.0 * len(names),
        f"{len(names)} sampled corpus workbooks",
    )
    compared, bad = 0, []
    for v in sample:
        ours = _formula_values(books[v["sha256"]])
        engine = _formula_values((out / f"{v['sha256']}.xlsx").read_bytes())
        assert ours.keys() == engine.keys(), v["file_name"]
        for key, value in ours.items():
            compared += 1
            if not _same(value, engine[key]):
                bad.append((v["family"], v["order"], *key, value, engine[key]))
    print(f"{len(sample)} workbooks, {compared} formula cells compared, {len(bad)} differ")
    assert compared > 1500
    assert not bad, bad[:20]


def test_totals_add_up(corpus):
    """In every .xlsx of the corpus, each total-row cell (typed or ``SUM``) equals the sum
    of its column's detail, and an allocation's shares add up to 100%: inserted rows and
    columns and changed inputs never leave a typed total behind."""
    checked = 0
    for data in _workbook_bytes(corpus.root).values():
        if not data.startswith(b"PK"):
            continue  # .xls (converted by LibreOffice from a checked .xlsx) or broken
        try:
            formulas = openpyxl.load_workbook(io.BytesIO(data))
        except Exception:  # noqa: BLE001 - the quarantine's deliberately broken files
            continue
        values = openpyxl.load_workbook(io.BytesIO(data), data_only=True)
        fws, vws = formulas.worksheets[0], values.worksheets[0]
        total_rows = [r for r in range(1, fws.max_row + 1) if fws.cell(r, 1).value == "Total"]
        if not total_rows:
            continue
        total, head = total_rows[0], 4
        for c in range(2, fws.max_column + 1):
            text = fws.cell(total, c).value
            if text is None or (isinstance(text, str) and not text.startswith("=SUM(")):
                continue  # empty, or a weighted average in the total row
            detail = [vws.cell(r, c).value for r in range(head + 1, total)]
            want = math.fsum(x for x in detail if isinstance(x, (int, float)))
            assert vws.cell(total, c).value == pytest.approx(want, abs=0.006), (
                fws.title,
                fws.cell(total, c).coordinate,
            )
            checked += 1
        if fws.title == "Allocation":
            share = next(
                c for c in range(1, fws.max_column + 1) if fws.cell(head, c).value == "Share"
            )
            shares = [vws.cell(r, share).value for r in range(head + 1, total)]
            assert math.fsum(shares) == pytest.approx(1.0, abs=1e-9), fws.title
    assert checked > 300
