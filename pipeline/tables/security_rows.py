"""Rows that name a security by its coupon and maturity: "4-3/4 May 1968 B", "4 Aug.
1970", "3-7/8 Nov. 1974" (1967-08 p77, Interest-Bearing Public Marketable Securities by
Issues). The month and year are when the security matures, not a period of the table's
figures; the period reader would read "May 1968" as a month.
"""

from __future__ import annotations

import re

# a coupon (a whole rate of one or two digits, with a fraction or a per cent sign or
# not) opening the label, then a month: "4-3/4 May", "4 Aug.", "2-1/2% Dec."
_COUPON_MONTH = re.compile(
    r"^\W*\d{1,2}(?:-\d{1,2}/\d{1,2})?%?\.?\s+"
    r"(jan|feb|mar|apr|may|june?|july?|aug|sept?|oct|nov|dec)[a-z]*\.?(\s|$)",
    re.IGNORECASE,
)


def names_a_security(label: str) -> bool:
    """Whether the row label opens with a coupon and a maturity month."""
    return bool(_COUPON_MONTH.match(label or ""))
