"""What kind each printed line is (title, unit, head, body, text), and a body line's
label split from its figures. Split out of :mod:`pipeline.tables.layout`, which groups
the classified lines into table blocks and reads the tables.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from statistics import median

from pipeline.tables.labels import month_abbreviation_like
from pipeline.tables.lines import Chunk, Line, is_leader
from pipeline.tables.periods import MONTH_NAME
from pipeline.tables.titles import is_numbered_title
from pipeline.tables.units import index_base, is_unit_line

# a date closing a label after a comma: "balance, Sept." wants its day ("30,"),
# "balance, Sept. 30," its year (a stub of dates, "June 15, | 1963", keeps its columns)
_DATE_TO_DAY = re.compile(
    r",\s+(jan|feb|mar|apr|may|june?|july?|aug|sept?|oct|nov|dec)[a-z]*\.?$", re.I
)
_DATE_TO_YEAR = re.compile(r",\s+[A-Z][a-z]{2,8}\.?\s+\d{1,2},$")
# A security named by its coupon and maturity month ("2-5/8 June", "1-1/4% April",
# "2.30% August"): the maturity year (or call-and-maturity years) printed next is part
# of the name ("2-5/8 June 1954 (Debentures)", "1-1/2% October 1948-50"), not a figure,
# though typed at its own tab stop, several word-spaces past a short month.
_COUPON_TO_MONTH = re.compile(
    r"^\d{1,2}(-\d/\w+|\.\d{1,3})?%?\s+(jan|feb|mar|apr|may|june?|july?|aug|sept?|oct|nov|dec)"
    r"[a-z]*\.?$",
    re.I,
)
_MATURITY_YEAR = re.compile(r"(19|20)\d\d(-\d\d)?")
_YEAR_LIKE = re.compile(r"^((18|19|20)\d\d|\(\d{1,2}\))$")
# Figures a column head prints among its words: "Within 1 year", "1-5 years", "20 years
# or more" (maturity classes). A line of such figures *and* words is a head line.
_HEAD_FIGURE = re.compile(r"^\d{1,2}(\s*-\s*\d{1,2})?$")
_HEAD_WORD = re.compile(r"[A-Za-z]{3,}")
_NOT_HEAD_WORD = re.compile(r"^(n\.?\s?a\.?|none|nil)$", re.IGNORECASE)
# "n.a." (not available) in a figure column, as OCR reads its stops ("nea.", "nia.")
_NOT_AVAILABLE = re.compile(r"^n[.,:;ei]\s?a[.,]?$", re.IGNORECASE)


@dataclass
class RowLine:
    """A printed line with its kind and, for body rows, label and value chunks."""

    line: Line
    kind: str  # title | unit | header | body | text
    label: list[Chunk] = field(default_factory=list)
    values: list[Chunk] = field(default_factory=list)

    @property
    def mid(self) -> float:
        return (self.line.y0 + self.line.y1) / 2


def _left_margin(lines: list[Line]) -> float:
    """Where row labels start: a low percentile of the left edges of lines with figures."""
    starts = sorted(ln.x0 for ln in lines if sum(c.is_number for c in ln.chunks) >= 2)
    if not starts:
        starts = sorted(ln.x0 for ln in lines)
    return starts[len(starts) // 10]


def _line_pitch(rows: list[RowLine], height: float) -> float:
    """Single line spacing: the typical distance between consecutive body rows."""
    mids = [r.mid for r in rows if r.kind == "body"]
    steps = [b - a for a, b in zip(mids, mids[1:], strict=False) if b > a]
    return median(steps) if steps else 1.5 * height


def classify_line(line: Line, margin: float, height: float) -> RowLine:
    """Title, unit line, header-like (years / column numbers), body row or other text."""
    text = line.text
    if is_numbered_title(text):
        return RowLine(line, "title")
    numbers = [c for c in line.chunks if c.is_number]
    # (an index base, "1935 = 100", is a unit line of two figures)
    if is_unit_line(text) and (len(numbers) <= 1 or index_base(text)):
        return RowLine(line, "unit")
    label, values = split_label(line.chunks, margin, height)
    figures = [
        c for k, c in enumerate(values) if c.is_number and not _phrase_dash(values, k, height)
    ]
    if len(figures) >= 2 and _header_figures(figures, height):
        return RowLine(line, "header")
    if figures and (_head_words_and_figures(values) or _month_span_head(values)):
        # ... but a title line with a figure among its words ("Ratios of Index of
        # Wholesale Prices in 39 Countries") is one phrase, not heads over columns
        if not _one_phrase(line, height):
            return RowLine(line, "header")
    prose = any(len(c.text.split()) >= 3 for c in values if not c.is_number)
    # a head line whose only "figure" is a dash OCR made of a rule, among words spread
    # over the columns ("Month Boston Philadelphia _ Baltimore ... Total")
    heads = not any(re.search(r"\d", c.text) for c in figures) and (
        sum(not c.is_number for c in values) >= 2
    )
    if figures and (label or len(figures) >= 2) and not prose and not heads:
        return RowLine(line, "body", label, values)
    if _nil_period_row(label, values):
        return RowLine(line, "body", label, values)
    return RowLine(line, "text")


_PERIOD_STUB = re.compile(r"^\W*(18|19|20)\d\d(\s*[-\u2013\u2014]\s*[A-Za-z]{3,}\.?)?\W*$")
_NIL_MARK = re.compile(r"[-\u2013\u2014=:~.]+")


def _phrase_dash(values: list[Chunk], k: int, height: float) -> bool:
    """A dash set a word-space between two words ("Jan. - Sept." of a head "2006 / Jan. -
    Sept.", 2006-12 p99): a hyphen in a phrase, not a nil figure of a column."""
    c = values[k]
    if c.number is None or not c.number.is_dash or k == 0 or k + 1 >= len(values):
        return False
    before, after = values[k - 1], values[k + 1]
    return (
        not before.is_number
        and not after.is_number
        and c.x0 - before.x1 < 0.9 * height
        and after.x0 - c.x1 < 0.9 * height
    )


def _nil_period_row(label: list[Chunk], values: list[Chunk]) -> bool:
    """A year row whose entries are all nil marks ("1936 : - - - = = - - -", the first
    year of the Old-Age and Survivors Insurance Trust Fund, 1941-01 p21): a body row
    of nils, not a head line; read as a head it put "1936" into the stub head."""
    text = " ".join(c.text for c in label)
    return (
        bool(_PERIOD_STUB.match(text))
        and len(values) >= 3
        and all(_NIL_MARK.fullmatch(c.text.strip()) for c in values)
    )


def _one_phrase(line: Line, height: float) -> bool:
    """A capitalised phrase of four words or more set a word-space apart: title text."""
    chunks = line.chunks
    return (
        bool(re.match(r"^\W{0,2}[A-Z]", line.text))
        and len(re.findall(r"[A-Za-z]{3,}", line.text)) >= 4
        and all(b.x0 - a.x1 < 1.5 * height for a, b in zip(chunks, chunks[1:], strict=False))
    )


def _head_words_and_figures(values: list[Chunk]) -> bool:
    """Words among the value columns and only head-like figures ("Within" "1" "year",
    "1-5" "years"): a column head, not a body row (a body row's columns hold figures).
    Capitals alone among more figures are no head words: OCR makes them of smudged
    figures ("Housing and Urban Development .9 .8 ELS j" for "13.5 13.2", 1984-06 p88)."""
    words = [
        c
        for c in values
        if not c.is_number and _HEAD_WORD.search(c.text) and not _NOT_HEAD_WORD.match(c.text)
    ]
    figures = [c for c in values if c.is_number]
    if not any(re.search(r"[a-z]", c.text) for c in words) and len(words) < len(figures):
        return False
    return bool(words) and all(_HEAD_FIGURE.match(c.text.strip()) for c in figures)


def _month_span_head(values: list[Chunk]) -> bool:
    """Years and month spans, "2008 2009 2010 Jan. - June Apr. - June" (2011-09 p85): a
    head line, though its dashes read as figures. Every chunk is a year, a month word,
    or a dash between two month words, and there is at least one such span."""

    def month(c: Chunk) -> bool:
        return not c.is_number and len(c.text) <= 10 and bool(MONTH_NAME.match(c.text.strip()))

    spans = 0
    for i, c in enumerate(values):
        if c.is_number and _YEAR_LIKE.match(c.text.strip()) or month(c):
            continue
        around = values[i - 1 : i] + values[i + 1 : i + 2]
        if not (re.fullmatch(r"[-\u2013\u2014]", c.text.strip()) and len(around) == 2
                and all(month(a) for a in around)):  # fmt: skip
            return False
        spans += 1
    return spans > 0 and any(c.is_number and _YEAR_LIKE.match(c.text.strip()) for c in values)


def _header_figures(figures: list[Chunk], height: float) -> bool:
    """Every figure is a year or a column number, or the day of a date whose year follows
    a word-space later ("28," "1950" of "From inception to Feb. 28, 1950"): a header."""
    for i, c in enumerate(figures):
        if _YEAR_LIKE.match(c.text.strip()):
            continue
        after = figures[i + 1] if i + 1 < len(figures) else None
        if (
            re.fullmatch(r"\d{1,2},", c.text.strip())
            and after is not None
            and re.fullmatch(r"(18|19|20)\d\d", after.text.strip())
            and after.x0 - c.x1 < height
        ):
            continue
        return False
    return True


def split_label(
    chunks: list[Chunk], margin: float, height: float
) -> tuple[list[Chunk], list[Chunk]]:
    """Leading phrases (and a figure at the left margin, e.g. a year) are the row label."""
    label: list[Chunk] = []
    for i, chunk in enumerate(chunks):
        at_margin = i == 0 and chunk.x0 - margin < 2.5 * height
        # A figure a word-space after the label, or trailing leaders, is part of the
        # label ("June 30, 2011 ....."); a column figure stands past a gutter.
        # ... but never past dot leaders: they lead the label *to* its first figure
        in_label = (
            bool(label)
            and chunk.x0 - label[-1].x1 < 0.9 * height
            and not is_leader(label[-1].text)
            and not re.search(r"(\.\s?){2,}$|\u2026$", " ".join(c.text for c in label))
            and not re.fullmatch(r"\d{1,2}/\d{1,2}/\d{2,4}", label[-1].text.strip())
        )
        leads = bool(re.search(r"\.{2,}$|\u2026$", chunk.text))
        # the day and year that end a date in the label ("Ending balance, Sept. | 30, |
        # 1983"), however OCR spaced them
        text = " ".join(c.text for c in label)
        dated = (
            bool(label)
            and chunk.x0 - label[-1].x1 < 2.5 * height
            and (
                (bool(_DATE_TO_DAY.search(text)) and bool(re.fullmatch(r"\d{1,2},", chunk.text)))
                or (
                    bool(_DATE_TO_YEAR.search(text))
                    and bool(re.fullmatch(r"(18|19|20)\d\d", chunk.text.strip()))
                )
            )
        )
        dated = dated or (
            bool(_COUPON_TO_MONTH.match(text))
            and bool(_MATURITY_YEAR.fullmatch(chunk.text.strip()))
            and chunk.x0 - label[-1].x1 < 8 * height
        )
        # the day of a stub that is a month alone ("Feb." | "7"): a one-digit day is set
        # right-aligned under the two-digit days, a gutter's width from the month
        dated = dated or (
            len(label) == 1
            and month_abbreviation_like(label[0].text)
            and bool(re.fullmatch(r"\d{1,2}", chunk.text.strip()))
            and 1 <= int(chunk.text) <= 31
            and chunk.x0 - label[0].x1 < 2.5 * height
        )
        # "n.a." a gutter past the label (or off the margin, under a blank stub) is the
        # first column's entry, not a label word (1984-06 p75: "7/29/83 ....  n.a." read
        # as the label "7/29/83 nea."; p76: a quarter's second line "n.a." as its label)
        not_available = bool(_NOT_AVAILABLE.fullmatch(chunk.text.strip())) and (
            chunk.x0 - (label[-1].x1 if label else margin) >= 2.5 * height
        )
        if not_available:
            return label, chunks[i:]
        if not chunk.is_number or is_leader(chunk.text) or at_margin or in_label or leads or dated:
            label.append(chunk)
            continue
        return label, chunks[i:]
    return label, []
