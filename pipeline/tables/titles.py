"""A table's title as a reader names it: number, statement name, and "(Continued)".

Bulletin titles come as "Table 3.- Expenditures and Balances by Functions -
(Continued)", "TABLE CM-II-2.—Total Claims by Country, con.", or a centred heading
without a number. :func:`split_title` separates the table number, the statement name
and the continuation mark, so a continued page carries the same statement name as the
page it continues. :func:`is_legend` tells a chart legend (several short phrases spread
across one line) from a title.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rapidfuzz import fuzz

_NUMBER = re.compile(
    r"^\W{0,3}(?P<num>(?:ta[bh][l1i|]e|chart|exhibit|schedule)\s+(?:no\.\s*)?[A-Z0-9]+(?:[-.][A-Z0-9]+)*"
    r"|section\s+[IVX0-9]{1,5}(?=\.?\s*[-\u2013\u2014~])"
    r"|[A-Z]{1,5}(?:-[A-Z0-9]{1,5})+(?=\.?\s*[\u2013\u2014]))"
    r"\s*[.:]?\s*[-\u2013\u2014~]*\s*",
    re.IGNORECASE,
)
_CONTINUED = re.compile(
    r"[\s,;.\-\u2013\u2014]*[(\[]?\s*(?:continued|cont'?d|con)\s*\.?\s*[)\]]?[\s.\-\u2013\u2014]*$",
    re.IGNORECASE,
)
_FOOTNOTE_TAIL = re.compile(r"(\s*(\d{1,2}/|\*{1,3})|(?<=[A-Za-z])\d)+\s*$")
_UNIT_TAIL = re.compile(
    r"\s*[(\[][^()\[\]]*(dollars|millions|thousands|billions|percent)[^()\[\]]*[)\]]\s*$",
    re.IGNORECASE,
)
_EDGE = " \t-\u2013\u2014.,:;|_"


@dataclass(frozen=True)
class Title:
    number: str  # "Table 3", "TABLE CM-II-2", "" if none
    name: str  # the statement name, e.g. "Total Claims by Country"
    continued: bool


# "CM-IV—1" as OCR or a typesetter prints it: a dash of any kind inside a table code
_CODE_DASH = re.compile(r"(?<=[A-Z0-9])[\u2013\u2014~](?=[IVX0-9]{1,4}\b)")
# a table code whose "Table" word was set apart: "4. — Allotments", "II—1. — Dollar Claims"
_BARE_CODE = re.compile(r"^\W{0,2}[A-Z0-9]{1,5}(?:-[A-Z0-9]{1,5})*\.\s*[-\u2013\u2014]+\s*")
_FUZZY_UNIT_TAIL = re.compile(r"\s*\(([^()]{6,40})\)\s*$")


# "Table 3.-", "TABLE FFO-3—", "Table CM—IV—4. —", "Chart CM-C.—", "Table I.- ": the word,
# then a number code (a first part, then dash-joined parts of figures or roman numerals)
_NUMBERED = re.compile(
    r"^\W{0,3}(?i:ta[bh][l1i|]e|chart|exhibit|schedule)\s+(?:(?i:no)\.\s*)?"
    r"(?P<first>[A-Za-z0-9|!]{1,6})"
    r"(?P<parts>(?:\s?[-\u2013\u2014~]+\s?(?:[0-9IVXivxl|!]{1,5}[A-Z]?|[A-Z])(?![A-Za-z]))*)"
    r"(?P<rest>.*)$"
)


# a table code OCR garbled in its middle ("Table CM—ltiI—1. — Dollar Claims", 1984-06
# p60, for "CM-III-1"): letters, dash-joined parts, a last part of figures, then a stop
# and a dash before a capitalised name - the shape of a numbered title all the same
_GARBLED_CODE = re.compile(
    r"^\W{0,3}(?P<word>(?i:ta[bh][l1i|]e))\s+(?P<code>[A-Za-z]{1,4}"
    r"(?:\s?[-\u2013\u2014~]\s?[A-Za-z0-9|!]{1,5}){0,2}\s?[-\u2013\u2014~]\s?\d{1,2})"
    r"\.\s*[-\u2013\u2014]+\s*(?P<rest>[A-Z].*)$"
)


def is_numbered_title(text: str) -> bool:
    """A line that opens a numbered title: "Table 3.- Budget Receipts", "TABLE FFO-3—On-
    Budget ...", "CHART CM-C.—Net Purchases ...". Not prose that names a table ("Table 4
    under ...", "Table IFS-2 brings together ...", "table below.", "Table 3, footnote 2"):
    the number is a figure or a roman numeral (or a code ending in one, or in a letter
    set off by a stop or a dash: "CM-C.—"), and what follows it is a dash, a stop, or a
    capitalised title, never a lower-case word or a comma."""
    m = _NUMBERED.match(" ".join((text or "").split()))
    if m is None:
        return False
    if _GARBLED_CODE.match(" ".join((text or "").split())):
        return True
    first, parts, rest = m.group("first"), m.group("parts"), m.group("rest")
    lettered = bool(parts) and re.match(r"^\s*[.\-\u2013\u2014]", rest) is not None
    if not (re.search(r"\d", first + parts) or re.fullmatch(r"[IVXl|!]+", first) or lettered):
        return False
    if re.match(r"^\s*[,;)\]]", rest):
        return False  # "... securities (Schedule 2) 20,000,000.00": a reference in a label
    if re.match(r"^\s*[.:]?\s*[-\u2013\u2014~]", rest):
        return True  # "Table 5.- and Redemptions ..." (OCR lost "Sales"): a title all the same
    words = rest.lstrip(" .:")
    return not words[:1].islower()


def split_title(text: str) -> Title:
    """Table number, statement name and continuation mark of a printed title."""
    t = _CODE_DASH.sub("-", " ".join((text or "").split()))
    number = ""
    m = _NUMBER.match(t)
    g = _GARBLED_CODE.match(t)
    if g and (
        m is None
        or len(m.group("num").rstrip(".-\u2013\u2014"))
        < len(g.group("word")) + 1 + len(g.group("code"))
    ):
        # the garbled code reaches further than the code read as printed
        code = re.sub(r"\s?[-\u2013\u2014~]\s?", "-", g.group("code"))
        number, t = f"{g.group('word')} {code}", g.group("rest")
    elif m:
        number = m.group("num").rstrip(".-\u2013\u2014")
        t = t[m.end() :]
    else:
        bare = _BARE_CODE.match(t)
        if bare:
            number, t = bare.group(0).strip(" .-\u2013\u2014"), t[bare.end() :]
    t = _UNIT_TAIL.sub("", t)
    tail = _FUZZY_UNIT_TAIL.search(t)
    if tail and fuzz.partial_ratio("in millions of dollars", tail.group(1).lower()) >= 75:
        t = t[: tail.start()]  # an OCR-mangled unit: "(Ia millioas of dollare)"
    continued = False
    while True:
        stripped = _CONTINUED.sub("", t)
        if stripped == t:
            break
        continued, t = True, stripped
    t = _FOOTNOTE_TAIL.sub("", t).strip(_EDGE)
    t = re.sub(r"^[-\u2013\u2014\s]+|[-\u2013\u2014\s]+$", "", t)
    return Title(number, t, continued)


def statement_name(title: str) -> str:
    """The statement a question names: the title without number, unit or "(Continued)"."""
    return split_title(title).name


def is_legend(phrases: list[str], gaps: list[float], height: float) -> bool:
    """Three or more short phrases spread over one line with wide gaps: a chart legend
    (or a row of column heads), never a title."""
    if len(phrases) < 3:
        return False
    wide = sum(g > 2.0 * height for g in gaps)
    return wide >= 2 and all(len(p.split()) <= 5 for p in phrases)


def title_like(text: str) -> bool:
    """A line that can be (part of) a title: enough letters, not a note or a footnote."""
    t = text.strip()
    if len(re.findall(r"[A-Za-z]", t)) < 8:
        return False
    if re.match(r"^\W{0,2}(source|note|[a-z]otes?\s*:|footnote|\d{1,2}/|\*)", t, re.IGNORECASE):
        return False
    return True
