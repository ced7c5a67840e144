"""A lower panel's stub head, read from the panel above where OCR lost it.

A wide table is printed in two panels under one title (1948-05 p18, "Receipts and
Expenditures by Major Classifications": trust accounts above, other accounts below);
each panel prints the same stub ("Fiscal year or month" over 1940 ... 1949 and the
months) again. Where OCR lost the lower panel's stub head ("eg es" at confidence 26), its
year rows were of unknown kind though the page states the kind over them. The panel above
states it too, over the same rows.
"""

from __future__ import annotations

import re
from collections import Counter

from pipeline.tables.periods import read_period_words

# the words of a stub head that say what kind of period the rows are
_KIND_HEAD = re.compile(r"\b(fiscal|calendar)\b.*\byears?\b|\bend of\b", re.IGNORECASE)


def lost_stub_head(stub_head: str) -> bool:
    """A stub head with no word read: blank, or OCR debris ("-", "=", "eg es" is dropped
    already as low-confidence letters)."""
    return not re.search(r"[A-Za-z]{3}", stub_head or "")


_YEAR_OPEN = re.compile(r"^\W*((?:18|19|20)\d\d)")
_MONTH_OPEN = re.compile(
    r"^\W*(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\W*$", re.IGNORECASE
)


def _stub_key(label: str) -> str:
    """What a stub row prints, as far as OCR damage allows a comparison: the year it
    opens with, the month it names, else its letters and digits."""
    label = label or ""
    if m := _YEAR_OPEN.match(label):
        return m.group(1)
    if m := _MONTH_OPEN.match(label):
        return m.group(1).lower()
    return re.sub(r"[^a-z0-9]", "", label.lower())


def _same_stub(labels: list[str], above: list[str]) -> bool:
    """Two stubs that print the same rows: at least four, and two in three of the lower
    panel's rows (by the year it opens with or the month it names: OCR garbles the rest
    differently in each panel) are rows of the panel above."""
    keys = [k for k in map(_stub_key, labels) if k]
    pool = Counter(k for k in map(_stub_key, above) if k)
    shared = sum((Counter(keys) & pool).values())
    return len(keys) >= 4 and 3 * shared >= 2 * len(keys)


def panel_stub_head(
    table: dict | None,
    table_cells: list[dict],
    tables: list[dict],
    cells: list[dict],
    block,
    previous_title: str,
) -> str:
    """The stub head of the panel above for ``table`` when ``table`` is the lower panel of
    that table and its own stub head is lost: it carries the title of the table above and
    prints none of its own, its stub head reads no word, the stub head above names the
    kind of its rows ("Fiscal year or month", "End of calendar year"), and the two stubs
    print the same rows. Else ""."""
    if table is None or not tables or not previous_title or table["title"] != previous_title:
        return ""
    if any(r.kind == "title" for r in block.preamble) or not lost_stub_head(table["stub_head"]):
        return ""
    above = tables[-1]
    head = above["stub_head"] or ""
    if not _KIND_HEAD.search(read_period_words(head)):
        return ""
    rows = {c["row_idx"]: c["row_label"] for c in table_cells}
    rows_above = {c["row_idx"]: c["row_label"] for c in cells if c["table_id"] == above["table_id"]}
    if not _same_stub(list(rows.values()), list(rows_above.values())):
        return ""
    return head
