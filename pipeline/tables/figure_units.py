"""A table's unit where no unit line names one: dollar figures, a count spanner, a panel.

Read from the figures ("$438,746" under no scale word), a head line over all the value
columns ("Number of vessels"), or the table above (a lower panel under its title). Split
out of :mod:`pipeline.tables.layout`, which reads the unit line first.
"""

from __future__ import annotations

import re

from pipeline.tables.blocks import TableBlock
from pipeline.tables.headers import Column
from pipeline.tables.lexicon import Lexicon
from pipeline.tables.line_kinds import RowLine
from pipeline.tables.units import (
    count_spanner,
    dollar_sign_amounts,
    near_scale_word,
    read_unit,
    scale_free_note,
    whole_dollar_figures,
)

SCALE_WORD = re.compile(r"\b(thousand|million|billion|trillion)s?\b", re.IGNORECASE)


def dollar_figures(table: dict, block: TableBlock, rows: list[RowLine], text_layer: bool) -> None:
    """A table whose first row prints "$" on its amounts, whole or in cents, and above
    which the page states no unit and no scale (no unit line, head or scale word over it
    or in its rows): its figures are dollars (2022-09 p56, "$2,584,316,862,092"; 1939-12
    p22, "$438,746"). A text layer loses no line, so no unit line can have been dropped.
    On an OCR page a unit line may come back garbled past reading; the place under the
    title must then be taken by a note that names no scale
    (:func:`~pipeline.tables.units.scale_free_note`, 1939-12 p45), or show no trace of
    one (:func:`_no_unit_line_trace`; 1941-01 p40, "$ 56,582" under a title and heads)."""
    # (a "$" set apart before the first figure is read with the label)
    texts = [c.text for c in block.body[0].line.chunks]
    if not (dollar_sign_amounts(texts) and whole_dollar_figures(texts)):
        return
    bottom = block.body[-1].mid
    # no scale named over the table or in its own rows ("$24,000 million" in prose)
    scale_above = any(
        r.mid <= bottom and (SCALE_WORD.search(r.line.text) or read_unit(r.line.text) is not None)
        for r in rows
    )
    # nor in a column head as read (1984-06 p96: "Amount (in millions)" over a column
    # of the table beside, read with this one)
    if scale_above or any(SCALE_WORD.search(h) or near_scale_word(h) for h in table["col_labels"]):
        return
    if (
        text_layer
        or any(scale_free_note(r.line.text) for r in block.preamble)
        or _no_unit_line_trace(block, rows)
    ):
        table.update(unit="dollars", unit_multiplier=1, unit_source="dollar_sign", unit_printed="$")


def _no_unit_line_trace(block: TableBlock, rows: list[RowLine]) -> bool:
    """Nothing over an OCR table reads like a unit line OCR garbled: no line set as one
    (a unit line whose scale is unread, a line opening with a bracket: "(Ia mtllioas of
    dollare)"), no word above the table's first row within three edits of a scale word
    ("thcvsaads")."""
    top = block.body[0].mid
    return not any(
        r.kind == "unit" or re.match(r"^\W{0,2}[(\[]", r.line.text) for r in block.preamble
    ) and not any(r.mid < top and near_scale_word(r.line.text) for r in rows)


def panel_without_unit(table: dict, block: TableBlock, previous_title: str) -> bool:
    """A table that took the title of the table above it (it prints none of its own) and
    reads no unit: the lower panel of that table. Not when a head of its own names a
    scale ("Amount (in millions)", 1984-06 p96): its columns are not all in that unit."""
    return (
        table["unit_multiplier"] is None
        and bool(previous_title)
        and table["title"] == previous_title
        and not any(r.kind in ("title", "unit") for r in block.preamble)
        and not any(SCALE_WORD.search(h) or near_scale_word(h) for h in table["col_labels"])
    )


def head_count_spanner(
    block: TableBlock,
    header_lines: list[RowLine],
    columns: list[Column],
    col_labels: list[str],
    title: str,
    lexicon: Lexicon | None,
) -> str:
    """The head line over all the others, "Number of ..." centred over all the value
    columns, when no head line names a unit or a scale: the figures are counts. The
    spanner may stand a gap above the heads under it (1941-01 p69: "Number of vessels"
    over a rule, the years under it), where it is not read as a head line."""
    if not header_lines:
        return ""
    if any(read_unit(r.line.text) or SCALE_WORD.search(r.line.text) for r in header_lines):
        return ""
    if any(read_unit(c) for c in col_labels):
        return ""
    at = next((i for i, r in enumerate(block.preamble) if r is header_lines[0]), None)
    tops = [header_lines[0]]
    if at:
        above = block.preamble[at - 1]
        if above.kind == "text" and above.line.text.strip() not in title:
            tops.insert(0, above)
    for top in tops:
        text = lexicon.correct(top.line.text)[0] if lexicon is not None else top.line.text
        if count_spanner(text, top.line.x0, top.line.x1, (columns[0].x0, columns[-1].x1)):
            return top.line.text
    return ""
