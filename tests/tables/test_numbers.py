"""parse_number: printed styles, marks and OCR noise, table-driven and property-based."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipeline.tables.numbers import parse_number

# text -> (value_str, negative, is_dash, footnote, revised)
CASES = {
    "1,234": ("1234", False, False, "", False),
    "1,234,567": ("1234567", False, False, "", False),
    "1234": ("1234", False, False, "", False),
    "12.5": ("12.5", False, False, "", False),
    "1,234.50": ("1234.50", False, False, "", False),
    ".5": ("0.5", False, False, "", False),
    "(1,234)": ("-1234", True, False, "", False),
    "-1,234": ("-1234", True, False, "", False),
    "\u22121,234": ("-1234", True, False, "", False),
    "\u20131,234": ("-1234", True, False, "", False),
    "- 1,234": ("-1234", True, False, "", False),
    "-": ("0", False, True, "", False),
    "--": ("0", False, True, "", False),
    "\u2014": ("0", False, True, "", False),
    "1,234 1/": ("1234", False, False, "1/", False),
    "1,2341/": ("1234", False, False, "1/", False),
    "1,234 12/": ("1234", False, False, "12/", False),
    "1,234*": ("1234", False, False, "*", False),
    "1,234a": ("1234", False, False, "a", False),
    "(1,234) 2/": ("-1234", True, False, "2/", False),
    "r1,234": ("1234", False, False, "", True),
    "1,234r": ("1234", False, False, "", True),
    "1,234 r": ("1234", False, False, "", True),
    "r(1,234)": ("-1234", True, False, "", True),
    "r1,234 1/": ("1234", False, False, "1/", True),
    "- 1/": ("0", False, True, "1/", False),
    # OCR noise
    "337,385|": ("337385", False, False, "", False),
    "177,610)": ("177610", False, False, "", False),
    "4,166/": ("4166", False, False, "", False),
    "1,234.": ("1234", False, False, "", False),
    ",1,234": ("1234", False, False, "", False),
    "1,,234": ("1234", False, False, "", False),
    "1, 234": ("1234", False, False, "", False),
    "1.234.567": ("1234567", False, False, "", False),
    "1.234,567": ("1234567", False, False, "", False),
    "12,5": ("12.5", False, False, "", False),
    "1,2O4": ("1204", False, False, "", False),
    "l,234": ("1234", False, False, "", False),
    "1O": ("10", False, False, "", False),
    # the open-topped typewriter 4 read as "h" (1953-09 p29 "h,287", 1948-05 "6h2")
    "h,287": ("4287", False, False, "", False),
    "3,h21": ("3421", False, False, "", False),
    "6h2": ("642", False, False, "", False),
    "(1,0h8)": ("-1048", True, False, "", False),
    "~25,898": ("-25898", True, False, "", False),
    "~-100": ("-100", True, False, "", False),  # the minus read twice (1967-08 p22)
    "$1,234": ("1234", False, False, "", False),
}

NOT_NUMBERS = [
    "",
    "Total",
    "1/",
    "12/",
    "lO",
    "Ol",
    "h",
    "hh",
    "h.5",
    "abc1",
    "1,23,456",
    "Fiscal",
    "r",
    "a",
    "(",
    ")",
]


@pytest.mark.parametrize("text", sorted(CASES))
def test_parse_number_cases(text: str) -> None:
    got = parse_number(text)
    assert got is not None, text
    assert (got.value_str, got.negative, got.is_dash, got.footnote, got.revised) == CASES[text]
    assert got.value == float(CASES[text][0])


@pytest.mark.parametrize("text", NOT_NUMBERS)
def test_parse_number_rejects_words(text: str) -> None:
    assert parse_number(text) is None


def test_decimals_follow_the_print() -> None:
    assert parse_number("1,234.50").decimals == 2
    assert parse_number("1,234").decimals == 0
    assert parse_number("-").decimals == 0


def _group(digits: str, sep: str = ",") -> str:
    head = len(digits) % 3 or 3
    parts = [digits[:head]] + [digits[i : i + 3] for i in range(head, len(digits), 3)]
    return sep.join(parts)


@st.composite
def printed_numbers(draw: st.DrawFn) -> tuple[str, Decimal, str, bool]:
    """A random figure printed in one bulletin style, with its exact value and marks."""
    whole = draw(st.integers(min_value=0, max_value=10**12))
    places = draw(st.sampled_from([0, 0, 1, 2, 3]))
    frac = draw(st.integers(min_value=0, max_value=10**places - 1)) if places else 0
    negative = draw(st.booleans()) and (whole or frac)
    grouped = draw(st.booleans())
    digits = _group(str(whole)) if grouped else str(whole)
    body = f"{digits}.{frac:0{places}d}" if places else digits
    sign_style = draw(st.sampled_from(["paren", "minus", "unicode", "dash"]))
    if negative:
        body = {
            "paren": f"({body})",
            "minus": f"-{body}",
            "unicode": f"\u2212{body}",
            "dash": f"\u2013{body}",
        }[sign_style]
    footnote = draw(st.sampled_from(["", "", "1/", "12/", "*", "a", "e"]))
    if footnote.endswith("/"):
        body = f"{body} {footnote}"
    elif footnote:
        body = f"{body}{footnote}"
    revised = draw(st.booleans())
    if revised:
        body = (
            draw(st.sampled_from([f"r{body}", f"{body}r", f"{body} r"]))
            if not footnote
            else f"r{body}"
        )
    value = Decimal(f"{whole}.{frac:0{places}d}") if places else Decimal(whole)
    return body, -value if negative else value, footnote, revised


@given(printed_numbers())
def test_parse_number_round_trip(case: tuple[str, Decimal, str, bool]) -> None:
    text, value, footnote, revised = case
    got = parse_number(text)
    assert got is not None, text
    assert got.decimal == value, text
    assert got.footnote == footnote
    assert got.revised == revised
    assert got.negative == (value < 0)
    assert not got.is_dash


@given(st.integers(min_value=1000, max_value=10**12))
def test_dot_for_comma_in_thousands_groups(n: int) -> None:
    """OCR reads ',' as '.' inside thousands groups; two or more groups prove it."""
    text = _group(str(n), ".")
    got = parse_number(text)
    if text.count(".") >= 2:
        assert got is not None and got.decimal == n
    else:
        # one "." with three digits after it is a printed decimal ("1.234")
        assert got is not None and got.decimal == Decimal(text)


@given(st.sampled_from(["-", "--", "---", "\u2014", "- -"]))
def test_dashes_are_zero(text: str) -> None:
    got = parse_number(text)
    assert got is not None and got.is_dash and got.value_str == "0" and got.value == 0.0


@pytest.mark.parametrize("text", ["...", ".....", "\u2026", ". . .", ".."])
def test_dot_runs_are_leaders_not_zero(text: str) -> None:
    """A run of dots in a value column is a leader or an empty stub cell: read as zero it
    made the stub column "Fiscal year or month" a column of zeros a task subtracted."""
    assert parse_number(text) is None
