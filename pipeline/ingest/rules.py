"""Erase table rules (the printed horizontal and vertical lines) from an image before OCR.

Used on the ruled head bands of a page (``pipeline.ingest.head_bands``): tesseract reads
a rule that touches a head's letters as part of the word ("[ime", "[me", "sans]"), and with
the rules erased the same band of 1939-12 p22 reads "Oct. Nov. Dec. Jan. Feb. Mar. Apr. May
June July Aug. Sept. Oct.". (Erasing the rules of whole pages was tried and dropped: it
read those heads, but bold titles of 1967-08 lost strokes and word boxes of pages that
were fine shifted; period accuracy on the gold pages fell from 0.886 to 0.874 and 0.831.)

A rule is recognised by its shape: a run of ink at least ``H_RUN`` of the image width long
on one pixel row (horizontal) or ``V_RUN_HEIGHTS`` text heights on one pixel column
(vertical: the rules of a one-line head cell are barely taller than its letters), found
by a morphological opening (erosion then dilation along one axis, so only runs that long
survive). Letters, figures, minus signs and dashes are shorter; a rule's anti-aliased edge
is covered by growing the mask ``PAD_PX`` pixels. The erased pixels are painted in the
paper's grey (the median level); the image keeps its size, so word boxes stay in place.

``RULES_VERSION`` is part of the head-band pass's cache key: bump it whenever the output
pixels of ``erase_rules`` change for the same input.
"""

from __future__ import annotations

import numpy as np
from scipy import ndimage

from pipeline.ingest.leaders import INK_LEVEL, erase_on_png, text_height

RULES_VERSION = 1

H_RUN = 1 / 30  # a horizontal rule is at least this share of the page width long
V_RUN_HEIGHTS = 1.6  # a vertical rule is at least this many text heights long: the
# rules of a one-line head cell are 35-45 px at 300 dpi on 1940 pages whose text is
# 17-20 px tall; no straight stroke of a letter, bracket or parenthesis is that long
MIN_RUN_PX = 30  # ... and never shorter than this many pixels
INK_BELOW_PAPER = 50  # a pixel this much darker than the paper's grey is ink
PAD_PX = 2  # the mask grows this many pixels to cover a rule's grey edge


def rule_runs(ink: np.ndarray, length: int, axis: int) -> np.ndarray:
    """Pixels of ``ink`` that belong to a straight run at least ``length`` long on ``axis``."""
    eroded = ndimage.minimum_filter1d(ink, length, axis=axis)
    return ndimage.maximum_filter1d(eroded, length, axis=axis).astype(bool)


def rule_mask(gray: np.ndarray) -> np.ndarray:
    """A boolean mask of the rule pixels of a grey page image."""
    paper = int(np.median(gray))
    ink = (gray < max(0, paper - INK_BELOW_PAPER)).astype(np.uint8)
    width = ink.shape[1]
    mask = rule_runs(ink, max(MIN_RUN_PX, int(width * H_RUN)), axis=1)
    # the text height is measured with the horizontal rules gone: a ruled box is one blob
    labels, _ = ndimage.label((gray < INK_LEVEL) & ~mask)
    heights = np.array([s[0].stop - s[0].start for s in ndimage.find_objects(labels)])
    v_run = max(MIN_RUN_PX, int(V_RUN_HEIGHTS * text_height(heights)))
    mask |= rule_runs(ink, v_run, axis=0)
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
    return erase_on_png(png, erase_rules_array)
