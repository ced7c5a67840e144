"""Value columns of a table body: found from the figures' right edges across the body
rows, and each row's figures placed in them (its label is what stands left of them).
Split out of :mod:`pipeline.tables.layout`, which finds the blocks and reads the tables.
"""

from __future__ import annotations

import re
from statistics import median
from typing import TYPE_CHECKING

from pipeline.tables.headers import Column
from pipeline.tables.labels import month_abbreviation_like
from pipeline.tables.lines import Chunk, is_leader, merge_chunks
from pipeline.tables.numbers import parse_number

if TYPE_CHECKING:
    from pipeline.tables.line_kinds import RowLine


# A word box this many times wider than its characters at the body's typical width per
# character is no print: tesseract read a rule, or a rule with the figures on it, as one
# word ("829889" boxed from x 546 to 2136 across all nine columns under "Total other
# countries", 1984-06 p65, 20 times the body's 13 px a character; "82388" the same way
# on p63). Such a box is left out when the columns are found and placed in none of them.
# A total whose box took in the rules around it stays under the factor ("37" boxed 138
# px wide under its double rule, 1967-08 p78, 4.7 times).
JUNK_WIDTH_FACTOR = 8.0


def char_width(body: list[RowLine]) -> float | None:
    """The typical width of one printed character in the body: the median over the
    body's words of box width / characters (None without words)."""
    widths = sorted(
        (w.x1 - w.x0) / len(w.text.strip())
        for r in body
        for c in [*r.label, *r.values]
        for w in c.parts
        if w.text.strip()
    )
    return widths[len(widths) // 2] if widths else None


def is_junk_box(chunk: Chunk, per_char: float | None) -> bool:
    """A chunk holding a word box far wider than its characters could fill (see
    ``JUNK_WIDTH_FACTOR``)."""
    if not per_char:
        return False
    return any(
        (w.x1 - w.x0) > JUNK_WIDTH_FACTOR * per_char * max(len(w.text.strip()), 1)
        for w in chunk.parts
    )


def find_columns(body: list[RowLine], height: float) -> list[Column]:
    """Value columns: clusters of the figures' right edges across body rows (junk
    boxes left out, see ``is_junk_box``)."""
    per_char = char_width(body)
    figures = sorted(
        (
            (c.align_x, i, c)
            for i, r in enumerate(body)
            for c in r.values
            if c.is_number and not is_junk_box(c, per_char)
        ),
        key=lambda t: t[0],
    )
    if not figures:
        return []
    clusters: list[list[tuple[float, int, Chunk]]] = [[figures[0]]]
    for fig in figures[1:]:
        if fig[0] - clusters[-1][-1][0] > 0.8 * height:
            clusters.append([])
        clusters[-1].append(fig)
    clusters = _merge_disjoint(clusters)
    # A column is printed on most rows; a stray figure (OCR junk from a rule) is not.
    support = max(1, min(2, len(body)))
    columns = []
    for cl in clusters:
        if len({i for _, i, _ in cl}) >= support:
            columns.append(
                Column(
                    x0=min(c.x0 for _, _, c in cl),
                    x1=max(c.x1 for _, _, c in cl),
                    align=median(a for a, _, _ in cl),
                )
            )
    return columns


def _merge_disjoint(clusters: list[list[tuple[float, int, Chunk]]]) -> list[list]:
    """Join neighbouring clusters that never share a row and overlap horizontally: one
    column whose footnoted figures ("383.4 1/") end off the common right edge."""
    merged = [clusters[0]]
    for cl in clusters[1:]:
        prev = merged[-1]
        disjoint = not ({i for _, i, _ in prev} & {i for _, i, _ in cl})
        overlap = min(c.x1 for _, _, c in cl + prev) > max(
            min(c.x0 for _, _, c in prev), min(c.x0 for _, _, c in cl)
        )
        if disjoint and overlap:
            merged[-1] = prev + cl
        else:
            merged.append(cl)
    return merged


def place_row(
    row: RowLine, columns: list[Column], height: float, per_char: float | None = None
) -> tuple[str, dict[int, Chunk]]:
    """The row label and the row's value chunks placed in columns (by right edge). A junk
    box (``is_junk_box`` at ``per_char``) is placed nowhere: the figures OCR merged into
    it cannot be told from the junk."""
    label, strays = split_strays(row.label, columns, height)
    label_parts = [c.text for c in label if not is_leader(c.text)]
    placed: dict[int, Chunk] = {}
    for chunk in [*strays, *row.values]:
        if chunk.x1 < columns[0].x0 - 0.5 * height and not chunk.is_number:
            label_parts.append(chunk.text)  # a label word OCR put past the leaders
            continue
        if is_leader(chunk.text) or is_junk_box(chunk, per_char):
            continue
        col = min(range(len(columns)), key=lambda k: abs(columns[k].align - chunk.align_x))
        if not (columns[col].x0 - height <= chunk.align_x <= columns[col].x1 + height):
            col = _overlapping(chunk, columns)
            if col is None:
                continue
        if col in placed:
            placed[col] = _join_cell(placed[col], chunk)
        else:
            placed[col] = chunk
    return " ".join(label_parts), placed


def split_strays(
    label: list[Chunk], columns: list[Column], height: float
) -> tuple[list[Chunk], list[Chunk]]:
    """The row's label chunks, and the chunks past them that are figures of the value
    columns OCR read as no number.

    The line reader takes every word before the first figure for the label, so a figure
    misread as no number ran into it: "May in." ("131.4", 1941-01 p21; "a46" for "-46",
    p66; "ake" for "242", p69), "1943 (Betimated) 8%" ("-869"), "October . ay wu" ("*",
    ".4"), "1953 ™%,607" ("74,607"), "July. keg" ("429"), 1948-05 p17-p18 and 1953-09
    p16: labels no reader prints, whose stub periods were lost with them. Such a
    chunk, and every chunk right of it, goes to the values:

    - a chunk after the label's first, right of the first column's left edge, short as
      a figure's garble or holding a digit (not a day's one or two digits: "Feb. 7",
      1940-05 p61);
    - any chunk, the label's first too, standing a gutter past the chunk before it in
      the extent of a value column (left of the column where it is set flush right on
      one: "-5N7" for "-547"), when none of the chunks it takes is text a stub prints
      (``_STUB_TEXT``). Where OCR lost the stub word itself ("1948-January" read as "ee"
      at confidence 23, 1948-05 p18) the misread figure ("482" read as "s") is no label
      either: the row's label is lost, not "s"."""
    if not columns or not label:
        return label, []
    left = columns[0].x0 - 0.5 * height
    prev = None
    for k, chunk in enumerate(label):
        text = chunk.text.strip()
        if is_leader(text):
            prev = chunk
            continue
        if k > 0 and chunk.x0 >= left and _FIGURE_GARBLE.search(text) and not _day(chunk):
            return label[:k], label[k:]
        gutter = prev is None or is_leader(prev.text) or chunk.x0 - prev.x1 >= 0.9 * height
        in_column = any(col.x0 - height <= chunk.x1 <= col.x1 + height for col in columns)
        flush = prev is not None and any(abs(chunk.x1 - c.align) <= 0.5 * height for c in columns)
        if gutter and in_column and (chunk.x0 >= left or flush):
            if all(_past_label(c) for c in label[k:]):
                return label[:k], label[k:]
        prev = chunk
    return label, []


# a chunk OCR made of a figure: it holds a digit, or is as short as a figure's garble
_FIGURE_GARBLE = re.compile(r"\d|^\S{1,4}$")
# what a stub prints past a gutter and a misread figure never is: a word of four letters
# or more ("partially", "taxable", "regional", "Bond"), a month ("Aug. 1972", "May 1968
# B" past the coupon "4-3/4" of a security, 1967-08 p77; "Dee." for "Dec."), a year as
# printed or as a typewriter's comes back ("1943-51", "19k9"), a date ("2/15/53-55"), a
# coupon or a rate ("1-3/8", "1.90%"), a footnote mark ("Oil-exporting countries 2/")
_STUB_TEXT = re.compile(
    r"[A-Za-z]{4}|\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b"
    r"|(18|19|20)\d\d|\b(1[89]|20)[\dhkgoOIlSB]{2}\b"
    r"|(?<![\d,])\d{1,2}/\d\d|\d-\d/\d|\d\.\d+%|^\(?\d{1,2}/\)?$",
    re.IGNORECASE,
)


def _day(chunk: Chunk) -> bool:
    """A number of one or two digits: the day the label took on purpose ("Feb. 7")."""
    return chunk.is_number and len(re.findall(r"\d", chunk.text)) <= 2


def _past_label(chunk: Chunk) -> bool:
    """A chunk a misread figure of a value column may be, not text of the stub."""
    text = chunk.text.strip()
    if _STUB_TEXT.search(text) or any(
        # a month set capitalised, however misread ("Dee."); not "nea." for "n.a."
        w[:1].isupper() and month_abbreviation_like(w)
        for w in text.split()
    ):
        return False
    return not _day(chunk)


def _overlapping(chunk: Chunk, columns: list[Column]) -> int | None:
    best, overlap = None, 0.0
    for k, col in enumerate(columns):
        ov = min(chunk.x1, col.x1) - max(chunk.x0, col.x0)
        if ov > overlap:
            best, overlap = k, ov
    return best


def _join_cell(a: Chunk, b: Chunk) -> Chunk:
    """Two chunks in one cell: keep both texts; it is a figure if the joined text parses."""
    left, right = (a, b) if a.x0 <= b.x0 else (b, a)
    joined = merge_chunks(left, right, " ")
    joined.number = parse_number(joined.text) or parse_number(joined.text.replace(" ", ""))
    return joined
