"""The new text of a message: its body less quoted history and signature.

Done by a maintained library, mail-parser-reply (the successor of GitHub's
email_reply_parser, with Outlook header blocks, ``-----Original Message-----`` and
``On ... wrote:`` lines, signatures and disclaimers). Two additions, both data for its
own header pattern rather than new logic:

* Lotus Notes forwards (``----- Forwarded by Name/HOU/ECT on 04/16/2001 09:56 AM -----``),
  which Enron mail is full of, are a reply separator like ``Original Message``;
* hyphen-led lines are kept as lists, not read as the start of a signature
  (``keep_hyphen_lists``), so "- item" lines in a request survive.

Dataset banners appended to every message of a corpus (the EDRM attribution block)
are removed first: they are neither new text nor a signature.

The library compiles its patterns per message; they are compiled once here.
"""

from __future__ import annotations

import re

from mailparser_reply.parser import EmailMessage as _ReplyMessage
from mailparser_reply.parser import EmailReply

LOTUS_FORWARD = r"(^-{3,} ?Forwarded by .{0,200}?-{3,}$)"
BANNERS = (re.compile(r"\*{5,}\s*EDRM Enron Email Data Set has been produced.*?\*{5,}", re.DOTALL),)


def _compiled() -> tuple[re.Pattern, re.Pattern, re.Pattern]:
    template = _ReplyMessage(text="", languages=["en"], keep_hyphen_lists=True)
    header = re.compile(
        f"{template.HEADER_REGEX.pattern}|{LOTUS_FORWARD}", template.HEADER_REGEX.flags
    )
    return header, template.DISCLAIMERS_REGEX, template.SIGNATURE_REGEX


class _Message(_ReplyMessage):
    """mail-parser-reply's message with the patterns compiled once (see module docstring)."""

    HEADER_REGEX, DISCLAIMERS_REGEX, SIGNATURE_REGEX = _compiled()


def strip_banners(body: str) -> str:
    for banner in BANNERS:
        if "EDRM" in body:
            body = banner.sub("", body)
    return body


def new_text(body: str) -> str:
    """The text the sender wrote in this message (empty for a pure forward)."""
    body = strip_banners(body)
    if not body.strip():
        return ""
    msg = _Message(text=body, languages=["en"], keep_hyphen_lists=True)
    text = msg.text  # normalised by the library (line ends, stripped lines)
    first = _Message.HEADER_REGEX.search(text)
    head = text[: first.start()] if first else text
    if not head.strip():
        return ""
    disclaimers, signature = msg._process_signatures_disclaimers(head)
    return EmailReply(content=head, signatures=signature, disclaimers=disclaimers).body
