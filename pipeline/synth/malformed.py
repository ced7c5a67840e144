"""Malformed PDFs that ingestion must quarantine (one file per failure mode).

Every file carries a ``.pdf`` name; the reason it must be quarantined is returned
alongside so ingestion tests can assert both that the file is quarantined and why.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pymupdf

from pipeline.synth.render import (
    MARGIN,
    PAGE_H_PT,
    PAGE_W_PT,
    SERIF,
    ScanQuality,
    blank_page,
    degrade,
    font,
    png_bytes,
)
from pipeline.synth.scans import PDF_DATE

USER_PASSWORD = "ledgerforge"
HUGE_PAGE_INCHES = 200  # 200 x 200 in: 60,000 x 60,000 px (3.6 gigapixels) at 300 dpi

# The smallest valid PDF with an empty page tree; pymupdf refuses to save one.
ZERO_PAGE_PDF_OBJECTS = (
    b"<< /Type /Catalog /Pages 2 0 R >>",
    b"<< /Type /Pages /Kids [] /Count 0 >>",
)


def write_malformed_pdfs(out_dir: Path) -> dict[str, str]:
    """Write one ``.pdf`` file per quarantine case; return file name -> reason.

    Cases: a zero-byte file, a truncated PDF (the first half of a real scanned
    page PDF), an encrypted PDF (opening it needs the user password
    ``USER_PASSWORD``), a PNG image named .pdf, a valid PDF with zero pages, and a
    PDF whose single page is 200 x 200 inches.
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    reasons: dict[str, str] = {}

    (out_dir / "empty.pdf").write_bytes(b"")
    reasons["empty.pdf"] = "zero-byte file"

    page_pdf, page_png = _scanned_page_pdf()
    half = len(page_pdf) // 2
    (out_dir / "truncated.pdf").write_bytes(page_pdf[:half])
    reasons["truncated.pdf"] = (
        f"truncated PDF: only the first {half} of {len(page_pdf)} bytes (no xref, no %%EOF)"
    )

    doc = pymupdf.open("pdf", page_pdf)
    doc.save(
        out_dir / "encrypted.pdf",
        encryption=pymupdf.PDF_ENCRYPT_AES_256,
        user_pw=USER_PASSWORD,
        owner_pw=USER_PASSWORD + "-owner",
        no_new_id=True,
    )
    doc.close()
    reasons["encrypted.pdf"] = "encrypted PDF: opening it needs a password"

    (out_dir / "not_a_pdf.pdf").write_bytes(page_png)
    reasons["not_a_pdf.pdf"] = "not a PDF: the bytes are a PNG image (no %PDF- header)"

    (out_dir / "zero_pages.pdf").write_bytes(zero_page_pdf())
    reasons["zero_pages.pdf"] = "PDF with zero pages"

    huge = pymupdf.open()
    side = HUGE_PAGE_INCHES * 72
    page = huge.new_page(width=side, height=side)
    page.insert_image(pymupdf.Rect(0, 0, side, side), stream=page_png)
    huge.set_metadata({"creationDate": PDF_DATE, "modDate": PDF_DATE})
    huge.save(out_dir / "huge_page.pdf", garbage=4, deflate=True, no_new_id=True)
    huge.close()
    reasons["huge_page.pdf"] = (
        f"absurdly large page: {HUGE_PAGE_INCHES} x {HUGE_PAGE_INCHES} in "
        f"({HUGE_PAGE_INCHES * 300} x {HUGE_PAGE_INCHES * 300} px at 300 dpi)"
    )
    return reasons


def zero_page_pdf() -> bytes:
    """Bytes of a minimal, well-formed PDF whose page tree is empty (xref offsets exact)."""
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(ZERO_PAGE_PDF_OBJECTS, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(offsets) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(offsets) + 1,
        xref,
    )
    return bytes(out)


def _scanned_page_pdf() -> tuple[bytes, bytes]:
    """A one-page scanned-looking PDF (and its page PNG) to cut, encrypt or mislabel."""
    img, draw = blank_page()
    f = font(SERIF, 10.5)
    for i in range(30):
        draw.text(
            (MARGIN, MARGIN + i * 60), f"Line {i + 1} ........ {1000 + 37 * i:,}", font=f, fill=0
        )
    quality = ScanQuality(dpi=120, blur_sigma=0.5, noise_sd=4.0, skew_deg=0.2)
    png = png_bytes(degrade(img, quality, np.random.default_rng(0)))
    doc = pymupdf.open()
    page = doc.new_page(width=PAGE_W_PT, height=PAGE_H_PT)
    page.insert_image(page.rect, stream=png)
    doc.set_metadata({"creationDate": PDF_DATE, "modDate": PDF_DATE})
    data = doc.tobytes(garbage=4, deflate=True, no_new_id=True)
    doc.close()
    return data, png
