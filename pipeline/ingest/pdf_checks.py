"""Structural checks of a PDF before any page is rendered or its text read.

``inspect_pdf`` opens a file that passed the bounded survey (``discovery.survey_file``)
and refuses, with a reason, what would make a later stage fail, hang or run out of
memory, or what a scanned statement never holds:

- parse errors, encryption, zero pages, more pages than ``MAX_PAGES`` (declared or real);
- a page tree that is not a tree (a cycle, a node reached twice) or deeper than
  ``MAX_PAGE_TREE_DEPTH``;
- active content: JavaScript, Launch actions, embedded files, rich media;
- decompression bombs: a content stream (or font, form, ...) that decodes to more than
  ``MAX_STREAM_BYTES``, or more than ``MAX_DECODED_BYTES`` in all; streams are decoded
  through MuPDF in chunks and counted, never held whole;
- absurd pages (larger than ``MAX_PAGE_INCHES`` or ``MAX_RENDER_PIXELS`` at 300 DPI) and
  images over ``MAX_IMAGE_PIXELS``, from their dictionaries (and, for JPEG 2000, which
  is decoded to the size its own header states, from that header);
- form fan-out bombs: forms that draw forms that draw forms (a few hundred bytes that
  make a reader draw a billion paths): more than ``MAX_FORM_DRAWS`` form draws on a
  page, counted from the content streams' ``Do`` operators, or forms nested deeper than
  ``MAX_FORM_DEPTH``.

Only then is the text layer measured (which interprets the content streams).

``PdfInspector`` runs these checks in a child process with a memory limit and a time
limit per document, so a file that makes the reader hang (a fan-out of nested forms
that draws a path a billion times), exhaust memory or crash is quarantined with that
reason instead of stopping the stage.
"""

from __future__ import annotations

import multiprocessing
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import pymupdf

from pipeline.ingest.discovery import Rejected

MAX_PAGES = 5_000  # a bound volume runs to a few hundred pages
MAX_PAGE_TREE_DEPTH = 64  # a balanced tree of 5,000 pages is about 4 deep
MAX_PAGE_INCHES = 100.0  # a side longer than this is not a printed page
MAX_RENDER_PIXELS = 60_000_000  # page pixels at 300 DPI (letter at 300 DPI is 8.4 MP)
MAX_IMAGE_PIXELS = 150_000_000  # an embedded image (a 600 DPI letter scan is 34 MP)
MAX_STREAM_BYTES = 64 << 20  # one decoded content stream, font or form
MAX_DECODED_BYTES = 512 << 20  # every non-image stream of the document together
_SKIP_BYTES = 1 << 20
MAX_FORM_DRAWS = 200_000  # form XObjects a page draws, nested draws multiplied out
MAX_FORM_DEPTH = 64  # forms drawn inside forms
CHECK_TIMEOUT_S = 120.0  # per document; a 400-page born-digital volume takes ~10 s
CHECK_MEMORY_BYTES = 3 << 30  # address space of the checking process

_REF = re.compile(r"(\d+)\s+\d+\s+R")
_DO = re.compile(rb"/([^\s/\[\]()<>{}%]+)\s*Do(?![^\s/\[\]()<>{}%])")
# Keys and names of active or hidden content (as MuPDF prints objects: normalized names).
_ACTIVE = {
    "JavaScript": "JavaScript",
    "JS": "JavaScript",
    "Launch": "a Launch action (runs a program)",
    "EmbeddedFile": "embedded files",
    "EmbeddedFiles": "embedded files",
    "FileAttachment": "embedded files",
    "RichMedia": "rich media (Flash or video)",
}
_ACTIVE_NAME = re.compile(
    r"/(" + "|".join(sorted(_ACTIVE, key=len, reverse=True)) + r")(?![^\s/<>\[\]()])"
)


@dataclass(frozen=True)
class PdfCheck:
    n_pages: int
    has_text_layer: bool


