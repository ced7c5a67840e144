"""Label phrases OCR ran across the stub's edge into a value column, cut there.

A body row's label is every leading chunk that is not a figure
(:func:`pipeline.tables.line_kinds.split_label`), and the line reader joins words a
word-space apart into one phrase. A figure OCR garbled into letters can so become the
tail of the label's own phrase: "December 13/. n*sq5-7—", the first figure of a restated
December set a word-space after its footnote mark (1967-08 p97), or "rape ang", the
4,226 of Aug. read a line above the stub's "ang" and joined to it as the label's first
line (1940-05 p73, Silver Production). :func:`pipeline.tables.columns.split_strays`
takes a misread figure out of the label chunk by chunk; inside one phrase it is never
seen. This cuts such a phrase where its words enter a value column, into the stub's
words and the column's, and leaves the figure to ``split_strays``.

Only value columns holding a figure on half the body rows or more cut: a stub can set
figures at tab stops of its own ("Jan. 2, 1935-Jan. 1, 1936..", its days and years,
1939-12 p51 Net Capital Movement), columns of a few rows where label words stand too.
"""

from __future__ import annotations

from pipeline.tables.headers import Column
from pipeline.tables.line_kinds import RowLine
from pipeline.tables.lines import Chunk, is_leader, merge_chunks


def main_columns(body: list[RowLine], columns: list[Column], height: float) -> list[int]:
    """The value columns holding a figure on at least half the body rows."""
    main = []
    for k, col in enumerate(columns):
        rows = sum(
            any(v.is_number and col.x0 - height <= v.align_x <= col.x1 + height for v in r.values)
            for r in body
        )
        if 2 * rows >= len(body):
            main.append(k)
    return main


def _column_of(word: Chunk, columns: list[Column], main: list[int], height: float) -> int | None:
    """The main value column whose span holds the word's centre (a half text height of
    slack), when the word stands past the stub (from the first main column on)."""
    if not main or word.x0 < columns[main[0]].x0 - 0.5 * height:
        return None
    centre = (word.x0 + word.x1) / 2
    for k in main:
        col = columns[k]
        if col.x0 - 0.5 * height <= centre <= col.x1 + 0.5 * height:
            return k
    return None


def _phrases(words: list[Chunk]) -> Chunk:
    out = words[0]
    for w in words[1:]:
        out = merge_chunks(out, w, " ")
    return out


def cut_label_phrases(body: list[RowLine], columns: list[Column], height: float) -> list[RowLine]:
    """``body`` with each label phrase that holds a word standing in a main value column
    (never the label's first word) cut into runs of words by where they stand: the stub,
    or one column. The label's chunks are then in reading order, left to right. Rows
    without such a phrase are returned as they are."""
    if not columns:
        return body
    main = main_columns(body, columns, height)
    out: list[RowLine] = []
    for row in body:
        first = min((c.x0 for c in row.label), default=0.0)
        label: list[Chunk] = []
        cut = False
        for chunk in row.label:
            if chunk.number is not None or is_leader(chunk.text) or len(chunk.parts) < 2:
                label.append(chunk)
                continue
            runs: list[list[Chunk]] = []
            zones: list[int | None] = []
            for w in sorted(chunk.parts, key=lambda w: w.x0):
                zone = _column_of(w, columns, main, height) if w.x0 > first else None
                if runs and zones[-1] == zone:
                    runs[-1].append(w)
                else:
                    runs.append([w])
                    zones.append(zone)
            if len(runs) == 1 or all(z is None for z in zones):
                label.append(chunk)
                continue
            label += [_phrases(run) for run in runs]
            cut = True
        if cut:
            label.sort(key=lambda c: c.x0)
            out.append(RowLine(row.line, row.kind, label, row.values))
        else:
            out.append(row)
    return out
