"""From word boxes to printed lines made of chunks (a phrase or one whole number).

Tesseract's line ids follow its own segmentation, which can split one printed row
(label block vs. figures block) or leave every text-layer number in its own line. We
regroup words into printed lines by vertical position, then join the tokens of one
figure that OCR split ("1," "234", "(1,234" ")", "1,234" "1/", "r" "1,234") and the
words of one phrase, so the table reader works on chunks, not on loose words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import polars as pl
from rapidfuzz.distance import Levenshtein

from pipeline.tables.labels import month_abbreviation_like
from pipeline.tables.numbers import ParsedNumber, parse_number

_RULE_CHARS = " |¦[]{}!"
MIN_WORD_CONF = 35.0  # below this a word without digits is rule noise, not text
_DASHES = re.compile(r"^[-\u2013\u2014.]+$")
# A scale word spelled out exactly is the unit line's, whatever tesseract's confidence
# ("[Position at end of period in millions of dollars]" came back with "millions" at 1.5).
_UNIT_WORD = re.compile(r"^\(?(thousands?|millions?|billions?|dollars?)[),;.]?$", re.IGNORECASE)
# ... and so is an estimate mark: "1968 (Est.)" read as "1968" would state an estimate as
# the year's actual figure (1967-08 p22 "(Est." came back at confidence 0.9 and 21)
_ESTIMATE_MARK = re.compile(r"^\(?(est|estimated?|estimates?)\.?\)?[.,]*$", re.IGNORECASE)
# ... and so is any short word in parentheses after a figure, whatever OCR made of it:
# "1954 (Ret." at confidence 3.8 is "1954 (Est.)"; dropped, the row read as an actual year
_QUALIFIER_MARK = re.compile(r"^\([A-Za-z]{2,4}\.?\)?[.,]*$")
# ... and a longer one right after a year: "1949 (Zetiaated)" at confidence 21 and "1948
# (Betimated)" at 33 (1948-05 p18, "(Estimated)"); dropped, the estimate read as the year
_YEAR_QUALIFIER = re.compile(r"^\([A-Za-z]{5,12}\.?\)?[.,]*$")
_YEAR_FIGURE = re.compile(r"^(18|19|20)\d\d$")
# ... and so is the word that says which year a stub counts: "End of calendar year or
# month" came back with "calendar" at confidence 0 (1984-06 p60); without it the year
# rows are of unknown kind
_KIND_WORD = re.compile(r"^(fiscal|calendar)[.,:]?$", re.IGNORECASE)
# ... and so is a word of a month head line ("Jan. Feb. Mar. ..." with three or more
# month words read) that is one letter from a month ("Hay", "wov.", "var." at confidence
# 0-32 in 1940-05 p79): the month head run (month_heads.py) reads it by its position
_MONTH_ABBR = re.compile(
    r"^(jan|feb|mar|apr|may|june?|july?|aug|sept?|oct|nov|dec)\.?$", re.IGNORECASE
)
# ... counting a month head with a revision or preliminary mark glued to it ("Dec.r",
# "Sept.r", 1984-06 p62: with them the line is a month head line and its "Marr" read at
# confidence 0 is kept for the month head run)
_MONTH_HEAD = re.compile(
    r"^(jan|feb|mar|apr|may|june?|july?|aug|sept?|oct|nov|dec)(\.?|\.[rp])$", re.IGNORECASE
)
_MONTH_KEYS = ("jan", "feb", "mar", "apr", "may", "jun", "june", "jul", "july", "aug", "sep",
               "sept", "oct", "nov", "dec")  # fmt: skip


def _month_like(text: str) -> bool:
    """A word of a month head line within one letter of a month's abbreviation; a word of
    two letters only with its stop ("ov." for "Nov." at confidence 0, the last column
    of 1941-01 p69: dropped, the run ended a column short and the column named none)."""
    w = text.lower().rstrip(".")
    return (
        w.isalpha()
        and (3 <= len(w) <= 4 or (len(w) == 2 and text.endswith(".")))
        and any(Levenshtein.distance(w, k) <= 1 for k in _MONTH_KEYS)
    )


_LONG_MONTHS = ("january", "february", "march", "april", "august", "september", "october",
                "november", "december")  # fmt: skip


def _spelled_month_like(text: str) -> bool:
    """A word one letter from a month spelt out in full (five letters or more), the
    stub of a month row: "Decerber" came back at confidence 0 (1948-05 p18) and, dropped
    as rule noise, left the row labelled by its misread first figure. Rule noise does
    not spell a month's name to within a letter."""
    w = text.lower().rstrip(".,")
    return (
        w.isalpha() and len(w) >= 5 and any(Levenshtein.distance(w, m) <= 1 for m in _LONG_MONTHS)
    )


