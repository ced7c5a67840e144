"""Which lines of a page make up one table: runs of body rows and the lines above them.

Runs of body rows form tables, split at titles, unit lines and large gaps; a table goes
on past a gap where only its stub headings or a section band like its own head band stand
in it; a run with no value columns (a running head, a contents page) is text above the
next table. Split out of :mod:`pipeline.tables.layout`, which reads each block as a table.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from rapidfuzz import fuzz
from rapidfuzz.distance import Levenshtein

from pipeline.tables.columns import find_columns
from pipeline.tables.headers import Column
from pipeline.tables.line_kinds import RowLine
from pipeline.tables.lines import Line


@dataclass
class TableBlock:
    """One table found on a page: its preamble (title, unit, headers) and body rows."""

    preamble: list[RowLine]
    body: list[RowLine] = field(default_factory=list)
    inner: dict[int, list[RowLine]] = field(default_factory=dict)  # text lines before body row i
    page_mid: float | None = None  # the middle of the page image, where titles are centred
    # year -> the estimate mark the page prints after it (estimate_rows.page_estimate_marks)
    estimate_marks: dict[int, str] = field(default_factory=dict)


def join_raised_labels(rows: list[RowLine], height: float) -> list[RowLine]:
    """A label with its leaders set a little above its figures ("01/05/22 ......" over
    "7,692,822 7,858,251 ..." in a text layer) is one body row with them."""
    out: list[RowLine] = []
    for row in rows:
        prev = out[-1] if out else None
        if (
            prev is not None
            and prev.kind == "text"
            and row.kind == "body"
            # the figures' own "label" is only their first figure, taken at the margin
            and all(c.is_number for c in row.label)
            and re.search(r"(\.\s?){3,}$|\u2026$", prev.line.text)
            and 0 < row.line.y0 - prev.line.y0 <= 1.5 * height
            and prev.line.x1 <= row.line.x0
        ):
            line = Line(row.line.doc_id, row.line.page_no, prev.line.line_idx,
                        prev.line.chunks + row.line.chunks)  # fmt: skip
            out[-1] = RowLine(line, "body", list(prev.line.chunks), row.label + row.values)
            continue
        out.append(row)
    return out


def is_contents_page(lines: list[Line]) -> bool:
    """A contents page (a "Contents" heading): its page numbers are not a table."""
    return any(
        len(ln.text) <= 20 and fuzz.ratio(ln.text.strip().lower(), "contents") >= 85 for ln in lines
    )


def split_tables(rows: list[RowLine], pitch: float) -> list[TableBlock]:
    """Runs of body rows; a title, unit line, header-like line or big gap ends a table.

    A lone "body row" (a page number, a heading with a footnote digit) is not a table:
    it is read again as plain text so the table below keeps its title.
    """
    blocks = _runs(rows, pitch)
    lone = {id(b.body[0]) for b in blocks if len(b.body) < 2}
    if not lone:
        return blocks
    rows = [RowLine(r.line, "text") if id(r) in lone else r for r in rows]
    return _runs(rows, pitch)


def _stub_headings_between(
    current: TableBlock, pending: list[RowLine], row: RowLine, pitch: float
) -> bool:
    """A table goes on past a wide gap when only stub headings stand in it ("TOTAL ASSETS
    PAYABLE / IN FOREIGN CURRENCIES:", 1940-05 p59): lines in the stub, left of every
    figure of the rows above, no line more than the usual gap from the next."""
    if not pending:
        return False
    # the amounts' left edge (a day "7" of "Feb. 7" may stand among the values)
    amounts = [c.x0 for r in current.body for c in r.values if len(re.sub(r"\D", "", c.text)) >= 3]
    if not amounts:
        return False
    # (a lone mark OCR made of a rule or a speck, "I", is no word of a heading)
    words = [c for p in pending for c in p.line.chunks if len(re.findall(r"\w", c.text)) >= 2]
    if not words or any(c.x1 >= min(amounts) for c in words):
        return False
    mids = [current.body[-1].mid, *(p.mid for p in pending), row.mid]
    return all(b - a <= 4.5 * pitch for a, b in zip(mids, mids[1:], strict=False))


_BAND_GAP = 12  # a section band may stand this many line pitches under the rows above


def _band_word(row: RowLine) -> str | None:
    """The first word of a section band line ("Series E", "Series H 5/"): one short
    phrase opening on a word of four letters or more, no figure of three digits."""
    chunks = row.line.chunks
    if not chunks or len(row.line.text.split()) > 3 or any(c.is_number for c in chunks):
        return None
    first = chunks[0].text.split()[0] if chunks[0].text.split() else ""
    return first.lower() if re.fullmatch(r"[A-Za-z]{4,}", first) else None


def _section_band_between(
    current: TableBlock, pending: list[RowLine], row: RowLine, pitch: float
) -> bool:
    """A table goes on past a wide gap at a band that opens a section of it the way its
    own head opens its first one: 1953-09 p29 prints "Series E" centred under the heads,
    then "Fiscal years:", "Calendar years:", "Months:" rows; far below, "Series H 5/"
    centred the same way, then the same stub headings and rows. The band's first word is
    the head band's (one OCR slip allowed, "Ssries"), set at the same place within two
    text heights; after it only stub headings, none more than the usual gap apart."""
    if not pending or not current.preamble:
        return False
    band = pending[0]
    word = _band_word(band)
    heads = [r for r in current.preamble[-3:] if r.kind == "text" and _band_word(r)]
    height = band.line.y1 - band.line.y0
    mid = (band.line.x0 + band.line.x1) / 2
    twin = any(
        Levenshtein.distance(word or "", _band_word(h) or "") <= 1
        and abs((h.line.x0 + h.line.x1) / 2 - mid) < 2 * height
        for h in heads
    )
    if word is None or not twin or band.mid - current.body[-1].mid > _BAND_GAP * pitch:
        return False
    rest = pending[1:]
    amounts = [c.x0 for r in current.body for c in r.values if len(re.sub(r"\D", "", c.text)) >= 3]
    if not amounts or any(c.x1 >= min(amounts) for p in rest for c in p.line.chunks):
        return False  # a line reaching into the figures is a head, not a stub heading
    mids = [band.mid, *(p.mid for p in rest), row.mid]
    return all(b - a <= 4.5 * pitch for a, b in zip(mids, mids[1:], strict=False))


def _runs(rows: list[RowLine], pitch: float) -> list[TableBlock]:
    blocks: list[TableBlock] = []
    current: TableBlock | None = None
    pending: list[RowLine] = []  # non-body lines since the last body row
    for row in rows:
        if row.kind == "body":
            gap_ok = current is not None and (
                row.mid - current.body[-1].mid <= 4 * pitch
                or _stub_headings_between(current, pending, row, pitch)
                or _section_band_between(current, pending, row, pitch)
            )
            if current is not None and gap_ok and all(p.kind == "text" for p in pending):
                if pending:
                    current.inner[len(current.body)] = pending
                current.body.append(row)
            else:
                current = TableBlock(preamble=pending, body=[row])
                blocks.append(current)
            pending = []
        else:
            pending.append(row)
    return blocks


def fold_non_tables(blocks: list[TableBlock], height: float) -> list[TableBlock]:
    """A run of "body rows" without value columns (a running head "May 1948 ... 33" over
    "TREASURY SURVEY ... 1948", or head lines that print counts, "5,886 commercial banks")
    is no table: its lines are text above the next table, whose title and unit line may
    stand above them. Without this the next table loses its title, and the page head is
    taken to end at the running head."""
    out: list[TableBlock] = []
    carry: list[RowLine] = []
    for block in blocks:
        columns = find_columns(block.body, height)
        if columns and not is_page_listing(block, columns):
            if carry:
                block.preamble = carry + block.preamble
                carry = []
            out.append(block)
            continue
        carry += block.preamble
        for i, row in enumerate(block.body):
            carry += block.inner.get(i, []) + [RowLine(row.line, "text")]
    return out


def is_page_listing(block: TableBlock, columns: list[Column]) -> bool:
    """A contents page: one column of bare page numbers after long titles, not a table."""
    if len(columns) != 1:
        return False
    figures = [c for r in block.body for c in r.values if c.is_number]
    return all(re.fullmatch(r"\d{1,3}", c.text.strip()) for c in figures)
