"""Anchoring cases from the audit of accepted tasks on real bulletins.

Each fixture rebuilds the real table's figures (as printed, checked on the page image)
and the reading the pipeline had, and fails on the code before the fix.
"""

from __future__ import annotations

import polars as pl

from pipeline.detect.anchors import find_anchors
from tests.detect.test_anchors import Statement, read, status_of

# treasury_bulletin_1967_08.pdf page 18, Table 2 "Trust Receipts" (millions of dollars):
# eleven trust funds, "Deduct: Interfund transactions", "Net trust receipts" (the
# header reader put "Net trust receipts" under the "Deduct" spanner too). Rows March,
# April and July 1967 as printed; net = funds - interfund.
TRUST_FUNDS = [f"Fund {i}" for i in range(1, 12)]
TRUST_ROWS = {
    "1967-March": [1817, 204, 274, 176, 99, 66, 46, 2, 209, 569, 155, 73, 3543],
    "April": [2582, 259, 330, 56, 16, 157, 36, 1, 195, 201, 69, 52, 3850],
    "July": [1665, 174, 237, 52, 14, 132, 51, 6, 235, 369, 160, 66, 3029],
}


def trust_receipts(
    deduct: str = "Deduct / Interfund transactions", net: str = "Deduct / Net trust receipts"
) -> Statement:
    rows = list(TRUST_ROWS)
    st = Statement(
        "treasury_bulletin_1967_08.pdf",
        18,
        1,
        rows,
        [*TRUST_FUNDS, deduct, net],
        [TRUST_ROWS[r][:] for r in rows],
        title="Table 2. - Trust Receipts",
    )
    st.printed = [line[:] for line in st.true]
    return st


def test_deduct_column_is_never_added_into_a_net_total() -> None:
    """1967-08 Table 2: the "Deduct: Interfund transactions" column was added into "Net
    trust receipts"; every row missed by twice the deduction, the table counted as
    rounded, and April's miss of 104 fell within 6 of a 8 -> 9 reading of the printed
    3,850: it was "repaired" to 3,950 (Table 1 on the same page prints 3,850)."""
    st = trust_receipts()
    result = find_anchors(*read([st]))
    assert result.repairs.is_empty()
    assert status_of(result, st.table_id, 1, 12) is None  # 3,850 as printed, not anchored
    assert result.identities.is_empty()  # a sum with an unsigned deduction asserts nothing


def test_deduction_printed_with_its_sign_is_added() -> None:
    """The same table with the deduction printed negative (and the net column's header
    read right): plain addition is right."""
    st = trust_receipts(net="Net trust receipts")
    for line in st.true:
        line[11] = -line[11]
    st.printed = [line[:] for line in st.true]
    result = find_anchors(*read([st]))
    # as printed, March misses by one unit (the table's totals are rounded)
    assert result.identities.sort("total_row_idx")["residual"].to_list() == [-1.0, 0.0, 0.0]
    assert result.repairs.is_empty()
    assert status_of(result, st.table_id, 1, 12)["status"] == "confirmed"


def test_net_label_missing_in_every_row_gives_no_fallback_span() -> None:
    """A labelled total the arithmetic never confirmed is kept for one misread cell; a
    "Net" column that misses in every row (here the deduction has no label to tell)
    is a difference, not a sum of its neighbours."""
    st = trust_receipts(deduct="Interfund transactions")
    result = find_anchors(*read([st]))
    assert result.repairs.is_empty()
    assert result.anchored_cells.is_empty()


# treasury_bulletin_1939_12.pdf page 65, "Silver Production, by Leading Countries" (in
# thousands of fine ounces): rows 1933 and 1937 are the two rows read whole; both add
# exactly to "Total for world". United States 1933 is printed 22,821 and was read
# 22,822 at OCR confidence 54.
COUNTRIES = [
    "United States",
    "Canada",
    "Mexico",
    "Peru",
    "Other America",
    "Europe",
    "Oceania",
    "Japan",
    "British India",
    "Other Asia",
    "Africa",
    "Total for world",
]
SILVER = {
    "1933": [22821, 16395, 68101, 6761, 10819, 14769, 11553, 6680, 6080, 1104, 4076, 169159],
    "1937": [71299, 24131, 84681, 16994, 15663, 20811, 14903, 12451, 6205, 1883, 4853, 273874],
}


def rounded_neighbour() -> Statement:
    """Another table of the volume whose totals were rounded separately (most miss by one)."""
    true = [[124, 310, 435], [268, 121, 388], [77, 402, 480], [469, 833, 1302]]
    st = Statement(
        "treasury_bulletin_1939_12.pdf",
        24,
        0,
        ["A", "B", "C", "Total"],
        ["1938", "1939", "Total"],
        true,
        title="Receipts",
    )
    st.printed = [line[:] for line in st.true]
    return st