# A year after "Year" whose last digit 1 OCR read as a bracket or rule ("Fiscal Year
# 194]" in a title, 1941-01 p40): stripped as a rule, "194" named no year
_BRACKET_ONE = re.compile(r"^((?:18|19|20)\d)[\]|]$")
_YEAR_WORD = re.compile(r"^years?$", re.IGNORECASE)


_KIND_WORDS = ("fiscal", "calendar")


def _garbled_kind_word(text: str) -> str | None:
    """The kind word ("fiscal", "calendar") a word OCR garbled spells: within one edit of
    it, or two that keep its last three letters ("Wiscal", "Wiecal" after a stray stroke
    of the broken F read as "V" before it: "VWiecal"), and far from the other kind word.
    A word as garbled as "Meoal" or "casas" is no kind word: which one it was cannot be
    told."""
    core = re.sub(r"[^a-z]", "", (text or "").lower())
    if len(core) < 4:
        return None
    found = None
    for kind in _KIND_WORDS:
        other = _KIND_WORDS[1 - _KIND_WORDS.index(kind)]
        for cand in (core, core[1:]):
            d = Levenshtein.distance(cand, kind)
            if (d <= 1 or d <= 2 and cand.endswith(kind[-3:])) and (
                Levenshtein.distance(cand, other) >= 4
            ):
                found = kind
    return found


def _kind_before_year(rows: list[dict], height: float) -> list[dict]:
    """``rows`` (one line's words, left to right) with a word read at low confidence just
    before "year" read as the kind word it spells: "Wiscal year" (confidence 0) of
    "Fiscal year or month", 1948-05 p18; "VWiecal year" (10), 1941-01 p21. Dropped as
    rule noise, it left the stub head "year or month" and the year rows of unknown kind.
    Only a word a word-space left of a well-read "year(s)"; other words stay as read."""
    out = []
    for k, r in enumerate(rows):
        nxt = rows[k + 1] if k + 1 < len(rows) else None
        if (
            r["conf"] < MIN_WORD_CONF
            and nxt is not None
            and nxt["conf"] >= MIN_WORD_CONF
            and _YEAR_WORD.match((nxt["text"] or "").strip(" ,.:"))
            and 0 <= nxt["x0"] - r["x1"] < 0.9 * height
            and (kind := _garbled_kind_word(r["text"]))
        ):
            r = {**r, "text": kind.capitalize()}
        out.append(r)
    return out


def _year_after_year_word(rows: list[dict]) -> list[dict]:
    """``rows`` (one line's words, left to right) with "194]" after "Year" read "1941"."""
    out = []
    for k, r in enumerate(rows):
        m = _BRACKET_ONE.match((r["text"] or "").strip())
        if m and k and _YEAR_WORD.match((rows[k - 1]["text"] or "").strip(" ,")):
            r = {**r, "text": m.group(1) + "1"}
        out.append(r)
    return out


