"""Stub-head kind words ("Fiscal", "Calendar") OCR garbled past reading, read by the width
of their readable twin on the same page (one word in one type on one page has one width)."""

from __future__ import annotations

import re

import polars as pl

from pipeline.tables.lines import (
    _KIND_WORD,
    _YEAR_WORD,
    MIN_WORD_CONF,
    _garbled_kind_word,
)

_KIND_WIDTH_FIT = 0.08  # a garbled word this close in width to a kind word read on its page


def _kind_by_width(rows: list[dict], height: float) -> dict[int, str]:
    """Word numbers of the page's stub-head words OCR garbled past reading ("Meoal",
    "casas") with the kind word each is: the one a stub head of the same page prints
    readably at the same width (1948-05 p17: "Fiecal year or month" over Table 8, "Meoal
    year or mooth" over Table 9, both 82 px wide; 1940-05 p73: "caleadar" 118 px, "casas"
    110 px, over "year or month"). The same word of the same type on one page has one
    width; "fiscal" and "calendar" differ by two letters. Only a low-confidence word just
    before a well-read "year" on its line, or just over one on the line above; only when
    every readable kind word of that width on the page is one kind, and none of the other
    kind is near it."""
    readable: list[tuple[str, float]] = []
    for r in rows:
        text = (r["text"] or "").strip(" ,.:")
        kind = text.lower() if _KIND_WORD.match(text) else None
        if kind is None and r["conf"] >= MIN_WORD_CONF:
            kind = _garbled_kind_word(text)
        if kind:
            readable.append((kind, r["x1"] - r["x0"]))
    years = [
        r for r in rows
        if r["conf"] >= MIN_WORD_CONF and _YEAR_WORD.match((r["text"] or "").strip(" ,.:"))
    ]  # fmt: skip
    ors = [r for r in rows if r["conf"] >= MIN_WORD_CONF and (r["text"] or "").strip() == "or"]
    if not readable:  # no twin on the page: only the typewriter's pitch can read one
        return _kind_by_pitch(rows, height, years, ors)
    out: dict[int, str] = {}
    for r in rows:
        text = (r["text"] or "").strip(" ,.:")
        if r["conf"] >= MIN_WORD_CONF or _KIND_WORD.match(text) or _garbled_kind_word(text):
            continue
        if not re.fullmatch(r"[A-Za-z]{4,9}", text):
            continue
        # a stub head's own layout: "<kind> year" over "or month" (the "or" under the kind
        # word), or "<kind>" over "year or month" (the "or" after the year); a garbled word
        # of a running line ("Statement, except as noted" over "... fiscal year") is neither
        beside = any(
            _same_line(y, r, height)
            and 0 <= y["x0"] - r["x1"] < 0.9 * height
            and any(_under(o, r, height) for o in ors)
            for y in years
        )
        over = any(
            _under(y, r, height)
            and any(_same_line(o, y, height) and 0 <= o["x0"] - y["x1"] < 0.9 * height for o in ors)
            for y in years
        )
        if not (beside or over):
            continue
        width = r["x1"] - r["x0"]
        fits = {k for k, w in readable if abs(width - w) <= _KIND_WIDTH_FIT * w}
        near = {k for k, w in readable if abs(width - w) <= 0.2 * w}
        if len(fits) == 1 and near == fits:
            out[r["word_no"]] = fits.pop()
    out.update(_kind_phrase_by_width(rows, height, years))
    for k, v in _kind_by_pitch(rows, height, years, ors).items():
        out.setdefault(k, v)
    return out


def _same_line(a: dict, b: dict, height: float) -> bool:
    return abs((a["y0"] + a["y1"]) / 2 - (b["y0"] + b["y1"]) / 2) < 0.6 * height


def _under(a: dict, b: dict, height: float) -> bool:
    """``a`` starts on the line right under ``b``, left-aligned with it."""
    return abs(a["x0"] - b["x0"]) < height and 0 <= a["y0"] - b["y1"] < 1.2 * height


