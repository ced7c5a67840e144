"""Cleaning one piece of a response before its numbers are read (see ``answers.py``).

Every function here maps a bounded piece of text to text: characters normalised, struck
numbers removed, file names and links blanked, LaTeX and Markdown wrappers stripped,
runs of blanks collapsed. Every pattern is linear: no nested or adjacent quantifiers
that can match the same characters, and no pattern is ever given more than the grader's
per-line window (``answers.MAX_LINE_CHARS``).
"""

from __future__ import annotations

import re

_DASHES = dict.fromkeys(map(ord, "\u2212\u2010\u2011\u2012\u2013\u2014\u2015\ufe63\uff0d"), "-")
_SPACES = dict.fromkeys(map(ord, "\u00a0\u2007\u2009\u202f\u2002\u2003\u2004\u2005\u2006\t"), " ")
_OTHER = {
    ord("\uff04"): "$",
    ord("\uff05"): "%",
    ord("\u200b"): "",
    ord("\ufeff"): "",
    ord("\u2026"): "...",
    ord("\u2019"): "'",  # typographic apostrophe: "can\u2019t", "12\u2019500"
    ord("\u00d7"): " x ",  # multiplication sign
    ord("\u22c5"): " x ",  # dot operator
    ord("\u00b7"): " x ",  # middle dot, used as a product sign
}
_THIN_SEPARATOR = re.compile(r"(?<=[0-9])[\u00a0\u2009\u202f\u2007](?=[0-9]{3}(?![0-9]))")
_BLANKS = re.compile(r"[ \t]{2,}")
NEWLINES = re.compile(r"\r\n?|[\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


def blank(match: re.Match[str]) -> str:
    """Replace a match by spaces of the same length so positions stay meaningful."""
    return " " * len(match.group(0))


def normalize_characters(text: str) -> str:
    """Map dash-like signs to ``-``, odd spaces to `` ``, product signs to `` x ``.

    Accepts Unicode minus (U+2212), en/em dashes, fullwidth ``$``/``%`` and thin or
    no-break spaces. A thin/no-break space between digit groups is a thousands separator
    in typeset numbers ("7 046 001"), so it is removed rather than turned into a space. A
    plain space never is (see :func:`pipeline.grade.answer_numbers.unreadable_format`).
    """
    text = _THIN_SEPARATOR.sub("", text)
    return text.translate(_DASHES).translate(_SPACES).translate(_OTHER)


_STRUCK = re.compile(
    r"~~[^~\n]{1,200}~~"
    r"|<(?P<tag>s|del|strike)\b[^<>]{0,100}>[^<]{0,200}</(?P=tag)\s*>"
    r"|(?:[^\u0336]\u0336)+",
    re.IGNORECASE,
)


def drop_struck(text: str) -> str:
    """Blank out struck-through text: ``~~903~~``, ``<s>903</s>``, ``<del>``, U+0336.

    A model that strikes a number through has withdrawn it; the number written after it
    (``~~903~~ 930``) is the answer.
    """
    if "~~" not in text and "<" not in text and "\u0336" not in text:
        return text
    return _STRUCK.sub(blank, text)


_FILE_EXTENSION = re.compile(
    r"\.(?:pdf|xlsx|xlsm|xls|csv|tsv|txt|json|jsonl|parquet|png|jpe?g|tiff?|docx?|html?|md|py"
    r"|zip|eml|msg)\b",
    re.IGNORECASE,
)
_PATH_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.~-/\\")
_LINK = re.compile(r"(?:https?://|www\.)\S+", re.IGNORECASE)


def drop_file_names(text: str) -> str:
    """Blank out file names and links (``combined_statement__historical__cs-1941.pdf``).

    Agents are told to cite the volumes they used, often on the answer line; the years
    and numbers in those names are never the answer. A name is found from its extension
    and extended to the left over path characters, never past the previous name, so the
    work is linear in the text.
    """
    text = _LINK.sub(blank, text)
    if "." not in text:
        return text
    pieces = []
    done = 0
    for match in _FILE_EXTENSION.finditer(text):
        start = match.start()
        while start > done and text[start - 1] in _PATH_CHARS:
            start -= 1
        pieces.append(text[done:start])
        pieces.append(" " * (match.end() - start))
        done = match.end()
    pieces.append(text[done:])
    return "".join(pieces)


_LATEX_PRODUCT = re.compile(r"\\(?:times|cdot|ast)(?![A-Za-z])")
_LATEX_WRAPPER = re.compile(
    r"\\(?:boxed|text|textbf|textit|textrm|mathrm|mathbf|mathit|mbox|fbox|operatorname"
    r"|displaystyle|left|right|bigl?|bigr?|Bigl?|Bigr?)\b ?"
)
_LATEX_THIN_SPACE = re.compile(r"(?<=[0-9])\\[,;:! ](?=[0-9]{3}(?![0-9]))")
_LATEX_COMMAND = re.compile(r"\\[A-Za-z]+|\\[()\[\],;:! ]")
_DOLLARS = re.compile(r"\${2,}")


def strip_latex(text: str) -> str:
    """Remove LaTeX wrappers: ``\\boxed{}``, ``\\text{}``, ``\\(...\\)``, ``$$``, ``{,}``.

    ``\\$`` and ``\\%`` become the plain signs, ``7{,}046`` and ``7\\,046`` become
    ``7,046`` and ``7046`` (LaTeX's ways to write thousands separators), ``\\times`` and
    ``\\cdot`` a product sign; other commands become spaces so they never glue two numbers
    together. A lone ``$`` stays: it reads as a currency sign, which is harmless around
    math (``$5$`` is 5).
    """
    if "\\" not in text and "{" not in text and "$$" not in text:
        return text
    text = text.replace("\\$", "$").replace("\\%", "%").replace("{,}", ",").replace("{'}", "'")
    text = _LATEX_THIN_SPACE.sub("", text)
    text = _LATEX_PRODUCT.sub(" x ", text)
    text = _LATEX_WRAPPER.sub("", text)
    text = _LATEX_COMMAND.sub(" ", text)
    text = _DOLLARS.sub("$", text)
    return text.replace("{", "").replace("}", "")


_HTML_TAG = re.compile(r"</?[A-Za-z][^<>]{0,200}>")
_PRODUCT_STAR = re.compile(r"(?<=[0-9)]) ?\* ?(?=[0-9($.])")
_EMPHASIS = re.compile(r"\*+|~~|`+|(?<![A-Za-z0-9])_+|_+(?![A-Za-z0-9])")


def strip_markdown(text: str) -> str:
    """Remove Markdown emphasis, code ticks, table pipes and HTML tags.

    ``**ANSWER:** `2,602` `` reads as ``ANSWER: 2,602``. A ``*`` between two numbers is a
    product (``0.5*900``), not emphasis: it becomes `` x `` so the two never join into
    one number. Table rows are split into cells before this (``answers._table_cells``).
    """
    text = _HTML_TAG.sub(" ", text)
    text = _PRODUCT_STAR.sub(" x ", text)
    text = _EMPHASIS.sub("", text)
    return text.replace("|", " ")


def clean(text: str) -> str:
    """One piece of a response with characters normalised and every wrapper stripped.

    Struck numbers go first (their markers are Markdown/HTML), then file names (stripping
    Markdown underscores would break them apart), then LaTeX and Markdown; runs of blanks
    are collapsed last.
    """
    text = drop_file_names(drop_struck(normalize_characters(text)))
    text = strip_markdown(strip_latex(text))
    return _BLANKS.sub(" ", text)


def is_blank(text: str) -> bool:
    """True when a piece holds no letter or digit (``ANSWER:`` with the number below)."""
    return not any(ch.isalnum() for ch in text)