# ... and so is a month spelt exactly, the stub of a dated row: "Feb." of "Feb. 7" came
# back at confidence 22 (1940-05 p59), and the row was labelled by its day alone; with
# the first dots of its leaders read into the word ("Nov..." at confidence 16, the last
# month row of 1939-12 p63 "Net Movement of Gold", whose row was left with no label)
_MONTH_NAMES_ALT = (
    r"January|February|March|April|May|June|July|August|September|October|November|December"
)
_MONTH_SHORT_ALT = r"Jan|Feb|Mar|Apr|Aug|Sept?|Oct|Nov|Dec"
_MONTH_WORD = re.compile(rf"^({_MONTH_SHORT_ALT})\.+,?$|^({_MONTH_NAMES_ALT})(\.+|,)?$")
# ... and so is a month row's first word when its month is spelt exactly after a dash,
# whatever OCR made of the year before it: "WWO—January" (confidence 1.5) for
# "1940-January", 1941-01 p21; labels.repair_period_stub restores the year from the
# December row above it
_YEAR_DASH_MONTH = re.compile(
    rf"^[^\s\-\u2013\u2014~]{{2,5}}[-\u2013\u2014~](({_MONTH_SHORT_ALT})\.|{_MONTH_NAMES_ALT})[.,]*$"
)
# Tokens that only ever stick to a figure next to them.
_PREFIX_TOKENS = {"(", "-", "\u2212", "\u2013", "$", "r", "~"}
_SUFFIX_TOKENS = {")", "r", "*", "**", "***"}
_FOOTNOTE_TOKEN = re.compile(r"^(\d{1,2}/|[a-kmnpqs-z]|\*{1,3})$")
# Dot leaders and the letters OCR makes of them ("........", ".ccccccces", "seeeee").
_LEADER = re.compile(r"^[.\u2026·_\-:,;'`]{2,}$|^[.,:;'`]*[.][.ceosuvnwarz,:;'`\-]{3,}$")
_LEADER_TAIL = re.compile(
    r"\s*(\.\s?){2,}[.\sceosuvnwarz,:;'`\-]*$|\s*\.\s?[.\sceosuvnwarz,:;'`\-]{5,}$"
    r"|\s*\u2026[\u2026.\s]*$"  # leaders typeset as ellipses ("Total Receipts……")
)
# Leaders followed by a footnote mark OCR glued to them ("Rural Administration.....6+").
_LEADER_MARK_TAIL = re.compile(r"\s*\.{3,}[.\s]*\S{0,4}$")
# leaders run between two parts of a label ("1948 (Notes)...(taxable)": a name, its
# leaders, and the tax status typed at the end of them) stand for a space
_LEADER_INSIDE = re.compile(r"(?<=[A-Za-z)])\s*\.{3,}\s*(?=[(A-Za-z])")


@dataclass
class Chunk:
    """A run of words read as one thing: a phrase, or one printed figure with its marks."""

    text: str
    x0: float
    y0: float
    x1: float
    y1: float
    conf: float
    n_words: int
    number: ParsedNumber | None = None
    # the word boxes a joined chunk was made of (empty for a single word): header
    # phrases are regrouped from them, see pipeline.tables.headers
    words: tuple[Chunk, ...] = ()

    @property
    def parts(self) -> tuple[Chunk, ...]:
        """The single-word chunks this chunk was joined from (itself when one word)."""
        return self.words or (self,)

    @property
    def is_number(self) -> bool:
        return self.number is not None

    @property
    def align_x(self) -> float:
        """Right edge of the digits: figures are right-aligned, marks hang past it."""
        core = re.sub(r"(\s*\d{1,2}/|\s*[*a-z]{1,3}|\)|\s+r)$", "", self.text)
        if not self.is_number or core == self.text or not self.text:
            return self.x1
        width = (self.x1 - self.x0) / max(len(self.text), 1)
        return self.x1 - width * (len(self.text) - len(core))


@dataclass
class Line:
    """One printed line of a page: its chunks left to right."""

    doc_id: str
    page_no: int
    line_idx: int
    chunks: list[Chunk] = field(default_factory=list)

    @property
    def text(self) -> str:
        return " ".join(c.text for c in self.chunks)

    @property
    def x0(self) -> float:
        return min(c.x0 for c in self.chunks)

    @property
    def x1(self) -> float:
        return max(c.x1 for c in self.chunks)

    @property
    def y0(self) -> float:
        return min(c.y0 for c in self.chunks)

    @property
    def y1(self) -> float:
        return max(c.y1 for c in self.chunks)


