"""Two tables printed side by side: split the page at the gutter between them.

Some pages print two narrow tables next to each other, each under its own title, with
its own stub and value columns (1939-12 p68: two index tables; 1940-05 p73: the silver
monetary stock beside silver acquired by the mints). Their rows stand at the same
heights, so the words of both are read as one line across the gutter, and the two
tables as one: titles, units, heads and labels of both get mixed.

The layout that marks them (describing the page, not any one bulletin):

* a *second stub*: on many figure rows a label (words, or a year or month with its
  leaders) stands at one left edge, with figures on its left (the values of the left
  table) and figures on its right (its own values);
* a *gutter* before that stub: a wide x-band no word crosses, over the rows and over the
  lines above them up to the titles (each table's titles and heads are set over its own
  half), and the left table has a stub of its own at the page margin.

The band of lines where this holds is split at the gutter; the lines above and below it
(a full-width table, footnotes) stay whole.
"""

from __future__ import annotations

import re

import polars as pl

from pipeline.tables.lines import Chunk, Line, assign_lines, page_lines

# a stub label: a word of two letters or more, or a year / month with its leaders
_STUB_LABEL = re.compile(r"[A-Za-z]{2,}|^\d{4}\s*[-.\u2026]{2,}")
MIN_STUB_ROWS = 3  # rows whose second stub label lines up
GUTTER_HEIGHTS = 1.5  # the empty band before the second stub, in text heights


def _label(c: Chunk) -> bool:
    return not c.is_number and bool(_STUB_LABEL.search(c.text))


def _second_stub_starts(line: Line, height: float) -> list[float]:
    """Left edges of labels standing between figures, past a wide gap, on one line."""
    chunks = line.chunks
    out = []
    for i, c in enumerate(chunks):
        if i < 2 or not _label(c) or not _label(chunks[0]):
            continue
        # a row of the left table ends in a figure of its own column (a description
        # column after a label and its leaders is a column of one table) ...
        left, right = chunks[1:i], chunks[i + 1 :]
        if not chunks[i - 1].is_number or chunks[i - 1].x0 - chunks[i - 2].x1 < height:
            continue
        # ... and both sides are table rows: figures, not prose
        if 2 * sum(p.is_number for p in left) < len(left):
            continue
        if sum(n.is_number for n in right) < 2 or 2 * sum(n.is_number for n in right) < len(right):
            continue
        if c.x0 - chunks[i - 1].x1 < GUTTER_HEIGHTS * height:
            continue
        out.append(c.x0)
    return out


def _crosses(line: Line, cut: float) -> bool:
    return any(w.x0 < cut < w.x1 for c in line.chunks for w in c.parts)


def find_gutter(lines: list[Line], height: float) -> tuple[float, int, int] | None:
    """``(cut, first, last)``: the x of the gutter and the band of lines (indices into
    ``lines``, inclusive) it splits, or None when the page prints no tables side by side."""
    starts = [(i, x) for i, ln in enumerate(lines) for x in _second_stub_starts(ln, height)]
    # the left edges many second-stub labels share, the most shared first
    clusters = sorted(
        {
            tuple(sorted({i for i, y in starts if abs(y - x) <= height})): x for _, x in starts
        }.items(),
        key=lambda kv: -len(kv[0]),
    )
    for rows, x in clusters:
        if len(rows) < MIN_STUB_ROWS:
            break
        gutter = _gutter_at(lines, list(rows), x, height)
        if gutter is not None:
            return gutter
    return None


def _gutter_at(
    lines: list[Line], best: list[int], best_x: float, height: float
) -> tuple[float, int, int] | None:
    first, last = best[0], best[-1]
    # the gutter: from the right edge of the left table's last column to the left edge
    # of the right table's stub (its years may stand left of its indented months)
    left_edge = max(
        max(c.x1 for c in lines[i].chunks if c.x1 < best_x - 0.5 * height) for i in best
    )
    right_edge = min(
        c.x0 for i in range(first, last + 1) for c in lines[i].chunks if c.x0 > left_edge
    )
    if right_edge - left_edge < GUTTER_HEIGHTS * height:
        return None
    cut = (left_edge + right_edge) / 2
    if any(_crosses(lines[i], cut) for i in range(first, last + 1)):
        return None
    # the band reaches up over the heads to the titles and down over the notes, to the
    # first line that crosses the gutter
    top = first
    while top > 0 and not _crosses(lines[top - 1], cut):
        top -= 1
    bottom = last
    while bottom + 1 < len(lines) and not _crosses(lines[bottom + 1], cut):
        bottom += 1
    # each table's title stands centred over its own half, above its rows
    rows = lines[first : last + 1]
    left = (min(ln.x0 for ln in rows), cut)
    right = (cut, max(ln.x1 for ln in rows))
    titled = [
        i
        for i in range(top, first)
        if _centred_title(lines[i], left, height) and _centred_title(lines[i], right, height)
    ]
    if not titled:
        return None
    # the band starts at the titles: a table above them spans the page
    return cut, titled[0], bottom


def _centred_title(line: Line, half: tuple[float, float], height: float) -> bool:
    """The line prints a phrase in the half, centred on it: words set a word-space
    apart (a line of column heads spreads its words over the columns)."""
    lo, hi = half
    mid, tol = (lo + hi) / 2, max(0.08 * (hi - lo), 2 * height)
    words = [c for c in line.chunks if lo - height <= c.x0 and c.x1 <= hi + height]
    text = " ".join(c.text for c in words)
    if len(re.findall(r"[A-Za-z]{3,}", text)) < 2:
        return False
    if any(b.x0 - a.x1 > 1.5 * height for a, b in zip(words, words[1:], strict=False)):
        return False
    return abs((words[0].x0 + words[-1].x1) / 2 - mid) <= tol


