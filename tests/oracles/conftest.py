"""A tiny warehouse (table_cells, identities, anchored_cells) written per the contracts.

Table ``d0c1:3:0`` (doc ``d0c1``, page 3, table 0, millions of dollars)::

    row                       1948   1949
    0 Individual income tax    100    110
    1 Corporation income tax    40     45     1948 read "46" by OCR, repaired to 40
    2 Excise taxes              25     35     1949 printed 35: the total implies 30
    3 Total                    165    185
    4 Memo: refunds              7      8     no total covers it: never served

Table ``d0c1:4:0``: its anchored cells say "confirmed" but the printed cells do not
add up (a tampered or stale warehouse): reading them must fail the identity.
Table ``d0c1:5:0``: two rows labelled "Other" (repeated labels).
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from pipeline.config import data_paths
from pipeline.detect.schemas import ANCHORED_CELLS_SCHEMA, IDENTITIES_SCHEMA
from pipeline.store import Warehouse
from pipeline.tables.schemas import TABLE_CELLS_SCHEMA

DOC = "d0c1"
COLS = ["1948", "1949"]

# table_id -> rows of (label, printed texts per column)
PRINTED = {
    f"{DOC}:3:0": [
        ("Individual income tax", ["100", "110"]),
        ("Corporation income tax", ["46", "45"]),
        ("Excise taxes", ["25", "35"]),
        ("Total", ["165", "185"]),
        ("Memo: refunds", ["7", "8"]),
    ],
    f"{DOC}:4:0": [
        ("Customs", ["10", "20"]),
        ("Other receipts", ["5", "6"]),
        ("Total", ["16", "26"]),
    ],
    f"{DOC}:5:0": [
        ("Other", ["1", "2"]),
        ("Other", ["3", "4"]),
        ("Total", ["4", "6"]),
    ],
}

# (table_id, col) -> (total row, member rows, tolerance)
IDENTITIES = {
    (f"{DOC}:3:0", 0): (3, [0, 1, 2], 1.5),
    (f"{DOC}:3:0", 1): (3, [0, 1, 2], 1.5),
    (f"{DOC}:4:0", 0): (2, [0, 1], 0.0),
    (f"{DOC}:5:0", 0): (2, [0, 1], 0.0),
    (f"{DOC}:5:0", 1): (2, [0, 1], 0.0),
}

# (table_id, row, col) -> (status, value_str, implied_str) for cells that are not plain confirmed
SPECIAL = {
    (f"{DOC}:3:0", 1, 0): ("repaired", "40", None),
    (f"{DOC}:3:0", 2, 1): ("contradicted", "30", "30"),
}


def identity_id(table_id: str, col: int) -> str:
    return f"{table_id}:col_total:c{col}"


def _frames() -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    cells, identities, anchored = [], [], []
    for table_id, rows in PRINTED.items():
        doc, page, table = table_id.split(":")
        for r, (label, texts) in enumerate(rows):
            for c, text in enumerate(texts):
                cells.append(
                    dict(
                        table_id=table_id, doc_id=doc, page_no=int(page), table_no=int(table),
                        row_idx=r, col_idx=c, row_label=label, col_label=COLS[c], text=text,
                        is_number=True, value=float(text), value_str=text, negative=False,
                        is_dash=False, footnote="", revised=False, conf=95.0,
                        x0=0.0, y0=0.0, x1=1.0, y1=1.0,
                    )
                )  # fmt: skip
    for (table_id, col), spec in IDENTITIES.items():
        total_row, members, tolerance = spec
        identities.append(
            dict(
                identity_id=identity_id(table_id, col), table_id=table_id, kind="col_total",
                total_row_idx=total_row, total_col_idx=col, member_rows=members,
                member_cols=[col] * len(members), total_value_str="0", members_sum_str="0",
                residual=0.0, tolerance=tolerance, holds=True, found_by="label",
            )
        )  # fmt: skip
        rows = PRINTED[table_id]
        for r in [*members, total_row]:
            status, value, implied = SPECIAL.get((table_id, r, col), ("confirmed", None, None))
            printed = rows[r][1][col]
            doc, page, table = table_id.split(":")
            anchored.append(
                dict(
                    table_id=table_id, doc_id=doc, page_no=int(page), table_no=int(table),
                    row_idx=r, col_idx=col, row_label=rows[r][0], col_label=COLS[col],
                    status=status, value_str=value or printed, printed_str=printed,
                    implied_str=implied, is_total=r == total_row,
                    identity_ids=[identity_id(table_id, col)], unit_multiplier=1_000_000,
                    quality="clear",
                )
            )  # fmt: skip
    return (
        pl.DataFrame(cells, schema=TABLE_CELLS_SCHEMA),
        pl.DataFrame(identities, schema=IDENTITIES_SCHEMA),
        pl.DataFrame(anchored, schema=ANCHORED_CELLS_SCHEMA),
    )


def write_warehouse(root: Path) -> Path:
    """Write the tiny warehouse under ``root`` and return its warehouse folder."""
    warehouse = Warehouse(data_paths(root))
    cells, identities, anchored = _frames()
    warehouse.replace("table_cells", cells, TABLE_CELLS_SCHEMA)
    warehouse.replace("identities", identities, IDENTITIES_SCHEMA)
    warehouse.replace("anchored_cells", anchored, ANCHORED_CELLS_SCHEMA)
    return warehouse.root


@pytest.fixture(scope="module")
def warehouse_dir(tmp_path_factory) -> Path:
    """The tiny warehouse, written once per test module."""
    return write_warehouse(tmp_path_factory.mktemp("oracle-data"))