def assign_lines(words: pl.DataFrame) -> pl.DataFrame:
    """Add ``line_idx`` (0-based top to bottom per page): words grouped by vertical overlap.

    Tesseract line segments (``block_no``, ``line_no``) are kept together; segments whose
    centres lie within half a median word height of the previous one join its line.
    """
    if words.is_empty():
        return words.with_columns(pl.lit(0, pl.Int32).alias("line_idx"))
    page = ["doc_id", "page_no"]
    w = words.with_columns(
        ((pl.col("y0") + pl.col("y1")) / 2).alias("_yc"),
        (pl.col("y1") - pl.col("y0")).median().over(page).alias("_h"),
    )
    segments = (
        w.group_by([*page, "block_no", "line_no"])
        .agg(pl.col("_yc").median().alias("_seg_yc"), pl.col("_h").first())
        .sort([*page, "_seg_yc"])
        .with_columns(
            (pl.col("_seg_yc").diff().over(page).fill_null(float("inf")) > 0.5 * pl.col("_h"))
            .cum_sum()
            .over(page)
            .sub(1)
            .cast(pl.Int32)
            .alias("line_idx")
        )
        .select([*page, "block_no", "line_no", "line_idx"])
    )
    return w.join(segments, on=[*page, "block_no", "line_no"]).drop("_yc", "_h")


def page_lines(words: pl.DataFrame) -> list[Line]:
    """The printed lines of one page's words (already carrying ``line_idx``), top to bottom."""
    if words.is_empty():
        return []
    height = float(words.select((pl.col("y1") - pl.col("y0")).median()).item())
    lines = []
    for (doc_id, page_no, line_idx), group in words.sort("line_idx", "x0").group_by(
        ["doc_id", "page_no", "line_idx"], maintain_order=True
    ):
        # Vertical rules read as "|" / "]" carry no text, and OCR of a horizontal rule
        # gives letter soup at near-zero confidence: drop both, keep every figure.
        rows = _kind_before_year(_year_after_year_word(list(group.iter_rows(named=True))), height)
        month_line = (
            sum(
                r["conf"] >= MIN_WORD_CONF
                and bool(_MONTH_HEAD.match((r["text"] or "").strip().strip(_RULE_CHARS)))
                for r in rows
            )
            >= 3
        )
        # a row of a table's body (it prints figures): its label words are kept
        figures = any(re.search(r"\d.*\d", r["text"] or "") for r in rows)
        tokens = [
            Chunk(text, r["x0"], r["y0"], r["x1"], r["y1"], r["conf"], 1)
            for i, r in enumerate(rows)
            if (text := (r["text"] or "").strip().strip(_RULE_CHARS))
            and (
                r["conf"] >= MIN_WORD_CONF
                or _inside_phrase(rows, i, height, edges=figures)
                or re.search(r"\d", text)
                or _DASHES.match(text)
                or _UNIT_WORD.match(text)
                or _ESTIMATE_MARK.match(text)
                or _QUALIFIER_MARK.match(text)
                or (
                    _YEAR_QUALIFIER.match(text)
                    and i > 0
                    and bool(_YEAR_FIGURE.match((rows[i - 1]["text"] or "").strip()))
                )
                or _KIND_WORD.match(text)
                or _MONTH_WORD.match(text)
                or (i == 0 and month_abbreviation_like(text))
                or (i == 0 and figures and _YEAR_DASH_MONTH.match(text))
                or (i == 0 and _spelled_month_like(text))
                or (month_line and _month_like(text))
            )
        ]
        if tokens:
            tokens = _stacked_label_order(tokens, height)
            lines.append(Line(doc_id, page_no, line_idx, chunk_line(tokens, height)))
    return lines


