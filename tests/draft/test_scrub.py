"""Scrubbing personal data: detected data -> placeholders, known people -> roles."""

from __future__ import annotations

import pytest

from pipeline.draft.scrub import (
    ROLE_ASKED,
    ROLE_ASKER,
    ROLE_OTHER,
    name_variants,
    people_from_headers,
    personal_data,
    scrub_text,
    signature_name,
)

HEADERS = [
    {
        "message_key": "m1",
        "from_name": "Arnold, John",
        "from_addr": "john.arnold@enron.com",
        "to_addrs": ["sally.beck@enron.com"],
        "cc_addrs": ["kate.symes@enron.com"],
    },
    {
        "message_key": "m2",
        "from_name": "Sally Beck",
        "from_addr": "sally.beck@enron.com",
        "to_addrs": ["john.arnold@enron.com"],
        "cc_addrs": [],
    },
]

SEEDED = [
    "john.arnold@enron.com",
    "(713) 853-6197",
    "713.853.4567",
    "+1 415 782 7822",
    "123-45-6789",
    "00123456789",
    "4417-1234-5678-9113",
    "John Arnold",
    "Arnold",
    "Sally",
    "Beck",
    "Kate Symes",
]

TEXT = (
    "Sally, can you add a total column to the Q3 sheet of the curve file? Call me at "
    "(713) 853-6197 or 713.853.4567 (cell +1 415 782 7822), or mail john.arnold@enron.com. "
    "My SSN is 123-45-6789 and the acct 00123456789, account # 4417-1234-5678-9113. "
    "Kate Symes has the numbers; ask Beck too. Thanks, John Arnold. "
    "Total 1,234,567.89 as of 2001-05-03, 42 deals."
)


def test_name_variants():
    assert name_variants("Arnold, John") == [
        "John Arnold",
        "Arnold, John",
        "Arnold John",
        "John",
        "Arnold",
    ]
    assert name_variants("sally.beck@enron.com")[:1] == ["Sally Beck"]
    assert name_variants("Enron Announcements <all@enron.com>") == []  # list words only
    assert name_variants(None) == [] and name_variants("") == []


def test_roles_from_headers():
    people = people_from_headers(HEADERS, askers=["m1"])
    assert people.roles["John Arnold"] == ROLE_ASKER
    assert people.roles["Sally Beck"] == ROLE_ASKED
    assert people.roles["Kate Symes"] == ROLE_OTHER


def test_scrubbed_text_holds_no_seeded_datum():
    people = people_from_headers(HEADERS, askers=["m1"])
    out = scrub_text(TEXT, people)
    for seeded in SEEDED:
        assert seeded not in out, seeded
    assert "6197" not in out and "6789" not in out and "enron" not in out
    assert personal_data(out, people) == []
    # what is not personal stays: the work, amounts, dates, counts
    assert "can you add a total column to the Q3 sheet" in out
    assert "1,234,567.89" in out and "2001-05-03" in out and "42 deals" in out
    assert out.startswith("The analyst, can you add")
    assert "Thanks, your manager." in out and "A colleague has the numbers" in out


@pytest.mark.parametrize(
    "text,kind",
    [
        ("mail me at jeff.dasovich@enron.com", "email"),
        ("call 415-782-7822", "phone"),
        ("SSN 987-65-4321", "social_security_number"),
        ("wire to account 12345678", "account_number"),
        ("card 4111 1111 1111 1111", "account_number"),
    ],
)
def test_personal_data_kinds(text, kind):
    found = personal_data(text)
    assert [d.kind for d in found] == [kind]
    assert kind not in {d.kind for d in personal_data(scrub_text(text))}


def test_lower_case_words_that_are_names_survive():
    people = people_from_headers(
        [{"message_key": "m", "from_name": "Bill Williams", "to_addrs": []}], askers=["m"]
    )
    assert scrub_text("Please bill the desk; Bill knows.", people) == (
        "Please bill the desk; your manager knows."
    )


def test_signature_names_become_roles():
    body = (
        "Can you add the Q3 totals to the curve file?\n\n"
        "Thanks,\nSara S. Shackleton\nEnron North America Corp.\n713-853-5620\n"
        "-----Original Message-----\nFrom: Tana Jones"
    )
    new_text = "Can you add the Q3 totals to the curve file?"
    assert signature_name(body, new_text) == "Sara S. Shackleton"
    assert signature_name("no signature here", "no signature here") is None
    people = people_from_headers(
        [{"message_key": "m1", "from_addr": "legal@enron.com", "body": body, "new_text": new_text}],
        askers=["m1"],
    )
    out = scrub_text("Sara Shackleton wants it; ask Shackleton or Sara S. Shackleton.", people)
    assert out == "Your manager wants it; ask your manager or your manager."


def test_cell_values_are_not_phone_numbers():
    """A decimal or thousands-separated value an instruction must state is kept
    (phonenumbers alone reads '17546.449219' as a phone number)."""
    from pipeline.draft.scrub import personal_data, scrub_text

    for text in ("enter 17546.449219 in B4", "set C3 to 1,234,567.50", "rate 0.0322"):
        assert personal_data(text) == [], text
        assert scrub_text(text) == text
    assert [d.kind for d in personal_data("call 713.853.1234")] == ["phone"]


def test_workbook_names_and_extensions_found_labels_kept():
    from pipeline.draft.scrub import workbook_personal_data

    found = workbook_personal_data(
        ["Mary Cook/Francisco Pinto-Leite", "Derek Davies", "Bill Williams III", "x3-0699"]
    )
    assert [(d.kind, d.text) for d in found] == [
        ("person_name", "Mary Cook"),
        ("person_name", "Francisco Pinto-Leite"),
        ("person_name", "Derek Davies"),
        ("person_name", "Bill Williams III"),
        ("phone_extension", "x3-0699"),
    ]
    # account, desk and hub labels of the generated corpus are no people
    labels = [
        "West Desk",
        "Henry Hub",
        "Wheeler Ridge",
        "May Forecast",
        "Gas Trading",
        "Total",
        "Mark Price",
    ]
    labels += ["Cost per head", "Q1 2001", "Treasury", "deal 273376.1", "SO2", "x 100"]
    assert workbook_personal_data(labels) == []
