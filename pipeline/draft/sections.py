"""Row labels a table prints in more than one section, and whether a question can tell
them apart by the section heading.

A statement often repeats an item under each section ("Copper" under "Duty-free
articles" and under "Dutiable articles", 1939-12 p22; "Subtotal" and "Other" under the
Budget and the Trust funds parts of "Cash outgo", 1941-01 p23). A question names such a
row by its label and its section heading; it cannot when the heading was not read, was
read as the fragment of a wrapped line ("articlee 1/:" for "Duty-free articles 1/:") or is
the same for both rows. OCR may also spell the two printings apart ("Paraffin and other
petroleum wax products" / "Pareffin and other wax producte"), so labels are compared
letters only and by their words, not character for character.
"""

from __future__ import annotations

import re
from collections import defaultdict

from rapidfuzz import fuzz

SAME_LABEL = 85.0  # rapidfuzz ratio of two letters-only labels read as one printed label
SAME_WORDS = 80.0  # rapidfuzz token-set ratio of two labels of 3 words or more read as one
_NOT_LETTERS = re.compile(r"[^a-z]+")
_FOOTNOTE = re.compile(r"(\s+\d{1,2}/?|\s*\d{1,2}/|\s*\*+)+\s*$")


def _letters(label: str) -> str:
    return _NOT_LETTERS.sub(" ", _FOOTNOTE.sub("", label).lower()).strip()


def _alike(a: str, b: str) -> bool:
    if a == b:
        return True
    if not a or not b:
        return False
    if fuzz.ratio(a, b) >= SAME_LABEL:
        return True
    # one label's words inside the other's, OCR slips allowed, three words at least
    # ("pareffin and other wax producte" in "paraffin and other petroleun wax producte")
    small, large = sorted((set(a.split()), set(b.split())), key=len)
    return len(small) >= 3 and fuzz.token_set_ratio(a, b) >= SAME_WORDS


def _names_a_section(parent: str) -> bool:
    """A heading that names its section: read, and not the tail of a wrapped line (a
    heading's first line lost leaves a lower-case fragment)."""
    text = parent.strip(" :.-")
    return bool(text) and text[0].isupper() and len(_letters(text)) >= 4


def repeated_labels(rows: list[tuple[str, str]]) -> dict[str, str]:
    """Row label -> why a question naming it may mean another row of the same table:
    the label (as OCR read it, or a near spelling of it) is printed on several rows and
    their section headings do not tell them apart. Labels printed once are absent."""
    keys = [(_letters(label), label, parent) for label, parent in rows if _letters(label)]
    groups: dict[int, list[int]] = defaultdict(list)
    for i, (key, _label, _parent) in enumerate(keys):
        for j in range(i):
            if _alike(key, keys[j][0]):
                groups[j].append(i)
                break
        else:
            groups[i].append(i)
    out: dict[str, str] = {}
    for members in groups.values():
        labels = {keys[m][1] for m in members}
        parents = [keys[m][2] for m in members]
        if len(members) < 2:
            continue
        told_apart = len(set(parents)) == len(parents) and all(map(_names_a_section, parents))
        if told_apart and len(labels) == 1:
            continue
        why = (
            f"the table prints {sorted(labels)[0]!r} on {len(members)} rows"
            + ("" if len(labels) == 1 else " (OCR spelled them apart)")
            + " and their section headings "
            + ("do not name the sections" if not told_apart else "are not read alike")
        )
        for label in labels:
            out[label] = why
    return out
