"""Known-wrong families: digit confusions, propagation through the formula, registry."""

from __future__ import annotations

from decimal import Decimal

from pipeline.draft.formulas import FORMULAS, evaluate, interval, round_half_up
from pipeline.draft.known_wrong import KNOWN_WRONG_FAMILIES, misreadings


def test_registry_names_every_family_of_the_architecture():
    assert set(KNOWN_WRONG_FAMILIES) == {
        "misread_digit",
        "adjacent_row",
        "adjacent_column",
        "other_base",
        "flipped_sign",
        "printed_vs_total",
        "earlier_printing",
        "other_period",
    }


def test_misreadings_swap_one_confusable_digit_most_significant_first():
    got = [text for text, _, _ in misreadings("8315")]
    assert got[:3] == ["6315", "9315", "3315"]
    assert "8815" in got and "8375" in got and "8316" in got
    # never a leading zero, never more than one digit changed
    assert all(not t.startswith("0") for t in got)
    assert all(sum(a != b for a, b in zip(t, "8315", strict=True)) == 1 for t in got)
    assert [t for t, _, _ in misreadings("-0.5")] == ["-0.6"]


def test_formulas_round_once_half_up_and_code_matches_evaluation():
    assert evaluate("value", [Decimal("2.5")], 0) == Decimal(3)
    assert evaluate("value", [Decimal("-2.5")], 0) == Decimal(-3)
    assert evaluate("share", [Decimal(1), Decimal(3)], 2) == Decimal("33.33")
    assert evaluate("percent_change", [Decimal(0), Decimal(3)], 2) is None
    values = [Decimal("1234"), Decimal("987.5"), Decimal("-40")]
    names = ["x1", "x2", "x3"]
    for name, formula in FORMULAS.items():
        used = (
            values[:2]
            if name in {"difference", "change", "share", "percent_change", "excess"}
            else values
        )
        if name == "value":
            used = values[:1]
        text = formula.code(names[: len(used)])
        scope = dict(zip(names, used, strict=False))
        exact = eval(text, {"max": max, "min": min}, scope)  # noqa: S307 - registry text
        assert round_half_up(exact, 4) == evaluate(name, used, 4), name


def test_interval_is_half_a_unit_each_side():
    assert interval(Decimal("1234"), 0) == (Decimal("1233.5"), Decimal("1234.5"))
    assert interval(Decimal("12.34"), 2) == (Decimal("12.335"), Decimal("12.345"))


def test_unit_scale_and_period_slips_are_offered():
    """A key in millions of dollars lists the figure taken as dollars (x1,000,000), and a
    read of one period lists the neighbouring period's value."""
    from pipeline.draft import draft_tasks
    from pipeline.draft.sample import sample_frames

    f = sample_frames(seed=3)
    drafts = draft_tasks(
        f["anchored_cells"], f["tables"], f["documents"], f["pages"], table_cells=f["table_cells"]
    )
    read = [r for r in drafts.iter_rows(named=True) if r["kind"] == "read_number"]
    assert read
    for r in read:
        key = int(r["expected_answer"])
        values = {w["value"]: w["family"] for w in r["known_wrong"]}
        assert values.get(str(key * 1_000_000)) == "other_base", r["question"]
    assert any(w["family"] == "other_period" for r in read for w in r["known_wrong"])