def inspect_pdf(name: str, path: str | Path) -> PdfCheck:
    """Open ``path`` with MuPDF and run every check; raise ``Rejected`` naming ``name``."""
    try:
        doc = pymupdf.open(str(path), filetype="pdf")
    except Exception as exc:  # MuPDF raises several types for broken files
        why = _why(exc).replace(str(path), name)  # not the private copy's path
        raise Rejected(f"{name}: corrupt PDF ({why})", f"{type(exc).__name__}: {why}") from exc
    with doc:
        if doc.needs_pass:
            raise Rejected(f"{name}: encrypted PDF (needs a password)")
        check_page_tree(doc, name)
        try:
            n_pages = doc.page_count
        except Exception as exc:
            raise Rejected(f"{name}: corrupt page tree ({_why(exc)})", _detail(exc)) from exc
        if n_pages == 0:
            raise Rejected(f"{name}: PDF has zero pages")
        if n_pages > MAX_PAGES:
            raise Rejected(f"{name}: too many pages: {n_pages} (limit {MAX_PAGES})")
        check_objects(doc, name)
        for index in range(n_pages):
            try:
                page = doc[index]
                rect = page.rect
                images = page.get_images(full=True)
            except Exception as exc:
                raise Rejected(f"{name}: corrupt page {index + 1}", _detail(exc)) from exc
            check_page_size(name, index + 1, rect.width / 72, rect.height / 72, images)
            check_form_draws(doc, page, name, index + 1)
        try:
            has_text = any(text_layer_chars(page) for page in doc)
        except Exception as exc:
            raise Rejected(f"{name}: unreadable text layer ({_why(exc)})", _detail(exc)) from exc
    return PdfCheck(n_pages, has_text)


def text_layer_chars(page: pymupdf.Page) -> int:
    """Non-blank characters in the page's text layer."""
    return sum(1 for ch in page.get_text() if not ch.isspace())


def check_page_tree(doc: pymupdf.Document, name: str) -> None:
    """Walk the page tree from the catalog: no cycle, no node twice, bounded depth."""
    try:
        kind, value = doc.xref_get_key(doc.pdf_catalog(), "Pages")
    except Exception as exc:
        raise Rejected(f"{name}: corrupt catalog ({_why(exc)})", _detail(exc)) from exc
    if kind != "xref":
        return  # MuPDF found its pages some other way (repair); page loads are checked next
    root = int(value.split()[0])
    declared = _int_key(doc, root, "Count")
    if declared > MAX_PAGES:
        raise Rejected(
            f"{name}: too many pages: the page tree declares {declared} (limit {MAX_PAGES})"
        )
    parent: dict[int, int | None] = {root: None}
    stack = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_PAGE_TREE_DEPTH:
            raise Rejected(f"{name}: page tree too deep (over {MAX_PAGE_TREE_DEPTH} levels)")
        for kid in _kids(doc, node):
            if kid in parent:
                if _is_ancestor(parent, kid, node):
                    raise Rejected(f"{name}: page tree cycle (object {kid} is its own ancestor)")
                raise Rejected(f"{name}: page tree reaches object {kid} twice")
            if len(parent) > 2 * MAX_PAGES + 1:
                raise Rejected(f"{name}: page tree has too many nodes (over {2 * MAX_PAGES})")
            parent[kid] = node
            stack.append((kid, depth + 1))


def _kids(doc: pymupdf.Document, xref: int) -> list[int]:
    try:
        kind, value = doc.xref_get_key(xref, "Kids")
        if kind == "xref":  # /Kids 7 0 R: the array is an object of its own
            value = doc.xref_object(int(value.split()[0]), compressed=True)
        elif kind != "array":
            return []
    except Exception:
        return []  # a broken node: MuPDF's page loads decide
    return [int(n) for n in _REF.findall(value)]


