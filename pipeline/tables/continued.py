"""Join a "(Continued)" table to the table it continues on the page before.

A statement too long for one page goes on over the next: "Table 5.- Unmatured
Marketable Securities ... (Continued)", "TABLE FFO-6—Customs ..., con.", or only
"Table 3.- (Continued)". The continued page often prints no unit line (the unit was
printed once, under the first page's title) and sometimes no statement name. Such a
table takes the statement and the unit of the table it continues: the table with the
same number (or, unnumbered, the same name) earlier on its page or on the page right
before it, which may itself have taken them from the page before it. The unit is taken
only when the continued page prints the same value columns (the table goes on over
more rows): a continued part with other columns (prices and rates after amounts in
millions) is in a unit the first page does not state. A table whose
previous page is missing (a build of selected pages) or prints no such table keeps
what its own page says: unknown stays unknown.
"""

from __future__ import annotations

import re
from itertools import groupby

from rapidfuzz import fuzz

UNIT_FIELDS = ("unit", "unit_multiplier", "unit_printed")


def join_continued(tables: list[dict]) -> list[dict]:
    """``tables`` (rows per ``TABLES_SCHEMA``) with each continued table's empty
    statement and unknown unit taken from the table it continues."""
    ordered = sorted(tables, key=lambda t: (t["doc_id"], t["page_no"], t["table_no"]))
    for _, doc in groupby(ordered, key=lambda t: t["doc_id"]):
        before: list[dict] = []  # tables of the page before and of this page so far
        page_no = None
        for table in doc:
            if table["page_no"] != page_no:
                adjacent = page_no is not None and table["page_no"] == page_no + 1
                before = [t for t in before if t["page_no"] == page_no] if adjacent else []
                page_no = table["page_no"]
            if table["continued"]:
                source = _continued_from(table, before)
                if source is not None:
                    _take(table, source)
            before.append(table)
    return ordered


def _continued_from(table: dict, before: list[dict]) -> dict | None:
    """The nearest earlier table that ``table`` continues, if any."""
    number = _code(table["table_number"])
    name = _norm(table["statement"])
    for t in reversed(before):
        if number:
            if _code(t["table_number"]) != number:
                continue
            # "Table 3" restarts in each section: the same number under another name
            # is another table
            if name and _norm(t["statement"]) and not _same_name(name, _norm(t["statement"])):
                continue
            return t
        if name and _same_name(name, _norm(t["statement"])):
            return t
    return None


def _take(table: dict, source: dict) -> None:
    if not table["statement"] and source["statement"]:
        table["statement"] = source["statement"]
        if not table["table_number"]:
            table["table_number"] = source["table_number"]
    if (
        table["unit_multiplier"] is None
        and source["unit_multiplier"] is not None
        and _same_columns(table, source)
    ):
        for key in UNIT_FIELDS:
            table[key] = source[key]
        table["unit_source"] = "continued"


def _same_columns(table: dict, source: dict) -> bool:
    """The continued page prints the same value columns under the same heads: the table
    goes on over more rows. A continued page with other columns (prices per hundred and
    rates after the amounts in millions, 1984-06 p35, 1967-08 p47) is another part of
    the table, whose unit the first page does not state."""
    heads, before = table["col_labels"] or [], source["col_labels"] or []
    if not heads or len(heads) != len(before):
        return False
    same = [fuzz.ratio(_norm(a), _norm(b)) >= 85 for a, b in zip(heads, before, strict=True)]
    return sum(same) >= 0.8 * len(heads)


def _code(number: str) -> str:
    """ "Table CM-IV-5", "TABLE CM—IV—5", "Tabie CM-IV-5" -> "CM-IV-5"."""
    parts = (number or "").split(None, 1)
    code = parts[1] if len(parts) == 2 else ""
    return re.sub(r"[\s\u2013\u2014~]+", "-", code).upper().strip("-.")


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"[^a-z0-9 ]", " ", (text or "").lower())).strip()


def _same_name(a: str, b: str) -> bool:
    return bool(a and b) and (a == b or fuzz.ratio(a, b) >= 90 or a in b or b in a)
