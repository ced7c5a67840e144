"""Schemas of the mail tables: ``messages`` and ``attachments`` (issue 10 contract, section 1).

One row per unique message (copies of the same message in several folders or files are
merged into one row that keeps every source path) and one row per attachment part of
that message. Attachment bytes live in the blob store; the row holds their sha256.
"""

from __future__ import annotations

import polars as pl

STAGE = "mail"

MESSAGES_SCHEMA = {
    "message_key": pl.String,  # sha256 hex of the dedupe key (Message-ID, else headers+body)
    "message_id": pl.String,  # Message-ID without <>; null if absent
    "date": pl.Datetime("us", "UTC"),  # null if missing or unparseable
    "from_addr": pl.String,  # lower-case address
    "from_name": pl.String,
    "to_addrs": pl.List(pl.String),  # lower-case addresses
    "cc_addrs": pl.List(pl.String),
    "subject": pl.String,
    "norm_subject": pl.String,  # Re:/Fw:/[list] tags stripped, whitespace collapsed, lower-case
    "body": pl.String,  # full text body (text/plain, or the text of the HTML body)
    "new_text": pl.String,  # the body less quoted history and signature
    "in_reply_to": pl.String,  # message id without <>
    "references": pl.List(pl.String),  # message ids without <>
    "custodian": pl.String,  # mailbox owner folder (first source's)
    "folder": pl.String,  # folder inside the custodian (first source's)
    "corpus": pl.String,
    "source_paths": pl.List(pl.String),  # every file (or mbox#index) the message came from
    "n_attachments": pl.Int32,
}

ATTACHMENTS_SCHEMA = {
    "message_key": pl.String,
    "part_index": pl.Int32,  # order of the attachment among the message's attachments
    "file_name": pl.String,  # decoded (RFC 2047 / RFC 2231)
    "content_type": pl.String,
    "sha256": pl.String,  # blob key of the decoded bytes
    "size": pl.Int64,
    "is_spreadsheet": pl.Boolean,
}