def _is_ancestor(parent: dict[int, int | None], candidate: int, node: int) -> bool:
    at: int | None = node
    for _ in range(MAX_PAGE_TREE_DEPTH + 2):
        if at is None:
            return False
        if at == candidate:
            return True
        at = parent.get(at)
    return True


def check_objects(doc: pymupdf.Document, name: str) -> None:
    """Every object: no active content; images declare sane sizes; streams are no bombs."""
    pdf = pymupdf._as_pdf_document(doc)
    decoded_total = 0
    for xref in range(1, doc.xref_length()):
        try:
            text = doc.xref_object(xref, compressed=True)
        except Exception:
            continue  # a broken object: whatever uses it fails on its own page
        active = _ACTIVE_NAME.search(text)
        if active:
            what = _ACTIVE[active.group(1)]
            raise Rejected(
                f"{name}: active content: {what} (object {xref})",
                "scanned statements hold no scripts, actions or attachments",
            )
        try:
            is_stream = doc.xref_is_stream(xref)
            subtype = doc.xref_get_key(xref, "Subtype")[1]
        except Exception:
            continue
        if not is_stream:
            continue
        if subtype == "/Image":
            width, height = _int_key(doc, xref, "Width"), _int_key(doc, xref, "Height")
            if width * height > MAX_IMAGE_PIXELS:
                raise Rejected(
                    f"{name}: huge image: object {xref} declares {width}x{height} px "
                    f"(limit {MAX_IMAGE_PIXELS / 1e6:.0f} MP)"
                )
            # JPEG 2000 is decoded to the size its own header states, whatever the
            # dictionary declares; other filters stop at the declared size
            if "JPXDecode" in doc.xref_get_key(xref, "Filter")[1]:
                inner = jpx_size(doc, xref)
                if inner and inner[0] * inner[1] > MAX_IMAGE_PIXELS:
                    raise Rejected(
                        f"{name}: huge image: object {xref} holds a JPEG 2000 image of "
                        f"{inner[0]}x{inner[1]} px behind a declared {width}x{height} "
                        f"(limit {MAX_IMAGE_PIXELS / 1e6:.0f} MP)"
                    )
            continue
        size = decoded_size(pdf, xref, MAX_STREAM_BYTES + 1)
        if size > MAX_STREAM_BYTES:
            raise Rejected(
                f"{name}: decompression bomb: stream {xref} decodes to more than "
                f"{MAX_STREAM_BYTES >> 20} MiB",
                f"/Length {doc.xref_get_key(xref, 'Length')[1]}, "
                f"/Filter {doc.xref_get_key(xref, 'Filter')[1]}",
            )
        decoded_total += max(size, 0)
        if decoded_total > MAX_DECODED_BYTES:
            raise Rejected(
                f"{name}: decompression bomb: streams decode to more than "
                f"{MAX_DECODED_BYTES >> 20} MiB in all"
            )


def check_form_draws(doc: pymupdf.Document, page: pymupdf.Page, name: str, page_no: int) -> None:
    """Count the form XObjects a page draws, nested draws multiplied out (no drawing)."""
    try:
        listed = page.get_xobjects()
    except Exception:
        return
    if not listed:
        return
    resources: dict[int, dict[bytes, int]] = {}
    for xref, key, invoker, _ in listed:
        resources.setdefault(invoker, {})[key.encode("latin-1", "replace")] = xref
    memo: dict[int, int] = {}

    def content(owner: int) -> bytes:
        try:
            if owner == 0:
                return b"\n".join(doc.xref_stream(x) or b"" for x in page.get_contents())
            return doc.xref_stream(owner) or b""
        except Exception:
            return b""

    def draws(owner: int, path: tuple[int, ...]) -> int:
        """Forms drawn when ``owner`` (0: the page) runs; a form already running adds 0
        (readers refuse to recurse)."""
        if owner in memo:
            return memo[owner]
        if len(path) > MAX_FORM_DEPTH:
            raise Rejected(f"{name}: page {page_no} nests forms deeper than {MAX_FORM_DEPTH}")
        names = resources.get(owner) or resources.get(0, {})
        total = 0
        for match in _DO.finditer(content(owner)):
            target = names.get(match.group(1))
            if target is None or target in path:
                continue
            total += 1 + draws(target, (*path, target))
            if total > MAX_FORM_DRAWS:
                break
        memo[owner] = total
        return total

    count = draws(0, (0,))
    if count > MAX_FORM_DRAWS:
        raise Rejected(
            f"{name}: form fan-out bomb: page {page_no} draws more than {MAX_FORM_DRAWS:,} "
            "nested forms"
        )


