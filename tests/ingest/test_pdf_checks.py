"""The structural checks run in a child process: a document that makes the reader hang
or run out of memory is that document's rejection, and the next document is checked by
a fresh reader; bombs that cost a few KB on disk are found without drawing them."""

from __future__ import annotations

import time

import pytest

from pipeline.ingest.discovery import Rejected
from pipeline.ingest.pdf_checks import MAX_FORM_DRAWS, PdfInspector, inspect_pdf
from pipeline.synth.pdf_bytes import _form_fanout_pdf, text_page_pdf


def test_a_check_past_its_time_limit_rejects_that_document_only(tmp_path):
    good = tmp_path / "good.pdf"
    good.write_bytes(text_page_pdf("Receipts"))
    with PdfInspector(timeout_s=0.0) as inspector:  # nothing finishes in no time
        with pytest.raises(Rejected, match=r"^slow\.pdf: reading it did not finish in 0 s"):
            inspector.inspect("slow.pdf", good)
        inspector.timeout_s = 60.0
        check = inspector.inspect("good.pdf", good)  # a fresh reader serves the next one
    assert (check.n_pages, check.has_text_layer) == (1, True)


def test_a_reader_short_of_memory_rejects_the_document(tmp_path):
    good = tmp_path / "good.pdf"
    good.write_bytes(text_page_pdf("Receipts"))
    with PdfInspector(timeout_s=60.0, memory_bytes=300 << 20) as inspector:
        with pytest.raises(Rejected, match=r"^good\.pdf: "):
            inspector.inspect("good.pdf", good)


def test_a_form_fanout_bomb_is_found_without_drawing_it(tmp_path):
    bomb = tmp_path / "fanout.pdf"
    bomb.write_bytes(_form_fanout_pdf(50, 6))  # 50**6 = 15.6 billion draws
    harmless = tmp_path / "harmless.pdf"
    harmless.write_bytes(_form_fanout_pdf(10, 3))  # 1 + 10 + 100 draws: forms reused
    start = time.monotonic()
    with pytest.raises(Rejected, match="form fan-out bomb: page 1 draws more than"):
        inspect_pdf("fanout.pdf", bomb)
    assert time.monotonic() - start < 10
    assert inspect_pdf("harmless.pdf", harmless).n_pages == 1
    assert 111 < MAX_FORM_DRAWS < 50**6
