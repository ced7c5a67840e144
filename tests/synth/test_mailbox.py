"""The default mail corpus against its own ground truth: determinism, paths, seeded
edits really in the workbooks, personal data really in the mail, the aimed counts."""

from __future__ import annotations

import hashlib
import io
import json
import shutil
from collections import Counter
from email import policy
from email.parser import BytesParser
from pathlib import Path

import openpyxl
import pytest

from pipeline.synth.mailbox import _existing, default_mail_corpus, generate_mail_corpus
from pipeline.synth.workbook_population import generate_workbook_population

pytestmark = pytest.mark.skipif(
    shutil.which("soffice") is None and shutil.which("libreoffice") is None,
    reason="LibreOffice is needed for the .xls attachments",
)
PARSER = BytesParser(policy=policy.default)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    return generate_mail_corpus(tmp_path_factory.mktemp("mail") / "a", seed=7)


@pytest.fixture(scope="module")
def truth(corpus):
    return corpus.truth()


def _files(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name != "truth.json"
    }


def _parse(path: Path):
    return PARSER.parsebytes(path.read_bytes())


def _text(msg) -> str:
    """Decoded headers and every text part, nested messages included."""
    out = [str(v) for _, v in msg.items()]
    for part in msg.walk():
        if part.get_content_type() == "message/rfc822":
            out.append(_text(part.get_content()))
        elif part.get_content_maintype() == "text":
            out.append(part.get_content())
        if part.get_filename():
            out.append(part.get_filename())
    return "\n".join(out)


def test_rerun_gives_the_same_bytes(corpus, truth, tmp_path):
    again = generate_mail_corpus(tmp_path / "b", seed=7)
    xls_related = {p for m in truth["messages"] if m["has_xls"] for p in m["paths"]} | {
        v["path"]
        for f in truth["families"]
        for v in f["versions"]
        if v["format"] == "xls" and v["path"]
    }
    a, b = _files(corpus.root), _files(again.root)
    assert a.keys() == b.keys()
    differ = {k for k in a if a[k] != b[k]}
    assert differ <= xls_related, sorted(differ - xls_related)[:5]
    assert len(a) > 700
    for path in a:  # mtimes (the order evidence of some families) are reproduced too
        assert (corpus.root / path).stat().st_mtime == (again.root / path).stat().st_mtime


def test_every_truth_path_exists_and_attachments_match(corpus, truth):
    by_id = {m["message_id"] or m["key"]: m for m in truth["messages"]}
    for m in truth["messages"]:
        assert m["paths"]
        for rel in m["paths"]:
            assert (corpus.root / rel).is_file(), rel
    for fam in truth["families"]:
        orders = [v["order"] for v in fam["versions"]]
        assert orders == list(range(len(orders)))
        for v in fam["versions"]:
            if v["where"] == "corpus":
                data = (corpus.root / v["path"]).read_bytes()
                assert hashlib.sha256(data).hexdigest() == v["sha256"], v["path"]
                continue
            assert v["message_ids"], v
            for mid in v["message_ids"]:
                msg = _parse(corpus.root / by_id[mid]["paths"][0])
                found = []
                for part in msg.walk():
                    if part.get_content_type() == "message/rfc822":
                        inner = part.get_content()
                        found += [p.get_content() for p in inner.iter_attachments()]
                    elif part.get_filename() == v["file_name"]:
                        found.append(part.get_content())
                assert v["sha256"] in {hashlib.sha256(b).hexdigest() for b in found}, (mid, v)


def test_duplicates_share_a_message_id_or_identical_bytes(corpus, truth):
    for m in truth["messages"]:
        files = [(corpus.root / p).read_bytes() for p in m["paths"]]
        ids = {_parse(corpus.root / p)["Message-ID"] for p in m["paths"]}
        if m["message_id"]:
            assert ids == {f"<{m['message_id']}>"}
        else:
            assert ids == {None} and len(set(files)) == 1
    no_id_dups = [m for m in truth["messages"] if not m["message_id"] and len(m["paths"]) > 1]
    assert len(no_id_dups) >= 5
    assert sum(len(m["paths"]) > 1 for m in truth["messages"]) >= 100
    folders = Counter(p.split("/")[2] for m in truth["messages"] for p in m["paths"])
    assert {"inbox", "sent_items", "all_documents", "discussion_threads"} <= folders.keys()


