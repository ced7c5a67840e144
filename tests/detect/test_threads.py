"""Threads from headers first, then subject + participants + time window; decoys with a
generic subject stay apart."""

from __future__ import annotations

import time

import polars as pl

from pipeline.detect.threads import THREADS_SCHEMA, build_threads, identities
from tests.detect.mail_frames import frame, msg

A, B, C, D = "alice@enron.com", "bob@enron.com", "carol@enron.com", "dave@enron.com"


def groups(messages: pl.DataFrame, threads: pl.DataFrame) -> set[frozenset[str]]:
    ids = dict(zip(messages["message_key"], messages["message_id"], strict=True))
    out: dict[str, set[str]] = {}
    for t, k in zip(threads["thread_id"], threads["message_key"], strict=True):
        out.setdefault(t, set()).add(ids[k])
    return {frozenset(v) for v in out.values()}


def test_references_and_in_reply_to() -> None:
    rows = [
        msg("m1", "Q3 budget", 0, A, [B]),
        msg("m2", "RE: Q3 budget", 1, B, [A], reply_to="m1", refs=["m1"]),
        msg("m3", "RE: Q3 budget", 2, A, [B], reply_to="m2"),
        msg("x1", "Gas curve", 0.5, C, [D]),
    ]
    messages = frame(rows)
    threads = build_threads(messages)
    assert threads.schema == pl.Schema(THREADS_SCHEMA)
    assert groups(messages, threads) == {frozenset({"m1", "m2", "m3"}), frozenset({"x1"})}
    by_id = dict(zip(messages["message_key"], messages["message_id"], strict=True))
    info = {
        by_id[k]: (p, lb)
        for k, p, lb in threads.select("message_key", "position", "linked_by").rows()
    }
    assert info == {
        "m1": (0, "root"),
        "m2": (1, "references"),
        "m3": (2, "in_reply_to"),
        "x1": (0, "root"),
    }


def test_absent_parent_still_joins_its_replies() -> None:
    rows = [
        msg("r1", "RE: deal 4411", 3, B, [A], reply_to="gone", refs=["gone"]),
        msg("r2", "RE: deal 4411", 4, C, [A], reply_to="gone"),
    ]
    messages = frame(rows)
    assert groups(messages, build_threads(messages)) == {frozenset({"r1", "r2"})}


def test_subject_only_threading_needs_participants_and_window() -> None:
    rows = [
        msg("s1", "Update", 0, A, [B]),
        msg("s2", "Re: Update", 2, B, [A]),  # headers lost: joins by subject + people
        msg("s3", "FW: Update", 10, A, [C], cc=[B]),  # forward, shared participant
        # decoys: same generic subject, different people / months later
        msg("d1", "Re: Update", 3, C, [D]),
        msg("d2", "Update", 200, A, [B]),
        msg("d3", "RE: Update", 201, B, [A]),
    ]
    messages = frame(rows)
    threads = build_threads(messages)
    assert groups(messages, threads) == {
        frozenset({"s1", "s2", "s3"}),
        frozenset({"d1"}),
        frozenset({"d2", "d3"}),
    }
    by_id = dict(zip(messages["message_key"], messages["message_id"], strict=True))
    linked = {by_id[k]: lb for k, lb in threads.select("message_key", "linked_by").rows()}
    assert linked["s2"] == linked["s3"] == linked["d3"] == "subject"


def test_fresh_message_with_same_subject_is_a_new_thread() -> None:
    rows = [msg("w1", "Weekly positions", 0, A, [B]), msg("w2", "Weekly positions", 7, A, [B])]
    messages = frame(rows)
    assert len(groups(messages, build_threads(messages))) == 2


def test_subject_joins_a_header_thread_and_missing_dates() -> None:
    rows = [
        msg("h1", "Curve file", 0, A, [B, C]),
        msg("h2", "Re: Curve file", 1, B, [A], reply_to="h1", refs=["h1"]),
        msg("h3", "Re: Curve file", 5, C, [A]),  # no headers
        msg("h4", "Re: Curve file", None, C, [B]),  # no date, no headers
    ]
    messages = frame(rows)
    threads = build_threads(messages)
    assert groups(messages, threads) == {frozenset({"h1", "h2", "h3", "h4"})}
    # undated messages go last
    by_id = dict(zip(messages["message_key"], messages["message_id"], strict=True))
    pos = {by_id[k]: p for k, p in threads.select("message_key", "position").rows()}
    assert pos["h4"] == 3


def test_thread_ids_are_deterministic() -> None:
    rows = [msg("m1", "a", 0, A, [B]), msg("m2", "Re: a", 1, B, [A], reply_to="m1")]
    one = build_threads(frame(rows)).sort("message_key")
    two = build_threads(frame(rows[::-1])).sort("message_key")
    assert one.equals(two)
    assert one["thread_id"].n_unique() == 1 and len(one["thread_id"][0]) == 64


def test_many_messages_one_generic_subject_is_fast() -> None:
    rows = []
    for i in range(20_000):  # 2,000 pairs of people, each a two-message thread
        a, b = f"p{i % 2000}@x.com", f"q{i % 2000}@x.com"
        subject = "Update" if i < 2000 else "Re: Update"
        rows.append(
            msg(
                f"g{i}",
                subject,
                i // 2000 * 10 + (i % 2000) / 1000,
                a if i < 2000 else b,
                [b if i < 2000 else a],
            )
        )
    messages = frame(rows)
    start = time.perf_counter()
    threads = build_threads(messages)
    elapsed = time.perf_counter() - start
    assert threads.height == 20_000
    # every pair's replies come 10 days apart: one thread per pair
    assert threads["thread_id"].n_unique() == 2000
    assert elapsed < 10


def test_a_sender_named_differently_still_continues_the_thread() -> None:
    # Enron's Sent folder: the owner is a bare display name, recipients quoted or X.500
    rows = [
        msg("f1", "Forest Products", 0, "jennifer.newbrough@enron.com", ["susan.bailey@enron.com"]),
        msg("f2", "RE: Forest Products", 0.1, "bailey", ["newbrough", "/o=enron/cn=jnewbro"]),
        msg("w1", "Weekend", 1, "bailey", ["'dona.carmony@ourclub.com'"]),
        msg("w2", "RE: Weekend", 1.1, "dona.carmony@ourclub.com", ["susan.bailey@enron.com"]),
        msg("x1", "RE: Weekend", 1.2, "tom.smith@other.com", ["ann.jones@other.com"]),
    ]
    messages = frame(rows)
    assert groups(messages, build_threads(messages)) == {
        frozenset({"f1", "f2"}),
        frozenset({"w1", "w2"}),
        frozenset({"x1"}),
    }


def test_identities() -> None:
    assert identities("'Dona.Carmony@ourclub.com'") == {"dona.carmony@ourclub.com", "~carmony"}
    assert identities("bailey") == {"bailey", "~bailey"}
    assert identities("Bailey, Susan") == {"bailey, susan", "~bailey"}
    assert identities("/o=enron/ou=na/cn=recipients/cn=jnewbro") == {
        "/o=enron/ou=na/cn=recipients/cn=jnewbro"
    }
    assert identities(None) == set() == identities("  ")
