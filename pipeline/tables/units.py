"""Which unit a table's figures are printed in, and where the page says so.

The unit is printed in a unit line under the title ("(In millions of dollars)",
"[Position at end of period in millions of dollars]"), inside the title, in a column
head ("Amount (in thousands)"), or once at the head of the page for every table on it.
:func:`read_unit` reads one piece of text (OCR-tolerant); :func:`table_unit` looks in
those places in that order. A table whose page prints no unit has unit ``unknown`` and
no multiplier: a unit is never assumed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from rapidfuzz.distance import Levenshtein

from pipeline.tables.numbers import parse_number

if TYPE_CHECKING:
    from pipeline.tables.lexicon import Lexicon

_SCALES = {"thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000}
_SCALE = r"(thousand|million|billion)s?"
_PATTERNS = (
    # "in millions of dollars", "millions of dollars", "thousands of dollars"
    (re.compile(rf"\b{_SCALE}\s+of\s+dollars\b", re.I), "{s}s of dollars"),
    # "in millions of euros", "billions of Japanese yen", "millions of ounces"
    (
        re.compile(rf"\b{_SCALE}\s+of\s+([a-z]+(?:\s+(?:or|and)\s+[a-z]+|\s+[a-z]+)?)\b", re.I),
        "{s}s of {what}",
    ),
    # "dollars in millions", "dollar amounts in thousands"
    (re.compile(rf"\bdollars?(?:\s+amounts?)?\s+in\s+{_SCALE}\b", re.I), "{s}s of dollars"),
    # "(in millions)", "par value in billions"
    (re.compile(rf"\bin\s+{_SCALE}\b", re.I), "{s}s"),
    (re.compile(r"\bin\s+dollars\b", re.I), "dollars"),
    (re.compile(r"^\W*(in\s+)?percent(ages?)?\W*$", re.I), "percent"),
)


@dataclass(frozen=True)
class Unit:
    """A table's unit: the words a question uses, the scale, and where it was printed."""

    words: str  # "millions of dollars", "thousands", "dollars", "percent", "unknown"
    multiplier: int | None  # 1_000_000 for millions; None when unknown
    source: str  # title | unit_line | column_head | page_head | none
    printed: str = ""  # the printed text the unit was read from

    @property
    def known(self) -> bool:
        return self.multiplier is not None


UNKNOWN = Unit("unknown", None, "none")


def read_unit(text: str) -> tuple[str, int | None] | None:
    """The unit named in ``text`` as (words, multiplier), or None when it names none.

    The multiplier is None for a unit line that names two units ("In millions of ounces
    or dollars"): the unit then depends on the column, and no question may assume one.
    """
    low = " ".join((text or "").split())
    if not low:
        return None
    base = index_base(low)
    if base:
        return f"index, {base} = 100", 1
    for pattern, words in _PATTERNS:
        m = pattern.search(low)
        if m:
            if words in ("dollars", "percent"):
                return words, 1
            scale = m.group(1).lower()
            what = m.group(2) if m.lastindex and m.lastindex >= 2 else ""
            if re.search(r"\s(or|and)\s", what):
                # "millions of ounces or dollars": the unit depends on the column
                return words.format(s=scale, what=what), None
            if what and _dollar_word(what.split()[0]):
                what = "dollars"  # OCR: "dollare", "dollara", "dollere"; "dollars at $35 ..."
            return words.format(s=scale, what=what), _SCALES[scale]
    return _garbled_unit(low)


# "1935 = 100", "(1947-49 = 100)", "Index, 1935 = 100": the base of an index, printed
# where a unit line stands; the figures are index numbers on that base
_INDEX_BASE = re.compile(
    r"^\W{0,3}(?:index\W{1,3})?((?:18|19|20)\d\d(?:\s*[-\u2013]\s*(?:(?:18|19|20)\d\d|\d\d))?)"
    r"\s*=\s*100\W{0,3}$",
    re.IGNORECASE,
)


def index_base(text: str) -> str | None:
    """The base period of a line that states only an index base ("1935 = 100"), or None."""
    m = _INDEX_BASE.match(" ".join((text or "").split()))
    return re.sub(r"\s+", "", m.group(1)) if m else None


def garbled_scale(token: str) -> str | None:
    """The scale word an OCR-garbled token spells ("mitlions", "thoueande"), or None.

    Accepted only when the reading is unambiguous: at most two edits from one scale word
    (singular or plural) and at least one edit further from every other ("bmllions" is
    as near "billions" as "millions": no reading). Short tokens are never read.
    """
    t = token.lower()
    if len(t) < 6:
        return None
    dist = sorted(
        (min(Levenshtein.distance(t, s), Levenshtein.distance(t, f"{s}s")), s) for s in _SCALES
    )
    (best, scale), (second, _) = dist[0], dist[1]
    if best <= 2 and second >= best + 1 and (best <= 1 or len(t) >= 7):
        return scale
    return None


