"""Planning the synthetic mailbox: messages, threads, replies, forwards and who keeps a copy.

A :class:`Planner` produces :class:`Mail` records (not bytes yet): every reply quotes
its parent (Outlook block or ``> `` quoting), most replies carry ``In-Reply-To`` and
``References`` but some do not (so subject + participants + time window threading is
needed), forwards use the Lotus Notes block or attach the original as
``message/rfc822``. Thread kinds: workbook threads whose attachments evolve (strong:
input and revision attached; partial: only the input), ordinary business threads
(some on a list with a ``[gas-desk]`` tag), decoys (the same generic subject between
other people months apart), personal-data threads and broadcast announcements.

:func:`deliver` decides the folders a message lands in, as the CMU Enron copy has
them: the sender's ``sent_items``, each custodian recipient's ``inbox`` and, for some,
``all_documents`` / ``discussion_threads`` copies of the same message.
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass, field

from pipeline.synth.mail_text import (
    CUSTODIANS,
    DOMAIN,
    LIST_ADDR,
    LIST_TAG,
    PEOPLE,
    Person,
    PiiLog,
    gt_quote,
    notes_forward,
    outlook_quote,
)
from pipeline.synth.spreadsheet_corpus import VersionFile

PACIFIC_DST = dt.timezone(dt.timedelta(hours=-7))
PACIFIC_STD = dt.timezone(dt.timedelta(hours=-8))
COMMS = Person("Calder Energy", "Communications", "Corporate Communications")
ALL_STAFF = Person("All Calder", "Employees", "")
GAS_LIST = Person("Gas Desk", "List", "")


def local(d: dt.datetime) -> dt.datetime:
    """A naive time as the Pacific-time stamp the Enron server wrote."""
    return d.replace(tzinfo=PACIFIC_DST if 4 <= d.month <= 10 else PACIFIC_STD)


@dataclass
class Attachment:
    file_name: str
    version: VersionFile | None = None
    inner: Mail | None = None  # forwarded as message/rfc822


@dataclass
class Mail:
    key: str
    thread: str
    sender: Person
    to: list[Person]
    date: dt.datetime
    subject: str
    body: str
    cc: list[Person] = field(default_factory=list)
    message_id: str | None = None
    in_reply_to: str | None = None
    references: list[str] = field(default_factory=list)
    attachments: list[Attachment] = field(default_factory=list)
    charset: str | None = None  # body charset; None = us-ascii or utf-8 as needed
    subject_charset: str | None = None  # encode the subject as RFC 2047 in this charset
    to_list: bool = False
    broadcast: bool = False
    copies: list[tuple[str, str]] = field(default_factory=list)  # (custodian, folder)


class Planner:
    """Builds the mails of every thread, deterministically from one seed."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(f"{seed}:mail")
        self.mails: list[Mail] = []
        self.pii = PiiLog()
        self.threads: list[dict] = []
        self._ids = 0

    # -- primitives -------------------------------------------------------------

    def new_thread(self, kind: str, subject: str) -> str:
        tid = f"t{len(self.threads) + 1:03d}"
        self.threads.append({"thread": tid, "kind": kind, "subject": subject})
        return tid

    def new_id(self) -> str:
        self._ids += 1
        stamp = 1075855300000 + self._ids * 7919
        return f"{self.rng.randint(10**7, 10**8 - 1)}.{stamp}.JavaMail.evans@thyme"

    def body(self, sender: Person, greet: Person | None, text: str, sig: bool = True) -> str:
        if sender in PEOPLE:
            self.pii.person(sender)
        parts = []
        if greet is not None and greet in PEOPLE:
            self.pii.add(greet.first, "name")
            parts.append(f"{greet.first},")
        elif greet is not None:
            parts.append("All,")
        parts.append(text)
        if sig:
            parts.append(sender.signature())
        return "\n\n".join(parts)

    def mail(
        self,
        thread: str,
        sender: Person,
        to: list[Person],
        date: dt.datetime,
        subject: str,
        body: str,
        *,
        parent: Mail | None = None,
        drop_refs: bool = False,
        with_id: bool = True,
        **kw: object,
    ) -> Mail:
        for p in (sender, *to, *kw.get("cc", [])):  # type: ignore[misc]
            if p in PEOPLE:
                self.pii.person(p)
        m = Mail(
            key=f"m{len(self.mails) + 1:04d}",
            thread=thread,
            sender=sender,
            to=list(to),
            date=local(date),
            subject=subject,
            body=body,
            message_id=self.new_id() if with_id else None,
            **kw,  # type: ignore[arg-type]
        )
        if parent is not None and not drop_refs and parent.message_id:
            m.in_reply_to = parent.message_id
            m.references = [*parent.references, parent.message_id][-8:]
        self.mails.append(m)
        return m

    def later(self, d: dt.datetime, lo: float = 0.3, hi: float = 20.0) -> dt.datetime:
        step = dt.timedelta(hours=self.rng.uniform(lo, hi))
        return (d.replace(tzinfo=None) + step).replace(second=0, microsecond=0)

    def prefixed(self, subject: str, kind: str = "re") -> str:
        if kind == "re":
            pre = self.rng.choice(("RE: ", "Re: ", "RE: ", "re: "))
            base = subject
            for p in ("RE: ", "Re: ", "re: "):
                if base.startswith(p):
                    base = base[len(p) :]
                    if self.rng.random() < 0.2:  # Outlook stacking: "RE: RE: ..."
                        return pre + subject
            return pre + base
        return self.rng.choice(("FW: ", "Fw: ", "Fwd: ")) + subject

    def reply(
        self,
        parent: Mail,
        sender: Person,
        to: list[Person],
        text: str,
        *,
        drop_refs: bool | None = None,
        attachments: list[Attachment] | None = None,
        subject: str | None = None,
        hours: tuple[float, float] = (0.3, 20.0),
        **kw: object,
    ) -> Mail:
        """A reply quoting ``parent``; ``subject`` replaces the subject (threads that only
        References can hold together), ``hours`` is the range of the reply delay."""
        rng = self.rng
        new = self.body(sender, to[0] if to else None, text)
        style = rng.random()
        if style < 0.55:
            new += outlook_quote(parent.sender, parent.to, parent.date, parent.subject, parent.body)
        elif style < 0.85:
            new += gt_quote(parent.sender, parent.date, parent.body)
        if drop_refs is None:
            drop_refs = rng.random() < 0.22
        return self.mail(
            parent.thread,
            sender,
            to,
            self.later(parent.date, *hours),
            subject or self.prefixed(parent.subject),
            new,
            parent=parent,
            drop_refs=drop_refs,
            attachments=list(attachments or []),
            **{"to_list": parent.to_list, **kw},
        )

    def forward(
        self,
        parent: Mail,
        sender: Person,
        to: list[Person],
        note: str,
        *,
        attachments: list[Attachment] | None = None,
        as_rfc822: bool = False,
    ) -> Mail:
        d = self.later(parent.date, 1, 30)
        body = self.body(sender, to[0], note)
        atts = list(attachments or [])
        if as_rfc822:
            atts.append(Attachment(f"{parent.subject}.eml", inner=parent))
        else:
            body += "\n" + notes_forward(
                sender, d, parent.sender, parent.to, parent.date, parent.subject, parent.body
            )
        return self.mail(
            parent.thread,
            sender,
            to,
            d,
            self.prefixed(parent.subject, "fw"),
            body,
            parent=parent,
            drop_refs=self.rng.random() < 0.5,
            attachments=atts,
        )

    def someone(self, *, besides: tuple[Person, ...] = (), custodian: bool | None = None) -> Person:
        pool = [
            p
            for p in PEOPLE
            if p not in besides and (custodian is None or (p.custodian is not None) == custodian)
        ]
        return self.rng.choice(pool)