def _book(corpus, fam, order, data_only=False):
    v = fam["versions"][order]
    if v["format"] == "xls":
        return None
    if v["path"]:
        data = (corpus.root / v["path"]).read_bytes()
    else:
        data = _attachment_bytes(corpus, v)
    return openpyxl.load_workbook(io.BytesIO(data), data_only=data_only)


_MSG_CACHE: dict[str, bytes] = {}


def _attachment_bytes(corpus, v) -> bytes:
    truth = corpus.truth()
    for m in truth["messages"]:
        if m["message_id"] == v["message_id"]:
            for part in _parse(corpus.root / m["paths"][0]).iter_attachments():
                data = part.get_content()
                if isinstance(data, bytes) and hashlib.sha256(data).hexdigest() == v["sha256"]:
                    return data
    raise AssertionError(f"no attachment for {v}")


def _same(a, b) -> bool:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return abs(a - b) < 1e-6
    return str(a) == str(b)


def test_every_seeded_edit_is_in_the_workbooks(corpus, truth):
    fams = {f["family"]: f for f in truth["families"]}
    shifted = {  # steps whose addresses moved (after coordinates differ from before)
        (e["family"], e["step"])
        for e in truth["edits"]
        if e["kind"] in ("row_inserted", "col_inserted")
    }
    checked = 0
    for e in truth["edits"]:
        if e["implied"]:
            continue
        fam = fams[e["family"]]
        before = _book(corpus, fam, e["step"] - 1)
        after = _book(corpus, fam, e["step"])
        if before is None or after is None:
            continue
        kind, sheet, addr = e["kind"], e["sheet"], e["address"]
        if kind == "sheet_added":
            assert sheet in after.sheetnames and sheet not in before.sheetnames
        elif kind == "row_inserted":
            row = int(addr.split(":")[0])
            assert after[sheet].max_row == before[sheet].max_row + 1, e
            label = after[sheet].cell(row=row, column=1).value
            assert label and label != before[sheet].cell(row=row, column=1).value, e
        elif kind == "col_inserted":
            col = addr.split(":")[0]
            assert after[sheet].max_column == before[sheet].max_column + 1, e
            assert after[sheet][f"{col}4"].value != before[sheet][f"{col}4"].value, e
            for cell, content in (e.get("cells") or {}).items():  # an appended column
                assert after[sheet][cell].value == content, (e, cell)
                assert before[sheet][cell].value is None, (e, cell)
        elif kind in ("value_changed", "cell_added", "formula_changed", "value_to_formula"):
            got = after[sheet][addr].value
            if kind == "value_changed" and hasattr(got, "isoformat"):
                got = str(got)
            assert _same(got, e["after"]), (e, got)
            if (e["family"], e["step"]) in shifted:
                pass
            elif kind == "value_to_formula":
                assert isinstance(before[sheet][addr].value, (int, float)), e
            elif kind == "value_changed" and not hasattr(before[sheet][addr].value, "isoformat"):
                assert _same(before[sheet][addr].value, e["before"]), e
            elif kind == "cell_added":
                assert before[sheet][addr].value is None, e
        elif kind == "format_changed":
            assert after[sheet][addr].number_format != before[sheet][addr].number_format, e
        elif kind == "style_changed":
            assert after[sheet][addr].fill.fgColor.rgb != before[sheet][addr].fill.fgColor.rgb, e
        else:
            raise AssertionError(f"unexpected edit kind {kind}")
        checked += 1
    assert checked >= 150


def test_formula_cells_carry_cached_values(corpus, truth):
    fam = next(f for f in truth["families"] if f["origin"] == "corpus")
    formulas = _book(corpus, fam, len(fam["versions"]) - 2)
    values = _book(corpus, fam, len(fam["versions"]) - 2, data_only=True)
    n = 0
    for ws in formulas.worksheets:
        for row in ws.iter_rows():
            for c in row:
                if isinstance(c.value, str) and c.value.startswith("="):
                    assert isinstance(values[ws.title][c.coordinate].value, (int, float)), c
                    n += 1
    assert n > 5


