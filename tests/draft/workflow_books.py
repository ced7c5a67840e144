"""Workbook versions for the workflow tests, written with openpyxl into a folder and
ingested into a blob store, plus the small contract frames (chains, steps, threads,
messages, attachments) the workflow stages read."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

import openpyxl
import polars as pl
from openpyxl.styles import PatternFill

from pipeline.ingest.workbooks import ingest_workbooks
from pipeline.store import BlobStore

ROWS = [("East", 100, 110, 120), ("West", 90, 95, 99), ("North", 80, 85, 70), ("South", 60, 65, 75)]


def base(wb: openpyxl.Workbook, name: str = "") -> None:
    ws = wb.active
    ws.title = "Sales"
    ws.append(["Region", "Q1", "Q2", "Q3"])
    for row in ROWS:
        ws.append(list(row))
    notes = wb.create_sheet("Notes")
    notes["A1"] = f"Regional sales by quarter {name}".strip()
    notes["A2"] = "As of 2001-05-01"


def value_change(wb: openpyxl.Workbook) -> None:
    wb["Sales"]["C3"] = 97


def formula_column(wb: openpyxl.Workbook) -> None:
    ws = wb["Sales"]
    ws["E1"] = "Total"
    for r in range(2, 2 + len(ROWS)):
        ws[f"E{r}"] = f"=SUM(B{r}:D{r})"


def row_inserted(wb: openpyxl.Workbook) -> None:
    ws = wb["Sales"]
    ws.insert_rows(4)
    for col, value in zip("ABCD", ("Central", 70, 72, 74), strict=True):
        ws[f"{col}4"] = value


def sheet_added(wb: openpyxl.Workbook) -> None:
    ws = wb.create_sheet("Summary")
    ws["A1"] = "Total Q1"
    ws["B1"] = "=SUM(Sales!B2:B5)"
    ws["A2"] = "Regions"
    ws["B2"] = 4


def formatting_only(wb: openpyxl.Workbook) -> None:
    ws = wb["Sales"]
    for row in ws["B2:D5"]:
        for cell in row:
            cell.number_format = "#,##0.00"
            cell.fill = PatternFill("solid", fgColor="FFFF00")


def properties_only(wb: openpyxl.Workbook) -> None:
    """Other bytes, the same cells: a re-save with new document properties."""
    wb.properties.title = "Regional sales (re-saved)"


def date_stamp_only(wb: openpyxl.Workbook) -> None:
    wb["Notes"]["A2"] = "As of 2001-05-08"


def write_versions(folder: Path, name: str, edits: list[Callable]) -> list[Path]:
    """Version 0 is ``base``; version i applies ``edits[:i]`` on top (one file each)."""
    paths = []
    for i in range(len(edits) + 1):
        wb = openpyxl.Workbook()
        base(wb, name)
        for edit in edits[:i]:
            edit(wb)
        path = folder / f"{name}_v{i}.xlsx"
        wb.save(path)
        paths.append(path)
    return paths


def ingest(paths: list[Path], blobs: BlobStore) -> list[str]:
    """Ingest and return the workbook ids in the order of ``paths``."""
    got = ingest_workbooks(paths, blobs)
    assert got.intake.discovered == len(paths)
    ids = [hashlib.sha256(Path(p).read_bytes()).hexdigest() for p in paths]
    assert set(ids) <= set(got.workbooks["workbook_id"])
    return ids


def chain_frames(chains: dict[str, list[str]], trivial: dict[tuple[str, int], str] | None = None):
    """VERSION_CHAINS and VERSION_STEPS frames (the contract's columns) for chains of ids."""
    trivial = trivial or {}
    links, steps = [], []
    for chain_id, ids in chains.items():
        for pos, wid in enumerate(ids):
            links.append({"chain_id": chain_id, "position": pos, "workbook_id": wid})
            if pos:
                steps.append(
                    {
                        "chain_id": chain_id,
                        "step": pos,
                        "before_id": ids[pos - 1],
                        "after_id": wid,
                        "n_edits": 1,
                        "task_types": ["calculation"],
                        "business_type": "sales reporting",
                        "summary": f"step {pos} of {chain_id}",
                        "trivial_reason": trivial.get((chain_id, pos)),
                    }
                )
    chains_df = pl.DataFrame(
        links, schema={"chain_id": pl.String, "position": pl.Int32, "workbook_id": pl.String}
    )
    steps_df = pl.DataFrame(
        steps,
        schema={
            "chain_id": pl.String,
            "step": pl.Int32,
            "before_id": pl.String,
            "after_id": pl.String,
            "n_edits": pl.Int32,
            "task_types": pl.List(pl.String),
            "business_type": pl.String,
            "summary": pl.String,
            "trivial_reason": pl.String,
        },
    )
    return chains_df, steps_df


MESSAGE_SCHEMA = {
    "message_key": pl.String,
    "date": pl.Datetime("us", "UTC"),
    "from_addr": pl.String,
    "from_name": pl.String,
    "to_addrs": pl.List(pl.String),
    "cc_addrs": pl.List(pl.String),
    "subject": pl.String,
    "new_text": pl.String,
}
THREAD_SCHEMA = {
    "thread_id": pl.String,
    "message_key": pl.String,
    "position": pl.Int32,
    "linked_by": pl.String,
}
ATTACHMENT_SCHEMA = {
    "message_key": pl.String,
    "part_index": pl.Int32,
    "file_name": pl.String,
    "content_type": pl.String,
    "sha256": pl.String,
    "size": pl.Int64,
    "is_spreadsheet": pl.Boolean,
}
SOURCES_SCHEMA = {
    "workbook_id": pl.String,
    "source_kind": pl.String,
    "source_path": pl.String,
    "file_name": pl.String,
    "message_key": pl.String,
    "file_date": pl.Datetime("us", "UTC"),
}


def set_cached(path: Path, values: dict[str, str], sheet: int = 1) -> Path:
    """Give formula cells of sheet ``sheet`` a cached value, as Excel would have saved
    it (openpyxl writes formulas with an empty ``<v />``): ``{"B1": "45000.5"}``."""
    import re
    import zipfile

    member = f"xl/worksheets/sheet{sheet}.xml"
    with zipfile.ZipFile(path) as zf:
        parts = {n: zf.read(n) for n in zf.namelist()}
    xml = parts[member].decode()
    for address, value in values.items():
        xml, n = re.subn(
            rf'(<c r="{address}"[^>]*>(?:(?!</c>).)*?<f>(?:(?!</c>).)*?</f>)<v\s*/>',
            rf"\g<1><v>{value}</v>",
            xml,
        )
        assert n == 1, (path, address)
    parts[member] = xml.encode()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in parts.items():
            zf.writestr(name, data)
    return path


def write_pair(
    folder: Path, name: str, build: Callable, edit: Callable, cached: tuple[dict, dict] = ({}, {})
) -> list[Path]:
    """An input and a reference: ``build`` then ``edit`` on a fresh workbook, each with its
    cached formula values (``cached``: input's, reference's; first sheet)."""
    paths = []
    for i, values in enumerate(cached):
        wb = openpyxl.Workbook()
        build(wb)
        if i:
            edit(wb)
        path = folder / f"{name}_v{i}.xlsx"
        wb.save(path)
        if values:
            set_cached(path, values)
        paths.append(path)
    return paths
