"""The stub of one table, row by row: each body row's label as printed (its wrapped
lines joined, whether they stand over the figures' line or under it, marks stripped,
OCR slips corrected by the archive's lexicon) and the stub heading it sits under.

Works on the body and inner lines of a ``blocks.TableBlock``; ``columns.place_row``
splits a row into label and placed figures.
"""

from __future__ import annotations

import re
from typing import Any

from pipeline.tables.columns import char_width, place_row
from pipeline.tables.labels import (
    StubTree,
    continues_label,
    continues_phrase,
    heading_text,
    is_heading,
    is_period_row,
    join_wrapped,
    strip_marks,
    strip_row_marks,
)
from pipeline.tables.lexicon import Lexicon
from pipeline.tables.lines import clean_label, is_leader


def read_stub(
    block: Any,
    columns: list,
    height: float,
    pitch: float,
    lexicon: Lexicon | None,
) -> tuple[list[str], list[str], list[str], list[dict]]:
    """Per body row of ``block``: its label, its label as read (before lexicon
    corrections), its parent heading ("" if none) and its figures placed in columns."""
    labels: list[str] = []
    read_labels: list[str] = []  # as read, before lexicon corrections
    parents: list[str] = []
    placed_rows: list[dict] = []
    stub = StubTree(height)
    tails = _label_tails(block, columns, height, pitch)
    split = _stub_split(block.body, height)
    per_char = char_width(block.body)
    for row_idx, row in enumerate(block.body):
        label, placed = place_row(row, columns, height, per_char)
        if split is not None:
            label = _naming_part(row, split) or label
        label = join_wrapped([label, tails.get(row_idx, "")])
        prefix, new_headings = _continuation(block.inner.get(row_idx, []))
        if (
            prefix
            and is_period_row(label)
            and not is_period_row(prefix)  # "1990" over "Jan" is the row's year
            and bool(_WORDS.fullmatch(prefix))  # words, no "Add. 6/15/38)"
            and not continues_phrase(prefix, label)
        ):
            # a period does not wrap: the text over "1935" is a heading ("Receipts")
            over = block.inner.get(row_idx, [])
            x_prefix = min(r.line.x0 for r in over)
            if columns and max(r.line.x1 for r in over) < columns[0].x0:
                # set in the stub, it heads the row: from where the row starts if it
                # starts further right (its first word lost, "life insurance" of
                # "Veterans' life insurance"); not a stray word out over the columns
                # ("Pace" over "1940", 1948-05 p18)
                x_prefix = min(x_prefix, min((c.x0 for c in row.label), default=row.line.x0))
            new_headings, prefix = [*new_headings, (strip_marks(prefix), x_prefix)], ""
        if not new_headings and _new_section(block, row_idx, height, pitch):
            stub.open = []
        for text, x in new_headings:
            stub.heading(lexicon.correct(text)[0] if lexicon is not None else text, x)
        x_row = min((c.x0 for c in row.label), default=row.line.x0)
        if prefix:
            x_row = min(x_row, min(r.line.x0 for r in block.inner.get(row_idx, [])))
        labels.append(strip_row_marks(clean_label(join_wrapped([prefix, label]))))
        read_labels.append(labels[-1])
        if lexicon is not None:
            labels[-1], _ = lexicon.correct(labels[-1])
        parents.append(stub.row(labels[-1], x_row))
        placed_rows.append(placed)
    return labels, read_labels, parents, placed_rows


def _new_section(block: Any, row_idx: int, height: float, pitch: float) -> bool:
    """A row set off by a blank line from the row above, with no text between them, at
    another indent: the stub's groups end there ("Gross receivables", indented past
    "Off-budget agencies" a blank line above, is no agency of "Executive branch:",
    1984-06 p88). Rows going on at one indent past a blank line (lists set in groups
    of five) stay in their group."""
    if row_idx == 0 or block.inner.get(row_idx):
        return False
    row, above = block.body[row_idx], block.body[row_idx - 1]
    x, x_above = row.line.x0, above.line.x0
    return row.mid - above.mid > 1.7 * pitch and abs(x - x_above) > 0.5 * height


def _label_tails(block: Any, columns: list, height: float, pitch: float) -> dict[int, str]:
    """Text lines that end the label of the body row above them (taken out of
    ``block.inner``): where a table sets a row's figures on its label's first line
    ("6-1/2% note--10/15/06-D-" over "reopening"; "Total international" over "and
    regional......"), the rest of the label follows single-spaced below, in the stub."""
    tails: dict[int, str] = {}
    for row_idx, row in enumerate(block.body[:-1]):
        below = block.inner.get(row_idx + 1, [])
        label = " ".join(c.text for c in row.label if not is_leader(c.text))
        taken, prev_mid = [], row.mid
        for line in below:
            text = clean_label(line.line.text)
            if (
                line.mid - prev_mid > 0.85 * pitch
                or line.line.x1 > columns[0].x0 - 0.5 * height
                or not continues_label(join_wrapped([label, *taken]), line.line.text)
            ):
                break
            taken.append(text)
            prev_mid = line.mid
        if taken:
            tails[row_idx] = join_wrapped(taken)
            block.inner[row_idx + 1] = below[len(taken) :]
    return tails