def _dollar_word(token: str) -> bool:
    """ "dollars" as OCR reads it: "dollare", "dollara", "Oo1lar" (two edits at most)."""
    t = token.lower()
    return len(t) >= 5 and min(Levenshtein.distance(t, w) for w in ("dollar", "dollars")) <= 2


def _garbled_unit(text: str) -> tuple[str, int] | None:
    """An OCR-damaged unit line whose scale word is garbled: "(In millioas of dollare)",
    "(Par values - in mtllione of dollare)", "Oo1lar amounts in mitlions". The scale is
    read only when :func:`garbled_scale` reads it unambiguously *and* dollars are named
    next to it (" ... of dollars" after it, or "dollar amounts in ..." before it); a
    garbled scale of anything else ("(In thoueande of fine ...") names no unit."""
    tokens = re.findall(r"[A-Za-z0-9]+", text)
    for i, token in enumerate(tokens):
        scale = garbled_scale(token)
        if scale is None:
            continue
        after = [t.lower() for t in tokens[i + 1 : i + 3]]
        of_dollars = (
            len(after) == 2 and Levenshtein.distance(after[0], "of") <= 1 and _dollar_word(after[1])
        )
        dollars_in = any(_dollar_word(t) for t in tokens[max(0, i - 4) : i - 1])
        in_before = i >= 1 and tokens[i - 1].lower() in _IN_WORDS
        if of_dollars or (dollars_in and in_before):
            return f"{scale}s of dollars", _SCALES[scale]
        if in_before and i >= 2 and tokens[i - 2].lower() in ("amount", "amounts"):
            # "<...> amounts in mitlions" (1984-06 p39, "Dollar" read "Ooi1lar"): the
            # scale of the amounts, whatever they are counted in
            return f"{scale}s", _SCALES[scale]
    return None


# "in" as OCR reads it in a unit line: "In", "Ia", "Io", "1n", "ln", "TIn" (a bracket read as T)
_IN_WORDS = {"in", "ia", "io", "1n", "ln", "im", "tin", "lin", "iin"}


def is_unit_line(text: str) -> bool:
    """A short line that only states a unit (it may carry a period or a source, too), or
    a line set like one ("(In thoueande of fine ...") whose garbled unit cannot be read:
    it is still the table's unit line, not a title or a head (its unit is unknown)."""
    stripped = " ".join((text or "").split())
    if not stripped or re.search(r"[A-Za-z]:$", stripped):
        return False  # a stub heading ("TOTAL ASSETS PAYABLE / IN DOLLARS:")
    if read_unit(stripped) is None:
        return _unread_unit_line(stripped)
    if index_base(stripped):
        return True
    first = re.findall(r"[A-Za-z0-9]+", stripped[:12])
    opens = (
        stripped[0] in "(["
        or stripped.lower().startswith(
            ("in ", "dollar", "amount", "position", "par value", "thousand", "million", "billion")
        )
        # the bracket of "[In millions ...]" read as a letter: "TIn", "Lin"
        or re.match(r"^[\W_]{0,3}[A-Za-z]?in\s", stripped, re.IGNORECASE) is not None
        or (bool(first) and _dollar_word(first[0]))
        # "Dollar amounts in millions" with its first word garbled ("Ooi1lar amounts in")
        or re.match(r"^\W{0,3}[A-Za-z0-9]{4,8}\s+amounts?\s+in\s", stripped, re.IGNORECASE)
        is not None
    )
    # a long unit line carries a note ("In millions of dollars; negative figures ...")
    return opens and (len(stripped) <= 110 or read_unit(stripped[:40]) is not None)


def _unread_unit_line(text: str) -> bool:
    """ "(In <scale word> of ..." with the scale word garbled: a unit line, unit unread."""
    # the bracket may be lost or read as a letter: "CIn biltions of yen" (1984-06 p75)
    m = re.match(r"^\W{0,3}(?:[(\[]\s*)?[A-Za-z]?[Ii1l][an]\s+([A-Za-z0-9]+)\s+of\b", text)
    return m is not None and garbled_scale(m.group(1)) is not None


def table_unit(
    title: str,
    unit_lines: list[str],
    column_heads: list[str],
    page_head: list[str],
) -> Unit:
    """The table's unit from, in order: its unit line, its title, its column heads (when
    every head names the same unit), the head of its page."""
    for line in unit_lines:
        found = read_unit(line)
        if found:
            return Unit(*found, "unit_line", line.strip())
    # a unit in the title is set in brackets ("... Outstanding (In millions of dollars)");
    # "Total Liabilities by Type, Payable in Dollars" names no unit
    for part in re.findall(r"[(\[][^()\[\]]*", title or ""):
        found = read_unit(part)
        if found:
            return Unit(*found, "title", title.strip())
    # a unit in the heads counts only when every value column's head names it (a
    # spanner over them all): "Per capita (in dollars)" over one column says nothing
    # of the columns beside it
    read = [read_unit(h) for h in column_heads]
    heads = set(read) - {None}
    if len(heads) == 1 and all(r is not None for r in read):
        words, multiplier = heads.pop()
        return Unit(words, multiplier, "column_head", words)
    for line in page_head:
        found = read_unit(line)
        if found:
            return Unit(*found, "page_head", line.strip())
    # a count: "Number of vessels" printed as the spanner over every value column, and
    # no scale named by any head ("Number of holders (in thousands)" is a scale)
    if column_heads and heads == set() and all(_counts(h) for h in column_heads):
        return Unit("number", 1, "column_head", "number")
    return UNKNOWN