def jpx_size(doc: pymupdf.Document, xref: int) -> tuple[int, int] | None:
    """(width, height) from a JPEG 2000 stream's SIZ marker (image area less its offset)."""
    try:
        head = doc.xref_stream_raw(xref)[:65536]
    except Exception:
        return None
    at = head.find(b"\xff\x4f\xff\x51")  # SOC then SIZ: Lsiz Rsiz Xsiz Ysiz XOsiz YOsiz
    if at < 0 or len(head) < at + 24:
        return None
    x, y, x0, y0 = (int.from_bytes(head[at + 8 + 4 * i : at + 12 + 4 * i], "big") for i in range(4))
    return max(x - x0, 0), max(y - y0, 0)


def decoded_size(pdf, xref: int, cap: int) -> int:
    """Bytes stream ``xref`` decodes to, counted up to ``cap`` in 1 MiB skips; -1 if broken."""
    mupdf = pymupdf.mupdf
    try:
        stream = mupdf.pdf_open_stream_number(pdf, xref)
        total = 0
        while total < cap:
            skipped = mupdf.fz_skip(stream, min(_SKIP_BYTES, cap - total))
            if skipped <= 0:
                break
            total += skipped
        return total
    except Exception:
        return -1  # a stream MuPDF cannot decode draws nothing; it is no bomb


def _int_key(doc: pymupdf.Document, xref: int, key: str) -> int:
    """An integer entry of an object's dictionary (through one indirection); 0 if none."""
    try:
        kind, value = doc.xref_get_key(xref, key)
        if kind == "xref":
            value = doc.xref_object(int(value.split()[0]), compressed=True)
        return abs(int(float(value)))
    except (ValueError, OverflowError, RuntimeError):
        return 0


def check_page_size(
    name: str, page_no: int, width_in: float, height_in: float, images: Iterable[tuple]
) -> None:
    """Reject absurd pages from their declared sizes (nothing is decoded or rendered)."""
    if not (0 < min(width_in, height_in) and max(width_in, height_in) <= MAX_PAGE_INCHES):
        raise Rejected(
            f"{name}: absurd page size on page {page_no}: {width_in:.0f}x{height_in:.0f} in"
        )
    # The render DPI is not known here; the default 300 is the contract's worst case.
    pixels = width_in * height_in * 300 * 300
    if pixels > MAX_RENDER_PIXELS:
        raise Rejected(
            f"{name}: page {page_no} too large to render: {pixels / 1e6:.0f} MP at 300 DPI "
            f"(limit {MAX_RENDER_PIXELS / 1e6:.0f} MP)"
        )
    for image in images:
        width, height = image[2], image[3]
        if width * height > MAX_IMAGE_PIXELS:
            raise Rejected(
                f"{name}: page {page_no} embeds an absurdly large image: {width}x{height} px "
                f"(limit {MAX_IMAGE_PIXELS / 1e6:.0f} MP)"
            )


def _why(exc: Exception) -> str:
    """A short, readable cause: MuPDF's own message where the binding hides it."""
    text = str(exc)
    if not text or "Swig Object" in text or "proxy of" in text:
        warnings = pymupdf.TOOLS.mupdf_warnings(reset=False).strip().splitlines()
        text = warnings[-1] if warnings else type(exc).__name__
    return text[:200]


