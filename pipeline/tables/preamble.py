"""The lines above a table's first body row: its title, unit lines and column heads.

A title is a "Table ..." line (with its wrapped continuation), or, for tables the
bulletins print without a number, the title-like lines above the unit line or over the
heads; a chart legend, a note of the table above ("Note: ...") or a page number is never
a title. :func:`read_preamble` splits a table block's preamble into those parts.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING

from pipeline.tables.titles import is_legend, title_like
from pipeline.tables.units import read_unit

if TYPE_CHECKING:
    from pipeline.tables.headers import Column
    from pipeline.tables.line_kinds import RowLine

_SOURCE_NOTE = re.compile(r"^\W{0,2}(source|note)s?\s*:", re.IGNORECASE)


def read_preamble(
    preamble: list[RowLine],
    pitch: float,
    height: float,
    find_untitled: bool = True,
    span: tuple[float, float] | None = None,
    page_mid: float | None = None,
) -> tuple[str, list[str], list[RowLine]]:
    """Title, unit lines and header lines from the lines above the first body row.

    The title is a "Table ..." line (with the line after it when the title wraps), or
    else the title-like text lines just above the unit line or the headers; a chart
    legend (several short phrases spread over the line) is never a title. ``span`` is
    the table's left and right edge: an untitled table's title is centred over it (or
    set flush with its left edge) or centred on the page (``page_mid``), never over one
    of its columns.
    """
    spans = (span, page_mid)
    title_at = max((i for i, r in enumerate(preamble) if r.kind == "title"), default=None)
    unit_at = [i for i, r in enumerate(preamble) if r.kind == "unit"]
    if title_at is not None:
        # a unit line above the title is printed at the head of the page, for every table
        # on it (the caller reads it as the page head), not under this table's title
        unit_at = [i for i in unit_at if i > title_at]
    last_unit = unit_at[-1] if unit_at else None
    unit_lines = [preamble[i].line.text for i in reversed(unit_at)]
    title = ""
    if title_at is not None:
        parts = [preamble[title_at]]
        first = preamble[title_at].line
        for r in preamble[title_at + 1 :]:
            if _CONTINUED_END.search(parts[-1].line.text):
                # "...Securities—Continued" closes the title; a line under it is a
                # subtitle ("Part B — Bills ...") or the unit line
                if read_unit(r.line.text) is not None and r.kind == "text":
                    unit_lines.insert(0, r.line.text)
                    title_at += 1
                break
            # a wrapped title goes on in one phrase right under its first line, centred
            # under it (or flush with it); a column head under a title without a unit
            # line ("Held by", "Millions of dollars") stands over the value columns
            close = r.line.y0 - parts[-1].line.y1 <= 1.2 * height
            chunks = r.line.chunks
            one_phrase = all(
                b.x0 - a.x1 < 2 * height for a, b in zip(chunks, chunks[1:], strict=False)
            )
            aligned = (
                abs((r.line.x0 + r.line.x1) / 2 - (first.x0 + first.x1) / 2) <= 2 * height
                or abs(r.line.x0 - first.x0) <= height
            )
            if not (r.kind == "text" and close and one_phrase and aligned):
                break
            if _legend(r, height) or _SOURCE_NOTE.match(r.line.text):
                break
            if read_unit(r.line.text) is not None:
                # "Holdings at end of period in millions of dollars. Source: ..." under
                # the title is its unit line, whatever words it opens with
                unit_lines.insert(0, r.line.text)
                title_at += 1
                break
            parts.append(r)
        title = " ".join(r.line.text for r in parts)
        title_at += len(parts) - 1
    elif last_unit is not None:
        # the title lines right above the unit line: at most two, close together, and
        # never a note of the table above ("Note: Negative figures ...", "3 This does ...");
        # a title wrapped over more lines goes on in small letters ("Ratios of Index of
        # Wholesale Prices / in 39 Countries to Index of Wholesale / Prices in the United
        # States", 1939-12 p68): a line opening in small letters has its start above it
        above: list[RowLine] = []
        below = preamble[last_unit]
        for r in reversed(preamble[:last_unit]):
            if len(above) >= 2 and not _runs_on(r, below):
                break
            # (a title line with a count, "Indexes of Prices of 40 Foreign", is read as
            # a head line of words and a figure: one phrase of words, it is a title line)
            worded = r.kind == "header" and _one_phrase(r, height) and len(r.line.text.split()) >= 4
            if (
                (r.kind != "text" and not worded)
                or not title_like(r.line.text)
                or _legend(r, height)
                or _NOTE_LINE.match(r.line.text)
                or below.line.y0 - r.line.y1 > 2.5 * height
                or _heading_over(r, below)
            ):
                break
            above.insert(0, r)
            below = r
        title = " ".join(r.line.text for r in above)
    start = max(i for i in (title_at, last_unit, -1) if i is not None) + 1
    # A source note ("[Source: ...]") under the title is not a column header.
    headers = [r for r in preamble[start:] if not _SOURCE_NOTE.match(r.line.text)]
    # Without a title or unit line, the headers are the lines just above the first row;
    # footnotes of the table above are separated from them by a gap. Under a title or a
    # unit line every line down to the first row is a head line, however tall a gap a
    # two-deck head leaves (1948-05 p55: "Calendar year" over a lower deck "Ounces").
    tail: list[RowLine] = []
    for row in reversed(headers):
        if tail and tail[0].mid - row.mid > 2.5 * pitch and not (title or unit_lines):
            break
        tail.insert(0, row)
    if not title and find_untitled:
        # an untitled-by-number table: its title is the run of sentence-like lines
        # (one phrase each, several words) at the top of its heads, centred over them
        skip = 1 if tail and _page_number(tail[0]) else 0
        lead = []
        for row in tail[skip:]:
            if not (
                _title_line(row, height)
                and _centred(row, *spans, height)
                or lead
                and _title_continued(row, lead[-1], height)
            ):
                break
            lead.append(row)
        while len(lead) > 1 and _dated(lead[-1]) and not lead[-1].line.text[:1].islower():
            lead.pop()  # a subtitle under the title ("Calendar Years 1938 and 1939")
        if lead and skip + len(lead) < len(tail):
            title = " ".join(r.line.text for r in lead)
            tail = tail[skip + len(lead) :]
        else:
            # or the last run of such lines above the heads, set off by a rule or a gap
            above = headers[: len(headers) - len(tail)]
            run: list[RowLine] = []
            for k in range(len(above) - 1, -1, -1):
                row = above[k]
                # a wrapped title's second line may carry figures ("in 39 Countries to
                # Index of Wholesale", 1939-12 p68): it goes on from a title line above
                wrapped = (
                    bool(run)
                    and k > 0
                    and (
                        _title_line(above[k - 1], height)
                        and _title_continued(row, above[k - 1], height)
                    )
                )
                if (
                    (_title_line(row, height) or wrapped)
                    and _centred(row, *spans, height)
                    and (not run or run[0].mid - row.mid <= 2 * pitch)
                ):
                    run.insert(0, row)
                elif run:
                    break
            while len(run) > 1 and _dated(run[-1]) and not run[-1].line.text[:1].islower():
                run.pop()  # a subtitle under the title ("Calendar Years 1938 and 1939")
            if run:
                # the title's wrapped second line ("for the First 5 Months, Fiscal Year
                # 1941") carries figures, so it is not a title line of its own
                at = above.index(run[-1])
                for row in above[at + 1 :]:
                    if not _title_continued(row, run[-1], height):
                        break
                    run.append(row)
            if run and (tail[0].mid - run[-1].mid if tail else 0) <= 12 * pitch:
                title = " ".join(r.line.text for r in run)
    return title.strip(), unit_lines, tail


# a footnote or note line of the table above: "Note: ...", "3 This does not ...", "2/ ..."
_NOTE_LINE = re.compile(r"^\s*([A-Za-z]ote\s*:|\d{1,2}/?\s|\*|source\s*:)", re.IGNORECASE)


def _title_line(row: RowLine, height: float) -> bool:
    """A line that reads as a title: one phrase of three or more words, no figures."""
    chunks = row.line.chunks
    if row.kind not in ("text", "title") or any(
        c.is_number and not _DATE_FIGURE.fullmatch(c.text.strip()) for c in chunks
    ):
        return False  # figures, but for a date's day and year ("as of Sept. 30, 1983")
    text = row.line.text
    if not re.match(r"^\W{0,2}[A-Z0-9]", text):
        return False  # a head's second line ("counts and loans"), not a title's first
    if re.search(r"[A-Za-z0-9]\s*:$", text.strip()):
        return False  # a stub heading ("Face amount outstanding as of December 31, 1940:")
    letters = re.sub(r"[^A-Za-z]", "", text)
    if _dated(row) and letters.isupper():
        return False  # a dated page head ("TREASURY FINANCING OPERATIONS, JANUARY-MARCH 1984")
    gaps = [b.x0 - a.x1 for a, b in zip(chunks, chunks[1:], strict=False)]
    # one phrase; a long title line may keep one wide gap where OCR dropped a word
    wide = [g for g in gaps if g >= 2 * height]
    one_phrase = not wide or (len(wide) == 1 and wide[0] < 10 * height and len(text.split()) >= 5)
    return one_phrase and len(text.split()) >= 3 and title_like(text)


_DATE_FIGURE = re.compile(r"\d{1,2},?|(18|19|20)\d\d[.,]?")
_CONTINUED_END = re.compile(
    r"[(\[\s\-\u2013\u2014]\s*(continued|cont'?d)\s*\.?\s*[)\]]?\s*$", re.IGNORECASE
)


def _runs_on(row: RowLine, below: RowLine) -> bool:
    """``below`` goes on from ``row`` as a title wraps: in small letters, in the same
    size of type, neither line closing a sentence (a note's paragraph above a unit line,
    "... trust funds." over a title, is no part of the title)."""
    h0, h1 = row.line.y1 - row.line.y0, below.line.y1 - below.line.y0
    return (
        below.line.text[:1].islower()
        and abs(h0 - h1) <= 0.15 * max(h0, h1)
        and not any(r.line.text.rstrip().endswith(".") for r in (row, below))
    )


def _one_phrase(row: RowLine, height: float) -> bool:
    """The line's words are set a word-space apart, starting with a capital."""
    chunks = row.line.chunks
    return bool(re.match(r"^\W{0,2}[A-Z]", row.line.text)) and all(
        b.x0 - a.x1 < 2 * height for a, b in zip(chunks, chunks[1:], strict=False)
    )


