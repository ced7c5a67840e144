"""Erase dot leaders ("1940 ........ -2.3") from a page image before OCR.

Bulletins printed before the 1990s lead every stub label to its figures with a row of
dots. Tesseract reads such a line as one word and turns label and dots together into
noise: on a real 1948 page (1948-05 p17, Table 8) the stub "1942 ........" came back as
``TGM2>000008 00000 000d`` and every year and month row lost its label, so none of the
page's 34 row periods could be read. With the dots erased the same page reads every
stub ("1940" ... "1947", "1947-July", "August", ...) and the figures are unchanged.

A leader is recognised by its shape, not by position on the page:

- a *dot* is a connected ink blob at most half the page's text height tall and about
  one text height wide at most (two touching dots of a blurred scan are one blob); a
  flat blob up to six text heights wide is a run of dots printed touching;
- a *leader* is a chain of at least ``MIN_RUN`` such blobs on one baseline (centres
  within ``BASELINE_PX`` of the next one's vertically), each starting within 1.2 text
  heights of the end of the one before, at least half of them single dots.

A decimal point, a period after an abbreviation or a footnote asterisk is a lone dot
(no chain), so figures and labels keep theirs; a minus sign sits at mid height, never on
the dots' baseline. The erased blobs are painted in the paper's grey (the page's median
level) with a ``PAD_PX`` margin; word boxes stay in page pixels because the image keeps
its size.

``LEADERS_VERSION`` is part of the OCR cache key: bump it whenever the output pixels of
``erase_leaders`` change for the same input.
"""

from __future__ import annotations

import io
from collections.abc import Callable

import numpy as np
from PIL import Image
from scipy import ndimage

LEADERS_VERSION = 3

INK_LEVEL = 225  # grey level below which a pixel is ink (dots of old scans are faint)
MIN_RUN = 4  # dots in a chain before it is a leader
BASELINE_PX = 3.0  # dot centres of one leader lie within this many pixels vertically
STEP_HEIGHTS = 1.2  # largest gap between neighbouring dots, in text heights
DOT_HEIGHTS = 0.5  # a dot is at most this tall, in text heights (4-8 px at 300 dpi)
DOT_WIDTHS = 1.1  # ... and at most this wide (two blurred dots touching)
RUN_WIDTHS = 6.0  # a flat blob up to this wide is dots printed touching ("....")
PAD_PX = 2  # white margin painted around an erased dot
MIN_TEXT_PX = 10  # blobs taller than this are text when measuring the text height
DEFAULT_TEXT_PX = 24.0  # text height when a page has no text-sized blobs


def text_height(heights: np.ndarray) -> float:
    """The page's typical text height in pixels: the median of text-sized blob heights."""
    tall = heights[heights > MIN_TEXT_PX]
    return float(np.median(tall)) if tall.size else DEFAULT_TEXT_PX


def leader_mask(gray: np.ndarray) -> tuple[list[tuple[slice, slice]], float]:
    """The boxes (row, column slices) of every leader dot in a grey image, and the
    text height they were measured against."""
    labels, _ = ndimage.label(gray < INK_LEVEL)
    boxes = ndimage.find_objects(labels)
    if not boxes:
        return [], DEFAULT_TEXT_PX
    heights = np.array([b[0].stop - b[0].start for b in boxes])
    widths = np.array([b[1].stop - b[1].start for b in boxes])
    th = text_height(heights)
    # flat blobs: dots, and runs of dots a blurred scan printed touching ("....")
    flat = np.nonzero(
        (heights <= DOT_HEIGHTS * th) & (widths <= RUN_WIDTHS * th) & (heights >= 2) & (widths >= 2)
    )[0]
    if flat.size < MIN_RUN:
        return [], th
    cy = np.array([(boxes[i][0].start + boxes[i][0].stop) / 2 for i in flat])
    x0 = np.array([boxes[i][1].start for i in flat])
    x1 = np.array([boxes[i][1].stop for i in flat])
    dot = widths[flat] <= DOT_WIDTHS * th
    step = STEP_HEIGHTS * th
    keep: list[int] = []
    # baselines: blobs sorted by height on the page, split where centres jump
    order = np.argsort(cy, kind="stable")
    cuts = np.nonzero(np.diff(cy[order]) > BASELINE_PX)[0] + 1
    for band in np.split(order, cuts):
        band = band[np.argsort(x0[band], kind="stable")]
        chain = [band[0]]
        for k in band[1:]:
            if x0[k] - x1[chain[-1]] <= step:
                chain.append(k)
                continue
            keep.extend(_leader(chain, dot))
            chain = [k]
        keep.extend(_leader(chain, dot))
    return [boxes[flat[k]] for k in keep], th


def _leader(chain: list[int], dot: np.ndarray) -> list[int]:
    """The chain's blobs if it is a leader: MIN_RUN blobs or more, mostly single dots."""
    if len(chain) >= MIN_RUN and 2 * int(dot[chain].sum()) >= len(chain):
        return chain
    return []


def erase_leaders_array(gray: np.ndarray) -> tuple[np.ndarray, int]:
    """A copy of ``gray`` with every leader dot painted over in the paper's grey;
    (image, dots erased)."""
    boxes, _ = leader_mask(gray)
    out = gray.copy()
    h, w = out.shape
    paper = int(np.median(gray))  # paint in the page's own grey, not a white patch
    for rows, cols in boxes:
        out[
            max(0, rows.start - PAD_PX) : min(h, rows.stop + PAD_PX),
            max(0, cols.start - PAD_PX) : min(w, cols.stop + PAD_PX),
        ] = paper
    return out, len(boxes)


def erase_on_png(
    png: bytes, erase_array: Callable[[np.ndarray], tuple[np.ndarray, int]]
) -> tuple[bytes, int]:
    """Run a grey-image eraser (image -> (image, things erased)) on PNG bytes: (PNG bytes
    of the same size and density, things erased). Nothing erased: the bytes come back
    identical."""
    with Image.open(io.BytesIO(png)) as img:
        dpi = img.info.get("dpi")
        gray = np.asarray(img.convert("L"))
    out, n = erase_array(gray)
    if n == 0:
        return png, 0
    buf = io.BytesIO()
    Image.fromarray(out).save(buf, format="PNG", **({"dpi": dpi} if dpi else {}))
    return buf.getvalue(), n


def erase_leaders(png: bytes) -> tuple[bytes, int]:
    """PNG bytes -> (PNG bytes of the same size and density with leaders erased, dots
    erased). A page without leaders comes back byte-identical."""
    return erase_on_png(png, erase_leaders_array)
