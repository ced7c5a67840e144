"""PDF bytes built by hand for the malformed-input corpus (``pipeline.synth.malformed``).

Raw object bodies with exact xref offsets (``raw_pdf``), text pages, page trees, bombs,
huge and JPEG 2000 images, a lost incremental update and a broken xref: each builder
returns the bytes of one file; which defect it stands for is the corpus's business.
"""

from __future__ import annotations

import io
import re
import zlib

import pymupdf
from PIL import Image

from pipeline.synth.render import PAGE_H_PT, PAGE_W_PT
from pipeline.synth.scans import PDF_DATE

# The smallest valid PDF with an empty page tree; pymupdf refuses to save one.
ZERO_PAGE_PDF_OBJECTS = (
    b"<< /Type /Catalog /Pages 2 0 R >>",
    b"<< /Type /Pages /Kids [] /Count 0 >>",
)


def zero_page_pdf() -> bytes:
    """Bytes of a minimal, well-formed PDF whose page tree is empty (xref offsets exact)."""
    return raw_pdf(list(ZERO_PAGE_PDF_OBJECTS), header=b"%PDF-1.4\n")


_FONT = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"


def raw_pdf(
    objects: list[bytes],
    root: int = 1,
    trailer: bytes = b"",
    header: bytes = b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n",
) -> bytes:
    """A PDF from object bodies (object ``i`` is ``objects[i - 1]``), xref offsets exact."""
    out = bytearray(header)
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(offsets) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += b"trailer\n<< /Size %d /Root %d 0 R %s>>\nstartxref\n%d\n%%%%EOF\n" % (
        len(offsets) + 1,
        root,
        trailer,
        xref,
    )
    return bytes(out)


def pdf_stream(content: bytes, entries: bytes = b"") -> bytes:
    """An object body holding a stream (``entries`` go in its dictionary)."""
    return b"<< %s /Length %d >>\nstream\n%s\nendstream" % (entries, len(content), content)


def text_page_pdf(text: str, catalog: bytes = b"", page: bytes = b"", extra=()) -> bytes:
    """A one-page PDF that prints ``text`` (objects 1-5: catalog, pages, page, content,
    font); ``catalog``/``page`` add entries to those dictionaries, ``extra`` objects 6+."""
    content = b"BT /F1 12 Tf 72 720 Td (%s) Tj ET" % text.encode("latin-1")
    return raw_pdf(
        [
            b"<< /Type /Catalog /Pages 2 0 R %s>>" % catalog,
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
            b"/Resources << /Font << /F1 5 0 R >> >> %s>>" % page,
            pdf_stream(content),
            _FONT,
            *extra,
        ]
    )


def _deflate_zeros(n_bytes: int) -> bytes:
    """zlib of ``n_bytes`` blanks, compressed in 16 MiB steps (never held decompressed)."""
    comp = zlib.compressobj(9)
    step = b" " * (16 << 20)
    parts = []
    left = n_bytes
    while left > 0:
        parts.append(comp.compress(step[: min(left, len(step))]))
        left -= len(step)
    parts.append(comp.flush())
    return b"".join(parts)


def _tree_pdf(pages_nodes: list[bytes], page_parent: int, n_objects_before: int) -> bytes:
    """Catalog + the given /Pages nodes (objects 2..) + one page and its content."""
    page_no = n_objects_before + 1
    return raw_pdf(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            *pages_nodes,
            b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Contents %d 0 R >>"
            % (page_parent, page_no + 1),
            pdf_stream(b"BT ET"),
        ]
    )


def _pymupdf_bytes(build) -> bytes:
    doc = pymupdf.open()
    build(doc)
    doc.set_metadata({"creationDate": PDF_DATE, "modDate": PDF_DATE})
    data = doc.tobytes(garbage=3, deflate=True, no_new_id=True)
    doc.close()
    return data


def _text_doc(text: str):
    def build(doc: pymupdf.Document) -> None:
        page = doc.new_page(width=PAGE_W_PT, height=PAGE_H_PT)
        page.insert_text((72, 90), text, fontsize=11, fontname="helv")

    return build