def test_personal_data_is_in_the_mail_and_not_in_workbooks(corpus, truth):
    text = "\n".join(_text(_parse(corpus.root / m["paths"][0])) for m in truth["messages"])
    paths = "\n".join(p for m in truth["messages"] for p in m["paths"])
    missing = [s for s in truth["pii"] if s not in text and s not in paths]
    assert not missing
    kinds = Counter(truth["pii_kinds"].values())
    assert kinds["ssn"] >= 2 and kinds["account"] >= 2 and kinds["phone"] >= 10
    assert kinds["email"] >= 10 and kinds["name"] >= 20
    cells = []
    for path in (corpus.root / "spreadsheets").rglob("*.xlsx"):
        for ws in openpyxl.load_workbook(path).worksheets:
            cells += [str(v) for row in ws.iter_rows(values_only=True) for v in row if v]
    joined = "\n".join(cells)
    assert not [s for s in truth["pii"] if s in joined]


def test_counts_meet_the_aims(truth):
    fams = truth["families"]
    steps = [s for f in fams for s in f["steps"]]
    assert len(fams) >= 40
    assert sum(not s["trivial"] for s in steps) >= 35
    assert sum(s["trivial"] for s in steps) >= 3
    assert sum(len(f["versions"]) >= 3 for f in fams) >= 8
    assert 300 <= len(truth["messages"]) <= 600
    grounding = Counter(f["grounding"] for f in fams)
    assert grounding["strong"] >= 10 and grounding["partial"] >= 3
    assert sum(v["format"] == "xls" for f in fams for v in f["versions"]) >= 5
    kinds = Counter(e["kind"] for e in truth["edits"] if not e["implied"])
    for kind in (
        "value_changed",
        "value_to_formula",
        "cell_added",
        "row_inserted",
        "col_inserted",
        "sheet_added",
        "format_changed",
    ):
        assert kinds[kind] >= 2, kind
    decoys = Counter(t["subject"] for t in truth["threads"] if t["kind"] == "decoy")
    assert all(n == 2 for n in decoys.values()) and len(decoys) >= 4
    groups = Counter(f["decoy_group"] for f in fams if f["decoy_group"])
    assert len(groups) >= 3


def test_mail_features_are_present(corpus, truth):
    raw = b"\n".join((corpus.root / m["paths"][0]).read_bytes() for m in truth["messages"])
    for needle in (
        b"-----Original Message-----",
        b"\n> ",
        b"---------------------- Forwarded by",
        b"filename*0*=utf-8''",  # RFC 2231, with continuations
        b"=?iso-8859-1?",
        b"=?utf-8?",
        b'charset="windows-1252"',
        b'charset="iso-8859-1"',
        b"Content-Type: message/rfc822",
        b"[gas-desk]",
    ):
        assert needle in raw, needle
    subjects = [m["subject"] for m in truth["messages"]]
    for prefix in ("RE: ", "Re: ", "FW: ", "Fw: ", "Fwd: "):
        assert any(s.startswith(prefix) for s in subjects), prefix
    replies = [
        _parse(corpus.root / m["paths"][0])
        for m in truth["messages"]
        if m["subject"].lower().startswith("re:")
    ]
    missing = sum(r["In-Reply-To"] is None for r in replies)
    assert 5 <= missing < len(replies) / 2


def test_broken_files_are_listed_for_quarantine(corpus, truth):
    assert len(truth["quarantine"]) >= 3
    sizes = []
    for rel in truth["quarantine"]:
        data = (corpus.root / rel).read_bytes()
        sizes.append(len(data))
        assert _parse(corpus.root / rel)["From"] is None
    assert 0 in sizes
    listed = {p for m in truth["messages"] for p in m["paths"]} | set(truth["quarantine"])
    on_disk = {str(p.relative_to(corpus.root)) for p in corpus.maildir.rglob("*") if p.is_file()}
    assert on_disk == listed


def test_default_corpus_is_reused_when_complete(corpus, tmp_path):
    target = tmp_path / "default"
    shutil.copytree(corpus.root, target)
    for p in corpus.root.rglob("*"):  # keep the copied mtimes identical
        if p.is_file():
            st = p.stat()
            (target / p.relative_to(corpus.root)).touch()
            import os

            os.utime(target / p.relative_to(corpus.root), (st.st_atime, st.st_mtime))
    stamp = (target / "truth.json").stat().st_mtime_ns
    assert default_mail_corpus(target).truth_path == target / "truth.json"
    assert (target / "truth.json").stat().st_mtime_ns == stamp  # not regenerated
    first = next((target / "spreadsheets").rglob("*.xlsx"))
    first.write_bytes(b"tampered")
    truth = json.loads((target / "truth.json").read_text())
    assert _existing(target, 7, truth["params"]) is None


