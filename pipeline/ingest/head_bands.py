"""Ruled head bands read again with their rules erased, where the page's OCR garbled them.

Bulletins of the 1930s and 1940s box every column head in ruled cells. Tesseract reads a
rule that touches a head's letters as part of the word, so the whole head line turns to
noise ("poe [ae [ime [ime [me [me [are", 1939-12 p22; "Fasye [1959 | tere [ eos] sans]",
1941-01 p69; "ee oe" for "Jan. Feb. ... Dec. Total", 1940-05 p20) and no column of the
table gets a period. Erasing the rules of the whole page before OCR reads those heads, but
it also changes the reading of pages that were fine (bold titles lose strokes, word boxes
shift), so this is a second pass over the bands that need it, like the digit pass:

1. a *band* is the strip between two long horizontal rules (at least ``BAND_RULE`` of the
   page width) no more than ``MAX_BAND_HEIGHTS`` text heights apart: a table's head
   between its top rule and the rule under the heads (a table body is taller);
2. a band is *garbled* when at least ``GARBLED_SHARE`` of the first pass's words in it
   carry a rule character ("[", "]", "|", "{", "}") or are unconfident
   (``LOW_CONF``): the mark of rules read as letters;
3. a garbled band (or one the first pass left empty) is cropped, its rules erased
   (``pipeline.ingest.rules``) and read again; the new words replace the band's
   first-pass words only when they date more columns: at least ``MIN_GAIN`` more
   confident month names, years or kinds of year. A band whose heads were read, or
   whose re-read brings other words only, keeps its first pass (1940-05 p59: a re-read
   stub head "Aceet of following datee" unconfirmed by the lexicon would make its day
   rows doubtful; the first pass had left it out).

Word boxes stay in page pixels; the new words get block numbers of their own so the line
grouping of the table reader keeps them together. ``HEAD_BANDS_VERSION`` is part of the
pass's cache key: bump it whenever the output for the same page and first pass changes.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable

import numpy as np
import polars as pl
from PIL import Image
from scipy import ndimage

from pipeline.ingest.leaders import INK_LEVEL, text_height
from pipeline.ingest.rules import erase_rules_array, rule_runs

HEAD_BANDS_VERSION = 2

BAND_RULE = 0.25  # a band's rules run at least this share of the page width
MAX_BAND_HEIGHTS = 9.0  # a head band is at most this many text heights tall
MIN_BAND_HEIGHTS = 1.2  # ... and at least this many (a double rule is no band)
GARBLED_SHARE = 0.4  # share of a band's words that are rule noise before it is read again
LOW_CONF = 45.0  # a word below this confidence is noise
BLOCK_BASE = 10_000  # block numbers of re-read words (band i -> BLOCK_BASE + i)
_RULE_CHAR = re.compile(r"[\[\]|{}]")
# a word that dates a column: a month name or its abbreviation, a year, a kind of year
_PERIOD_WORD = re.compile(
    r"^(jan|feb|mar|apr|may|june?|july?|aug|sept?|oct|nov|dec)[a-z]*\.?,?$"
    r"|^(18|19|20)\d\d[.,]?$|^(calendar|fiscal)$",
    re.IGNORECASE,
)
MIN_GAIN = 2  # period words a re-read must add before it replaces the band


def _noise(text: str, conf: float) -> bool:
    return bool(_RULE_CHAR.search(text)) or conf < LOW_CONF


def _dating(words: pl.DataFrame) -> int:
    """Confident words that date a column (months, years, kinds of year)."""
    return sum(
        not _noise(t, c) and bool(_PERIOD_WORD.match(t))
        for t, c in words.select("text", "conf").iter_rows()
    )


def head_bands(gray: np.ndarray) -> list[tuple[int, int]]:
    """(top, bottom) pixel rows of the strips between consecutive long horizontal rules
    that are short enough to be a table's head."""
    ink = (gray < max(0, int(np.median(gray)) - 50)).astype(np.uint8)
    width = ink.shape[1]
    long_rows = np.flatnonzero(rule_runs(ink, int(width * BAND_RULE), axis=1).any(axis=1))
    if long_rows.size < 2:
        return []
    labels, _ = ndimage.label(gray < INK_LEVEL)
    heights = np.array([s[0].stop - s[0].start for s in ndimage.find_objects(labels)])
    th = text_height(heights)
    # a rule is a run of adjacent pixel rows; a band lies between two rules
    rules: list[list[int]] = []
    for y in long_rows.tolist():
        if rules and y - rules[-1][1] <= 2:
            rules[-1][1] = y
        else:
            rules.append([y, y])
    bands = []
    for (_, top), (bottom, _) in zip(rules, rules[1:], strict=False):
        if MIN_BAND_HEIGHTS * th <= bottom - top <= MAX_BAND_HEIGHTS * th:
            bands.append((top + 1, bottom))
    return bands


def _in_band(words: pl.DataFrame, top: int, bottom: int) -> pl.Expr:
    centre = (pl.col("y0") + pl.col("y1")) / 2
    return (centre >= top) & (centre < bottom)


def reread_head_bands(
    png: bytes, words: pl.DataFrame, read: Callable[[bytes], pl.DataFrame]
) -> tuple[pl.DataFrame, int]:
    """``words`` (one page's first-pass OCR) with each garbled head band read again by
    ``read`` (PNG bytes -> words frame) on its crop with the rules erased; (words, bands
    replaced)."""
    with Image.open(io.BytesIO(png)) as img:
        dpi = img.info.get("dpi")
        gray = np.asarray(img.convert("L"))
    replaced = 0
    for i, (top, bottom) in enumerate(head_bands(gray)):
        old = words.filter(_in_band(words, top, bottom))
        noise = sum(_noise(t, c) for t, c in old.select("text", "conf").iter_rows())
        if old.height >= 2 and noise < GARBLED_SHARE * old.height:
            continue  # a band OCR read (or lost entirely: then read it again)
        crop, _ = erase_rules_array(np.ascontiguousarray(gray[top:bottom]))
        buf = io.BytesIO()
        Image.fromarray(crop).save(buf, format="PNG", **({"dpi": dpi} if dpi else {}))
        new = read(buf.getvalue())
        if new.is_empty() or _dating(new) < _dating(old) + MIN_GAIN:
            continue  # the re-read dates no more columns than the first pass
        new = new.with_columns(
            pl.col("y0") + top,
            pl.col("y1") + top,
            pl.lit(BLOCK_BASE + i, dtype=pl.Int32).alias("block_no"),
            pl.col("line_no") + (int(words["line_no"].max() or 0) + 1),
        )
        words = pl.concat([words.filter(~_in_band(words, top, bottom)), new.select(words.columns)])
        replaced += 1
    if replaced:
        words = words.with_columns(word_no=pl.int_range(pl.len(), dtype=pl.Int32))
    return words, replaced
