"""New text: quoted history, Enron reply/forward blocks and signatures cut by the library."""

from __future__ import annotations

from pipeline.ingest.mail.new_text import new_text

ORIGINAL = (
    "I have no idea. Scary.\n\n -----Original Message-----\nFrom: \tCulver, Deborah  \n"
    "Sent:\tFriday, November 09, 2001 2:27 PM\nTo:\tRapp, Bill\nSubject:\tFW: Springs\n\n"
    "What is all this?\n"
)
LOTUS_FORWARD = (
    "Please see below.\n\nSusan\n---------------------- Forwarded by Susan Bailey/HOU/ECT on "
    "04/16/2001 09:56 AM ---------------------------\n\n\nJohn Doe\n04/13/2001 03:40 PM\n"
    "To: Susan Bailey/HOU/ECT@ECT\ncc: \nSubject: Corrugated\n\nOld text here.\n"
)


def test_original_message_block_is_cut():
    assert new_text(ORIGINAL) == "I have no idea. Scary."


def test_lotus_forwarded_by_block_is_cut():
    out = new_text(LOTUS_FORWARD)
    assert out == "Please see below.\n\nSusan"
    assert "Forwarded by" not in out and "Old text" not in out


def test_pure_forward_or_reply_has_no_new_text():
    assert new_text(LOTUS_FORWARD[LOTUS_FORWARD.index("-----") :]) == ""
    assert new_text(ORIGINAL[ORIGINAL.index(" -----") :]) == ""


def test_signature_and_quoted_reply_are_cut():
    assert new_text("Thanks for the file.\n\n--\nJane Roe\nSenior Analyst\n713-555-1234\n") == (
        "Thanks for the file."
    )
    body = (
        "Sounds good.\n\nOn Mon, Jan 1, 2001 at 10:00 AM, Bob <bob@x.com> wrote:\n> old\n> older\n"
    )
    assert new_text(body) == "Sounds good."


def test_hyphen_lists_are_kept_and_the_edrm_banner_removed():
    body = (
        "Please update:\n- the totals\n- the dates\n\n***********\nEDRM Enron Email Data Set "
        "has been produced in EML, PST and NSF format by ZL Technologies, Inc.\n***********\n"
    )
    assert new_text(body) == "Please update:\n- the totals\n- the dates"


def test_nested_enron_reply_chain_keeps_only_the_top():
    body = (
        "Approved.\n\n -----Original Message-----\nFrom: \tA\nSent:\tMonday\nTo:\tB\n"
        "Subject:\tRE: x\n\n"
        "Can you approve?\n---------------------- Forwarded by C/HOU/EES on 11/09/2001 02:27 PM "
        "---------------------------\nFrom:\tD on 11/09/2001\nTo:\tC\nSubject:\tx\n\nFirst.\n"
    )
    assert new_text(body) == "Approved."
