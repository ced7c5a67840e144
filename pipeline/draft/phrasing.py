"""Question wording: several phrasings per task kind, picked deterministically.

Every question states the period, the unit and the precision; none names the volume,
the page, the table number or the arithmetic to perform.
"""

from __future__ import annotations

import random

PHRASINGS: dict[str, list[str]] = {
    "read_number": [
        "What was {item} {when}, as reported in the {statement} table? Answer in {unit}.",
        "{When}, how much was {item} (table: {statement})? Express it in {unit}.",
        "Give the amount of {item} {when} from the {statement} table, in {unit}.",
        "According to the {statement} table, what did {item} amount to {when}? Use {unit}.",
    ],
    "sum_rows": [
        "What was the combined amount of {items} {when} (table: {statement})? Answer in {unit}.",
        "Taken together, how much did {items} come to {when}, per the {statement} "
        "table? Express it in {unit}.",
        "{When}, what did {items} add up to in the {statement} table? Use {unit}.",
    ],
    "difference": [
        "{When}, by how much did {item} exceed {item2} (table: {statement})? Answer in {unit}; "
        "a negative number means it fell short.",
        "How much larger was {item} than {item2} {when}, according to the {statement} "
        "table? Give {unit} (negative if smaller).",
        "What was the gap between {item} and {item2} {when} (table: {statement}), taking "
        "{item} minus {item2}? Use {unit}.",
    ],
    "change_between_periods": [
        "By how much did {item} (table: {statement}) change from {period} to {period2}? "
        "Answer in {unit}; use a negative number for a decrease.",
        "What was the change in {item} between {period} and {period2}, per the {statement} "
        "table? Express it in {unit} (negative for a decline).",
        "How much did {item} grow from {period} to {period2} in the {statement} table? Give "
        "{unit}; a fall is negative.",
    ],
    "share_of_total": [
        "What share of {total} did {item} account for {when} (table: {statement})? Answer "
        "in percent.",
        "{When}, what percentage of {total} was {item}, according to the {statement} table?",
        "{item} made up what percent of {total} {when}, per the {statement} table?",
    ],
    "percent_change": [
        "By what percent did {item} (table: {statement}) change from {period} to {period2}? "
        "Use a negative number for a decrease.",
        "What was the percentage change in {item} between {period} and {period2}, per the "
        "{statement} table?",
        "From {period} to {period2}, how much did {item} grow in percent (table: "
        "{statement})? A decline is negative.",
    ],
    "excess": [
        "{When}, by what percent did {item} exceed {item2} (table: {statement})? Negative if "
        "it was smaller.",
        "How many percent larger was {item} than {item2} {when}, according to the "
        "{statement} table? Relative to {item2}; negative if smaller.",
    ],
    "mean": [
        "What was the average value of {item} over {span}, one value per period (table: "
        "{statement})? Answer in {unit}.",
        "Averaged over {span}, what was {item} per period in the {statement} table? Use {unit}.",
    ],
    "max": [
        "What was the highest amount of {item} in any period from {span} "
        "(table: {statement})? Answer in {unit}.",
        "Over {span}, what peak value did {item} reach in the {statement} table? Use {unit}.",
    ],
    "min": [
        "What was the lowest amount of {item} in any period from {span} (table: {statement})? "
        "Answer in {unit}.",
        "Over {span}, what was the smallest value of {item} in the {statement} table? Use {unit}.",
    ],
}

_LATEST = [
    " Use the latest revised figures.",
    " Where the figure was revised, take the latest revision.",
]


def precision_words(places: int, rng: random.Random) -> str:
    """The precision sentence: "Round to the nearest whole number." or "... 2 decimal places."."""
    if places == 0:
        return rng.choice(["Round to the nearest whole number.", "Give a whole number."])
    unit = "place" if places == 1 else "places"
    return rng.choice([f"Round to {places} decimal {unit}.", f"Give {places} decimal {unit}."])


def phrase(
    wording: str, rng: random.Random, *, places: int, revised: bool = False, **slots: str
) -> str:
    """One question of a wording family (a kind, or a statistic within a kind)."""
    text = " ".join(rng.choice(PHRASINGS[wording]).format(**slots).split())
    text = text[0].upper() + text[1:]
    if revised:
        text += rng.choice(_LATEST)
    return f"{text} {precision_words(places, rng)}"


def join_items(items: list[str]) -> str:
    """ "a, b and c"."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
