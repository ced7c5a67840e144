"""Mail threads: the ``threads`` stage.

Threading follows the order of evidence a mail client uses (JWZ's algorithm, in
spirit). First the headers: every message is joined to the ids in its
``References`` and ``In-Reply-To`` by union-find over message ids, including ids
that are referenced but absent from the corpus, so two replies to a parent that was
never archived still share a thread. Then, for what the headers left apart, the
normalised subject: a component whose first message is a reply or forward
("Re:", "Fw:") is attached to an earlier thread with the same normalised subject
only when the reply's sender took part in that thread and the reply comes within
:data:`SUBJECT_WINDOW` of the thread's last message (the thread sharing most
participants wins). A subject alone never joins: "Update" between different people
months apart stays two threads, and a fresh message (no "Re:") starts its own.

Subject joining looks up open threads by (normalised subject, participant) over
components sorted by date, pruning threads that fell out of the window, so the cost
is near-linear in the corpus, never all pairs.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from collections import defaultdict
from dataclasses import dataclass, field

import polars as pl

THREADS_SCHEMA = {
    "thread_id": pl.String,  # sha256 hex of the root message's key
    "message_key": pl.String,
    "position": pl.Int32,  # 0-based order by date (undated last), then message_key
    "linked_by": pl.String,  # root | references | in_reply_to | subject
}

SUBJECT_WINDOW = dt.timedelta(days=30)
# a subject that says "this is a reply / forward" (the raw subject, before normalising)
REPLY_PREFIX = re.compile(
    r"^\s*(?:\[[^\]]*\]\s*)*(?:re|fw|fwd|aw|wg|sv|tr)\s*(?:\[\d+\])?\s*:", re.I
)
_MAX_DATE = dt.datetime.max.replace(tzinfo=dt.UTC)


class _UnionFind:
    def __init__(self) -> None:
        self.parent: dict[str, str] = {}

    def find(self, x: str) -> str:
        parent = self.parent
        parent.setdefault(x, x)
        root = x
        while parent[root] != root:
            root = parent[root]
        while parent[x] != root:  # path compression
            parent[x], x = root, parent[x]
        return root

    def union(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            # deterministic: the smaller key becomes the root
            if rb < ra:
                ra, rb = rb, ra
            self.parent[rb] = ra


@dataclass(eq=False)
class _Component:
    keys: list[str]
    first: dt.datetime | None
    last: dt.datetime | None
    participants: set[str] = field(default_factory=set)


def identities(address: str | None) -> set[str]:
    """What identifies a participant: the cleaned address and a surname key.

    Archived mail names the same person several ways: "susan.bailey@enron.com" in
    one header, the bare display name "bailey" (or an X.500 path) in the Sent folder,
    a quoted "'dona.carmony@ourclub.com'" elsewhere. The key (``~`` + the last word of
    the address's local part, or of a bare name) lets a reply from "bailey" continue a
    thread sent to "susan.bailey@enron.com".
    """
    if not address:
        return set()
    clean = address.strip().strip("'\"<> ").lower()
    if not clean:
        return set()
    out = {clean}
    if clean.startswith("/o="):
        return out
    if "@" in clean:
        words = re.split(r"[._+\-]+", clean.split("@", 1)[0])
    elif "," in clean:  # "bailey, susan"
        words = re.findall(r"[a-z]+", clean.split(",", 1)[0])[-1:]
    else:
        words = re.findall(r"[a-z]+", clean)
    words = [w for w in words if len(w) >= 3 and w.isalpha()]
    if words:
        out.add("~" + words[-1])
    return out


def _participants(row: dict) -> set[str]:
    people = identities(row["from_addr"])
    for addr in [*(row["to_addrs"] or ()), *(row["cc_addrs"] or ())]:
        people |= identities(addr)
    return people


def _id_node(message_id: str) -> str:
    return "id:" + message_id.strip().strip("<>").strip()


def build_threads(messages: pl.DataFrame, window: dt.timedelta = SUBJECT_WINDOW) -> pl.DataFrame:
    """Group ``messages`` (MESSAGES_SCHEMA) into threads (THREADS_SCHEMA), one row per message."""
    if messages.is_empty():
        return pl.DataFrame(schema=THREADS_SCHEMA)
    cols = [
        "message_key",
        "message_id",
        "date",
        "from_addr",
        "to_addrs",
        "cc_addrs",
        "subject",
        "norm_subject",
        "in_reply_to",
        "references",
    ]
    rows = messages.select(cols).unique("message_key", keep="first").to_dicts()
    by_key = {r["message_key"]: r for r in rows}

    # 1. headers: union-find over message keys and message ids (present or not)
    uf = _UnionFind()
    referenced_by: dict[str, str] = {}  # id node -> how someone referred to it
    for r in rows:
        key = "key:" + r["message_key"]
        uf.find(key)
        if r["message_id"]:
            uf.union(key, _id_node(r["message_id"]))
        for ref in r["references"] or ():
            if ref and ref.strip("<> "):
                node = _id_node(ref)
                uf.union(key, node)
                referenced_by.setdefault(node, "references")
        if r["in_reply_to"] and r["in_reply_to"].strip("<> "):
            node = _id_node(r["in_reply_to"])
            uf.union(key, node)
            referenced_by[node] = "in_reply_to" if not r["references"] else "references"

    linked_by: dict[str, str] = {}
    for r in rows:
        if r["references"]:
            linked_by[r["message_key"]] = "references"
        elif r["in_reply_to"]:
            linked_by[r["message_key"]] = "in_reply_to"
        elif r["message_id"] and _id_node(r["message_id"]) in referenced_by:
            linked_by[r["message_key"]] = referenced_by[_id_node(r["message_id"])]

    groups: dict[str, list[str]] = defaultdict(list)
    for r in rows:
        groups[uf.find("key:" + r["message_key"])].append(r["message_key"])

    def date_key(k: str) -> tuple[dt.datetime, str]:
        d = by_key[k]["date"]
        return (d if d is not None else _MAX_DATE, k)

    components: list[_Component] = []
    for keys in groups.values():
        keys.sort(key=date_key)
        dates = [by_key[k]["date"] for k in keys if by_key[k]["date"] is not None]
        comp = _Component(keys, min(dates, default=None), max(dates, default=None))
        for k in keys:
            comp.participants |= _participants(by_key[k])
        components.append(comp)

    # 2. subject: replies whose headers were lost join an earlier thread of the same
    #    normalised subject that shares a participant, within the time window; open
    #    threads are indexed by (subject, participant) so a generic subject shared by
    #    thousands of unrelated threads is never scanned whole
    components.sort(key=lambda c: date_key(c.keys[0]))
    open_threads: dict[tuple[str, str], dict[int, _Component]] = defaultdict(dict)
    merged_into: dict[int, _Component] = {}
    for comp in components:
        head = by_key[comp.keys[0]]
        subject = (head["norm_subject"] or "").strip()
        target = None
        if subject and REPLY_PREFIX.match(head["subject"] or ""):
            # who replies or forwards was in the thread: index by the head's sender
            sender = identities(head["from_addr"])
            people = sorted(sender) if sender else sorted(comp.participants)
            buckets = [open_threads[(subject, p)] for p in people]
            target = _best_thread(comp, buckets, window)
        if target is not None:
            for k in comp.keys:
                linked_by.setdefault(k, "subject")
            linked_by[comp.keys[0]] = "subject"  # its headers did not reach this thread
            target.keys.extend(comp.keys)
            target.participants |= comp.participants
            if comp.last is not None and (target.last is None or comp.last > target.last):
                target.last = comp.last
            merged_into[id(comp)] = target
            thread = target
        else:
            thread = comp
        subjects = {(by_key[k]["norm_subject"] or "").strip() for k in comp.keys} - {""}
        for s in subjects:
            for p in thread.participants:
                open_threads[(s, p)][id(thread)] = thread

    out: dict[str, list] = {name: [] for name in THREADS_SCHEMA}
    for comp in components:
        if id(comp) in merged_into:
            continue
        keys = sorted(comp.keys, key=date_key)
        thread_id = hashlib.sha256(keys[0].encode()).hexdigest()
        for pos, k in enumerate(keys):
            out["thread_id"].append(thread_id)
            out["message_key"].append(k)
            out["position"].append(pos)
            out["linked_by"].append("root" if pos == 0 else linked_by.get(k, "subject"))
    return pl.DataFrame(out, schema=THREADS_SCHEMA)


def _best_thread(
    comp: _Component, buckets: list[dict[int, _Component]], window: dt.timedelta
) -> _Component | None:
    """The open thread ``comp`` continues: shares a participant (it is in one of
    ``buckets``), started before it, and its last message is within ``window``; the
    widest overlap of participants wins, then the most recent.

    Threads that fell out of the window are dropped from the buckets (components
    arrive in date order, so they can never match again).
    """
    best, best_rank = None, None
    seen: set[int] = set()
    for bucket in buckets:
        expired: list[int] = []
        for ident, thread in bucket.items():
            if comp.first is not None and thread.last is not None:
                if comp.first - thread.last > window:
                    expired.append(ident)
                    continue
            if ident in seen or thread is comp:
                continue
            seen.add(ident)
            if comp.first is not None and thread.first is not None and thread.first > comp.first:
                continue
            overlap = len(comp.participants & thread.participants)
            last = thread.last or dt.datetime.min.replace(tzinfo=dt.UTC)
            rank = (overlap, last, thread.keys[0])
            if best_rank is None or rank > best_rank:
                best, best_rank = thread, rank
        for ident in expired:
            del bucket[ident]
    return best