def _dated(row: RowLine) -> bool:
    return any(c.is_number for c in row.line.chunks)


def _centred(
    row: RowLine, span: tuple[float, float] | None, page_mid: float | None, height: float
) -> bool:
    """A line centred over the table or on the page, or set flush with the table's left
    edge: where a title is printed. A column head stands over one column ("Ratio of
    Silver to Gold and Silver" over the last column of 1939-12 p63), well off both."""
    if span is None:
        return True
    x0, x1 = span
    mid = (row.line.x0 + row.line.x1) / 2
    if page_mid is not None and abs(mid - page_mid) <= 0.1 * page_mid:
        return True
    return abs(mid - (x0 + x1) / 2) <= 0.2 * (x1 - x0) or abs(row.line.x0 - x0) <= 2 * height


def _heading_over(row: RowLine, title: RowLine) -> bool:
    """An all-capitals line over a title set in capitals and small letters: the page's
    or section's heading ("SUMMARY OF ACCOUNTS AND LOANS RECEIVABLE ... AS OF SEPT. 30,
    1983 AND 1982" over "Accounts and Loans Receivable by Agency"), not the title's
    first line (a title wraps in one style)."""
    letters = re.sub(r"[^A-Za-z]", "", row.line.text)
    below = re.sub(r"[^A-Za-z]", "", title.line.text)
    return len(letters) >= 8 and letters.isupper() and not below.isupper()


