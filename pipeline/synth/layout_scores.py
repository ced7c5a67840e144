"""Score a reading's table semantics against the generator's truth, layout by layout.

Every truth table lists the layouts it shows (``truth_tables.layout``: ``unit_title``,
``quarters``, ``wrapped``, ``chart``, ``continued``, ...). For the tables of each layout
this module measures what a question depends on:

- ``statement``: the statement name (title without number, unit, "(Continued)");
- ``unit``: the unit's scale (thousands / millions / billions of dollars, or unknown
  with no multiplier); ``unit_source``: where it was read (unit line, title, ...);
- ``period``: per value cell, the period's kind, start and end (``not_a_period`` and no
  period count as the same: neither dates the cell); ``dimension`` likewise per cell;
- ``row_label`` (wrapped lines joined, marks dropped) and ``row_parent``: per body row.

A truth table the reading missed counts wrong on every field; a cell or row the reading
put elsewhere in its grid counts wrong where the truth expects it.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from pipeline.synth.truth import read_truth
from pipeline.tables.evaluate import match_tables
from pipeline.tables.gold import norm_label, unit_scale

METRICS = (
    "statement",
    "unit",
    "unit_source",
    "period",
    "dimension",
    "row_label",
    "row_parent",
)


def _period(kind: object, start: object, end: object) -> tuple[str, str, str]:
    if kind is None or kind == "not_a_period":
        return ("", "", "")
    return (str(kind), start.isoformat() if start else "", end.isoformat() if end else "")


def matched_truth(
    tables: pl.DataFrame,
    truth_dir: str | Path,
    documents: pl.DataFrame,
    pages: pl.DataFrame | None = None,
) -> pl.DataFrame:
    """Truth tables (with ``doc_id``) and the ``table_id`` of the reading's table each
    matches: by box overlap on its page when ``pages`` are given (a reading from page
    images), else by document, page and table number (a perfect reading)."""
    docs = documents.select("doc_id", "file_name")
    truth = read_truth(Path(truth_dir), "truth_tables").join(docs, on="file_name")
    key = ["doc_id", "page_no", "table_no"]
    if pages is not None:
        info = pages.select("doc_id", "page_no", "width_px", "height_px")
        found = tables.join(info, on=["doc_id", "page_no"], how="left")
        matches = match_tables(truth, found)
    else:
        matches = truth.select(key).join(tables.select(*key, "table_id"), on=key, how="left")
    return truth.join(matches, on=key, how="left")


def semantic_items(
    tables: pl.DataFrame,
    cells: pl.DataFrame,
    truth_dir: str | Path,
    documents: pl.DataFrame,
    pages: pl.DataFrame | None = None,
) -> pl.DataFrame:
    """One row per scored item: ``layout`` tags of its table, ``metric``, ``ok``, and
    ``where`` / ``truth`` / ``got`` to read a mismatch."""
    truth_tables = matched_truth(tables, truth_dir, documents, pages)
    docs = documents.select("doc_id", "file_name")
    truth_cells = read_truth(Path(truth_dir), "truth_cells").join(docs, on="file_name")
    found = {r["table_id"]: r for r in tables.iter_rows(named=True)}
    by_cell: dict[tuple[str, int, int], dict] = {}
    by_row: dict[tuple[str, int], dict] = {}
    for c in cells.iter_rows(named=True):
        by_cell[(c["table_id"], c["row_idx"], c["col_idx"])] = c
        by_row.setdefault((c["table_id"], c["row_idx"]), c)
    items: list[dict] = []

    def add(tags: list[str], metric: str, ok: bool, where: str, truth: object, got: object):
        items.append(
            {
                "layout": tags,
                "metric": metric,
                "ok": bool(ok),
                "where": where,
                "truth": str(truth),
                "got": str(got),
            }
        )

    table_of: dict[tuple[str, int, int], tuple[str | None, list[str]]] = {}
    for t in truth_tables.iter_rows(named=True):
        tags = list(t["layout"] or [])
        where = f"{t['file_name']} p{t['page_no']} t{t['table_no']}"
        f = found.get(t["table_id"]) if t["table_id"] else None
        table_of[(t["doc_id"], t["page_no"], t["table_no"])] = (t["table_id"], tags)
        got_statement = f["statement"] if f else None
        add(
            tags,
            "statement",
            f is not None and norm_label(got_statement) == norm_label(t["statement"]),
            where,
            t["statement"],
            got_statement,
        )
        got_unit = (f["unit"], f["unit_multiplier"]) if f else None
        unit_ok = (
            f is not None
            and f["unit_multiplier"] == t["unit_multiplier"]
            and unit_scale(f["unit"]) == unit_scale(t["unit_words"])
        )
        add(tags, "unit", unit_ok, where, (t["unit_words"], t["unit_multiplier"]), got_unit)
        got_source = f["unit_source"] if f else None
        add(
            tags, "unit_source", got_source == t["unit_source"], where, t["unit_source"], got_source
        )
    seen_rows: set[tuple[str, int, int, int]] = set()
    for c in truth_cells.iter_rows(named=True):
        table_id, tags = table_of[(c["doc_id"], c["page_no"], c["table_no"])]
        where = f"{c['file_name']} p{c['page_no']} t{c['table_no']} r{c['row_idx']}"
        got = by_cell.get((table_id, c["row_idx"], c["col_idx"])) if table_id else None
        want = _period(c["period_kind"], c["period_start"], c["period_end"])
        have = _period(got["period_kind"], got["period_start"], got["period_end"]) if got else None
        add(tags, "period", have == want, f"{where} c{c['col_idx']}", want, have)
        have_dim = (got["dimension"] or "") if got else None
        add(
            tags,
            "dimension",
            have_dim == (c["dimension"] or ""),
            f"{where} c{c['col_idx']}",
            c["dimension"],
            have_dim,
        )
        row_key = (c["doc_id"], c["page_no"], c["table_no"], c["row_idx"])
        if row_key in seen_rows:
            continue
        seen_rows.add(row_key)
        row = by_row.get((table_id, c["row_idx"])) if table_id else None
        label = row["row_label"] if row else None
        add(
            tags,
            "row_label",
            row is not None and norm_label(label) == norm_label(c["row_label"]),
            where,
            c["row_label"],
            label,
        )
        parent = (row.get("row_parent") or "") if row else None
        add(
            tags,
            "row_parent",
            row is not None and norm_label(parent) == norm_label(c["row_parent"]),
            where,
            c["row_parent"],
            parent,
        )
    schema = {
        "layout": pl.List(pl.String),
        "metric": pl.String,
        "ok": pl.Boolean,
        "where": pl.String,
        "truth": pl.String,
        "got": pl.String,
    }
    return pl.DataFrame(items, schema=schema)


def layout_accuracy(items: pl.DataFrame) -> pl.DataFrame:
    """Accuracy per layout and metric (wide: one row per layout, one column per metric,
    null where a layout has no item of that metric), plus ``n_tables`` per layout and an
    ``all`` row over every table."""
    long = items.explode("layout", empty_as_null=True)
    every = items.with_columns(layout=pl.lit("all"))
    both = pl.concat([long, every.select(long.columns)])
    acc = (
        both.group_by("layout", "metric")
        .agg(pl.col("ok").mean().alias("acc"))
        .pivot(on="metric", index="layout", values="acc")
    )
    tables = (
        both.filter(pl.col("metric") == "statement")
        .group_by("layout")
        .agg(pl.len().alias("n_tables"))
    )
    cols = [m for m in METRICS if m in acc.columns]
    return tables.join(acc, on="layout").select("layout", "n_tables", *cols).sort("layout")


def score_layouts(
    tables: pl.DataFrame,
    cells: pl.DataFrame,
    truth_dir: str | Path,
    documents: pl.DataFrame,
    pages: pl.DataFrame | None = None,
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """``(per-layout accuracy, every scored item)`` for a reading of a generated corpus."""
    items = semantic_items(tables, cells, truth_dir, documents, pages)
    return layout_accuracy(items), items
