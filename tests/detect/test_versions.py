"""Version chains from in-memory workbook tables: version tokens, copies, e-mail and
file dates order families; same-template decoys and unrelated books stay apart."""

from __future__ import annotations

import polars as pl
import pytest

from pipeline.detect.versions import VERSION_CHAINS_SCHEMA, build_version_chains, name_parts
from tests.detect.mail_frames import frame, msg
from tests.detect.workbook_frames import edited, ledger, tables, when, wid


@pytest.mark.parametrize(
    ("name", "stem", "rank"),
    [
        ("Q3 budget.xls", "q3 budget", None),
        ("Q3 Budget v2.xls", "q3 budget", (1, 2.0)),
        ("Copy of Q3 budget FINAL (1).xlsx", "q3 budget", (2, 0.5)),
        ("canada_gas_positions_final2.xlsx", "canada gas positions", (2, 2.0)),
        ("Gas P&L_FINAL_use this.xlsx", "gas p&l", (2, 100.0)),
        ("positions_2001-03-15.xlsx", "positions", None),
        ("Market report 15mar01.xls", "market report", None),
        ("gas desk rev3.xlsx", "gas desk", (1, 3.0)),
        ("budget_draft.xls", "budget", (0, 0.0)),
        ("budget - Copy.xlsx", "budget", (1, 0.5)),
        ("Book1.xls", "book1", None),
    ],
)
def test_name_parts(name: str, stem: str, rank: tuple | None) -> None:
    parts = name_parts(name)
    assert (parts.stem, parts.rank) == (stem, rank)


def chains_of(out: pl.DataFrame) -> list[list[str]]:
    return [
        g.sort("position")["workbook_id"].to_list()
        for _, g in out.group_by("chain_id", maintain_order=True)
    ]


def budget_family() -> tuple[list, list[str]]:
    v1 = ledger("Gas", seed=1)
    v2 = edited(v1, {(4, 3): 1234.5, (9, 2): 77.0})
    v3 = edited(v2, {(27, 1): "Gas line 26", (27, 2): 10.0, (27, 6): "=SUM(B27:E27)"})
    books = [
        ("Q3 budget.xls", v1, []),
        ("Q3 budget v2.xls", v2, []),
        ("Q3 budget v3 final.xlsx", v3, []),
    ]
    return books, [wid(v1), wid(v2), wid(v3)]


def test_version_tokens_order_a_family_and_decoys_stay_apart() -> None:
    books, ids = budget_family()
    decoys = [
        ("Q3 budget.xls", ledger("Power", seed=2), []),  # same template, other desk
        ("Q3 budget v2.xls", ledger("Gas", seed=3), []),  # same labels, other numbers
        ("Trades.xlsx", {"Deals": {(1, 1): "Deal", (1, 2): "Total", (2, 1): 4411}}, []),
    ]
    t = tables(books + decoys)
    out = build_version_chains(**t)
    assert out.schema == pl.Schema(VERSION_CHAINS_SCHEMA)
    assert chains_of(out) == [ids]
    assert set(out["order_by"]) == {"version_token"}
    first, second = out.sort("position").rows(named=True)[:2]
    assert first["prev_workbook_id"] is None and first["link_reason"] is None
    assert second["prev_workbook_id"] == ids[0]
    assert second["content_similarity"] > 0.8 and second["sheet_overlap"] == 1.0
    assert second["name_similarity"] == 1.0
    assert "same stem 'q3 budget'" in second["link_reason"]