_DASH_FIGURE = re.compile(r"[-\u2013\u2014]+")  # a dash for zero (dots are leaders)
_PLAIN_WORD = re.compile(r"^[A-Za-z][a-z]+[.,]?$|^[A-Z]{2,}[.,]?$")
_EDGE_WORD = re.compile(r"^[A-Z]?[a-z]{3,}(\.{2,}.*)?$")  # "Disaster", "petroleum....."
_LEADER_LETTERS = re.compile(r"^[ceosuvnwarzi]+$", re.IGNORECASE)  # "eeee", "ieee"
# a possessive ("Veterans'", "Manufacturers'", "Employees'"): tesseract's confidence in
# the whole word falls at its apostrophe, straight or curly (0-21 where the letters
# around it read at 90 and more)
_POSSESSIVE = re.compile(r"^[A-Z]?[a-z]{3,}['\u2019]s?$")


def _inside_phrase(rows: list[dict], i: int, height: float, edges: bool) -> bool:
    """A word read at low confidence set a word-space from words read well: a word of
    their phrase, not rule noise. Between two ("United States Housing Authority" with
    "States" at confidence 28, "Federal Deposit Insurance" with "Deposit" at 24,
    1941-01 p40), or a word of four letters or more opening or closing the phrase
    ("Disaster Loan Corporation" at 18, "Other flags" at 17, "Crude petroleum....." at
    0, 1939-12), this only in a row that prints figures (``edges``; a garbled "Meoal
    year or month" kept in a stub head hides the kind of its years), and a phrase's
    last word only before its leaders or figures. A possessive opening a phrase is
    kept in any line: it is no garble but a word whose apostrophe OCR doubts, and the
    stub heading it opens ("Veterans' life insurance" over its year rows, 1940-05 p20
    layout), left as "life insurance", named no series and, not read as a heading,
    became the first line of the year row under it. Dropped, it cut the label short with
    nothing to say so; kept, the lexicon corrects or marks it."""
    text = (rows[i]["text"] or "").strip()

    def good(j: int) -> bool:
        return (
            0 <= j < len(rows)
            and rows[j]["conf"] >= MIN_WORD_CONF
            and bool(_PLAIN_WORD.match((rows[j]["text"] or "").strip()))
        )

    def near(a: int, b: int) -> bool:  # a left of b, a word-space apart
        return 0 <= a and b < len(rows) and rows[b]["x0"] - rows[a]["x1"] < 0.9 * height

    left, right = good(i - 1) and near(i - 1, i), good(i + 1) and near(i, i + 1)
    possessive = bool(_POSSESSIVE.match(text))
    if left and right:
        return bool(_PLAIN_WORD.match(text)) or possessive
    if not (edges or possessive and right) or not (left or right):
        return False
    if not (_EDGE_WORD.match(text) or possessive):
        return False
    if any(re.search(r"\d", r["text"] or "") for r in rows[:i]):
        return False  # only the row's own label, left of its figures (not a side panel's)
    if _LEADER_LETTERS.match(text):
        return False
    if right and not text[:1].isupper():
        return False  # a phrase opens with a capital ("Disaster"); "ieee July" is a leader
    if right:  # opening the phrase: nothing a word-space to its left
        return not near(i - 1, i)
    # closing the phrase of a row: its leaders, or a gutter and the figures after it
    return "." in text or (i + 1 < len(rows) and not near(i, i + 1))


def _stacked_label_order(tokens: list[Chunk], height: float) -> list[Chunk]:
    """A label set on two lines beside figures centred between them ("Total other" /
    "countries ....." with "1,670" in the middle) falls into one printed line: its
    words are read line by line ("Total other countries"), not left to right
    ("Total countries other"). Only the words left of the first figure (or dash) move."""
    first_figure = min(
        (t.x0 for t in tokens if re.search(r"\d", t.text) or _DASH_FIGURE.fullmatch(t.text)),
        default=None,
    )
    words = [
        t for t in tokens
        if re.search(r"[A-Za-z]", t.text) and (first_figure is None or t.x1 < first_figure)
    ]  # fmt: skip
    tops = sorted({round(t.y0) for t in words})
    if len(words) < 2 or tops[-1] - tops[0] <= 0.6 * height:
        return tokens
    stratum, level, last = {}, 0, tops[0]
    for top in tops:
        if top - last > 0.6 * height:
            level += 1
        stratum[top], last = level, top
    ordered = sorted(words, key=lambda t: (stratum[round(t.y0)], t.x0))
    return ordered + [t for t in tokens if t not in words]