def _lost_update(valid: bytes) -> bytes:
    """``valid`` plus an incremental update (a new Info object, its xref and trailer),
    cut in the middle of the update: the last %%EOF is the original one."""
    prev = int(valid[valid.rindex(b"startxref") + len(b"startxref") :].split()[0])
    size = int(re.search(rb"/Size (\d+)", valid)[1])
    obj_at = len(valid)
    body = b"%d 0 obj\n<< /Producer (a revision) /Title (Revised 1,235) >>\nendobj\n" % size
    xref_at = obj_at + len(body)
    update = body + (
        b"xref\n0 1\n0000000000 65535 f \n%d 1\n%010d 00000 n \n"
        b"trailer\n<< /Size %d /Root 1 0 R /Info %d 0 R /Prev %d >>\nstartxref\n%d\n%%%%EOF\n"
        % (size, obj_at, size + 1, size, prev, xref_at)
    )
    return valid + update[: len(update) // 2]


def _one_image_pdf(image: bytes) -> bytes:
    """A one-page PDF whose page draws the image XObject ``image`` full-page."""
    return raw_pdf(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
            b"/Resources << /XObject << /Im1 5 0 R >> >> >>",
            pdf_stream(b"q 612 0 0 792 0 0 cm /Im1 Do Q"),
            image,
        ]
    )


def _image_pdf(width: int, colorspace: bytes) -> bytes:
    return _one_image_pdf(
        pdf_stream(
            zlib.compress(bytes(4096), 9),
            b"/Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace %s "
            b"/BitsPerComponent 8 /Filter /FlateDecode" % (width, width, colorspace),
        )
    )


def _form_fanout_pdf(fanout: int, levels: int) -> bytes:
    """The page draws form 0; form i draws form i + 1 ``fanout`` times; the last draws a
    line (objects: catalog, pages, page, content, forms from 5)."""
    forms = []
    for level in range(levels):
        if level < levels - 1:
            body = b"/F%d Do " % (level + 1) * fanout
            res = b"/Resources << /XObject << /F%d %d 0 R >> >> " % (level + 1, 6 + level)
        else:
            body, res = b"0 0 m 1 1 l S", b""
        forms.append(pdf_stream(body, b"/Type /XObject /Subtype /Form /BBox [0 0 612 792] " + res))
    return raw_pdf(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
            b"/Resources << /XObject << /F0 5 0 R >> >> >>",
            pdf_stream(b"/F0 Do"),
            *forms,
        ]
    )


def _jpx_pdf(side: int) -> bytes:
    """A page drawing a 100 x 100 image (so its dictionary says) whose JPEG 2000 stream
    is a blank ``side`` x ``side`` picture (a few hundred bytes): readers decode JPEG
    2000 to the size its own header states."""
    buf = io.BytesIO()
    Image.new("L", (side, side), 255).save(
        buf, "JPEG2000", irreversible=False, tile_size=(4096, 4096)
    )
    data = buf.getvalue()
    return _one_image_pdf(
        pdf_stream(
            bytes(data),
            b"/Type /XObject /Subtype /Image /Width 100 /Height 100 "
            b"/ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /JPXDecode",
        )
    )


def _many_pages_pdf(n: int) -> bytes:
    kids = b" ".join(b"%d 0 R" % (4 + i) for i in range(n))
    pages = [b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 3 0 R >>"] * n
    return raw_pdf(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, n),
            pdf_stream(b"BT ET"),
            *pages,
        ]
    )


def _broken_xref(data: bytes) -> bytes:
    """Shift every xref offset by 3: readers must rebuild the table from the objects."""
    start = data.rindex(b"startxref")
    xref_at = int(data[start + len(b"startxref") :].split()[0])
    table = data[xref_at:start]
    shifted = re.sub(rb"(\d{10}) 00000 n", lambda m: b"%010d 00000 n" % (int(m[1]) + 3), table)
    return data[:xref_at] + shifted + data[start:]


def _blank_pdf() -> bytes:
    def build(doc: pymupdf.Document) -> None:
        for _ in range(3):
            page = doc.new_page(width=PAGE_W_PT, height=PAGE_H_PT)
            page.insert_text((72, 72), "x")  # gives the page a content stream to overwrite
            doc.update_stream(page.get_contents()[0], b"q 0 0 0 rg 100 700 50 10 re W n Q")

    return _pymupdf_bytes(build)