def test_email_dates_order_when_names_carry_no_token() -> None:
    books, ids = budget_family()
    mails = [msg(f"m{i}", "budget", d, "a@x.com", ["b@x.com"]) for i, d in enumerate([30, 10, 20])]
    messages = frame(mails)
    keys = messages["message_key"].to_list()
    # all attached as "budget.xls"; e-mailed v2 first (day 10), then v3 (day 20), then v1 (30)
    renamed = [
        ("budget.xls", books[1][1], [{"message_key": keys[1]}]),
        ("budget.xls", books[2][1], [{"message_key": keys[2]}]),
        ("budget.xls", books[0][1], [{"message_key": keys[0]}, {"message_key": keys[0]}]),
    ]
    out = build_version_chains(**tables(renamed), messages=messages)
    assert chains_of(out) == [[ids[1], ids[2], ids[0]]]
    assert set(out["order_by"]) == {"email_date"}
    assert out["version_date"].dt.day().to_list() == [11, 21, 31]


def test_copies_and_file_dates() -> None:
    books, ids = budget_family()
    copy = edited(books[1][1], {})  # the same content saved again: another sha256
    copy_id = wid(copy) + "-copy"
    t = tables(
        [
            ("Copy of budget (1).xlsx", books[1][1], [{"file_date": when(5)}]),
            ("budget.xlsx", books[0][1], [{"file_date": when(1)}]),
            ("budget - Copy.xlsx", books[2][1], [{"file_date": when(9)}]),
        ]
    )
    # a renamed, re-saved copy: identical values under an unrelated name
    extra = (
        t["cells"].filter(pl.col("workbook_id") == ids[1]).with_columns(workbook_id=pl.lit(copy_id))
    )
    t["cells"] = pl.concat([t["cells"], extra])
    t["sheets"] = pl.concat(
        [
            t["sheets"],
            t["sheets"]
            .filter(pl.col("workbook_id") == ids[1])
            .with_columns(workbook_id=pl.lit(copy_id)),
        ]
    )
    t["workbooks"] = pl.concat(
        [
            t["workbooks"],
            t["workbooks"]
            .filter(pl.col("workbook_id") == ids[1])
            .with_columns(workbook_id=pl.lit(copy_id), file_name=pl.lit("for John.xlsx")),
        ]
    )
    out = build_version_chains(**t)
    (chain,) = chains_of(out)
    assert chain == [ids[0], ids[1], ids[2], copy_id]  # the undated copy goes last
    assert set(out["order_by"]) == {"file_date"}
    copy_row = out.filter(pl.col("workbook_id") == copy_id).row(0, named=True)
    assert copy_row["link_reason"].startswith(("content", "family"))


def test_identical_workbooks_are_one_node() -> None:
    books, ids = budget_family()
    same = [("Q3 budget.xls", books[0][1], [{"message_key": "k1"}, {"message_key": "k2"}])]
    out = build_version_chains(**tables(books + same))
    assert chains_of(out) == [ids]


def test_unrelated_small_books_are_not_chained() -> None:
    books = [
        (
            f"report{i}.xlsx",
            {"Sheet1": {(1, 1): "Name", (1, 2): "Total", (2, 1): f"x{i}", (2, 2): i}},
            [],
        )
        for i in range(20)
    ]
    assert build_version_chains(**tables(books)).is_empty()


@pytest.mark.parametrize(
    "names",
    [
        ["coal_alloc_2001-03-18.xlsx", "coal_alloc_2001-03-21.xlsx", "coal_alloc_2001-03-27.xlsx"],
        ["West allocation.xlsx", "West allocation_rev1.xlsx", "West allocation_rev2.xlsx"],
        ["Desk P&L.xlsx", "Copy of Desk P&L.xlsx", "Desk P&L_final.xlsx"],
    ],
)
def test_names_order_a_family_when_file_dates_say_nothing(names: list[str]) -> None:
    books, ids = budget_family()
    same_day = [{"file_date": when(0)}]
    # listed newest first: only the names can put them in order
    t = tables(
        [(names[2], books[2][1], same_day), (names[1], books[1][1], same_day)]
        + [(names[0], books[0][1], same_day)]
    )
    out = build_version_chains(**t)
    assert chains_of(out) == [ids]
    assert set(out["order_by"]) == {"version_token"}
