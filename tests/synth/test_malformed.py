"""Each malformed PDF is broken in exactly the way its reason says."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from pipeline.synth import write_malformed_pdfs
from pipeline.synth.malformed import HUGE_PAGE_INCHES, USER_PASSWORD, zero_page_pdf


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
