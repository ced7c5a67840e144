"""Each malformed PDF is broken in exactly the way its reason says; the malformed-input
corpus holds at least 40 entries of at least 15 kinds, each what its case says."""

from __future__ import annotations

import os
import stat
from collections import Counter
from pathlib import Path

import pymupdf
import pytest

from pipeline.ingest.pdf_checks import jpx_size
from pipeline.synth import write_malformed_pdfs
from pipeline.synth.malformed import (
    HUGE_PAGE_INCHES,
    JPX_SIDE,
    OVERSIZED_BYTES,
    USER_PASSWORD,
    write_malformed_corpus,
    zero_page_pdf,
)


@pytest.fixture(scope="module")
def malformed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    out = tmp_path_factory.mktemp("malformed")
    return out, write_malformed_pdfs(out)


def test_every_case_is_written_with_a_reason(malformed) -> None:
    out, reasons = malformed
    assert set(reasons) == {
        "empty.pdf",
        "truncated.pdf",
        "encrypted.pdf",
        "not_a_pdf.pdf",
        "zero_pages.pdf",
        "huge_page.pdf",
    }
    assert sorted(p.name for p in out.iterdir()) == sorted(reasons)
    assert all(reason.strip() for reason in reasons.values())


def test_zero_byte_and_not_a_pdf(malformed) -> None:
    out, _ = malformed
    assert (out / "empty.pdf").stat().st_size == 0
    data = (out / "not_a_pdf.pdf").read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n") and not data.startswith(b"%PDF-")


def test_truncated_lost_its_tail(malformed) -> None:
    out, reasons = malformed
    data = (out / "truncated.pdf").read_bytes()
    assert data.startswith(b"%PDF-")
    assert b"%%EOF" not in data and b"startxref" not in data
    assert str(len(data)) in reasons["truncated.pdf"]


def test_encrypted_needs_the_password(malformed) -> None:
    out, _ = malformed
    doc = pymupdf.open(out / "encrypted.pdf")
    assert doc.needs_pass and doc.is_encrypted
    assert not doc.authenticate("wrong")
    assert doc.authenticate(USER_PASSWORD)
    assert doc.page_count == 1


def test_zero_pages_is_a_valid_pdf_without_pages(malformed) -> None:
    out, _ = malformed
    assert (out / "zero_pages.pdf").read_bytes() == zero_page_pdf()
    doc = pymupdf.open(out / "zero_pages.pdf")
    assert doc.page_count == 0
    assert not doc.is_repaired  # well-formed, not a broken file that happens to be empty


def test_huge_page_declares_an_absurd_size(malformed) -> None:
    out, _ = malformed
    doc = pymupdf.open(out / "huge_page.pdf")
    assert doc.page_count == 1
    rect = doc[0].rect
    assert rect.width / 72 == HUGE_PAGE_INCHES and rect.height / 72 == HUGE_PAGE_INCHES
    assert (rect.width / 72 * 300) * (rect.height / 72 * 300) > 60e6


# --- the malformed-input corpus ------------------------------------------------------


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory):
    out = tmp_path_factory.mktemp("malformed_corpus") / "bad"
    cases = write_malformed_corpus(out)
    yield out, cases
    (out / "locked").chmod(0o755)  # let pytest clean up


def test_the_corpus_has_at_least_40_entries_of_15_kinds(corpus) -> None:
    out, cases = corpus
    kinds = Counter(case.kind for case in cases)
    assert len(cases) >= 40 and len(kinds) >= 15, kinds
    assert {
        "pdf_bomb",
        "page_tree_cycle",
        "huge_image",
        "javascript",
        "embedded_files",
        "non_utf8_name",
        "symlink_loop",
        "dangling_symlink",
        "device_link",
        "fifo",
        "directory",
        "unreadable_folder",
        "padding",
        "duplicate",
        "truncated",
        "wrong_magic",
        "zero_bytes",
        "encrypted",
        "too_large",
    } <= set(kinds)
    assert len({case.path for case in cases}) == len(cases)
    assert sorted(os.listdir(out)) == sorted(case.path for case in cases)  # nothing else
    assert {case.expect for case in cases} == {"ingested", "quarantined"}
    assert all(case.why for case in cases)