MIN_PROSE_LINES = 10  # lines of a column of prose beside the tables
PROSE_WIDTH = 8.0  # a prose line's typical width, in text heights


def _prose(text: str) -> bool:
    """Running text: words, with figures among them ("$80 billion in 2000, $47")."""
    letters = len(re.findall(r"[A-Za-z]", text))
    return letters >= 2 * len(re.findall(r"\d", text)) and letters >= 4


def _one_phrase(chunks: list[Chunk], height: float) -> bool:
    return all(
        b.x0 - a.x1 < GUTTER_HEIGHTS * height for a, b in zip(chunks, chunks[1:], strict=False)
    )


def find_prose_column(lines: list[Line], height: float) -> tuple[float, int, int] | None:
    """``(cut, first, last)``: a column of running text printed beside the tables (a
    born-digital page sets its commentary right of a chart and the table under it,
    2006-12 p99), or None. Its lines start at one left edge, hold words, run several
    text heights wide, and no word of the lines from its first to its last crosses the
    gutter before that edge; rows of the table beside it share their printed lines with
    it, so its words would be read as the rows' last columns."""
    starts: dict[int, list[tuple[int, int]]] = {}  # left edge -> (line, chunk index)
    for i, ln in enumerate(lines):
        for k, c in enumerate(ln.chunks):
            if k == 0 or c.x0 - ln.chunks[k - 1].x1 >= GUTTER_HEIGHTS * height:
                starts.setdefault(round(c.x0 / height), []).append((i, k))
    for key in sorted(starts, key=lambda e: -len(starts[e])):
        edge = [(i, k) for e in (key - 1, key, key + 1) for i, k in starts.get(e, [])]
        x = min(lines[i].chunks[k].x0 for i, k in edge)
        texts = {i: " ".join(c.text for c in lines[i].chunks[k:]) for i, k in edge}
        widths = sorted(lines[i].chunks[-1].x1 - lines[i].chunks[k].x0 for i, k in edge)
        if len(texts) < MIN_PROSE_LINES:
            break
        # (a line of figures among the words may be most figures: "2004, $4 billion")
        prose = sum(_prose(texts[i]) and _one_phrase(lines[i].chunks[k:], height) for i, k in edge)
        if prose < 0.8 * len(texts) or x < 3 * PROSE_WIDTH * height:
            continue
        # lines of running text fill the column (a table's text column holds short
        # heads and wrapped labels of any length)
        if widths[-1] < PROSE_WIDTH * height or widths[len(widths) // 2] < 0.6 * widths[-1]:
            continue
        first, last = min(texts), max(texts)
        band = lines[first : last + 1]
        left = [c.x1 for ln in band for c in ln.chunks if c.x1 <= x]
        if not left or sum(any(c.x1 <= x for c in ln.chunks) for ln in band) < 3:
            continue  # nothing printed beside it: no table to free
        cut = (max(left) + x) / 2
        if x - max(left) < GUTTER_HEIGHTS * height or any(_crosses(ln, cut) for ln in band):
            continue
        # commentary runs on past what stands beside it: many of its lines stand alone
        # (a table's text column, or one of two columns of footnotes, does not)
        alone = sum(all(c.x0 >= cut for c in ln.chunks) for ln in band)
        if alone < 0.4 * len(band):
            continue
        return cut, first, last
    return None


def page_regions(words: pl.DataFrame) -> list[pl.DataFrame]:
    """One page's words (carrying ``line_idx``) as the regions read one after another:
    the whole page, or - when two tables stand side by side - the lines above them
    (with the left table), the left table, the right table, and the lines below."""
    lines = page_lines(words)
    if not lines:
        return [words]
    height = float(words.select((pl.col("y1") - pl.col("y0")).median()).item())
    gutter = find_gutter(lines, height)
    if gutter is None:
        prose = find_prose_column(lines, height)
        if prose is None:
            return [words]
        # the column of prose is read apart from the rest of the page (it holds no
        # table, but a page of two text columns may set a small table in either)
        cut, top, bottom = prose
        band = {ln.line_idx for ln in lines[top : bottom + 1]}
        mid = (pl.col("x0") + pl.col("x1")) / 2
        beside = pl.col("line_idx").is_in(list(band)) & (mid >= cut)
        parts = [words.filter(~beside), words.filter(beside)]
        return [assign_lines(p.drop("line_idx")) for p in parts if not p.is_empty()]
    cut, top, bottom = gutter
    band = {ln.line_idx for ln in lines[top : bottom + 1]}
    above = {ln.line_idx for ln in lines[:top]}
    in_band = pl.col("line_idx").is_in(list(band))
    mid = (pl.col("x0") + pl.col("x1")) / 2
    parts = [
        words.filter(pl.col("line_idx").is_in(list(above)) | (in_band & (mid < cut))),
        words.filter(in_band & (mid >= cut)),
        words.filter(~in_band & ~pl.col("line_idx").is_in(list(above))),
    ]
    # each region's lines are found again: rows of the two tables need not align
    return [assign_lines(p.drop("line_idx")) for p in parts if not p.is_empty()]
