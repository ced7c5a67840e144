"""Rebuild statement tables from a page's word boxes: the ``tables`` and ``table_cells`` stages.

Per page: words are grouped into printed lines (:mod:`pipeline.tables.lines`); each
line is classified (title, unit line, header-like, body row, other text); runs of
body rows form tables, split at titles, unit lines and large gaps; the value columns
are found by clustering the right edges of the figures (figures are right-aligned);
the lines between the title/unit line and the first body row are the column headers
(:mod:`pipeline.tables.headers`); everything left of the first value column is the
row label.
"""

from __future__ import annotations

import re

import polars as pl

from pipeline.tables.axes import cell_periods, position_heading, read_stub_head
from pipeline.tables.blocks import (
    TableBlock,
    fold_non_tables,
    is_contents_page,
    is_page_listing,
    join_raised_labels,
    split_tables,
)
from pipeline.tables.centred_labels import share_centred_labels
from pipeline.tables.columns import find_columns
from pipeline.tables.continued import join_continued
from pipeline.tables.estimate_rows import page_estimate_marks, restore_estimate_rows
from pipeline.tables.figure_units import dollar_figures, head_count_spanner, panel_without_unit
from pipeline.tables.headers import Column, column_heads
from pipeline.tables.kind_words import read_kind_words_by_width
from pipeline.tables.label_phrases import cut_label_phrases
from pipeline.tables.labels import (
    clean_header_path,
    footnoted_month_rows,
    repair_day_rows,
    repair_period_stub,
)
from pipeline.tables.lexicon import Lexicon, build_lexicon
from pipeline.tables.line_kinds import (
    RowLine,
    _left_margin,
    _line_pitch,
    classify_line,
)
from pipeline.tables.lines import Chunk, assign_lines, page_lines
from pipeline.tables.month_grid import first_section
from pipeline.tables.month_heads import month_run_heads, spanner_text
from pipeline.tables.periods import read_period_words
from pipeline.tables.preamble import read_preamble, unit_heads, unit_over_columns
from pipeline.tables.regions import page_regions
from pipeline.tables.report_dates import report_dates
from pipeline.tables.schemas import TABLE_CELLS_SCHEMA, TABLES_SCHEMA
from pipeline.tables.stub_labels import read_stub
from pipeline.tables.stub_panels import lost_stub_head, panel_stub_head
from pipeline.tables.stub_periods import extend_year_runs, repair_year_runs_by_section
from pipeline.tables.title_repairs import printed_page_offsets, settle_titles
from pipeline.tables.titles import split_title
from pipeline.tables.units import Unit, read_table_unit