def _kind_phrase_by_width(rows: list[dict], height: float, years: list[dict]) -> dict[int, str]:
    """Word numbers of a stub head's first line OCR read as one garbled word ("re" at
    confidence 20 over "or month", 1953-09 p15 Table 2) with the phrase it is: the page's
    readable "<kind> year" over "or" (Table 1: "Fiscal year" over "or month") that spans
    the same width (within 8%) set the same way over its "or"; only when every such
    phrase of that width is one kind."""
    ors = [r for r in rows if r["conf"] >= MIN_WORD_CONF and (r["text"] or "").strip() == "or"]

    def below(r: dict, x0: float) -> dict | None:
        return next(
            (
                o
                for o in ors
                if 0 <= o["y0"] - r["y1"] < 1.2 * height and abs(o["x0"] - x0) < 1.5 * height
            ),
            None,
        )

    phrases: list[tuple[str, float, float]] = []  # (kind, width, x0 less its "or"'s x0)
    for r in rows:
        text = (r["text"] or "").strip(" ,.:")
        kind = text.lower() if _KIND_WORD.match(text) else None
        if kind is None and r["conf"] >= MIN_WORD_CONF:
            kind = _garbled_kind_word(text)
        year = next(
            (y for y in years
             if abs(y["y0"] - r["y0"]) < 0.6 * height and 0 <= y["x0"] - r["x1"] < 0.9 * height),
            None,
        )  # fmt: skip
        if kind and year and (o := below(r, r["x0"])):
            phrases.append((kind, year["x1"] - r["x0"], r["x0"] - o["x0"]))
    out: dict[int, str] = {}
    for r in rows:
        text = (r["text"] or "").strip(" ,.:")
        if r["conf"] >= MIN_WORD_CONF or not re.fullmatch(r"[A-Za-z]{2,12}", text):
            continue
        if _KIND_WORD.match(text) or _garbled_kind_word(text) or _YEAR_WORD.match(text):
            continue
        if any(abs(y["y0"] - r["y0"]) < 0.6 * height for y in years):
            continue  # a word beside a "year" read: the word rule's
        o = below(r, r["x0"])
        if o is None:
            continue
        width, offset = r["x1"] - r["x0"], r["x0"] - o["x0"]
        fits = {
            k for k, w, off in phrases
            if abs(width - w) <= _KIND_WIDTH_FIT * w and abs(offset - off) < 0.5 * height
        }  # fmt: skip
        near = {k for k, w, _ in phrases if abs(width - w) <= 0.2 * w}
        if len(fits) == 1 and near == fits:
            out[r["word_no"]] = fits.pop() + " year"
    return out


_PITCH_CONF = 80.0  # words read this surely measure the type's pitch
_PITCH_MIN_WORDS = 12  # ... at least this many of them
_MONOSPACE_SPREAD = 0.05  # their width per letter varies at most this much (a typewriter)
_PITCH_FIT = 0.4  # a garbled word spans a phrase's letters within this many pitches
_PITCH_PHRASES = ("fiscal", "calendar", "fiscal year", "calendar year")