def _detail(exc: Exception) -> str:
    return f"{type(exc).__name__}: {_why(exc)}"


class InspectorError(RuntimeError):
    """The checking process cannot be started: a fault of the stage, not of a document."""


class PdfInspector:
    """``inspect_pdf`` in a child process, reused across documents (use as a context
    manager). A check that runs past ``timeout_s``, or a reader that dies on a document
    twice (a crash, the ``memory_bytes`` limit), raises ``Rejected`` for that document
    only; the child is killed and a fresh one serves the next document. A child that
    cannot start at all raises ``InspectorError``: no document is blamed for that."""

    def __init__(
        self, timeout_s: float | None = None, memory_bytes: int = CHECK_MEMORY_BYTES
    ) -> None:
        self.timeout_s = CHECK_TIMEOUT_S if timeout_s is None else timeout_s
        self.memory_bytes = memory_bytes
        self._proc = None
        self._conn = None

    def __enter__(self) -> PdfInspector:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def inspect(self, name: str, path: str | Path) -> PdfCheck:
        for attempt in (1, 2):
            conn = self._connection()
            try:
                conn.send((name, str(path)))
                done = conn.poll(self.timeout_s)
            except OSError:
                done = True  # the child is gone: recv below says how
            if not done:
                self._kill()
                raise Rejected(
                    f"{name}: reading it did not finish in {self.timeout_s:.0f} s "
                    "(a PDF this slow to read is hostile or broken)"
                )
            try:
                status, *payload = conn.recv()
            except (EOFError, OSError) as exc:
                code = self._kill()
                if attempt == 2:  # twice on the same file: the file kills the reader
                    raise Rejected(
                        f"{name}: the PDF reader died reading it (exit status {code})",
                        repr(exc),
                    ) from exc
                continue
            if status == "ok":
                return PdfCheck(*payload)
            raise Rejected(*payload)
        raise AssertionError("unreachable")

    def close(self) -> None:
        if self._conn is not None:
            try:
                self._conn.send(None)
            except OSError:
                pass
        self._kill()

    def _connection(self):
        if self._proc is not None and self._proc.is_alive():
            return self._conn
        self._kill()
        ctx = multiprocessing.get_context("spawn")
        parent, child = ctx.Pipe()
        proc = ctx.Process(
            target=_serve, args=(child, self.memory_bytes), daemon=True, name="pdf-checks"
        )
        try:
            proc.start()
        except Exception as exc:
            raise InspectorError(f"cannot start the PDF checking process: {exc}") from exc
        child.close()
        self._proc, self._conn = proc, parent
        try:
            ready = parent.poll(120) and parent.recv() == "ready"
        except (EOFError, OSError):
            ready = False
        if not ready:
            code = self._kill()
            raise InspectorError(f"the PDF checking process did not start (exit status {code})")
        return parent

    def _kill(self) -> int | None:
        proc, self._proc = self._proc, None
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()
        if proc is None:
            return None
        proc.join(timeout=2)
        if proc.is_alive():
            proc.kill()
            proc.join()
        return proc.exitcode


def _serve(conn, memory_bytes: int) -> None:
    """The child: check each (name, path) received until None or the pipe closes."""
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    except (ImportError, ValueError, OSError):
        pass
    conn.send("ready")
    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):
            return
        if job is None:
            return
        name, path = job
        try:
            check = inspect_pdf(name, path)
            reply = ("ok", check.n_pages, check.has_text_layer)
        except Rejected as rej:
            reply = ("rejected", rej.reason, rej.detail)
        except MemoryError:
            reply = ("rejected", f"{name}: reading it needs more than {memory_bytes >> 20} MiB", "")
        except Exception as exc:  # a check's own failure is this document's, not the stage's
            reply = ("rejected", f"{name}: checks failed ({type(exc).__name__})", repr(exc)[:500])
        conn.send(reply)