def _title_continued(row: RowLine, above: RowLine, height: float) -> bool:
    """The second line of a wrapped title, figures allowed ("for the First 4 Months,
    Fiscal Year 1940"): one phrase right under the line above, mostly words, going on
    with a lower-case word."""
    chunks = row.line.chunks
    if row.kind != "text" or row.line.y0 - above.line.y1 > 1.5 * height:
        return False
    if any(b.x0 - a.x1 >= 2 * height for a, b in zip(chunks, chunks[1:], strict=False)):
        return False
    if not row.line.text[:1].islower():
        return False  # a subtitle ("Calendar Years 1938 and 1939") or a unit line, not a run-on
    words = [w for w in row.line.text.split() if re.search(r"[A-Za-z]{2,}", w)]
    figures = [c for c in chunks if c.is_number]
    return len(words) >= 3 and len(figures) < len(words) and title_like(row.line.text)


def _page_number(row: RowLine) -> bool:
    """A line holding only a figure (the page number over the table)."""
    return len(row.line.chunks) == 1 and row.line.chunks[0].is_number


def _legend(row: RowLine, height: float) -> bool:
    chunks = row.line.chunks
    gaps = [b.x0 - a.x1 for a, b in zip(chunks, chunks[1:], strict=False)]
    return is_legend([c.text for c in chunks], gaps, height)


_SCALE_HEAD = re.compile(r"^\W{0,2}(thousands|millions|billions)\s+of\s", re.IGNORECASE)


def unit_heads(preamble: list[RowLine], columns: list[Column], height: float) -> list[RowLine]:
    """A unit printed as a column head ("Millions of dollars" over the value columns,
    not over the stub, no brackets) is a head line: it is read with the other heads, as
    the spanner over the columns it stands over. A unit line says "(In millions of
    dollars)", "In millions of dollars", or "millions of dollars)" when OCR lost its
    opening."""
    out = []
    for r in preamble:
        over_columns = (
            r.line.x0 >= columns[0].x0 - 3 * height and r.line.x1 <= columns[-1].x1 + 3 * height
        )
        bare = _SCALE_HEAD.match(r.line.text) and not re.search(r"[()\[\]]", r.line.text)
        if r.kind == "unit" and over_columns and bare:
            r = replace(r, kind="text", label=[], values=[])
        out.append(r)
    return out


def unit_over_columns(
    preamble: list[RowLine], unit_lines: list[str], columns: list[Column], height: float
) -> bool:
    """Every unit line of an untitled block is set inside its head box, over the value
    columns only (not over the stub): "Net Registered Tonnage (in thousands)" as the
    spanner of a lower panel whose spanner words OCR lost. Such a block is a panel of
    the table above (1940-05 p79); a unit line reaching over the stub ("(In millions of
    dollars - on basis of daily Treasury statements)") stands under a title of its own,
    which OCR may have lost (1939-12 p31), and takes no title from the table above."""
    texts = {" ".join(u.split()) for u in unit_lines}
    rows = [r for r in preamble if " ".join(r.line.text.split()) in texts]
    return (
        bool(unit_lines)
        and len(rows) == len(texts)
        and all(r.line.x0 >= columns[0].x0 - height for r in rows)
    )
