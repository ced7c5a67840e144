"""Row labels as printed: wrapped lines joined, hyphenation undone, footnote marks
stripped, the stub hierarchy kept; and whether a label can be trusted in a question.

The stub of a bulletin table wraps long labels over two or three lines (the figures
sit on the last one), breaks words with a hyphen at the line end ("arrange-" /
"ment"), hangs footnote marks on labels ("Other aid to education 6/", a superscript
"1" in a text layer) and groups rows under heading lines ("Internal revenue:"), which
are the rows' parents.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pipeline.tables.lexicon import SLIP_COST, slip_cost
from pipeline.tables.periods import MONTHS

_FOOTNOTE_MARKS = re.compile(r"(?<=\S)\s*(?:\d{1,2}/|\(\d{1,2}\)|\*{1,3})(?=\s|$|[,:;.])")
_TRAILING_DIGIT = re.compile(r"(?<=[A-Za-z.)])\s+\d$")
# "Sept. 6", "June 30": a day after a month is part of the label, not a footnote mark
_MONTH_DAY = re.compile(
    r"\b(jan|feb|mar|apr|may|june?|july?|aug|sept?|oct|nov|dec)[a-z]*\.?\s+\d{1,2}$", re.I
)
# a word broken at a hyphen ("arrange- ment"); not a suspended hyphen ("Total on- and
# off-budget financing", 2006-12 p17, or "long- or short-term"), which is printed
_HYPHEN_BREAK = re.compile(r"([a-z])-\s+(?!(?:and|or|to)\b)([a-z])")
_PRINTED_DASH_BREAK = re.compile(r"(--|\u2014|(?<![a-z])[A-Z0-9]-)\s+(?=\S)")
_EDGE = " \t|[]{}!¦;,:_"


def join_wrapped(parts: list[str]) -> str:
    """The lines of one wrapped label as one label: "arrange-" + "ment" -> "arrangement"."""
    text = " ".join(p.strip() for p in parts if p and p.strip())
    # a dash or a code's hyphen at the line end is printed: "note--" + "01/15/07-A",
    # "10/15/06-D-" + "reopening" join without a space; a word broken at a hyphen
    # ("arrange-" + "ment") is one word again
    text = _PRINTED_DASH_BREAK.sub(r"\1", text)
    return _HYPHEN_BREAK.sub(r"\1\2", text)


def strip_marks(label: str) -> str:
    """A label without footnote marks ("3/", "(2)", "*", a trailing superscript digit)."""
    text = _FOOTNOTE_MARKS.sub("", label or "")
    day_row = _DAY_ROW.match(text.strip())  # "Ted. 7": a misread month and its day
    if not _MONTH_DAY.search(text.strip()) and not (
        day_row and month_abbreviation_like(day_row.group("word") + day_row.group("stop"))
    ):
        text = _TRAILING_DIGIT.sub("", text)
    return " ".join(text.split()).strip(_EDGE)


# Marks a stub hangs after a label: "p" (preliminary) and "r" (revised) after a period
# ("June p", "1967p", "Mar. r"), a stray lower-case letter or a footnote digit after a
# year ("1961 6"), and glyphs OCR makes of a mark or a rule end ("$", "=", "~", "¢").
_PERIOD_MARK = re.compile(r"(?<=\d{4})\s*[pr]$|(?<=[A-Za-z.])\s+[pr]$")
_STRAY_LETTER = re.compile(r"(?<=\w[\w.)])\s+[a-z]$")
_YEAR_MARK = re.compile(r"(?<=\b\d{4})\s+\d$")
_GLYPH_TAIL = re.compile(r"\s+[$=~\u00a2*\u00b0\u2022]+$")


def strip_row_marks(label: str) -> str:
    """A row label without the marks that trail it: "June p" -> "June", "1967p" ->
    "1967", "Mar. r" -> "Mar.", "1961 6" -> "1961", "Legislative branch =" ->
    "Legislative branch". A single capital letter stays ("Series E", "Note A")."""
    text = strip_marks(label)
    # a speck before the label: a lone lower-case letter or a quote or backslash before
    # its first word ("i Cleared to Great Lakes ports", "\\ 2/23/84", "‘february")
    specked = re.sub(r"^(?:[a-z]\s+(?=[A-Z])|[\\‘`]+\s*)", "", text)
    if specked != text and _month_of(specked.split(" ")[0]) is not None:
        specked = specked[:1].upper() + specked[1:]  # the month's capital read as the quote
    text = specked
    # a figure's last characters OCR glued to the label: "Education a)" for ".5)",
    # "Veterans Administration of)"; a label closing no bracket it opened (one that
    # starts in lower case may end a bracket opened on the line above: "research by)")
    if "(" not in text and text[:1].isupper():
        text = re.sub(r"\s+[A-Za-z]{1,2}\)$", "", text)
    # a month OCR split before its last letter ("Jul y") is no label with a mark
    text = re.sub(r"\b(Jul|Jun|Ma|Ju)\s([ye])$", r"\1\2", text)
    for _ in range(2):
        text = _GLYPH_TAIL.sub("", text)
        text = _PERIOD_MARK.sub("", text)
        text = _STRAY_LETTER.sub("", text)
        text = _YEAR_MARK.sub("", text)
    return text.strip(_EDGE)


_COLUMN_NUMBER_ONLY = re.compile(r"^\(?\d{1,2}\)?$")


def footnoted_month_rows(labels: list[str]) -> list[str]:
    """Month rows that carry a footnote mark read as a day ("July 1", "Aug. 1", "Nov. 2"
    under "2015 - June 1"): when three or more months print one or two distinct "days",
    the digits are marks (weekly rows, "Sept. 6", "Sept. 13", print different days)."""
    hits = [(i, m) for i, label in enumerate(labels) if (m := _MONTH_DAY.search(label or ""))]
    months = {m.group(1).lower()[:3] for _, m in hits}
    days = {m.group(0).split()[-1] for _, m in hits}
    if len(hits) < 3 or len(months) < 3 or len(days) > 2:
        return labels
    out = list(labels)
    for i, m in hits:
        out[i] = labels[i][: m.end() - len(m.group(0).split()[-1])].rstrip()
    return out


def clean_header_path(path: str) -> str:
    """A column's header path without column numbers "(12)" and footnote marks, level by
    level; levels left empty are dropped, and a level that continues the one above it (a
    word broken at a hyphen, "Payroll de-" / "ductions", or a lower-case start,
    "Federal Housing" / "enterprise") is joined to it."""
    levels = [strip_marks(level) for level in (path or "").split(" / ")]
    levels = [lv for lv in levels if lv and not _COLUMN_NUMBER_ONLY.match(lv)]
    out: list[str] = []
    for level in levels:
        if out and re.search(r"[A-Za-z]-$", out[-1]) and level[:1].islower():
            out[-1] = out[-1][:-1] + level
        elif out and level[:1].islower():
            out[-1] = f"{out[-1]} {level}"
        else:
            out.append(level)
    return " / ".join(join_wrapped([lv]) for lv in out)


_MID_PHRASE_END = re.compile(
    r"([A-Za-z]-|--|\u2014|\(|\b(and|or|of|for|to|the|in|on|by|from|with|than|under))$", re.I
)
_LEADERS_END = re.compile(r"(\.\s?){3,}$|\u2026$")


def continues_phrase(text: str, nxt: str) -> bool:
    """Whether ``nxt`` goes on with the phrase ``text`` started on the line above: it
    starts in lower case ("Duty-free" / "articles"), or ``text`` stops mid-phrase or
    inside brackets ("Call classes (due or first" / "becoming callable)")."""
    t, n = (text or "").strip(), (nxt or "").strip()
    return bool(t and n) and (
        n[0].islower() or bool(_MID_PHRASE_END.search(t)) or t.count("(") > t.count(")")
    )


_PERIOD_ROW = re.compile(
    r"^\W*(1[89]\d\d|20\d\d)\b"
    r"|^\W*(jan|feb|mar|apr|may|june?|july?|aug|sept?|oct|nov|dec)[a-z]*\.?(\s+\d{1,2})?\W*$",
    re.IGNORECASE,
)


def is_period_row(label: str) -> bool:
    """A stub label that names a period ("1935", "1939-Apr.", "Feb. 7", "March")."""
    return bool(_PERIOD_ROW.match(label or ""))


def continues_label(label: str, line: str) -> bool:
    """Whether a text line set just below a row continues that row's label, where the
    figures stand on a label's first line (or in its middle): the line starts in lower
    case ("reopening", "and regional"), or runs into dot leaders ("and regional.....",
    the leaders end a label), or the label above stops mid-phrase ("note--", "issue
    of"). A heading ("Other countries:") never continues a label."""
    t = (line or "").strip()
    if not t or is_heading(t):
        return False
    return bool(
        t[0].islower()
        or _LEADERS_END.search(t)
        or _MID_PHRASE_END.search(strip_marks(label or "").rstrip())
    )


def is_heading(text: str) -> bool:
    """A stub heading line ("Internal revenue:", "Loans to --"): the parent of rows below.

    A hyphen glued to a word ("Special issues to Govern-") is a word broken at the line
    end, the first line of a wrapped label, not a heading.
    """
    t = heading_text(text)
    if re.search(r"[A-Za-z]-$", t):
        return False
    return t.endswith((":", "-", "\u2014", "--")) and len(re.findall(r"[A-Za-z]", t)) >= 3


_COLON_DEBRIS = re.compile(r":\s+\S$")


def heading_text(text: str) -> str:
    """A stub heading line as printed: without the one glyph OCR may leave after its
    colon, of a rule or a speck ("Executive branch: \\", 1984-06 p88; "abroad: I"), and
    with the typewriter colon OCR read as a question mark ("banks?", 1940-05 p59)."""
    t = (text or "").strip()
    if re.search(r"[A-Za-z]\?$", t):
        t = t[:-1] + ":"  # the typewriter colon OCR reads as "?" ("Loans to foreign banks?")
    return t[: t.rindex(":") + 1] if _COLON_DEBRIS.search(t) else t


_TOTAL = re.compile(r"^\W*(grand\s+)?totals?\b", re.IGNORECASE)
_MINOR_WORDS = {"and", "or", "of", "the", "for", "in", "on", "to", "by", "a"}


def _content_words(text: str) -> set[str]:
    return {w.rstrip("s") for w in re.findall(r"[a-z]+", text.lower())} - _MINOR_WORDS


@dataclass
class _Open:
    x: float  # where the heading starts
    text: str
    rows_x: float | None = None  # where its rows start, fixed by the first one


@dataclass
class StubTree:
    """The stub hierarchy, read top down: which stub heading each row sits under.

    Rows sit under the stub heading above them ("Budget outlays:"); a row printed
    left of a heading is not under it. A heading whose rows are set deeper than
    itself ("China:" over "Mainland", "Taiwan") is closed by the next row back at its
    own indent ("Hong Kong"); a heading whose rows are flush with it ("Budget outlays:" over
    "Legislative branch") stays open for them, and a heading among those rows
    ("Department of the Treasury:") is a sub-heading of it, as is a heading set
    directly under it ("Assets" over "U.S. dollars:"). A total closes its group:
    the heading it names ("Total outlays" under "Budget outlays:"), else the innermost.
    """

    height: float
    open: list[_Open] = field(default_factory=list)

    def _settle(self, x: float) -> None:
        tol = 0.5 * self.height
        out = []
        for h in self.open:
            if h.x > x + tol:
                continue
            if h.rows_x is None:
                h.rows_x = x  # its first row, or a sub-heading under it
            elif h.rows_x > h.x + tol and x < h.rows_x - tol:
                continue
            out.append(h)
        self.open = out

    def heading(self, text: str, x: float) -> None:
        """A stub heading line (no figures) starting at ``x``."""
        self._settle(x)
        self.open.append(_Open(x, text))

    def row(self, label: str, x: float) -> str:
        """A body row starting at ``x``: its parent ("" if none)."""
        self._settle(x)
        named = -1
        if _TOTAL.match(label or ""):
            words = _content_words(_TOTAL.sub("", label)) - {"total"}
            named = next(
                (i for i in range(len(self.open) - 1, -1, -1)
                 if words and words <= _content_words(self.open[i].text)),
                -1,
            )  # fmt: skip
            if named >= 0:
                self.open = self.open[: named + 1]
        parent = self.open[-1].text if self.open else ""
        if _TOTAL.match(label or "") and self.open:
            self.open = self.open[:named] if named >= 0 else self.open[:-1]
        return parent


_MIXED_TOKEN = re.compile(r"\d[a-z]|[a-z]\d")
_ORDINALS = re.compile(r"\b\d+(st|nd|rd|th|s)\b")  # "1st", "2nd", "1990s"


def label_problems(label: str) -> list[str]:
    """Why a label cannot be trusted in a question; empty when it reads as a label.

    Catches what wrapping, header paths and OCR leave behind: a word broken at a hyphen
    ("arrange-"), unbalanced brackets, a footnote mark inside, a lower-case or
    punctuation start ("and cor-"), a dangling conjunction or preposition at the end
    ("Food for"), glyph noise, or a label too short to name anything.
    """
    t = (label or "").strip()
    problems = []
    letters = re.findall(r"[A-Za-z]", t)
    if len(letters) < 3:
        problems.append("too short")
    if re.search(r"[A-Za-z]-(\s|$|\))", t):
        problems.append("word broken at a hyphen")
    if t.count("(") != t.count(")") or t.count("[") != t.count("]"):
        problems.append("unbalanced brackets")
    if re.search(r"\d{1,2}/(\s|$|\))", t):
        problems.append("footnote mark")
    if t and (t[0].islower() or not (t[0].isalnum() or t[0] in "\"'(")):
        problems.append("starts mid-phrase")
    last = t.rstrip(" .,;:").split(" ")[-1].lower() if t else ""
    if last in {"and", "or", "of", "for", "to", "the", "in", "on", "by", "from", "with", "a"}:
        problems.append("ends mid-phrase")
    if re.search(r"[^\w\s.,;:'\"()&%$/\-\u2013\u2014]", t):
        problems.append("glyph noise")
    if re.search(r"(^|\s)([0-9]|[b-z])(\s|$)", t):
        problems.append("stray mark")  # "Bolivia 5 n": a footnote digit or letter left in
    if t.count(" / ") >= 3:
        problems.append("header path too deep")
    if _MIXED_TOKEN.search(_ORDINALS.sub(" ", t)):
        problems.append("letters among digits")  # "o11", "19h7", "195k": OCR misreadings
    return problems


# --- period stubs: months and years OCR misread, restored from the run they sit in --

_MONTH_NAMES = MONTHS
_MONTH_SHORT = "Jan. Feb. Mar. Apr. May June July Aug. Sept. Oct. Nov. Dec.".split()
_MONTH_KEYS = [m[:3] for m in MONTHS]
# "1948-January", "1948—Jamary", "1947July", "Fed", "Septenher", "1948-J amary": an
# optional year (as read, maybe misread) and separator, then one word that should name
# a month (OCR may split off its first letter)
_PERIOD_STUB = re.compile(r"^(?P<year>[0-9][0-9A-Za-z]{3})?(?P<sep>\s*[-\u2013\u2014~]?\s*)"
                          r"(?P<word>[A-Za-z] ?[A-Za-z]{2,9})\.?$")  # fmt: skip
# Typewriter digits OCR reads as letters: "19h7", "19k8" (4), "1g47" (9), "1gho" (0)
_DIGIT_SLIPS = str.maketrans({"h": "4", "k": "4", "g": "9", "o": "0", "O": "0",
                              "l": "1", "I": "1", "i": "1", "S": "5", "B": "8"})  # fmt: skip
_ESTIMATE_STUB = re.compile(r"^(\d{4})\s*\((\w{2,10})\s*\.?\s*\)?[.\s]*$")


def _garbled_estimated(word: str) -> bool:
    """The one word of a year row's parenthesis ("1949 (...)") OCR garbled from
    "Estimated": one edit from it, or nine letters ending as it does within 2.5 slips
    (1948-05 p18, Receipts and Expenditures by Major Classifications: "(Zetiaated)",
    "(Eetizated)", "(Betimated)" under the actual years; the table below reads
    "(Estimated)"). No other word a year row puts in parentheses ("Revised",
    "Preliminary", "Actual", "Continued") comes near."""
    return slip_cost(word, "estimated") <= 1 or (
        len(word) == 9 and word.endswith("ated") and slip_cost(word, "estimated") <= 2.5
    )


_YEAR_TOKEN = re.compile(r"(?<![\w/])[0-9IlighkoOSB]{4}(?![\w/])")


def _month_of(word: str) -> int | None:
    """The month a word names exactly ("Feb.", "February", "Sept"), else None."""
    w = word.lower().rstrip(".")
    for i, (key, name) in enumerate(zip(_MONTH_KEYS, _MONTH_NAMES, strict=True)):
        if len(w) >= 3 and name.startswith(w) and w.startswith(key):
            return i
    return None


def _edits(a: str, b: str) -> int:
    from rapidfuzz.distance import Levenshtein

    return Levenshtein.distance(a, b)


def _misread_month(word: str, month: int) -> str | None:
    """``word`` as the month ``month`` printed in the form it was read in (full name or
    abbreviation), when OCR could have made it of that month: at most one edit from
    the abbreviation, or one edit in three letters from the full name (look-alike
    letters counting half: "Fovenbor", "Decentar"), or three letters a look-alike and
    one other letter from its first three ("Ted" for "Feb", "Get" for "Oct")."""
    w = word.lower().rstrip(".")
    name, short = _MONTH_NAMES[month], _MONTH_SHORT[month]
    if len(w) >= 5 and min(_edits(w, name), slip_cost(w, name)) <= len(name) // 3:
        return name.capitalize()
    if len(w) <= 5 and min(_edits(w, short.lower().rstrip(".")), _edits(w, name)) <= 1:
        return short
    if len(w) == 3 and slip_cost(w, short.lower()[:3]) <= 1.5:
        return short  # a look-alike and one other letter: "Ted" for "Feb", "Get" for "Oct"
    return None


def _year_of(token: str) -> int | None:
    text = token.translate(_DIGIT_SLIPS)
    return int(text) if text.isdigit() and 1900 <= int(text) <= 2099 else None


def _month_in_style(month: int, neighbours: list[str]) -> str:
    """Month ``month`` spelt as its neighbours spell theirs: "Feb." between "Jan." and
    "Mar.", "February" between "January" and "March"."""
    full = _MONTH_NAMES[month].capitalize()
    for label in neighbours:
        word = _PERIOD_STUB.match(label.strip()).group("word") if label else ""
        k = _month_of(word)
        if k is None or _MONTH_NAMES[k] in ("may", "june", "july"):
            continue
        return full if word.lower() == _MONTH_NAMES[k] else _MONTH_SHORT[month]
    return full if _MONTH_NAMES[month] in ("may", "june", "july") else _MONTH_SHORT[month]


def _lost_stub(label: str | None, month: int) -> bool:
    """A stub OCR lost (no letter or digit read) or cut to the opening letter or two of
    the month its place gives ("M" for May)."""
    text = (label or "").strip()
    if not re.search(r"[A-Za-z0-9]", text):
        return True
    return bool(re.fullmatch(r"[A-Za-z]{1,2}\.?", text)) and _MONTH_NAMES[month].startswith(
        text.rstrip(".").lower()
    )


# a stub word of four letters or fewer that names an item, not a month
_SHORT_STUB_WORD = re.compile(r"total|\bnet\b|\bsum\b|\bavg|\bave\b|mean", re.IGNORECASE)


def _unread_stub(label: str | None) -> bool:
    """A stub OCR garbled past reading into a short word, "Food" (the lexicon's word for
    "Fobd.." where "Feb.." is printed), "say" for "July", "Taso" for "June" (1940-05
    p73): letters only, four at most, no month and no stub word ("Net", "Avg.")."""
    text = (label or "").strip().rstrip(".")
    return (
        bool(re.fullmatch(r"[A-Za-z]{2,4}", text))
        and _month_of(text) is None
        and not _SHORT_STUB_WORD.search(text)
    )


def _fill_lost_month_runs(out: list[str], months: dict[int, int]) -> None:
    """Several stubs in a row OCR lost between two months exactly as many months apart
    as rows ("Apr.", "M", "", "", "", "Sept.", 1939-12 p63), or garbled past reading
    ("May.", "Taso", "say", "aug.", 1940-05 p73): each takes its place's month, unless
    a January (which prints its year) would fall among them. As many rows as months
    leave no row between for anything but a month (the period reader dates them so)."""
    i = 0
    while i < len(out):
        if i in months or i - 1 not in months:
            i += 1
            continue
        k = i
        while k < len(out) and k not in months:
            k += 1
        first = months[i - 1]
        fits = (
            k < len(out)
            and (months[k] - first) % 12 == k - i + 1
            and all((first + j - i + 1) % 12 != 0 for j in range(i, k))
            and all(
                _lost_stub(out[j], (first + j - i + 1) % 12) or _unread_stub(out[j])
                for j in range(i, k)
            )
        )
        if fits:
            for j in range(i, k):
                months[j] = (first + j - i + 1) % 12
                out[j] = _month_in_style(months[j], [out[i - 1], out[k]])
        i = k + 1


def repair_period_stub(labels: list[str]) -> tuple[list[str], list[tuple[str, str]]]:
    """Month and year rows OCR misread in a period stub, restored from their neighbours,
    with the (read, restored) pairs.

    Monthly rows run in calendar order: a row between (or next to) months that reads
    as no month ("Fed", "Oot", "Septenher", "1948-Jamary") takes the month its place
    implies, when that month is a plausible misreading of what was read (a letter or
    two, see ``_misread_month``); the two neighbours, when both name months, must
    agree. A year whose typewriter digits OCR read as letters ("19h7", "1gh2") is
    restored when the row below prints the next year. A year glued to its
    month or joined by another dash ("1947July", "1948—January") is written
    "1947-July". A row whose stub OCR lost (no letter or digit read) between two
    months one apart takes the month between them, spelt as they are (not a January,
    which would print its year). Nothing else is touched.
    """
    out = list(labels)
    fixes: list[tuple[str, str]] = []
    months: dict[int, int] = {}
    for i, label in enumerate(out):
        m = _PERIOD_STUB.match((label or "").strip())
        if m and (k := _month_of(m.group("word"))) is not None:
            months[i] = k
    for _ in range(2):  # a restored month can vouch for the next one
        for i, label in enumerate(out):
            m = _PERIOD_STUB.match((label or "").strip())
            if i in months or not m:
                continue
            implied = {(months[j] + (i - j)) % 12 for j in (i - 1, i + 1) if j in months}
            if len(implied) != 1:
                continue
            word = _misread_month(m.group("word").replace(" ", ""), implied.pop())
            if word is not None:
                year = m.group("year") or ""
                out[i] = f"{year}{m.group('sep') if year else ''}{word}"
                months[i] = _MONTH_SHORT.index(word) if word in _MONTH_SHORT else (
                    _MONTH_NAMES.index(word.lower()))  # fmt: skip
    for i, label in enumerate(out):  # a stub OCR lost between two months
        if re.search(r"[A-Za-z0-9]", label or "") or not (i - 1 in months and i + 1 in months):
            continue
        month = (months[i - 1] + 1) % 12
        if (months[i + 1] - months[i - 1]) % 12 != 2 or month == 0:
            continue  # not one month apart, or a January (which prints its year)
        out[i] = _month_in_style(month, [out[i - 1], out[i + 1]])
        months[i] = month
    _fill_lost_month_runs(out, months)
    years = {}
    for i, label in enumerate(out):
        m = re.match(r"^\s*(\d{4})\b", label or "")
        if m and (y := _year_of(m.group(1))):
            years[i] = y
    for i in range(len(out) - 1, -1, -1):  # bottom up: a restored year vouches for the next
        label = out[i]
        m = re.match(r"^\s*([0-9A-Za-z]{4})(?![A-Za-z])", label or "")
        if not m or m.group(1).isdigit() or (y := _year_of(m.group(1))) is None:
            continue
        # the row below must print the next year: the last row of a year run is often
        # an estimate whose "(Est.)" OCR may have lost with the digits ("195k")
        if years.get(i + 1) == y + 1:
            out[i] = label.replace(m.group(1), str(y), 1)
            years[i] = y
    for i, label in enumerate(out):  # "1954 (Eet )", "1968 (Est." : the estimate mark
        m = _ESTIMATE_STUB.match((label or "").strip())
        if (
            m
            and (word := m.group(2).lower())
            and (slip_cost(word, "est") <= SLIP_COST or _garbled_estimated(word))
        ):
            out[i] = f"{m.group(1)} ({'Est.' if len(word) <= 4 else 'Estimated'})"
    _restore_new_year_rows(out)
    for i, label in enumerate(out):
        m = re.match(r"^(\d{4})(\s*)([-\u2013\u2014~]?)(\s*)([A-Za-z].*)$", (label or "").strip())
        glued = m and not (m.group(2) or m.group(3) or m.group(4))  # "1947July"
        if m and _month_of(m.group(5).split()[0]) is not None and (glued or m.group(3) not in "-"):
            # "1948—January", "1967~January" (a dash OCR read as another glyph)
            out[i] = f"{m.group(1)}{m.group(2)}-{m.group(4)}{m.group(5)}"
    _restore_month_row_years(out)
    fixes = [(a, b) for a, b in zip(labels, out, strict=True) if a != b]
    return out, fixes


_TYPED_FOUR_YEAR_MONTH = re.compile(
    r"^(\s*)(1[89hk][0-9hk]{2}|20[0-9hk]{2})(\s*[-\u2013\u2014]\s*)(\S.*)$"
)


def _restore_month_row_years(out: list[str]) -> None:
    """A month row whose year prints the typewriter 4 OCR reads as "h" or "k" ("19h0-Jan."
    after "1939-Apr." ... "Dec.", 1940-05 p73) is that year when a month row above
    dates the same year or the one before: the run vouches for it."""
    for i, label in enumerate(out):
        m = _TYPED_FOUR_YEAR_MONTH.match(label or "")
        if not m or m.group(2).isdigit() or _month_of(m.group(4).split()[0]) is None:
            continue
        year = int(m.group(2).replace("h", "4").replace("k", "4"))
        above = {
            int(a.group(1))
            for lb in out[:i]
            if (a := re.match(r"^\s*(\d{4})\s*[-\u2013\u2014]\s*[A-Za-z]", lb or ""))
        }
        if above & {year - 1, year}:
            out[i] = f"{m.group(1)}{year}{m.group(3)}{m.group(4)}"


_GARBLED_YEAR_MONTH = re.compile(r"^(\s*)(\S{2,5}?)\s*[-\u2013\u2014~]\s*([A-Za-z]{3,9}\.?)$")


def _month_and_year(label: str | None) -> tuple[int | None, int | None]:
    """The month a month row names exactly and the year it prints (None: none read)."""
    m = _PERIOD_STUB.match((label or "").strip())
    if not m:
        return None, None
    year = m.group("year")
    return _month_of(m.group("word")), int(year) if year and year.isdigit() else None


def _restore_new_year_rows(out: list[str]) -> None:
    """A January row whose year OCR garbled past reading ("WWO\u2014January" for
    "1940-January", 1941-01 p21) under the December of a month run dated by a year
    ("1939-December", or "Dec." under "1938-Nov.") is the next year's: a run prints the
    year on its first row and on each January. The row below, if any, must be the
    February; a January whose year the rows above do not give is left as read."""
    for i, label in enumerate(out):
        m = _GARBLED_YEAR_MONTH.match(label or "")
        if not m or i == 0 or m.group(2).isdigit() or _month_of(m.group(3)) != 0:
            continue
        if i + 1 < len(out) and _month_and_year(out[i + 1])[0] != 1:
            continue
        k, month = i - 1, 12
        while k >= 0:  # up the run, one month a row, to the row that prints its year
            got, year = _month_and_year(out[k])
            if got != month - 1:
                break
            if year is not None:
                out[i] = f"{m.group(1)}{year + 1}-{m.group(3)}"  # the rows k..i-1: one year
                break
            if got == 0:
                break  # a January prints its year: this one was not read
            k, month = k - 1, got


# --- dated rows of one month: "Feb. 7", "Feb. 14", ... (weekly figures) -------------

_DAY_ROW = re.compile(r"^(?P<word>[A-Za-z]{3,5})(?P<stop>\.?,?)\s+(?P<day>\d{1,2})$")


def month_abbreviation_like(text: str) -> bool:
    """An abbreviated month as OCR may read it: three to five letters and a stop, a
    look-alike letter or one other letter from a month's abbreviation ("Feb.", "Fed.",
    "Teb.", "Ted.", "Oot.")."""
    t = text.strip().rstrip(",")
    if not t.endswith(".") or not (3 <= len(t) - 1 <= 5) or not t[:-1].isalpha():
        return False
    w = t[:-1].lower()
    return any(slip_cost(w, s.lower().rstrip(".")) <= 1.5 for s in _MONTH_SHORT)


def repair_day_rows(labels: list[str]) -> list[str]:
    """Dated rows of one month ("Feb. 7" ... "Feb. 28", weekly figures) whose month OCR
    misread ("Ted. 21", "Teb. 28", "Fed. 14"): when every day row of the stub that names
    a month exactly names the same one, and at least two do, a day row whose word is a
    look-alike of that month's abbreviation (and no month itself) names it too. A stub
    of several months is left as read."""
    rows = {i: m for i, label in enumerate(labels) if (m := _DAY_ROW.match((label or "").strip()))}
    named = [k for m in rows.values() if (k := _month_of(m.group("word"))) is not None]
    if len(named) < 2 or len(set(named)) != 1:
        return list(labels)
    short = _MONTH_SHORT[named[0]]
    out = list(labels)
    for i, m in rows.items():
        word = m.group("word")
        if _month_of(word) is not None or not 1 <= int(m.group("day")) <= 31:
            continue
        if slip_cost(word.lower(), short.lower().rstrip(".")) <= 1.5:
            out[i] = f"{short} {m.group('day')}"
    return out
