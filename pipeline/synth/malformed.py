"""Malformed inputs that ingestion must quarantine (or, where valid, ingest).

``write_malformed_pdfs``: one small file per basic failure mode, file name -> reason.
``write_malformed_corpus``: the malformed-input corpus (61 entries of 28 kinds: bombs,
page-tree cycles, huge images, scripts, attachments, special files, names that are not
UTF-8, ...), each case with its kind and the expected outcome, to build next to a good
corpus.
"""

from __future__ import annotations

import os
import socket
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pymupdf

from pipeline.synth.pdf_bytes import (
    _blank_pdf,
    _broken_xref,
    _deflate_zeros,
    _form_fanout_pdf,
    _image_pdf,
    _jpx_pdf,
    _lost_update,
    _many_pages_pdf,
    _pymupdf_bytes,
    _text_doc,
    _tree_pdf,
    pdf_stream,
    raw_pdf,
    text_page_pdf,
    zero_page_pdf,
)
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


# --- the malformed-input corpus ------------------------------------------------------
#
# ``write_malformed_corpus`` writes one folder of hostile and broken inputs, every entry
# named ``*.pdf`` (or a folder that cannot be listed), each with its kind, what the
# documents stage must do with it and why. Built next to a good corpus, it must cost no
# crash and leave the good corpus's tasks as they were.

OVERSIZED_BYTES = (1 << 30) + 1  # one byte over the documents stage's default size limit
BOMB_BYTES = 128 << 20  # what a decompression bomb's content stream decodes to
NESTED_BOMB_BYTES = 1 << 30  # the twice-deflated bomb (compressed in steps, never held)
DEEP_TREE_LEVELS = 300  # page-tree levels of the over-deep tree
MANY_PAGES = 6_000  # pages of the file that declares too many
JPX_SIDE = 13_000  # the JPEG 2000 image's own size: 169 MP, over the 150 MP limit
FORM_FANOUT, FORM_LEVELS = 50, 6  # the form fan-out bomb: 50**6 nested draws


@dataclass(frozen=True)
class MalformedCase:
    """One entry of the malformed corpus.

    ``path`` is relative to the corpus folder, as the OS names it (a name that is not
    UTF-8 carries surrogate escapes); ``kind`` the class of defect; ``expect`` what the
    documents stage must do (``ingested`` or ``quarantined``; ``pages`` says what the
    pages stage must then do, when it is not ``ingested``); ``why`` how it was made.
    """

    path: str
    kind: str
    expect: str
    why: str
    pages: str = "ingested"