def chunk_line(tokens: list[Chunk], height: float) -> list[Chunk]:
    """Join one line's tokens (left to right) into figures and phrases."""
    figures = _join_figures(tokens, height)
    for chunk in figures:
        chunk.number = parse_number(chunk.text)
        # A long run of dots or dashes is a leader or a rule, not a dash for zero.
        if chunk.number is not None and chunk.number.is_dash and chunk.x1 - chunk.x0 > 2 * height:
            chunk.number = None
    return _join_phrases(figures, height)


def merge_chunks(a: Chunk, b: Chunk, sep: str) -> Chunk:
    """One chunk of two neighbours on a line: texts joined by ``sep``, boxes united."""
    return Chunk(
        f"{a.text}{sep}{b.text}",
        min(a.x0, b.x0),
        min(a.y0, b.y0),
        max(a.x1, b.x1),
        max(a.y1, b.y1),
        min(a.conf, b.conf),
        a.n_words + b.n_words,
        words=a.parts + b.parts,
    )


def _starts_figure(text: str) -> bool:
    return bool(re.match(r"^[(\-\u2212$~]?\d", text))


def _join_figures(tokens: list[Chunk], height: float) -> list[Chunk]:
    """Glue the tokens of one printed figure; gaps are compared with the text height
    because a space inside a figure is narrower than the gutter between columns."""
    out: list[Chunk] = []
    for tok in tokens:
        if out:
            prev = out[-1]
            gap = tok.x0 - prev.x1
            digits_before = bool(re.search(r"\d[,.)]?$", prev.text))
            if (
                # "1," + "234"  /  "1" + ",234"
                (
                    re.search(r"\d[,.]$", prev.text)
                    and re.match(r"^\d{3}(?!\d)", tok.text)
                    and gap < 0.6 * height
                )
                or (digits_before and re.match(r"^[,.]\d{3}", tok.text) and gap < 0.6 * height)
                # "(" / "-" / "$" / "r" + "1,234"
                or (prev.text in _PREFIX_TOKENS and _starts_figure(tok.text) and gap < 0.5 * height)
                # "1,234" + ")" / "r" / "*"
                or (digits_before and tok.text in _SUFFIX_TOKENS and gap < 0.6 * height)
                # one figure OCR cut in two, closer than a word space: "1,2" + "00"
                or (
                    re.search(r"\d[,.]?$", prev.text)
                    and re.match(r"^[,.]?\d", tok.text)
                    and gap < 0.25 * height
                )
                # "1,234" + "1/" footnote mark, spaced like a word
                or (digits_before and _FOOTNOTE_TOKEN.match(tok.text) and gap < 0.8 * height)
            ):
                sep = " " if (_FOOTNOTE_TOKEN.match(tok.text) or tok.text == "r") else ""
                out[-1] = merge_chunks(prev, tok, sep)
                continue
        out.append(tok)
    return out


def _join_phrases(chunks: list[Chunk], height: float) -> list[Chunk]:
    """Join neighbouring words into phrases; figures stay alone (one per column)."""
    out: list[Chunk] = []
    for chunk in chunks:
        if out and not chunk.is_number and not out[-1].is_number:
            if chunk.x0 - out[-1].x1 < 0.9 * height:
                out[-1] = merge_chunks(out[-1], chunk, " ")
                continue
        out.append(chunk)
    return out


def is_leader(text: str) -> bool:
    """Dot leaders (and OCR's letters for them) between a row label and its figures."""
    return bool(_LEADER.match(text.strip()))


def clean_label(text: str) -> str:
    """A row label without its dot leaders and rule glyphs."""
    text = _LEADER_TAIL.sub("", text)
    text = _LEADER_MARK_TAIL.sub("", text)
    text = _LEADER_INSIDE.sub(" ", text)
    text = text.strip(" |[]{}!¦;,")
    return re.sub(r"\s+", " ", text)