def build_tables(words: pl.DataFrame, pages: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Rebuild every table of every page: frames per ``TABLES_SCHEMA`` and ``TABLE_CELLS_SCHEMA``.

    ``words`` follows ``WORDS_SCHEMA`` (boxes in page-image pixels) and ``pages``
    ``PAGES_SCHEMA`` (only ``doc_id``, ``page_no`` and ``quality`` are used: the quality
    tag is copied onto each table). Pages without a table contribute no rows.
    """
    quality = {
        (r["doc_id"], r["page_no"]): r["quality"]
        for r in pages.select("doc_id", "page_no", "quality").iter_rows(named=True)
    }
    source = (
        {(r[0], r[1]): r[2] for r in pages.select("doc_id", "page_no", "word_source").iter_rows()}
        if "word_source" in pages.columns
        else {}
    )
    width = (
        {(r[0], r[1]): r[2] for r in pages.select("doc_id", "page_no", "width_px").iter_rows()}
        if "width_px" in pages.columns
        else {}
    )
    table_rows: list[dict] = []
    cell_rows: list[dict] = []
    lexicon = build_lexicon(words) if "source" in words.columns else None
    lined = assign_lines(words)
    for (doc_id, page_no), page_words in lined.group_by(["doc_id", "page_no"], maintain_order=True):
        ocr = source.get((doc_id, page_no), "ocr") != "text_layer"
        tables, cells = [], []
        if ocr:  # a garbled stub-head kind word, read by the width of its twin on the page
            page_words = read_kind_words_by_width(page_words)
        # two tables side by side are read one after the other, left first
        for region in page_regions(page_words):
            region_tables, region_cells = page_tables(
                region,
                quality.get((doc_id, page_no), ""),
                lexicon if ocr else None,
                width.get((doc_id, page_no)),
                text_layer=not ocr,
            )
            _renumber(region_tables, region_cells, len(tables))
            tables += region_tables
            cells += region_cells
        for t in tables:
            t["word_source"] = "ocr" if ocr else "text_layer"
        table_rows += tables
        cell_rows += cells
    # a folio glued to a title is dropped; a title misread takes the volume's clean reading
    table_rows = settle_titles(table_rows, printed_page_offsets(words, pages), lexicon)
    # a "(Continued)" page takes the statement and unit of the table it continues
    table_rows = join_continued(table_rows)
    tables_df = pl.DataFrame(table_rows, schema=TABLES_SCHEMA, orient="row")
    cells_df = pl.DataFrame(cell_rows, schema=TABLE_CELLS_SCHEMA, orient="row")
    return (
        tables_df.sort("doc_id", "page_no", "table_no"),
        cells_df.sort("doc_id", "page_no", "table_no", "row_idx", "col_idx"),
    )


def _renumber(tables: list[dict], cells: list[dict], offset: int) -> None:
    """Number a region's tables after those of the regions read before it."""
    if not offset:
        return
    for rec in (*tables, *cells):
        rec["table_no"] += offset
        rec["table_id"] = f"{rec['doc_id']}:{rec['page_no']}:{rec['table_no']}"


def page_tables(
    words: pl.DataFrame,
    quality: str = "",
    lexicon: Lexicon | None = None,
    width: float | None = None,
    text_layer: bool = False,
) -> tuple[list[dict], list[dict]]:
    """Tables and cells (as row dicts) of one page's words carrying ``line_idx``.

    With a ``lexicon`` (OCR pages), row-label words OCR misspelt are corrected and the
    label as read is kept in ``row_label_read``. ``width`` is the page image's width (a
    title is centred over its table or on the page).
    """
    lines = page_lines(words)
    if not lines or is_contents_page(lines):
        return [], []
    height = float(words.select((pl.col("y1") - pl.col("y0")).median()).item())
    margin = _left_margin(lines)
    rows = join_raised_labels([classify_line(line, margin, height) for line in lines], height)
    pitch = _line_pitch(rows, height)
    tables, cells = [], []
    previous_title = ""
    previous_texts: list[str] = []  # the preamble lines of the table above
    first_title = min((r.mid for r in rows if r.kind == "title"), default=None)
    blocks = fold_non_tables(split_tables(rows, pitch), height)
    marks = page_estimate_marks([r.line.text for r in rows])
    for b in blocks:
        b.page_mid = width / 2 if width else None
        b.estimate_marks = marks
    # a page head is printed above the page's first table; a unit line further down
    # belongs to the table under it, never to the tables after that one
    first_top = min((b.body[0].mid for b in blocks), default=0.0)
    own_units: dict[str, str] = {}  # unit line read as a table's own -> its statement
    heading = position_heading([r.line.text for r in rows if r.mid < first_top])
    for block in blocks:
        table_no = len(tables)
        above = [r for r in rows if r.kind == "unit" and r.mid < first_top]
        if first_title is not None and any(r.kind == "title" for r in block.preamble):
            # a table under its own title: only a unit line above the page's first title
            # is printed for every table on the page; another table's unit line is not
            above = [r for r in above if r.mid < first_title]
        page_head = [r.line.text for r in above][::-1]
        table, table_cells = read_table(
            block, table_no, height, pitch, quality, page_head, previous_title, lexicon, heading,
            panel_texts=previous_texts,
        )  # fmt: skip
        if (
            table is not None
            and table["unit_source"] == "page_head"
            and table["statement"]  # an untitled panel shares the unit of the one above
            and own_units.get(table["unit_printed"], table["statement"]) != table["statement"]
        ):
            # ... nor the unit line an earlier table with another title read as its own
            page_head = [t for t in page_head if t.strip() != table["unit_printed"]]
            table, table_cells = read_table(
                block, table_no, height, pitch, quality, page_head, previous_title, lexicon,
                heading, panel_texts=previous_texts,
            )  # fmt: skip
        above = panel_stub_head(table, table_cells, tables, cells, block, previous_title)
        if above:
            table, table_cells = read_table(
                block, table_no, height, pitch, quality, page_head, previous_title, lexicon,
                heading, stub_head_above=above, panel_texts=previous_texts,
            )  # fmt: skip
        if table is not None and table["unit_multiplier"] is None:
            dollar_figures(table, block, rows, text_layer)
        if table is not None and tables and panel_without_unit(table, block, previous_title):
            # a panel under the table above (its title carried over, no unit of its own)
            # is in the unit of that table
            for key in ("unit", "unit_multiplier", "unit_source", "unit_printed"):
                table[key] = tables[-1][key]
        if table is not None:
            tables.append(table)
            cells += table_cells
            previous_title = table["title"]
            previous_texts = [spanner_text(r.line) for r in block.preamble]
            if table["unit_source"] == "unit_line":
                own_units[table["unit_printed"]] = table["statement"]
    return tables, cells


def read_table(
    block: TableBlock,
    table_no: int,
    height: float,
    pitch: float,
    quality: str,
    page_head: list[str] | None = None,
    previous_title: str = "",
    lexicon: Lexicon | None = None,
    page_heading: str = "",
    stub_head_above: str = "",
    panel_texts: list[str] | None = None,
) -> tuple[dict | None, list[dict]]:
    """One table's row and its cells: columns, headers, labels, parsed figures, and the
    table's semantics (statement name, unit and its source, each cell's period).

    ``stub_head_above`` is the stub head of the panel above, read where this panel's own
    is lost (see :func:`~pipeline.tables.stub_panels.panel_stub_head`). ``panel_texts``:
    the preamble lines of the table above on the page; a second panel under its title
    reads what they say of the years its month heads run over."""
    columns = find_columns(block.body, height)
    if not columns or is_page_listing(block, columns):
        return None, []
    block.body = cut_label_phrases(block.body, columns, height)
    # under a numbered title ("TABLE FFO-2") a second block on the page is a panel of
    # that table: its spanner line ("Net miscellaneous receipts") is no title of its own
    panel = bool(previous_title) and bool(split_title(previous_title).number)
    block.preamble = unit_heads(block.preamble, columns, height)
    span = (min(r.line.x0 for r in block.body), max(r.line.x1 for r in block.body))
    title, unit_lines, header_lines = read_preamble(
        block.preamble, pitch, height, find_untitled=not panel, span=span,
        page_mid=block.page_mid,
    )  # fmt: skip
    header_lines = _take_first_label_lines(block, header_lines, columns, height, pitch)
    heads = column_heads([r.line for r in header_lines], columns, height, pitch)
    col_labels = [clean_header_path(c) for c in heads.paths]
    if lexicon is not None:
        col_labels = [lexicon.correct(c)[0] for c in col_labels]
    col_doubt = list(heads.doubt)
    for c, label in enumerate(col_labels):
        unconfirmed = lexicon.unknown(label) if lexicon is not None else []
        if not col_doubt[c] and unconfirmed:
            col_doubt[c] = f"words the archive does not confirm {unconfirmed}"
    stub_head = read_stub_head([r.line.chunks for r in header_lines], columns[0].x0 - 0.5 * height)
    if (
        not title
        and previous_title
        and (not unit_lines or unit_over_columns(block.preamble, unit_lines, columns, height))
    ):
        title = previous_title  # a second panel under the same title
        second_panel = True
    else:
        second_panel = False
    if stub_head_above and lost_stub_head(stub_head):
        stub_head = stub_head_above  # a lower panel whose stub head OCR lost
    title_read = title
    if lexicon is not None:  # "Fiecal yoer or manth" names fiscal years once corrected
        stub_head = lexicon.correct(stub_head)[0]
        title = lexicon.correct(title)[0]
    parsed_title = split_title(title)
    unit = read_table_unit(title, unit_lines, col_labels, page_head or [], lexicon)
    spanner = head_count_spanner(block, header_lines, columns, col_labels, title, lexicon)
    if not unit.known and spanner:
        unit = Unit("number", 1, "column_head", spanner)
    first = block.body[0].line
    doc_id, page_no = first.doc_id, first.page_no
    table_id = f"{doc_id}:{page_no}:{table_no}"
    labels, read_labels, parents, placed_rows = read_stub(block, columns, height, pitch, lexicon)
    labels, _ = repair_period_stub(labels)
    labels = repair_day_rows(labels)
    labels = extend_year_runs(repair_year_runs_by_section(footnoted_month_rows(labels), parents))
    labels = report_dates(labels, block.body, columns, height, lexicon)
    labels = restore_estimate_rows(labels, block.estimate_marks)
    # (words of four letters or more: a stub head's three-letter OCR debris does not
    # make the kind of its years doubtful; nor does a one-letter slip of a period word the
    # period reader reads anyway, "caleadar year or month", 1940-05 p73)
    stub_words = read_period_words(stub_head or "")
    stub_doubt = bool(lexicon.unknown(stub_words, short=False)) if lexicon is not None else False
    # a stub head that opens on "or"/"and"/"of" ("or month") lost its first line to OCR:
    # "Cumulative as of end of Fiscal Year" above it (1939-12 p24) made the rows positions
    stub_doubt = stub_doubt or bool(re.match(r"\W*(or|and|of)\b", stub_head or ""))
    garbled = month_run_heads(
        [r.line for r in header_lines], columns, title, (panel_texts or []) if second_panel else []
    )
    periods = cell_periods(
        col_labels, labels, parsed_title.name, stub_head, " ".join(unit_lines), stub_doubt,
        row_headings=parents, page_heading=page_heading, run_heads=garbled,
    )  # fmt: skip
    share_centred_labels(block.body, height, labels, read_labels, parents, periods)
    grid = any(cp.axis == "grid" for cp in periods.values())
    parents, stub_head = first_section(parents, labels, stub_head, grid)
    cells: list[dict] = []
    for row_idx, placed in enumerate(placed_rows):
        for col_idx, chunk in placed.items():
            record = _cell_record(table_id, doc_id, page_no, table_no, row_idx, col_idx,
                                  labels[row_idx], col_labels[col_idx], chunk)  # fmt: skip
            record["row_parent"] = parents[row_idx]
            record["col_label_doubt"] = col_doubt[col_idx]
            record["row_label_read"] = read_labels[row_idx]
            record["label_doubt"] = (
                lexicon.unknown(f"{labels[row_idx]} {col_labels[col_idx]}") if lexicon else []
            )
            cp = periods.get((row_idx, col_idx))
            period = cp.period if cp else None
            record.update(
                period_kind=period.kind if period else None,
                period_start=period.start if period else None,
                period_end=period.end if period else None,
                period_text=period.text if period else None,
                period_axis=cp.axis if cp else "",
                dimension=cp.dimension if cp else None,
            )
            cells.append(record)
    boxes = [r.line for r in block.body] + [r.line for r in header_lines]
    table = {
        "table_id": table_id,
        "doc_id": doc_id,
        "page_no": page_no,
        "table_no": table_no,
        "title": title,
        "table_number": parsed_title.number,
        "statement": parsed_title.name,
        "continued": parsed_title.continued,
        "unit": unit.words,
        "unit_multiplier": unit.multiplier,
        "unit_source": unit.source,
        "unit_printed": unit.printed,
        "stub_head": stub_head,
        "n_rows": len(block.body),
        "n_cols": len(columns),
        "col_labels": col_labels,
        "x0": min(b.x0 for b in boxes),
        "y0": min(b.y0 for b in boxes),
        "x1": max(b.x1 for b in boxes),
        "y1": max(b.y1 for b in boxes),
        "quality": quality,
        "title_read": title_read,
    }
    return table, cells


def _take_first_label_lines(
    block: TableBlock,
    header_lines: list[RowLine],
    columns: list[Column],
    height: float,
    pitch: float,
) -> list[RowLine]:
    """The first row's wrapped label starts above it, where the headers end.

    A line is a label start, not a header, when it lies wholly left of the value
    columns and sits single-spaced on the first row (headers are set off by a rule).
    """
    taken: list[RowLine] = []
    below = block.body[0]
    first_label_x = min((c.x0 for c in below.label), default=below.line.x0)
    for row in reversed(header_lines):
        # single-spaced by the text's own measure too: a pitch taken over rows spaced
        # out by headings can be wide enough to reach the stub head above a rule
        single_spaced = below.mid - row.mid <= min(1.2 * pitch, 2.2 * height)
        left_only = row.line.x1 < columns[0].x0 - 0.5 * height
        if not (single_spaced and left_only and row.line.x0 <= first_label_x + 0.5 * height):
            break
        taken.insert(0, row)
        below = row
    if taken:
        block.inner[0] = taken + block.inner.get(0, [])
        return header_lines[: len(header_lines) - len(taken)]
    return header_lines


def _cell_record(
    table_id: str,
    doc_id: str,
    page_no: int,
    table_no: int,
    row_idx: int,
    col_idx: int,
    row_label: str,
    col_label: str,
    chunk: Chunk,
) -> dict:
    n = chunk.number
    return {
        "table_id": table_id,
        "doc_id": doc_id,
        "page_no": page_no,
        "table_no": table_no,
        "row_idx": row_idx,
        "col_idx": col_idx,
        "row_label": row_label,
        "col_label": col_label,
        "text": chunk.text,
        "is_number": n is not None,
        "value": n.value if n else None,
        "value_str": n.value_str if n else None,
        "negative": n.negative if n else False,
        "is_dash": n.is_dash if n else False,
        "footnote": n.footnote if n else "",
        "revised": n.revised if n else False,
        "conf": chunk.conf,
        "x0": chunk.x0,
        "y0": chunk.y0,
        "x1": chunk.x1,
        "y1": chunk.y1,
    }