def write_malformed_corpus(
    out_dir: Path, oversized_bytes: int = OVERSIZED_BYTES
) -> list[MalformedCase]:
    """Write the malformed corpus into ``out_dir``; return its cases (one per entry).

    61 entries of 28 kinds: zero bytes, wrong magic, truncation, padding after
    ``%%EOF`` (valid: ingested), encryption, zero pages, absurd pages, huge images (one
    hidden in JPEG 2000), decompression bombs, a form fan-out bomb, a page-count bomb,
    too many pages, page-tree cycles and over-deep trees, JavaScript and Launch actions,
    embedded files, a garbage body, repairable files (ingested), a file that renders
    blank, names that are not UTF-8, symlink loops, dangling links, links to devices, a
    FIFO, a socket, folders named .pdf, a folder that cannot be listed, duplicates under
    a worse name and a file over the size limit (sparse: it takes no disk). The valid
    files print one line of prose and no table, so they add no task to a build.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    cases: list[MalformedCase] = []

    def put(name: str, data: bytes, kind: str, expect: str, why: str, **kw) -> Path:
        path = out / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        cases.append(MalformedCase(name, kind, expect, why, **kw))
        return path

    def text(tag: str) -> bytes:
        return _pymupdf_bytes(_text_doc(f"LedgerForge malformed corpus: {tag}"))

    q, ok = "quarantined", "ingested"
    page_pdf, page_png = _scanned_page_pdf()
    valid = text_page_pdf("LedgerForge malformed corpus: a valid file")

    # zero bytes and wrong magic
    put("empty.pdf", b"", "zero_bytes", q, "zero-byte file")
    put("EMPTY_UPPER_CASE.PDF", b"", "zero_bytes", q, "zero-byte file, upper-case suffix")
    put("png_image.pdf", page_png, "wrong_magic", q, "a PNG image named .pdf")
    put("spreadsheet.pdf", b"PK\x03\x04" + bytes(60), "wrong_magic", q, "a ZIP (xlsx) header")
    put(
        "web_page.pdf",
        b"<!DOCTYPE html><html><body>404</body></html>\n",
        "wrong_magic",
        q,
        "an HTML error page saved as .pdf",
    )
    put(
        "late_header.pdf",
        b"\0" * 2048 + valid,
        "wrong_magic",
        q,
        "a valid PDF behind 2 KiB of NULs: no %PDF- in the first 1024 bytes",
    )
    put("plain_text.pdf", b"Treasury Bulletin, March 1950\n" * 40, "wrong_magic", q, "text")

    # truncation
    half = len(page_pdf) // 2
    put("truncated_half.pdf", page_pdf[:half], "truncated", q, "first half of a scan PDF")
    put("header_only.pdf", b"%PDF-1.7\n", "truncated", q, "nothing after the header")
    put("cut_before_eof.pdf", valid[:-7], "truncated", q, "the last 7 bytes (%%EOF) cut")
    put(
        "lost_update.pdf",
        _lost_update(valid),
        "truncated",
        q,
        "an incremental update cut short after the first %%EOF",
    )

    # padding after %%EOF: valid, ingested as found
    put(
        "padded_nul_1950_01.pdf",
        text("padded with NULs") + b"\0" * 65536,
        "padding",
        ok,
        "64 KiB of NULs after %%EOF",
    )
    put(
        "padded_blanks_1950_02.pdf",
        text("padded with blanks") + b" \r\n" * 4096,
        "padding",
        ok,
        "12 KiB of blanks and line ends after %%EOF",
    )
    junk = bytes((i * 37) % 7 + 0xF8 for i in range(20000))  # bytes 0xF8-0xFE: no syntax
    put(
        "padded_junk_1950_03.pdf",
        text("padded with junk") + junk,
        "padding",
        ok,
        "20 KB of high bytes after %%EOF",
    )

    # encryption
    for name, method in (
        ("encrypted_aes256.pdf", pymupdf.PDF_ENCRYPT_AES_256),
        ("encrypted_rc4.pdf", pymupdf.PDF_ENCRYPT_RC4_128),
    ):
        doc = pymupdf.open("pdf", page_pdf)
        data = doc.tobytes(
            encryption=method, user_pw=USER_PASSWORD, owner_pw=USER_PASSWORD + "-owner"
        )
        doc.close()
        put(name, data, "encrypted", q, f"user password {USER_PASSWORD!r}")

    # empty page trees
    put("zero_pages.pdf", zero_page_pdf(), "zero_pages", q, "/Kids [] /Count 0")
    put(
        "no_kids.pdf",
        raw_pdf([b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Count 0 >>"]),
        "zero_pages",
        q,
        "no /Kids",
    )

    # absurd pages and images
    side = HUGE_PAGE_INCHES * 72
    put(
        "huge_page.pdf",
        _pymupdf_bytes(lambda d: d.new_page(width=side, height=side)),
        "huge_page",
        q,
        f"{HUGE_PAGE_INCHES} x {HUGE_PAGE_INCHES} in page",
    )
    put(
        "billion_point_page.pdf",
        text_page_pdf("x").replace(b"[0 0 612 792]", b"[0 0 1000000000 1000000000]"),
        "huge_page",
        q,
        "a MediaBox of 10^9 points a side",
    )
    for name, width, color in (
        ("huge_image_gray.pdf", 100_000, b"/DeviceGray"),
        ("huge_image_rgb.pdf", 40_000, b"/DeviceRGB"),
    ):
        put(
            name,
            _image_pdf(width, color),
            "huge_image",
            q,
            f"an image declaring {width} x {width} px, a few KB compressed",
        )

    put(
        "huge_image_jpx.pdf",
        _jpx_pdf(JPX_SIDE),
        "huge_image",
        q,
        f"a JPEG 2000 image whose own header states {JPX_SIDE} x {JPX_SIDE} px behind a "
        "declared 100 x 100",
    )

    # decompression and page-count bombs
    bomb = _deflate_zeros(BOMB_BYTES)
    put(
        "bomb_content.pdf",
        raw_pdf(
            [
                b"<< /Type /Catalog /Pages 2 0 R >>",
                b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
                b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>",
                pdf_stream(bomb, b"/Filter /FlateDecode"),
            ]
        ),
        "pdf_bomb",
        q,
        f"a content stream of {BOMB_BYTES >> 20} MiB in {len(bomb) >> 10} KiB",
    )
    nested = zlib.compress(_deflate_zeros(NESTED_BOMB_BYTES), 9)
    put(
        "bomb_nested.pdf",
        raw_pdf(
            [
                b"<< /Type /Catalog /Pages 2 0 R >>",
                b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
                b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>",
                pdf_stream(nested, b"/Filter [/FlateDecode /FlateDecode]"),
            ]
        ),
        "pdf_bomb",
        q,
        f"a twice-deflated content stream of {NESTED_BOMB_BYTES >> 30} GiB in {len(nested)} bytes",
    )
    put(
        "bomb_form.pdf",
        raw_pdf(
            [
                b"<< /Type /Catalog /Pages 2 0 R >>",
                b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
                b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
                b"/Resources << /XObject << /Fm1 5 0 R >> >> >>",
                pdf_stream(b"q /Fm1 Do Q"),
                pdf_stream(
                    bomb, b"/Type /XObject /Subtype /Form /BBox [0 0 612 792] /Filter /FlateDecode"
                ),
            ]
        ),
        "pdf_bomb",
        q,
        f"a form XObject that decodes to {BOMB_BYTES >> 20} MiB",
    )
    put(
        "form_fanout.pdf",
        _form_fanout_pdf(FORM_FANOUT, FORM_LEVELS),
        "form_bomb",
        q,
        f"{FORM_LEVELS} levels of forms each drawing the next {FORM_FANOUT} times: "
        f"{FORM_FANOUT**FORM_LEVELS:,} draws from a few KB",
    )
    put(
        "count_bomb.pdf",
        text_page_pdf("x").replace(b"/Count 1", b"/Count 2000000000"),
        "too_many_pages",
        q,
        "one page declaring /Count 2000000000",
    )
    put(
        "many_pages.pdf",
        _many_pages_pdf(MANY_PAGES),
        "too_many_pages",
        q,
        f"{MANY_PAGES} empty pages",
    )

    # page trees that are not trees
    put(
        "tree_cycle_self.pdf",
        _tree_pdf([b"<< /Type /Pages /Kids [2 0 R 3 0 R] /Count 2 >>"], 2, 2),
        "page_tree_cycle",
        q,
        "the root /Pages lists itself as a kid",
    )
    put(
        "tree_cycle_pair.pdf",
        _tree_pdf(
            [
                b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
                b"<< /Type /Pages /Parent 2 0 R /Kids [2 0 R 4 0 R] /Count 1 >>",
            ],
            3,
            3,
        ),
        "page_tree_cycle",
        q,
        "two /Pages nodes that are each other's kid",
    )
    chain = [
        b"<< /Type /Pages %s/Kids [%d 0 R] /Count 1 >>"
        % (b"/Parent %d 0 R " % (n - 1) if n > 2 else b"", n + 1)
        for n in range(2, 2 + DEEP_TREE_LEVELS)
    ]
    put(
        "tree_too_deep.pdf",
        _tree_pdf(chain, 1 + DEEP_TREE_LEVELS, 1 + DEEP_TREE_LEVELS),
        "page_tree_cycle",
        q,
        f"a chain of {DEEP_TREE_LEVELS} /Pages nodes",
    )
    put(
        "tree_shared_page.pdf",
        text_page_pdf("x").replace(b"/Kids [3 0 R] /Count 1", b"/Kids [3 0 R 3 0 R] /Count 2"),
        "page_tree_cycle",
        q,
        "one page object listed twice",
    )

    # active content
    js = b"<< /S /JavaScript /JS (app.alert\\('hello'\\)) >>"
    put(
        "js_open_action.pdf",
        text_page_pdf("js", catalog=b"/OpenAction 6 0 R ", extra=[js]),
        "javascript",
        q,
        "JavaScript run on open",
    )
    put(
        "js_names_tree.pdf",
        text_page_pdf(
            "js", catalog=b"/Names << /JavaScript << /Names [(init) 6 0 R] >> >> ", extra=[js]
        ),
        "javascript",
        q,
        "document-level JavaScript in the names tree",
    )
    put(
        "js_link.pdf",
        text_page_pdf(
            "js",
            page=b"/Annots [6 0 R] ",
            extra=[b"<< /Type /Annot /Subtype /Link /Rect [72 700 300 730] /A 7 0 R >>", js],
        ),
        "javascript",
        q,
        "a link annotation whose action is JavaScript",
    )
    put(
        "launch_action.pdf",
        text_page_pdf("launch", catalog=b"/OpenAction << /S /Launch /F (calc.exe) >> "),
        "javascript",
        q,
        "a Launch action that runs a program on open",
    )

    def attach(doc: pymupdf.Document) -> None:
        _text_doc("attachment")(doc)
        doc.embfile_add("payload.txt", b"not a statement\n", filename="payload.txt")

    def annotate(doc: pymupdf.Document) -> None:
        _text_doc("file annotation")(doc)
        doc[0].add_file_annot((72, 200), b"hidden payload\n", "payload.bin")

    put("embedded_file.pdf", _pymupdf_bytes(attach), "embedded_files", q, "an attached file")
    put(
        "file_annotation.pdf",
        _pymupdf_bytes(annotate),
        "embedded_files",
        q,
        "a file attachment annotation",
    )

    # broken bodies
    put(
        "garbage_body.pdf",
        b"%PDF-1.4\n" + bytes((i * 131) % 251 for i in range(6000)) + b"\n%%EOF\n",
        "corrupt",
        q,
        "a header, 6,000 bytes of noise and %%EOF",
    )
    put(
        "repairable_xref_1950_08.pdf",
        _broken_xref(text("repairable xref")),
        "repairable",
        ok,
        "every xref offset wrong by 3 bytes: MuPDF rebuilds it",
    )
    put(
        "empty_mediabox_1950_07.pdf",
        text_page_pdf("an empty MediaBox").replace(b"[0 0 612 792]", b"[0 0 0 0]"),
        "repairable",
        ok,
        "MediaBox [0 0 0 0]: readers fall back to US Letter",
    )
    put(
        "blank_render_1950_09.pdf",
        _blank_pdf(),
        "blank_render",
        ok,
        "three pages whose content only sets a clipping path",
        pages=q,
    )

    # names and entries that are not plain files
    put(
        os.fsdecode(b"bulletin_\xff_1950_10.pdf"),
        text("a name that is not valid Unicode"),
        "non_utf8_name",
        ok,
        "byte 0xFF in the name",
    )
    put(
        os.fsdecode(b"r\xe9sum\xe9_1950.pdf"),
        b"",
        "non_utf8_name",
        q,
        "a Latin-1 name (0xE9), zero bytes",
    )
    put("line\nbreak.pdf", b"", "odd_name", q, "a newline in the name, zero bytes")
    put("x" * 240 + ".pdf", b"GIF89a" + bytes(100), "odd_name", q, "a 244-byte name, a GIF")

    def special(name: str, kind: str, why: str, make) -> None:
        make(out / name)
        cases.append(MalformedCase(name, kind, q, why))

    special("loop_self.pdf", "symlink_loop", "a link to itself", lambda p: p.symlink_to(p.name))
    special(
        "loop_a.pdf",
        "symlink_loop",
        "a link to loop_b.pdf, which links back",
        lambda p: p.symlink_to("loop_b.pdf"),
    )
    special(
        "loop_b.pdf", "symlink_loop", "a link to loop_a.pdf", lambda p: p.symlink_to("loop_a.pdf")
    )
    special(
        "dangling.pdf",
        "dangling_symlink",
        "a link to a missing volume",
        lambda p: p.symlink_to("treasury_bulletin_1899_01.pdf"),
    )
    special(
        "dev_null.pdf", "device_link", "a link to /dev/null", lambda p: p.symlink_to("/dev/null")
    )
    special(
        "dev_zero.pdf",
        "device_link",
        "a link to /dev/zero (endless)",
        lambda p: p.symlink_to("/dev/zero"),
    )
    special("pipe.pdf", "fifo", "a named pipe nobody writes to", os.mkfifo)
    special("socket.pdf", "socket", "a Unix socket", _bind_socket)
    special("folder.pdf", "directory", "a folder named .pdf", lambda p: p.mkdir())
    special(
        "folder_link.pdf", "directory", "a link to a folder", lambda p: p.symlink_to("folder.pdf")
    )
    locked = out / "locked"
    locked.mkdir()
    (locked / "hidden_1950_11.pdf").write_bytes(text("behind a locked folder"))
    locked.chmod(0)
    cases.append(
        MalformedCase(
            "locked", "unreadable_folder", q, "a folder with mode 000 (root still reads it)"
        )
    )

    # duplicates: the dated name must win over an alphabetically earlier copy
    same = text("a volume and its copy")
    put("copy_of_december.pdf", same, "duplicate", q, "the same bytes as bulletin_1950_12.pdf")
    put("bulletin_1950_12.pdf", same, "duplicate", ok, "the dated name of the duplicates")

    # over the size limit, sparse: costs no disk and must cost no read
    with open(out / "oversized.pdf", "wb") as fh:
        fh.write(valid)
        fh.truncate(oversized_bytes)
    cases.append(
        MalformedCase(
            "oversized.pdf",
            "too_large",
            q,
            f"a valid PDF padded (sparse) to {oversized_bytes} bytes",
        )
    )
    return cases


def _bind_socket(path: Path) -> None:
    """A Unix socket file at ``path`` (bound from its folder: socket paths are short)."""
    sock = socket.socket(socket.AF_UNIX)
    here = os.getcwd()
    try:
        os.chdir(path.parent)
        sock.bind(path.name)
    finally:
        os.chdir(here)
        sock.close()
