"""Read one printed table number the way a statistical bulletin prints it.

Treasury-style tables print ``1,234`` (thousands separators), ``(1,234)`` or ``-1,234``
(negatives), ``-`` / ``--`` / ``...`` (zero), footnote marks glued to the figure
(``1,234 1/``, ``1,234*``, ``1,234a``) and ``r`` revised marks (``r1,234``,
``1,234r``). OCR adds its own noise on top: rule glyphs glued to the figure
(``337,385|``), stray separators, ``,`` read as ``.`` inside thousands groups, and
``O``/``l`` read for ``0``/``1``. :func:`parse_number` undoes all of that and returns
the exact decimal text, or ``None`` when the text is not a number (the caller keeps
the text; nothing is dropped).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

# Glyphs OCR produces for the minus sign or for a dash standing for zero.
_MINUS_GLYPHS = str.maketrans({"\u2212": "-", "\u2013": "-", "\u2014": "-", "\u2012": "-"})
# Vertical rules and box edges tesseract glues to the figure next to them.
_RULE_GLYPHS = "|[]{}!¦"
# Dashes print zero; a run of dots is a leader (or an empty stub cell), never a figure:
# read as zero it made "Fiscal year or month" a value column of zeros (1997-09 audit).
_DASH_ONLY = re.compile(r"^[-_\s]+$")
_REVISED_PREFIX = re.compile(r"^r\s*(?=[\d(\-.$OoIl])")
_REVISED_SUFFIX = re.compile(r"(?<=[\d)])\s*r$")
_FOOTNOTE_SLASH = re.compile(r"^(?P<core>.*?)(?P<space>\s*)(?P<mark>\d{1,2}/)$")
_FOOTNOTE_SYMBOL = re.compile(r"^(?P<core>.*?)\s*(?P<mark>\*{1,3}|[\u2020\u2021\u00a7])$")
# A lowercase letter glued to a figure is a footnote ("1,234a"); r is the revised
# mark, and l / o are left out because OCR reads them for 1 / 0.
_FOOTNOTE_LETTER = re.compile(r"^(?P<core>.*[\d)])\s*(?P<mark>[a-kmnpqs-z])$")
_SEPARATORS = re.compile(r"[,.]")


@dataclass(frozen=True)
class ParsedNumber:
    """One printed number: exact value plus the marks printed around it."""

    value_str: str  # exact decimal text, e.g. "-1234.5"; "0" for a dash
    negative: bool
    is_dash: bool
    footnote: str  # "1/", "*", "a", ... or ""
    revised: bool
    decimals: int  # printed decimal places

    @property
    def value(self) -> float:
        return float(self.value_str)

    @property
    def decimal(self) -> Decimal:
        return Decimal(self.value_str)


def parse_number(text: str | None) -> ParsedNumber | None:
    """Parse one printed table number; ``None`` when ``text`` is not a number.

    Accepts thousands separators, decimals, ``(…)`` / leading minus (ASCII, Unicode,
    en/em dash, OCR ``~``) as negative, dashes as zero (a dot run is a leader: not a
    number), footnote marks
    (``1/``, ``*``, a letter) and ``r`` revised marks before or after the figure, and
    repairs OCR noise (rule glyphs, stray separators, ``.`` for ``,`` in thousands
    groups, ``O``→0 and ``l``/``I``→1 between digits).
    """
    if text is None:
        return None
    s = _strip_rules(text.translate(_MINUS_GLYPHS).strip())
    if not s:
        return None
    revised, s = _take_revised(s)
    footnote, s = _take_footnote(s)
    if not revised:
        revised, s = _take_revised(s)
    if _DASH_ONLY.match(s) and s.strip() and footnote != "*":
        return ParsedNumber("0", False, True, footnote, revised, 0)
    if not s and footnote == "*":
        # A lone "*" is the bulletins' "less than half a unit": printed as zero.
        return ParsedNumber("0", False, False, footnote, revised, 0)
    negative, s = _take_sign(s)
    magnitude = _read_magnitude(s)
    if magnitude is None:
        return None
    decimals = len(magnitude.partition(".")[2])
    is_zero = Decimal(magnitude) == 0
    value_str = f"-{magnitude}" if negative and not is_zero else magnitude
    return ParsedNumber(value_str, negative, False, footnote, revised, decimals)


def _strip_rules(s: str) -> str:
    """Drop table-rule glyphs glued to either end of the figure."""
    s = s.strip(_RULE_GLYPHS + " ")
    # A closing parenthesis without an opening one is a rule, not a negative.
    if s.endswith(")") and "(" not in s:
        s = s[:-1].rstrip(_RULE_GLYPHS + " ")
    return s


def _take_revised(s: str) -> tuple[bool, str]:
    if _REVISED_PREFIX.match(s):
        return True, _REVISED_PREFIX.sub("", s, count=1)
    if _REVISED_SUFFIX.search(s):
        return True, _REVISED_SUFFIX.sub("", s, count=1)
    return False, s


def _take_footnote(s: str) -> tuple[str, str]:
    """Split a trailing footnote mark off the figure: ``("1/", "1,234")``."""
    m = _FOOTNOTE_SYMBOL.match(s)
    if m:
        return m["mark"], m["core"].strip()
    if s.endswith("/"):
        return _take_slash_footnote(s)
    m = _FOOTNOTE_LETTER.match(s)
    if m:
        return m["mark"], m["core"].strip()
    return "", s


def _take_slash_footnote(s: str) -> tuple[str, str]:
    """``"1,234 1/"`` (spaced), ``"1,2341/"`` (glued: the grouping proves the split)."""
    spaced = _FOOTNOTE_SLASH.match(s)
    if spaced and spaced["space"]:
        return spaced["mark"], spaced["core"].strip()
    if re.fullmatch(r"\d{1,2}/", s):
        return s, ""  # a footnote mark standing alone
    for width in (1, 2):
        core, mark = s[: -width - 1], s[-width - 1 :]
        if not mark[:-1].isdigit():
            break
        grouped = "," in core or "." in core
        if grouped and _read_magnitude(_take_sign(core)[1], strict=True) is not None:
            return mark, core
    # "4,166/": a rule glyph, not a footnote
    return "", s[:-1].strip()


def _take_sign(s: str) -> tuple[bool, str]:
    s = s.strip()
    if s.startswith("(") and len(s) > 1:
        return True, s[1:].rstrip(")").strip()
    if s[:2] == "~-" and len(s) > 2:
        # the minus read twice, as a tilde and a dash ("~-100", 1967-08 p22 Table 7)
        return True, s[2:].lstrip("$ ").strip()
    if s[:1] in ("-", "~") and len(s) > 1:
        return True, s[1:].lstrip("$ ").strip()
    if s.startswith("$"):
        return _take_sign(s[1:])
    return False, s


def _fix_ocr_letters(s: str) -> str | None:
    """O/o→0 and l/I→1, only in a token that is otherwise digits and separators; h→4
    next to a digit (the open-topped typewriter 4 of the 1940s-1950s bulletins, which
    tesseract reads as "h": "h,287", "19h1", "3,h21")."""
    if not re.search(r"\d", s) or not re.fullmatch(r"[\d,. OolIh]+", s):
        return None
    if "h" in s:
        if re.search(r"h(?![\d,.])(?<!\dh)", s) or len(re.findall(r"\d", s)) < 2:
            return None  # an "h" with no digit beside it is a letter
        s = s.replace("h", "4")
    return s.translate(str.maketrans({"O": "0", "o": "0", "l": "1", "I": "1"}))


def _read_magnitude(s: str, strict: bool = False) -> str | None:
    """The unsigned figure as exact decimal text, e.g. ``"1234.5"``, or ``None``.

    ``strict`` accepts only well-formed printing (used to decide where a glued
    footnote ends); otherwise separators are repaired as OCR noise.
    """
    s = s.strip().lstrip("$").strip()
    if not s:
        return None
    if strict:
        if not re.fullmatch(r"\d{1,3}(,\d{3})*(\.\d+)?|\d+(\.\d+)?|\.\d+", s):
            return None
        return _canonical(s.replace(",", ""))
    # OCR reads a separator as ";" or ":" (and a comma as "-" between digits, "1-772");
    # which separator it was is decided by the grouping below.
    s = re.sub(r"(?<=\d)[;:](?=\d)", "?", s)
    s = re.sub(r"(?<=\d)-(?=\d{1,3}(?!\d))", "?", s)
    fixed = _fix_ocr_letters(s.replace("?", ","))
    if fixed is None:
        return None
    if "?" in s:
        fixed = _guess_separator(s, fixed)
    # "1, 234" and "1 234": spaces around or between thousands groups
    fixed = re.sub(r"\s*([,.])\s*", r"\1", fixed)
    if " " in fixed:
        parts = fixed.split(" ")
        if not all(len(p) == 3 and p.isdigit() for p in parts[1:]):
            return None
        fixed = "".join(parts)
    fixed = re.sub(r"[,.]{2,}", lambda m: m[0][0], fixed)  # "1,,234" / "1.,234"
    fixed = fixed.rstrip(",.")
    fixed = fixed.lstrip(",")
    if fixed.startswith("."):
        return _canonical("0" + fixed) if fixed[1:].isdigit() else None
    groups = _SEPARATORS.split(fixed)
    seps = _SEPARATORS.findall(fixed)
    if not all(g.isdigit() for g in groups):
        return None
    if not seps:
        return _canonical(groups[0])
    return _join_groups(groups, seps)


def _guess_separator(raw: str, fixed: str) -> str:
    """A misread separator before exactly three digits is a thousands comma, else a point."""
    out = list(fixed)
    for i, ch in enumerate(raw):
        if ch == "?":
            tail = re.match(r"\d*", raw[i + 1 :])[0]
            out[i] = "," if len(tail) == 3 else "."
    return "".join(out)


def _join_groups(groups: list[str], seps: list[str]) -> str | None:
    """Decide which separators are thousands marks and which one is the decimal point."""
    head, tail = groups[0], groups[1:]
    thousands_shaped = 1 <= len(head) <= 3 and all(len(g) == 3 for g in tail)
    if thousands_shaped:
        if len(seps) == 1:
            # "1,234" thousands; "1.234" a decimal as printed
            return _canonical(head + tail[0] if seps[0] == "," else f"{head}.{tail[0]}")
        if seps[-1] == "." and all(s == "," for s in seps[:-1]):
            return _canonical("".join(groups[:-1]) + "." + groups[-1])  # "1,234.567"
        return _canonical("".join(groups))  # "1.234.567", "1.234,567": OCR confusion
    # The last separator is the decimal point ("1,234.5", or "12,5" read for "12.5").
    lead, frac = groups[:-1], groups[-1]
    if len(lead) > 1 and not (1 <= len(lead[0]) <= 3 and all(len(g) == 3 for g in lead[1:])):
        return None
    return _canonical("".join(lead) + "." + frac)


def _canonical(digits: str) -> str:
    """Drop leading zeros of the integer part, keep the printed decimal places."""
    whole, dot, frac = digits.partition(".")
    whole = whole.lstrip("0") or "0"
    return f"{whole}.{frac}" if dot and frac else whole
