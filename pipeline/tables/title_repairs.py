"""A table's title settled against its volume: a glued page folio dropped, an OCR slip
in a title word corrected where the volume prints the same title cleanly.

1984-06 p65 (table CM-IV-4) was read "Table CM—IV—4. — Tota Claims by Country 53": the
page number printed at the top right corner ("53") was read into the title line, and
OCR lost the "l" of "Total". The same volume prints "Table CM-II-2. — Total Claims by
Country" cleanly on p58. :func:`settle_titles` drops the folio (a bare number at the
title's end equal or close to the page's printed number, which the volume's corner
numbers give) and takes the clean reading of a title within a small edit distance whose
words the archive's lexicon confirms. A title is never corrected towards a reading the
lexicon does not confirm, nor when two clean readings compete; the title as read is
kept in ``title_read``, as a row label's is in ``row_label_read``.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from typing import TYPE_CHECKING

import polars as pl
from rapidfuzz.distance import Levenshtein

from pipeline.tables.titles import split_title

if TYPE_CHECKING:
    from pipeline.tables.lexicon import Lexicon

BAND = 0.08  # a folio is printed in the top or bottom 8% of the page
MIN_PAGES = 3  # pages whose corner number agrees on the volume's page offset
NEAR = 2  # a glued number this close to the printed page number is the folio
MAX_EDITS = 2  # a title this many letter edits from a clean one may be its misreading
_FOLIO_TAIL = re.compile(r"\s+(\d{1,3})\s*$")
_CORNER = re.compile(r"^\d{1,3}$")


def printed_page_offsets(words: pl.DataFrame, pages: pl.DataFrame | None = None) -> dict[str, int]:
    """Per document, PDF page number minus printed page number, where the bare numbers
    printed at the top or foot of ``MIN_PAGES`` pages or more agree on it (and no other
    offset is half as common). A volume without such agreement has no entry."""
    if words.is_empty():
        return {}
    spans = words.group_by("doc_id", "page_no").agg(top=pl.col("y0").min(), foot=pl.col("y1").max())
    if pages is not None and "height_px" in pages.columns:
        spans = spans.join(
            pages.select("doc_id", "page_no", "height_px"), on=["doc_id", "page_no"], how="left"
        ).with_columns(
            top=pl.when(pl.col("height_px").is_not_null()).then(0.0).otherwise(pl.col("top")),
            foot=pl.coalesce(pl.col("height_px").cast(pl.Float64), pl.col("foot")),
        )
    band = BAND * (pl.col("foot") - pl.col("top"))
    corner = (
        words.filter(pl.col("text").str.strip_chars().str.contains(_CORNER.pattern))
        .join(spans, on=["doc_id", "page_no"])
        .filter((pl.col("y1") <= pl.col("top") + band) | (pl.col("y0") >= pl.col("foot") - band))
        .select(
            "doc_id",
            "page_no",
            offset=pl.col("page_no").cast(pl.Int64)
            - pl.col("text").str.strip_chars().cast(pl.Int64),
        )
        .unique()
    )
    out: dict[str, int] = {}
    for (doc_id,), group in corner.group_by(["doc_id"]):
        counts = Counter(group["offset"].to_list()).most_common(2)
        best, n = counts[0]
        runner = counts[1][1] if len(counts) > 1 else 0
        if n >= MIN_PAGES and n >= 2 * runner:
            out[doc_id] = int(best)
    return out


def strip_folio(title: str, printed_page: int | None) -> str:
    """``title`` without a page number glued at its statement name's end ("... by
    Country 53" on printed page 53, and before a unit or a continuation mark read into
    the title line), if the number is within ``NEAR`` of ``printed_page`` and a
    statement name and the table number are left as they were."""
    before = split_title(title or "")
    m = _FOLIO_TAIL.search(before.name)
    if m is None or printed_page is None or abs(int(m.group(1)) - printed_page) > NEAR:
        return title
    hits = list(re.finditer(rf"\s+{m.group(1)}(?!\d|[,.]\d)", title))
    if not hits:
        return title
    rest = title[: hits[-1].start()] + title[hits[-1].end() :]
    after = split_title(rest)
    # the number is the title's own where taking it off changes the table number
    return rest if after.name and after.number == before.number else title


def confirmed_reading(statement: str, clean: list[str], lexicon: Lexicon) -> str | None:
    """The one clean title (words the lexicon all confirms) that ``statement`` misreads,
    else None (``statement`` is confirmed itself, no clean title is that near, or two
    compete)."""
    found = misread_of(statement, clean, lexicon)
    return found.pop() if len(found) == 1 else None


def misread_of(statement: str, clean: list[str], lexicon: Lexicon) -> set[str]:
    """The clean titles ``statement`` may misread: the same words but for some the
    lexicon does not know, ``MAX_EDITS`` letter edits from the clean words in all."""
    words = statement.split()
    unknown = {w.lower() for w in lexicon.unknown(statement)}
    if not unknown or len(words) < 2:
        return set()
    found = set()
    for other in clean:
        theirs = other.split()
        if len(theirs) != len(words) or lexicon.unknown(other):
            continue  # never towards a reading the lexicon does not confirm
        edits, ok = 0, True
        for mine, their in zip(words, theirs, strict=True):
            if mine.lower() == their.lower():
                continue
            letters = re.sub(r"[^A-Za-z]", "", mine).lower()
            if letters not in unknown:
                ok = False  # a word the lexicon knows is read right: another title
                break
            edits += Levenshtein.distance(mine.lower(), their.lower())
        if ok and 0 < edits <= MAX_EDITS:
            found.add(other)
    return found


def _corrected(table: dict, reading: str) -> None:
    """Put the clean ``reading`` of the statement into the table's title and statement."""
    read = table["statement"]
    title = table["title"]
    for mine, their in zip(read.split(), reading.split(), strict=True):
        if mine != their:
            title = re.sub(rf"(?<!\w){re.escape(mine)}(?!\w)", their, title, count=1)
    table["title"] = title
    table["statement"] = split_title(title).name or reading


def settle_titles(
    tables: list[dict], offsets: dict[str, int], lexicon: Lexicon | None
) -> list[dict]:
    """``tables`` (rows per ``TABLES_SCHEMA``) with folios dropped from their titles and
    OCR-misread titles given the clean reading the same volume (or else the archive)
    prints. Each row keeps its title as read in ``title_read``."""
    for t in tables:
        t.setdefault("title_read", t["title"])
        offset = offsets.get(t["doc_id"])
        printed = t["page_no"] - offset if offset is not None else None
        title = strip_folio(t["title"] or "", printed)
        if title != t["title"]:
            parsed = split_title(title)
            t.update(title=title, table_number=parsed.number, statement=parsed.name)
            t["continued"] = parsed.continued
    if lexicon is None or not len(lexicon):
        return tables
    clean: dict[str, set[str]] = defaultdict(set)
    for t in tables:
        name = t["statement"] or ""
        if len(name.split()) >= 2 and not lexicon.unknown(name):
            clean[t["doc_id"]].add(name)
    archive = sorted(set().union(*clean.values())) if clean else []
    for t in tables:
        if t.get("word_source") == "text_layer" or not t["statement"]:
            continue
        # the volume's own clean titles first; the archive's where the volume has none
        found = misread_of(t["statement"], sorted(clean[t["doc_id"]]), lexicon)
        if not found:
            found = misread_of(t["statement"], archive, lexicon)
        if len(found) == 1:
            _corrected(t, found.pop())
    return tables
