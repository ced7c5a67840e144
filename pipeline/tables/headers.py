"""Column headers: which header phrase stands over which value column.

Bulletin headers are stacked. Each column's own header sits at the bottom of the
header block, often wrapped over two or three single-spaced lines, centred over the
column. Above it, a spanning header ("Internal revenue", "Fiscal year") is centred over
the run of columns it groups, set off by a rule (so by more than one line pitch) and
usually narrower than its span. So, per column, we first climb its own header from the
bottom line while the lines stay single-spaced; every phrase left over is a spanning
header and takes the longest run of adjacent columns whose middle lies under its
middle and that no other phrase of its line claims.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pipeline.tables.lines import Chunk, Line

# Short low-confidence words in a header block are OCR of rules and specks.
_SHORT_WORD_CONF = 50.0
_FOOTNOTE_REF = re.compile(r"^\d{1,2}/?$|^\*{1,3}$")


@dataclass(frozen=True)
class Column:
    """One value column: the box of its figures and the x its figures align to."""

    x0: float
    x1: float
    align: float

    @property
    def mid(self) -> float:
        return (self.x0 + self.x1) / 2


def column_paths(
    header_lines: list[Line], columns: list[Column], height: float, pitch: float
) -> list[str]:
    """Header path per column, levels top-down joined by ``" / "``.

    ``height`` is the text height and ``pitch`` the single line spacing (both pixels).
    """
    if not columns:
        return []
    # Leave out the stub head (left of the first column) and footnote references
    # ("1", "2/") set as superscripts next to a header.
    phrases = [
        [
            ch
            for ch in line.chunks
            if ch.x1 > columns[0].x0 - 0.5 * height
            and not _FOOTNOTE_REF.match(ch.text.strip())
            and not (len(ch.text.strip()) <= 3 and ch.conf < _SHORT_WORD_CONF)
        ]
        for line in header_lines
    ]
    direct = [[_direct_cover(ch, columns, height) for ch in line] for line in phrases]
    own = _own_headers(header_lines, phrases, direct, len(columns), pitch)
    boxes = _column_boxes(columns, phrases, own)
    spans: list[list[tuple[int, str]]] = [[] for _ in columns]  # (line index, text)
    span_sets: list[list[frozenset[int]]] = [[] for _ in columns]
    for li, line in enumerate(phrases):
        claimed = {c: i for i, cover in enumerate(direct[li]) for c in cover}
        for i, chunk in enumerate(line):
            if (li, i) in own["used"]:
                continue
            cover = direct[li][i] or [_nearest(chunk, boxes)]
            run = frozenset(_centred_run(chunk, cover, boxes, claimed, i, height))
            for c in run:
                spans[c].append((li, chunk.text.strip()))
                span_sets[c].append(run)
    paths = []
    for c in range(len(columns)):
        levels: list[tuple[frozenset[int], str]] = []
        for (_, text), run in zip(spans[c], span_sets[c], strict=True):
            if levels and levels[-1][0] == run:
                levels[-1] = (run, f"{levels[-1][1]} {text}")  # a wrapped spanning header
            else:
                levels.append((run, text))
        parts = [text for _, text in levels]
        if own["text"][c]:
            parts.append(own["text"][c])
        paths.append(" / ".join(parts))
    return paths


def _own_headers(
    header_lines: list[Line],
    phrases: list[list[Chunk]],
    direct: list[list[list[int]]],
    n_cols: int,
    pitch: float,
) -> dict:
    """Each column's own header: phrases over it alone, climbing single-spaced lines."""
    text = [""] * n_cols
    used: set[tuple[int, int]] = set()
    tops = [ln.y0 for ln in header_lines]
    bottoms = [ln.y1 for ln in header_lines]
    for c in range(n_cols):
        parts: list[str] = []
        below = None
        for li in range(len(phrases) - 1, -1, -1):
            hits = [i for i, cover in enumerate(direct[li]) if cover == [c]]
            # Line distance by tops or by bottoms, whichever is steadier: ascenders
            # move the top of a line, descenders its bottom.
            step = (
                min(tops[below] - tops[li], bottoms[below] - bottoms[li])
                if below is not None
                else 0
            )
            if step > 1.15 * pitch:
                break  # a rule or a gap: the spanning tier starts here
            if not hits:
                if parts:
                    break
                continue
            parts.insert(0, " ".join(phrases[li][i].text.strip() for i in hits))
            used.update((li, i) for i in hits)
            below = li
        text[c] = " ".join(parts)
    return {"text": text, "used": used}


def _column_boxes(columns: list[Column], phrases: list[list[Chunk]], own: dict) -> list[Column]:
    """Widen each column box by its own header phrases: a printed column is as wide as
    its widest figure or header word, and spanning headers are centred on that box."""
    boxes = list(columns)
    for li, i in own["used"]:
        ch = phrases[li][i]
        c = min(range(len(columns)), key=lambda k: abs(columns[k].mid - (ch.x0 + ch.x1) / 2))
        b = boxes[c]
        boxes[c] = Column(min(b.x0, ch.x0), max(b.x1, ch.x1), b.align)
    return boxes


def _direct_cover(chunk: Chunk, columns: list[Column], height: float) -> list[int]:
    """Columns whose middle lies under the phrase (with a little slack)."""
    slack = 0.3 * height
    return [c for c, col in enumerate(columns) if chunk.x0 - slack <= col.mid <= chunk.x1 + slack]


def _nearest(chunk: Chunk, columns: list[Column]) -> int:
    mid = (chunk.x0 + chunk.x1) / 2
    return min(range(len(columns)), key=lambda c: abs(columns[c].mid - mid))


def _centred_run(
    chunk: Chunk,
    cover: list[int],
    columns: list[Column],
    claimed: dict[int, int],
    owner: int,
    height: float,
) -> range:
    """The longest run of columns containing ``cover`` whose middle is under the phrase."""
    lo, hi = min(cover), max(cover)
    mid = (chunk.x0 + chunk.x1) / 2
    pitch = (columns[-1].mid - columns[0].mid) / max(len(columns) - 1, 1)
    tolerance = max(0.3 * pitch, height)
    free = {c for c in range(len(columns)) if claimed.get(c, owner) == owner}
    left, right = lo, hi
    while left - 1 in free:
        left -= 1
    while right + 1 in free:
        right += 1
    best = range(lo, hi + 1)
    for a in range(left, lo + 1):
        for b in range(hi, right + 1):
            run_mid = (columns[a].x0 + columns[b].x1) / 2
            if abs(run_mid - mid) <= tolerance and b - a > len(best) - 1:
                best = range(a, b + 1)
    return best