def _type_pitch(rows: list[dict]) -> float | None:
    """The letter pitch of a page typed in one monospaced face (the typewritten
    bulletins of the 1930s-1960s): the median width per letter of the well-read words of
    four letters or more at the page's usual text height, when it varies by at most 5%
    across them (1953-09 p53: 122 words, 11.0 px a letter, spread 1.9%; a proportional
    face varies by 12-14%, 1948-05 p17, 1984-06 p88). None on a proportional page."""
    good = [
        r for r in rows
        if r["conf"] >= _PITCH_CONF and (r["text"] or "").isalpha() and len(r["text"]) >= 4
    ]  # fmt: skip
    if len(good) < _PITCH_MIN_WORDS:
        return None
    heights = sorted(r["y1"] - r["y0"] for r in good)
    h = heights[len(heights) // 2]
    per = sorted(
        (r["x1"] - r["x0"]) / len(r["text"]) for r in good if abs(r["y1"] - r["y0"] - h) < 0.3 * h
    )
    if len(per) < _PITCH_MIN_WORDS:
        return None
    mean = sum(per) / len(per)
    spread = (sum((p - mean) ** 2 for p in per) / len(per)) ** 0.5 / mean
    return per[len(per) // 2] if spread <= _MONOSPACE_SPREAD else None


def _phrase_by_pitch(width: float, pitch: float, phrases: tuple[str, ...]) -> str | None:
    """The one phrase of ``phrases`` whose letters (and spaces) span ``width`` at the
    type's ``pitch``; None when none does or more than one."""
    fits = [p for p in phrases if abs(width / pitch - len(p)) <= _PITCH_FIT]
    return fits[0] if len(fits) == 1 else None


def _kind_by_pitch(
    rows: list[dict], height: float, years: list[dict], ors: list[dict]
) -> dict[int, str]:
    """Word numbers of stub-head kind words OCR garbled on a typewritten page with no
    readable twin, read by the letters their width holds at the page's one pitch
    ("calendar" is eight letters, "fiscal" six: two pitches apart). A word is garbled
    when its width holds more letters than OCR read. Two layouts only:

    * the last word of a line set right over "year or ..." and left-aligned with it: the
      kind word of "End of calendar" over "year or month" (1953-09 p53 Table 4: "bao xa",
      "xa" 89 px at 11.0 px a letter: "calendar");
    * a line's first word opening on the kind word's first three letters and holding the
      letters of "<kind> year" or "<kind>" (1953-09 p53 Table 5: "Calorerlroer" at
      confidence 0, 145 px: "Calendar year", thirteen letters; its "or month" under it
      read as "-").
    """
    pitch = _type_pitch(rows)
    if pitch is None:
        return {}
    out: dict[int, str] = {}
    for r in rows:
        text = (r["text"] or "").strip(" ,.:")
        if not text.isalpha() or _KIND_WORD.match(text) or _garbled_kind_word(text):
            continue
        width = r["x1"] - r["x0"]
        if round(width / pitch) <= len(text):
            continue  # as many letters read as the width holds: read, not garbled
        line = sorted((o for o in rows if _same_line(o, r, height)), key=lambda o: o["x0"])
        after = [o for o in line if o["x0"] > r["x0"]]
        before = [o for o in line if o["x0"] < r["x0"]]
        # the phrase the word ends: the words before it set a word space apart
        first = r
        for o in reversed(before):
            if not 0 <= first["x0"] - o["x1"] < 0.9 * height:
                break
            first = o
        over = not (after and after[0]["x0"] - r["x1"] < 2 * height) and any(
            first is not r
            and abs(first["x0"] - y["x0"]) < height
            and 0 <= y["y0"] - r["y1"] < 1.2 * height
            and any(_same_line(o, y, height) and 0 <= o["x0"] - y["x1"] < 0.9 * height for o in ors)
            for y in years
        )
        if over:
            kind = _phrase_by_pitch(width, pitch, ("fiscal", "calendar"))
            if kind:
                out[r["word_no"]] = kind
            continue
        if before:
            continue
        phrase = _phrase_by_pitch(width, pitch, _PITCH_PHRASES)
        if phrase and text.lower()[:3] == phrase[:3]:
            out[r["word_no"]] = phrase
    return out


def read_kind_words_by_width(words: pl.DataFrame) -> pl.DataFrame:
    """One page's words with the stub-head kind words OCR garbled past reading read by
    their width (:func:`_kind_by_width`); read on the whole page, before it is cut into
    regions, since the readable twin may stand in the table beside."""
    if words.is_empty():
        return words
    height = float(words.select((pl.col("y1") - pl.col("y0")).median()).item())
    kinds = _kind_by_width(list(words.iter_rows(named=True)), height)
    if not kinds:
        return words
    read = pl.col("word_no").is_in(list(kinds))
    return words.with_columns(
        text=pl.struct("word_no", "text").map_elements(
            lambda s: kinds[s["word_no"]].capitalize() if s["word_no"] in kinds else s["text"],
            return_dtype=pl.String,
        ),
        # read now: kept as text, not dropped as rule noise
        conf=pl.when(read).then(pl.max_horizontal("conf", pl.lit(MIN_WORD_CONF))).otherwise("conf"),
    )
