"""Builders of small ``messages`` frames (the columns of MESSAGES_SCHEMA that threading
and version ordering read) for the detect tests."""

from __future__ import annotations

import datetime as dt
import hashlib
import re

import polars as pl

MESSAGES_COLUMNS = {
    "message_key": pl.String,
    "message_id": pl.String,
    "date": pl.Datetime("us", "UTC"),
    "from_addr": pl.String,
    "to_addrs": pl.List(pl.String),
    "cc_addrs": pl.List(pl.String),
    "subject": pl.String,
    "norm_subject": pl.String,
    "in_reply_to": pl.String,
    "references": pl.List(pl.String),
}

_PREFIX = re.compile(r"^\s*((re|fw|fwd)\s*:\s*)+", re.I)


def day(n: float) -> dt.datetime:
    return dt.datetime(2001, 1, 1, tzinfo=dt.UTC) + dt.timedelta(days=n)


def msg(
    mid: str | None,
    subject: str,
    when: float | None,
    sender: str,
    to: list[str],
    reply_to: str | None = None,
    refs: list[str] | None = None,
    cc: list[str] | None = None,
) -> dict:
    key_src = mid or f"{subject}|{when}|{sender}"
    return {
        "message_key": hashlib.sha256(key_src.encode()).hexdigest(),
        "message_id": mid,
        "date": None if when is None else day(when),
        "from_addr": sender,
        "to_addrs": to,
        "cc_addrs": cc or [],
        "subject": subject,
        "norm_subject": _PREFIX.sub("", subject).strip().lower(),
        "in_reply_to": reply_to,
        "references": refs or [],
    }


def frame(rows: list[dict]) -> pl.DataFrame:
    return pl.DataFrame(rows, schema=MESSAGES_COLUMNS)