# A line of words: no figure, date or bracket ("Add. 6/15/38)" is a label's first line).
# Words keep their apostrophe, straight or as OCR reads it, curly ("Veterans\u2019
# services"), and a colon inside the line ("Less: Redemptions"): both head year rows in
# the 1940-05 p20 layout, and read as the year row's first line they took its year. Over
# a period row, which never wraps, the words may open in lower case: OCR lost the first
# word of the heading ("life insurance"); as the row's first line, they took its year
# and left the rows under it in the heading above (another series).
_WORDS = re.compile(r"[A-Za-z][A-Za-z'\u2019:&,.\- ]{2,60}")
# ... and a section heading printed without a colon opens with a capital
SECTION_HEAD = re.compile(r"[A-Z][A-Za-z'\u2019:&,.\- ]{2,60}")


def _continuation(inner: list) -> tuple[str, list[tuple[str, float]]]:
    """Text lines just above a body row: the first part of a wrapped row label, and the
    stub headings among them, top down ("Asia:" over "China:"), each with its indent
    (a heading's wrapped first lines joined to it): they become the parents of the
    rows indented under them."""
    parts: list[tuple[str, float]] = []
    headings: list[tuple[str, float]] = []
    for row in inner:
        text = clean_label(row.line.text)
        if is_heading(row.line.text):
            head, x = clean_label(heading_text(row.line.text)).rstrip(":-\u2014 "), row.line.x0
            # a heading wrapped over lines: "Duty-free" / "articles:", "Call classes
            # (due or first" / "becoming callable):"
            while parts and continues_phrase(parts[-1][0], head):
                first, x_first = parts.pop()
                first = re.sub(r"\s+[.\u2026\u00b7]+$", "", first)  # a leader dot left
                head, x = join_wrapped([first, head]), min(x, x_first)
            # a line of words standing alone over a heading is a section heading
            # printed without a colon ("Assets" over "U.S. dollars:", 2016-09 ESF-1)
            if len(parts) == 1 and SECTION_HEAD.fullmatch(parts[0][0]):
                headings.append((strip_marks(parts[0][0]), parts[0][1]))
            headings.append((strip_marks(head), x))
            parts = []
        elif text:
            if re.search(r"[A-Za-z],$", row.line.text.rstrip()) and not text.endswith(","):
                text += ","  # "Less taxes receivable, allowances," / "and ..." keeps its comma
            parts.append((text, row.line.x0))
    # the last two lines, and more above them while each runs on into the next
    # ("Articles com-" / "posed in chief" / "value of manu-" / "factured sugar")
    start = max(len(parts) - 2, 0)
    while start > 0 and continues_phrase(parts[start - 1][0], parts[start][0]):
        start -= 1
    return " ".join(p for p, _ in parts[start:]), headings


_DATE = re.compile(r"\d{1,2}/\d{1,2}/\d{2,4}")


def _label_chunks(row: Any) -> list:
    return [c for c in row.label if not is_leader(c.text)]


def _stub_split(body: list, height: float) -> float | None:
    """Where a stub split into two sub-columns divides them ("Issue date" |
    "Description of securities", 1997-09 PDO-4A; "Date of financing" | "Date of
    maturity", 1984-06 PDO-4B), or None: most rows' labels are two phrases, the first
    a date set at one x (within a text height), the second clear of every such date
    (descriptions may be centred, so they start at different x)."""
    pairs = [
        (chunks[0], chunks[1])
        for row in body
        if len(chunks := _label_chunks(row)) == 2 and _DATE.fullmatch(chunks[0].text.strip())
    ]
    if len(pairs) < 3 or len(pairs) < 0.6 * len(body):
        return None
    starts = sorted(first.x0 for first, _ in pairs)
    mid = starts[len(starts) // 2]
    if sum(abs(x - mid) <= height for x in starts) < 0.8 * len(pairs):
        return None
    dates_end = max(first.x1 for first, _ in pairs)
    seconds_start = min(second.x0 for _, second in pairs)
    if seconds_start <= dates_end:
        return None
    return (dates_end + seconds_start) / 2


def _naming_part(row: Any, split: float) -> str:
    """The sub-column of a split stub that names the row: the words of the
    description ("6% note--09/30/98-AK", not its issue date); of two dates, the
    first ("3/25/82", the date of financing, not the date of maturity)."""
    left = " ".join(c.text for c in _label_chunks(row) if c.x0 < split)
    right = " ".join(c.text for c in _label_chunks(row) if c.x0 >= split)
    if re.search(r"[A-Za-z]", right):
        return right
    return left