def deliver(mail: Mail, rng: random.Random) -> list[tuple[str, str]]:
    """The (custodian, folder) copies of one message, as the CMU maildir keeps them."""
    copies: list[tuple[str, str]] = []
    if mail.broadcast:
        copies += [(c.custodian, "inbox") for c in CUSTODIANS]  # type: ignore[misc]
    if mail.sender.custodian:
        copies.append((mail.sender.custodian, "sent_items"))
    for p in (*mail.to, *mail.cc):
        if p.custodian:
            copies.append((p.custodian, "inbox"))
    if mail.to_list:
        for c in CUSTODIANS:
            if c.role.startswith(("Gas", "VP, Gas", "Market")) and c is not mail.sender:
                copies.append((c.custodian, "discussion_threads"))  # type: ignore[arg-type]
    owners = sorted({c for c, _ in copies})
    if owners and (rng.random() < 0.3 or mail.message_id is None):
        copies.append((rng.choice(owners), "all_documents"))
    if owners and mail.in_reply_to and rng.random() < 0.12:
        copies.append((rng.choice(owners), "discussion_threads"))
    seen: list[tuple[str, str]] = []
    for c in copies:
        if c not in seen:
            seen.append(c)
    return seen


def address_of(p: Person) -> str:
    if p is ALL_STAFF:
        return f"all.employees@{DOMAIN}"
    if p is GAS_LIST:
        return LIST_ADDR
    if p is COMMS:
        return f"communications@{DOMAIN}"
    return p.addr


def list_subject(subject: str) -> str:
    return f"{LIST_TAG} {subject}"
