"""Tables a volume prints under one title, told apart by their table numbers.

1984-06 prints "Total Claims by Country" twice: Table CM-II-2 (p58, claims reported by
banks) and Table CM-IV-4 (p65, claims reported by nonbanking concerns). A question
naming the statement alone may point at either. Where every such table carries its own
cleanly read number ("CM-II-2", "FFO-3", "3": the codes the bulletins print, no OCR
garble such as "CM-ltiI-1"), a question names the table by number and title ("Table
CM-IV-4, Total Claims by Country") and is well-posed; where a number is missing, garbled
or shared, the tables stay twins and the question is rejected.
"""

from __future__ import annotations

import re
from collections import defaultdict

import polars as pl

from pipeline.tables.titles import statement_name

# "Table CM-IV-4", "TABLE FFO-3", "Table 3", "Table IV": a word, then a code of capital
# letters and dash-joined roman numerals or figures, ending in a figure or a roman numeral
_CLEAN_NUMBER = re.compile(
    r"(?i:table)\s+(?P<code>(?:[A-Z]{1,5}-(?:[IVX]{1,4}-)?)?[1-9]\d{0,2}[A-Za-z]?|[IVX]{1,5})"
)


def table_code(number: str) -> str:
    """The table code of a table number read cleanly ("TABLE CM-IV-4" -> "CM-IV-4"), or
    "" when none is printed or OCR garbled it ("Table CM-ltiI-1", "Table CM-1V-4")."""
    m = _CLEAN_NUMBER.fullmatch(" ".join((number or "").split()))
    return m.group("code").upper() if m else ""


def statements_in_volume(tables: pl.DataFrame) -> dict[tuple[str, str], list[tuple[int, str]]]:
    """(doc_id, statement) -> (page, table code or "") of every table printed under it."""
    out: dict[tuple[str, str], list[tuple[int, str]]] = defaultdict(list)
    for t in tables.iter_rows(named=True):
        name = t.get("statement") or statement_name(t["title"] or "")
        if name:
            out[(t["doc_id"], name)].append(
                (int(t["page_no"]), table_code(t.get("table_number") or ""))
            )
    return out


def twinned_names(printed: dict[tuple[str, str], list[tuple[int, str]]]) -> set[str]:
    """Statement names some volume prints over two tables or more (see :func:`_twins`)."""
    return {
        name
        for (_, name), entries in printed.items()
        if any(_twins(p, c, q, d) for p, c in entries for q, d in entries)
    }


def _twins(page: int, code: str, other: int, other_code: str) -> bool:
    """Two printings under one title are two tables: pages apart and not under one code
    (a table continued over three pages is one table), or on facing pages under two
    clean codes (2022-09 FCP-I-1 and FCP-II-1, "Weekly Report of Major Market
    Participants" for two currencies, are no table and its continuation)."""
    if page == other:
        return False
    if abs(page - other) > 1:
        return not (code and code == other_code)
    return bool(code and other_code and code != other_code)


def named_statement(
    name: str, number: str, page: int, printed: list[tuple[int, str]], twinned: bool
) -> tuple[str, set[int]]:
    """The statement a question names for a table under ``name`` on ``page``, and the
    pages of its twins that still make the name ambiguous.

    ``printed``: (page, code) of every table of the volume under ``name``; a table on
    the next or previous page is this one continued, not a twin, unless both carry
    clean codes that differ. ``twinned``: some
    volume of the archive prints ``name`` over several tables. Such a table is named
    "Table <code>, <name>" wherever its code is read cleanly, in every volume, so one
    table's printings stay one series across volumes (a later volume's revision reaches
    the question) and never mix with its twin's. In the volume that prints the twins, the
    name is well-posed only where this table and every twin carry a clean code, each its
    own; else every twin page is returned.
    """
    mine = table_code(number)
    named = f"Table {mine}, {name}" if twinned and mine else name
    twins = {(p, c) for p, c in printed if _twins(page, mine, p, c) or abs(p - page) > 1}
    if not twins or (mine and all(c and c != mine for _, c in twins)):
        return named, set()
    return named, {p for p, _ in twins}
