"""Erase table rules (the printed horizontal and vertical lines) from a page image before OCR.

Bulletins of the 1930s and 1940s box every column head in ruled cells. Tesseract reads a
vertical rule that touches a head's letters as part of the word ("[ime", "[me", "sans]",
"Fasye [1959 | tere"), so the whole head line turns to noise and no column of the table
gets a period: 1939-12 p22 (a 13-month head "Oct. Nov. ... Oct." under "1938 | 1939"),
1941-01 p69 (two tables of 17 month and year columns), 1940-05 p20 ("Jan. ... Dec.
Total") all lost every head this way. With the rules erased the same pages read "Oct.
Nov. Dec. Jan. Feb. Mar. Apr. May June July Aug. Sept. Oct." (p22) and "Jan. | Feb. T
var. Apr. May June July Aug. Sept. Oct. Nov. Dec. Total" (p20), and the figures next to
a rule lose their glued "|" and "]" ("$287, 862|" -> "$287,862").

A rule is recognised by its shape: a run of ink at least ``H_RUN`` of the page width long
on one pixel row (horizontal) or ``V_RUN`` of the page height on one pixel column
(vertical), found by a morphological opening (erosion then dilation along one axis, so
only runs that long survive). Letters, figures, minus signs and dashes are far shorter;
a rule's anti-aliased edge is covered by growing the mask ``PAD_PX`` pixels. The erased
pixels are painted in the paper's grey (the page's median level); the image keeps its
size, so word boxes stay in page pixels.

``RULES_VERSION`` is part of the OCR cache key: bump it whenever the output pixels of
``erase_rules`` change for the same input.
"""

from __future__ import annotations

import io

import numpy as np
from PIL import Image
from scipy import ndimage

RULES_VERSION = 1

H_RUN = 1 / 30  # a horizontal rule is at least this share of the page width long
V_RUN = 1 / 60  # a vertical rule is at least this share of the page height long
MIN_RUN_PX = 40  # ... and never shorter than this many pixels
INK_BELOW_PAPER = 50  # a pixel this much darker than the paper's grey is ink
PAD_PX = 2  # the mask grows this many pixels to cover a rule's grey edge


def _runs(ink: np.ndarray, length: int, axis: int) -> np.ndarray:
    """Pixels of ``ink`` that belong to a straight run at least ``length`` long on ``axis``."""
    eroded = ndimage.minimum_filter1d(ink, length, axis=axis)
    return ndimage.maximum_filter1d(eroded, length, axis=axis).astype(bool)


def rule_mask(gray: np.ndarray) -> np.ndarray:
    """A boolean mask of the rule pixels of a grey page image."""
    paper = int(np.median(gray))
    ink = (gray < max(0, paper - INK_BELOW_PAPER)).astype(np.uint8)
    height, width = ink.shape
    mask = _runs(ink, max(MIN_RUN_PX, int(width * H_RUN)), axis=1)
    mask |= _runs(ink, max(MIN_RUN_PX, int(height * V_RUN)), axis=0)
    if PAD_PX and mask.any():
        mask = ndimage.maximum_filter(mask, size=2 * PAD_PX + 1)
    return mask


def erase_rules_array(gray: np.ndarray) -> tuple[np.ndarray, int]:
    """A copy of ``gray`` with every rule painted over in the paper's grey; (image,
    pixels erased)."""
    mask = rule_mask(gray)
    erased = int(mask.sum())
    if not erased:
        return gray, 0
    out = gray.copy()
    out[mask] = int(np.median(gray))
    return out, erased


def erase_rules(png: bytes) -> tuple[bytes, int]:
    """PNG bytes -> (PNG bytes of the same size and density with rules erased, pixels
    erased). A page without rules comes back byte-identical."""
    with Image.open(io.BytesIO(png)) as img:
        dpi = img.info.get("dpi")
        gray = np.asarray(img.convert("L"))
    out, n = erase_rules_array(gray)
    if n == 0:
        return png, 0
    buf = io.BytesIO()
    Image.fromarray(out).save(buf, format="PNG", **({"dpi": dpi} if dpi else {}))
    return buf.getvalue(), n