_COUNT_HEAD = re.compile(r"^\W*number\s+of\s+[A-Za-z]", re.IGNORECASE)


def count_spanner(text: str, x0: float, x1: float, columns: tuple[float, float]) -> bool:
    """The top head line states only "Number of ..." (its noun may be lost to OCR:
    "Humber of" for "Number of vessels", 1941-01 p69), one phrase centred over all the
    value columns (``columns``: the left edge of the first, the right edge of the last):
    a spanner saying every figure under it is a count."""
    lo, hi = columns
    mid = (x0 + x1) / 2
    return re.match(
        r"^\W{0,2}number\s+of\b[A-Za-z\s]*$", " ".join(text.split()), re.I
    ) is not None and abs(mid - (lo + hi) / 2) <= 0.15 * (hi - lo)


def _counts(head: str) -> bool:
    """A column head path with a "Number of ..." level: its figures are counts."""
    return any(_COUNT_HEAD.match(level) for level in (head or "").split(" / "))


def read_table_unit(
    title: str,
    unit_lines: list[str],
    col_labels: list[str],
    page_head: list[str],
    lexicon: Lexicon | None = None,
) -> Unit:
    """The table's unit (:func:`table_unit`); on an OCR page the unit lines are read in
    the archive's spelling ("(In thousande of fine ouncee)" -> "thousands of fine
    ounces"), and ``unit.printed`` stays the line as read."""
    if lexicon is None:
        return table_unit(title, unit_lines, col_labels, page_head)
    as_read: dict[str, str] = {}
    for line in [*unit_lines, *page_head]:
        as_read[lexicon.correct(line)[0].strip()] = line.strip()
    unit = table_unit(
        title,
        [lexicon.correct(u)[0] for u in unit_lines],
        col_labels,
        [lexicon.correct(u)[0] for u in page_head],
    )
    if unit.source in ("unit_line", "page_head"):
        unit = replace(unit, printed=as_read.get(unit.printed, unit.printed))
    return unit


def scale_free_note(text: str) -> bool:
    """A bracketed note set where the bulletins print the unit line, under the title
    ("(Compiled from latest reports received by the Treasury - Expenditures on basis of
    checks issued)"), read as words, and naming no unit and no scale: none of its words
    is within three edits of a scale word, and it does not open "(In ...". The unit
    line's place is taken and states no scale, so OCR lost no unit line there."""
    stripped = " ".join((text or "").split())
    if not re.match(r"^[(\[]\s*[A-Za-z]", stripped):
        return False
    words = re.findall(r"[A-Za-z]+", stripped)
    if len(words) < 6 or words[0].lower() in _IN_WORDS or read_unit(stripped) is not None:
        return False
    return not near_scale_word(stripped)


def dollar_sign_amounts(texts: list[str]) -> bool:
    """A row's figures (chunk texts, left to right) print "$" on most of its amounts, on
    the figure itself ("$438,746", "$-18,060,586") or set apart just before it ("$",
    "56,582"): the bulletins' mark of dollar amounts on a table's first row. Dashes
    (empty cells) are no amounts."""
    amounts = signed = 0
    before = ""
    for text in texts:
        t = text.strip()
        number = parse_number(t)
        if number is not None and not number.is_dash:
            amounts += 1
            signed += t.lstrip("(-\u2212").startswith("$") or before == "$"
        before = t
    return amounts > 0 and 2 * signed > amounts


def whole_dollar_figures(texts: list[str]) -> bool:
    """No figure of the row is printed to one decimal: "$53.7", "$27.1" are rounded
    amounts in a scale the page names somewhere (1984-06 p88, "[In billions]"), never
    plain dollars. (Three "decimals" are a comma OCR read as a stop: "2,326.248".)"""
    for text in texts:
        number = parse_number(text.strip())
        if number is not None and not number.is_dash and number.decimals == 1:
            return False
    return True


def near_scale_word(text: str) -> bool:
    """A word of ``text`` within three edits of a scale word ("mtllioas", "thcvsaads",
    "billione"): a unit line OCR may have garbled past reading."""
    return any(
        Levenshtein.distance(w.lower(), f"{s}s") <= 3 or Levenshtein.distance(w.lower(), s) <= 3
        for w in re.findall(r"[A-Za-z]+", text or "")
        if len(w) >= 5
        for s in (*_SCALES, "trillion")
    )