def test_workbook_population(tmp_path):
    pop = generate_workbook_population(tmp_path / "a", 60, seed=3)
    again = generate_workbook_population(tmp_path / "b", 60, seed=3, workers=2)
    truth = pop.truth()
    assert len(pop.files) == 60
    assert sum(len(f["versions"]) for f in truth["families"]) == 60
    assert again.truth() == truth
    assert any(len(f["versions"]) >= 3 for f in truth["families"])
    for f in truth["families"]:
        for v in f["versions"]:
            data = (pop.root / v["path"]).read_bytes()
            assert hashlib.sha256(data).hexdigest() == v["sha256"]
            assert data == (again.root / v["path"]).read_bytes()
    wb = openpyxl.load_workbook(pop.files[0], data_only=True)
    rows = list(wb.worksheets[0].iter_rows(values_only=True))
    assert rows[-1][0] == "Total"
    assert rows[-1][4] == pytest.approx(sum(r[2] * r[3] for r in rows[1:-1]))
    from pipeline.ingest.workbooks import read_workbook  # the ingest path reads them too

    book = read_workbook(pop.files[0])
    cells = next(iter(book.sheets.values())).cells
    last = max(r for r, _ in cells)
    assert cells[(last, 5)].formula == f"=SUM(E2:E{last - 1})"
    assert cells[(last, 5)].value == pytest.approx(rows[-1][4])


def test_the_pipeline_diff_finds_every_seeded_edit_and_no_phantoms(corpus, truth, tmp_path):
    """pipeline.detect.diffs on consecutive .xlsx versions reports exactly the seeded edits
    plus the implied ones (grown ranges, moved references, recomputed values)."""
    from pipeline.detect.diffs import diff_workbooks
    from pipeline.ingest.workbooks import read_workbook

    by_step: dict[tuple[str, int], list[dict]] = {}
    for e in truth["edits"]:
        by_step.setdefault((e["family"], e["step"]), []).append(e)

    def path_of(v) -> Path:
        if v["path"]:
            return corpus.root / v["path"]
        p = tmp_path / f"{v['sha256']}.xlsx"
        p.write_bytes(_attachment_bytes(corpus, v))
        return p

    steps = 0
    for fam in truth["families"]:
        vs = fam["versions"]
        for k in range(1, len(vs)):
            if "xls" in (vs[k - 1]["format"], vs[k]["format"]):
                continue
            diff = diff_workbooks(read_workbook(path_of(vs[k - 1])), read_workbook(path_of(vs[k])))
            found = {
                (
                    r["kind"],
                    r["sheet"],
                    None
                    if r["kind"] == "sheet_added"
                    else r["after_address"] or r["before_address"],
                )
                for r in diff.frame().iter_rows(named=True)
            }
            edits = by_step.get((fam["family"], k), [])
            seeded = {(e["kind"], e["sheet"], e["address"]) for e in edits if not e["implied"]}
            implied = {(e["kind"], e["sheet"], e["address"]) for e in edits if e["implied"]}
            assert seeded <= found, (fam["family"], k, seeded - found)
            assert found <= seeded | implied, (fam["family"], k, found - seeded - implied)
            steps += 1
    assert steps >= 60


def test_thread_truth_agrees_with_the_headers(corpus, truth):
    """References never cross truth threads; same-subject decoys are months apart and
    between different people, so subject + participants + time window keeps them apart."""
    import datetime as dt

    thread_of = {m["message_id"]: m["thread"] for m in truth["messages"] if m["message_id"]}
    linked = 0
    for m in truth["messages"]:
        msg = _parse(corpus.root / m["paths"][0])
        refs = str(msg["References"] or "").split() + str(msg["In-Reply-To"] or "").split()
        for ref in refs:
            assert thread_of[ref.strip("<>")] == m["thread"], (m["key"], ref)
            linked += 1
    assert linked > 50
    decoys: dict[str, list[dict]] = {}
    for m in truth["messages"]:
        kind = next(t["kind"] for t in truth["threads"] if t["thread"] == m["thread"])
        if kind == "decoy":
            decoys.setdefault(m["subject"].split(": ")[-1], []).append(m)
    for msgs in decoys.values():
        threads = sorted({m["thread"] for m in msgs})
        assert len(threads) == 2
        first = [dt.datetime.fromisoformat(m["date"]) for m in msgs if m["thread"] == threads[0]]
        second = [dt.datetime.fromisoformat(m["date"]) for m in msgs if m["thread"] == threads[1]]
        assert abs(min(second) - min(first)) > dt.timedelta(days=60)