def test_special_entries_are_what_they_claim(corpus) -> None:
    out, cases = corpus
    by_kind: dict[str, list[Path]] = {}
    for case in cases:
        by_kind.setdefault(case.kind, []).append(out / case.path)
    for path in by_kind["symlink_loop"]:
        with pytest.raises(OSError, match="Too many levels of symbolic links"):
            path.stat()
    assert all(p.is_symlink() and not p.exists() for p in by_kind["dangling_symlink"])
    assert all(stat.S_ISCHR(p.stat().st_mode) for p in by_kind["device_link"])
    assert all(stat.S_ISFIFO(p.lstat().st_mode) for p in by_kind["fifo"])
    assert all(stat.S_ISSOCK(p.lstat().st_mode) for p in by_kind["socket"])
    assert all(p.is_dir() for p in by_kind["directory"])
    (locked,) = by_kind["unreadable_folder"]
    assert stat.S_IMODE(locked.stat().st_mode) == 0
    names = [os.fsencode(p.name) for p in by_kind["non_utf8_name"]]
    assert all(not _is_utf8(name) for name in names) and len(names) == 2


def _is_utf8(raw: bytes) -> bool:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def test_hostile_files_are_small_and_their_payloads_large(corpus) -> None:
    out, cases = corpus
    files = {case.path: out / case.path for case in cases}
    # bombs: a few hundred KB (or a few KB) on disk, gigabytes decoded
    assert files["bomb_nested.pdf"].stat().st_size < 64 * 1024
    assert files["bomb_content.pdf"].stat().st_size < 1 << 20
    doc = pymupdf.open(files["bomb_content.pdf"])
    assert doc.xref_get_key(4, "Filter")[1] == "/FlateDecode"
    # the oversized file is sparse: its size is over the limit, its disk use is not
    oversized = files["oversized.pdf"].stat()
    assert oversized.st_size == OVERSIZED_BYTES and oversized.st_blocks * 512 < 1 << 20
    # huge images declare their size, they do not store it
    doc = pymupdf.open(files["huge_image_gray.pdf"])
    assert doc.xref_get_key(5, "Width")[1] == "100000"
    assert files["huge_image_gray.pdf"].stat().st_size < 4096
    doc = pymupdf.open(files["huge_image_jpx.pdf"])  # a JPEG 2000 stream larger than declared
    assert (
        doc.xref_get_key(5, "Width")[1] == "100"
        and doc.xref_get_key(5, "Filter")[1] == "/JPXDecode"
    )
    assert jpx_size(doc, 5) == (JPX_SIDE, JPX_SIDE)
    assert files["huge_image_jpx.pdf"].stat().st_size < 16 * 1024
    # padding really follows a complete PDF
    padded = files["padded_nul_1950_01.pdf"].read_bytes()
    cut = padded.rindex(b"%%EOF") + 6
    assert set(padded[cut:]) == {0} and pymupdf.open("pdf", padded[:cut]).page_count == 1
    # a cut incremental update: more after the last %%EOF than padding
    lost = files["lost_update.pdf"].read_bytes()
    assert b"0 obj" in lost[lost.rindex(b"%%EOF") :]
    # scripts and attachments are where a reader would run or extract them
    assert b"/JavaScript" in files["js_open_action.pdf"].read_bytes()
    assert pymupdf.open(files["embedded_file.pdf"]).embfile_count() == 1
    # duplicates are byte-identical
    assert files["copy_of_december.pdf"].read_bytes() == files["bulletin_1950_12.pdf"].read_bytes()


def test_the_valid_files_are_distinct_and_print_no_table(corpus) -> None:
    out, cases = corpus
    valid = [out / c.path for c in cases if c.expect == "ingested" and c.kind != "duplicate"]
    data = [p.read_bytes() for p in valid]
    assert len(set(data)) == len(data)  # none is a duplicate of another
    for path, pdf in zip(valid, data, strict=True):
        with pymupdf.open("pdf", pdf) as doc:  # MuPDF cannot open a name that is not UTF-8
            text = "".join(page.get_text() for page in doc)
        assert not any(ch.isdigit() for ch in text.replace("1,235", "")), (path.name, text)