def test_rounding_window_does_not_confirm_a_doubtful_reading() -> None:
    """1939-12 Silver Production: the row 1933 missed its printed total by one unit; the
    table followed its volume's rounded tables, so a window of 5.5 units "confirmed"
    the misread 22,822 and a task's key was wrong. A figure OCR read with low
    confidence is not confirmed by an identity that closes only within rounding."""
    st = Statement(
        "treasury_bulletin_1939_12.pdf",
        65,
        1,
        list(SILVER),
        COUNTRIES,
        [SILVER[y][:] for y in SILVER],
        title="Silver Production, by Leading Countries",
    )
    st.printed = [line[:] for line in st.true]
    tables, cells = read([st, rounded_neighbour()], {(st.table_id, 0, 0): "22822"})
    doubtful = (pl.col("table_id") == st.table_id) & (pl.col("row_idx") == 0)
    cells = cells.with_columns(
        conf=pl.when(doubtful & (pl.col("col_idx") == 0)).then(54.0).otherwise(pl.col("conf"))
    )
    result = find_anchors(tables, cells)
    ids = result.identities.filter(pl.col("table_id") == st.table_id).sort("total_row_idx")
    assert ids["residual"].to_list() == [-1.0, 0.0]
    assert status_of(result, st.table_id, 0, 0) is None  # 22,822 is not confirmed
    # the confidently read figures of that row still are, and the exact row is whole
    assert status_of(result, st.table_id, 0, 2)["status"] == "confirmed"
    assert all(status_of(result, st.table_id, 1, c)["status"] == "confirmed" for c in range(12))


def test_rounding_window_does_not_confirm_a_cell_another_identity_breaks() -> None:
    """An identity that closes only within rounding vouches for no cell that another
    identity through it (beyond rounding) contradicts."""
    st = rounded_neighbour()
    st.printed[1][0] = 768  # 268 printed 768: its column misses by 500
    st.printed[1][2] = 888  # and its row total agrees with it: the row "holds" (by -1)
    result = find_anchors(*read([st, rounded_neighbour_copy()]))
    assert status_of(result, st.table_id, 1, 0) is None


def rounded_neighbour_copy() -> Statement:
    """A second rounded table of the volume, so the volume's share stays rounded."""
    st = rounded_neighbour()
    st.page_no = 26
    return st


def test_a_table_needing_two_corrections_pins_none() -> None:
    """1967-08 page 20: eleven cells of one misassembled table were each pinned by a row
    and a column that both missed, and "contradicted" (implied 0). One table needing two
    corrections is likelier misread as a whole: no cell of it is pinned."""
    st = Statement(
        "p.pdf",
        1,
        0,
        ["A", "B", "C", "Total"],
        ["1950", "1951", "Total"],
        [[125, 10, 135], [240, 20, 260], [77, 30, 107], [442, 60, 502]],
    )
    st.printed = [line[:] for line in st.true]
    one = find_anchors(*read([st], {(st.table_id, 2, 0): "17"}))
    assert one.repairs.select("original_str", "repaired_str").rows() == [("17", "77")]
    two = find_anchors(*read([st], {(st.table_id, 2, 0): "17", (st.table_id, 0, 1): "16"}))
    assert two.repairs.is_empty()
    assert "contradicted" not in set(two.anchored_cells["status"])
    assert status_of(two, st.table_id, 2, 0) is None and status_of(two, st.table_id, 0, 1) is None


def test_a_total_over_one_line_confirms_nothing() -> None:
    """1953-09 Table 4 "Net Investments of Government Agencies": the columns "Total" and
    "Total trust accounts, etc." print the same figure (no other accounts that year);
    OCR read both 2,311 as "2,3", parsed 2.3, and each "confirmed" the other; a task then
    used 2.3 as fiscal 1949's total. A total of one line is a reprint, not a sum."""
    rows = ["1947", "1948", "1949"]
    st = Statement(
        "treasury_bulletin_1953_09.pdf",
        14,
        3,
        rows,
        ["Total", "Total trust accounts, etc."],
        [[3362, 3362], [3060, 3060], [2311, 2311]],
        title="Table 4. - Net Investments of Government Agencies in Public Debt Securities",
    )
    st.printed = [line[:] for line in st.true]
    misread = {(st.table_id, 2, 0): "2.3", (st.table_id, 2, 1): "2.30"}  # "2,3", "2,30"
    result = find_anchors(*read([st], misread))
    assert result.identities.is_empty()
    assert status_of(result, st.table_id, 2, 0) is None
    assert status_of(result, st.table_id, 2, 1) is None
