"""What the synthetic mailbox talks about: the thread plans.

Workbook threads (a goal sentence and the input attached; the reply attaches the
revision for *strong* grounding, or only promises it for *partial*), ordinary business
threads (some on the ``[gas-desk]`` list, some ending in a forward), same-subject
decoys months apart, personal-data threads whose numbers must be scrubbed, broadcast
announcements (some without a Message-ID, so duplicates are found by content) and
one-message notes. Each function adds :class:`~pipeline.synth.mail_threads.Mail`
records to a :class:`~pipeline.synth.mail_threads.Planner`.
"""

from __future__ import annotations

import datetime as dt
import random
import re

from pipeline.synth.mail_text import (
    ANNOUNCEMENTS,
    CUSTODIANS,
    DECOY_BODIES,
    DECOY_SUBJECTS,
    EXTERNALS,
    TOPICS,
    Person,
)
from pipeline.synth.mail_threads import (
    ALL_STAFF,
    COMMS,
    GAS_LIST,
    Attachment,
    Planner,
    list_subject,
)
from pipeline.synth.spreadsheet_corpus import VersionFile, XlsBatch, plan_corpus
from pipeline.synth.workbook_families import build_family
from pipeline.synth.workbook_model import xlsx_bytes
from pipeline.synth.workbook_templates import DESKS

WHAT = {
    "budget": "budget",
    "positions": "position report",
    "allocation": "cost allocation",
    "pnl": "desk P&L",
}
SINGLETON_SUBJECTS = (
    "Lunch {day}?",
    "Sign-off needed on deal {n}",
    "Your expense report {n}",
    "Tickets for the {day} game",
    "Curve file moved to {drive}",
    "Call me about {cp}",
    "Confirm for {cp} deal {n}",
    "Invoice {n} from {cp}",
    "Badge access for {day}",
    "Help with the {drive} macro",
)


def _attachment_names(stem: str, n: int, style: int, xls_at: int | None) -> list[str]:
    names = [f"{stem}.xlsx"]
    for k in range(1, n):
        names.append(
            (
                f"{stem}.xlsx",
                f"{stem} v{k + 1}.xlsx",
                f"{stem}_rev{k}.xlsx",
                f"{stem} (revised).xlsx",
            )[style % 4]
        )
    if xls_at is not None and xls_at < n:
        names[xls_at] = names[xls_at][: -len(".xlsx")] + ".xls"
    return names


def workbook_threads(
    p: Planner, seed: int, n_strong: int, n_partial: int, batch: XlsBatch
) -> list[tuple]:
    """Threads whose attachments are versions of one workbook; returns (family, files, extra)."""
    rng = random.Random(f"{seed}:workbook-threads")
    taken = {(s.template, s.desk) for s in plan_corpus(seed)}
    combos = [(t, d) for d in DESKS for t in WHAT if (t, d) not in taken]
    rng.shuffle(combos)
    out = []
    manager = CUSTODIANS[5]
    for i in range(n_strong + n_partial):
        partial = i >= n_strong
        template, desk = combos[i]
        fid = f"mail-{i:02d}"
        n = 2 if partial else rng.choice((2, 3, 3, 4))
        start = dt.datetime(
            2001, 1 + (i * 7) % 11, rng.randint(1, 27), rng.randint(8, 16), rng.randint(0, 59)
        )
        trivial = {n - 1} if i in (4, 11) and n >= 3 else set()
        fam = build_family(
            fid, template, desk, f"{seed}:{fid}", n, start, trivial=trivial, days_between=1
        )
        what = WHAT[template]
        stem = "Prévision coûts été - " + desk if i == 0 else f"{desk} {what}"
        if i % 3 == 1:
            stem = re.sub(r"[^A-Za-z0-9]+", "_", stem).lower()
        delivered = 1 if partial else n
        xls_at = (1 if n > 1 else 0) if i in (2, 5, 8, 13) else None
        names = _attachment_names(stem, delivered, i, xls_at)
        # bytes are written once the mails exist: each version is saved shortly before
        # the mail that first carries it
        files = [VersionFile(fid, k, names[k], "attachment", b"") for k in range(delivered)]
        owner = CUSTODIANS[i % 5]
        requester = manager if i % 3 == 0 else p.someone(besides=(owner,))
        if i == 7:
            requester = CUSTODIANS[4]  # Lucía: latin-1 bodies and an ISO-8859-1 subject
            owner = CUSTODIANS[2]
        subject = f"{desk} {what}" + rng.choice(("", " for review", " - need by Friday", " update"))
        if i == 0:
            subject = f"Prévision coûts – {desk}"
        if i == 7:
            subject = f"{desk} {what} - révision"
        charset = "windows-1252" if i == 6 else ("iso-8859-1" if i == 7 else None)
        tid = p.new_thread("workbook_partial" if partial else "workbook", subject)
        kw = {"charset": charset, "subject_charset": "iso-8859-1" if i == 7 else None}
        if i == 10:
            subject = list_subject(subject)
            kw["to_list"] = True
        goals: dict[int, str | None] = {}
        intro = f"Attached is the {what} for {desk}."
        goal = fam.steps[0].goal or "Can you tidy it up?"
        first = p.mail(
            tid,
            requester,
            [owner],
            start,
            subject,
            p.body(requester, owner, _tone(f"{intro} {goal}", charset)),
            attachments=[Attachment(files[0].file_name, files[0])],
            **kw,
        )
        files[0].message_ids.append(first.key)
        goals[1] = first.key
        last = first
        if partial:
            p.reply(
                first,
                owner,
                [requester],
                _tone("Will do - I should have it back to you by Monday.", charset),
                **kw,
            )
        for k in range(1, delivered):
            done = (
                "Done, revised file attached."
                if not fam.steps[k - 1].trivial
                else "Only tidied it up."
            )
            rep = p.reply(
                last,
                owner,
                [requester],
                _tone(done, charset),
                attachments=[Attachment(files[k].file_name, files[k])],
                **kw,
            )
            files[k].message_ids.append(rep.key)
            last = rep
            if k < delivered - 1:
                ask = fam.steps[k].goal or "Can you tidy it up once more?"
                last = p.reply(rep, requester, [owner], _tone(f"Thanks. {ask}", charset), **kw)
                goals[k + 1] = last.key
        if i in (3, 9) and delivered > 1:
            fw = p.forward(
                last,
                owner,
                [manager if owner is not manager else CUSTODIANS[1]],
                "FYI, final version attached.",
                attachments=[Attachment(files[-1].file_name, files[-1])],
            )
            files[-1].message_ids.append(fw.key)
        if i == 1 and delivered > 1:
            note = "See the attached note and file."
            reader = p.someone(besides=(owner, requester), custodian=True)
            fw = p.forward(last, requester, [reader], note, as_rfc822=True)
            files[-1].message_ids.append(fw.key)
        carriers = {m.key: m for m in p.mails}
        for vf in files:
            book = fam.versions[vf.order]
            sent = carriers[vf.message_ids[0]].date.replace(tzinfo=None)
            book.modified = sent - dt.timedelta(minutes=rng.randint(4, 90))
            book.created = fam.versions[0].modified if vf.order else book.modified
            vf.xlsx = xlsx_bytes(book)
            if vf.file_name.endswith(".xls"):
                vf.xls_key = batch.add(f"{fid}:{vf.order}", vf.xlsx)
        extra = {
            "origin": "thread",
            "thread": tid,
            "grounding": "partial" if partial else "strong",
            "goal_messages": {str(k): v for k, v in goals.items()},
        }
        if partial:
            extra["partial_goal"] = fam.steps[0].goal
        out.append((fam, files, extra))
    return out


def _tone(text: str, charset: str | None) -> str:
    """Legacy-charset flavour: cp1252 smart punctuation, latin-1 accents."""
    if charset == "windows-1252":
        return text + " Numbers are “preliminary” – don’t circulate."
    if charset == "iso-8859-1":
        return text + " Gracias, saludos desde la oficina de contabilidad (año fiscal)."
    return text


def ordinary_threads(p: Planner, n: int) -> None:
    rng = p.rng
    for i in range(n):
        subject, opener, replies = TOPICS[i % len(TOPICS)]
        instance = i // len(TOPICS)
        a = p.someone(custodian=True)
        b = p.someone(besides=(a,))
        start = dt.datetime(
            2001,
            1 + 4 * instance + rng.randint(0, 2),
            rng.randint(1, 27),
            rng.randint(7, 17),
            rng.randint(0, 59),
        )
        on_list = rng.random() < 0.2
        subj = list_subject(subject) if on_list else subject
        tid = p.new_thread("ordinary", subj)
        charset = "windows-1252" if rng.random() < 0.12 else None
        to = [GAS_LIST, b] if on_list else [b]
        m = p.mail(
            tid,
            a,
            to,
            start,
            subj,
            p.body(a, b, _tone(opener, charset)),
            charset=charset,
            to_list=on_list,
        )
        who = [b, a]
        for k, text in enumerate(replies):
            sender, other = who[k % 2], who[(k + 1) % 2]
            m = p.reply(m, sender, [other], _tone(text, charset), charset=charset)
        if i % 6 == 2:  # a follow-up weeks later: outside any time window, References only
            text = "Following up on this one - any news?"
            m = p.reply(m, a, [b], text, drop_refs=False, hours=(300.0, 500.0))
        elif i % 6 == 4:  # the subject changed mid-thread: References only
            new = f"{subject.split()[0]} numbers for next week"
            m = p.reply(m, b, [a], "New subject, same question.", drop_refs=False, subject=new)
        if rng.random() < 0.3:
            third = p.someone(besides=(a, b), custodian=True)
            fw_from = m.to[0] if m.to[0].custodian else m.sender
            p.forward(m, fw_from, [third], "FYI - see below.")


def decoy_threads(p: Planner) -> None:
    """The same generic subject between different people months apart: never one thread."""
    rng = p.rng
    for j, subject in enumerate(DECOY_SUBJECTS):
        used: set[Person] = set()
        for half in range(2):
            pool = [c for c in CUSTODIANS if c not in used]
            a = rng.choice(pool)
            b = rng.choice([q for q in (*CUSTODIANS, *EXTERNALS) if q is not a and q not in used])
            used |= {a, b}
            start = dt.datetime(
                2001, 2 + 6 * half + j % 3, rng.randint(1, 27), rng.randint(8, 16), 0
            )
            tid = p.new_thread("decoy", subject)
            m = p.mail(tid, a, [b], start, subject, p.body(a, b, rng.choice(DECOY_BODIES)))
            if rng.random() < 0.7:
                p.reply(m, b, [a], "Sounds good.", drop_refs=rng.random() < 0.5)


def pii_threads(p: Planner) -> None:
    """Personal data a release must scrub: account, routing, SSN-like numbers, home contacts."""
    add = p.pii.add
    hr, ap, cred = EXTERNALS[4], CUSTODIANS[4], EXTERNALS[5]
    items = [
        (
            CUSTODIANS[4],
            hr,
            "Direct deposit change",
            f"Please switch my direct deposit to account {add('004417782231', 'account')} "
            "at First Gulf Bank, "
            f"routing {add('111000025', 'routing')}. My SSN is {add('457-55-5462', 'ssn')}.",
            "iso-8859-1",
        ),
        (
            CUSTODIANS[2],
            ap,
            "Vendor bank details - Sabine Storage",
            f"Sabine Storage wants payment to ABA {add('061000104', 'routing')}, "
            f"acct {add('2938441077', 'account')}.",
            None,
        ),
        (
            CUSTODIANS[0],
            CUSTODIANS[5],
            "Out Friday",
            f"If you need me this weekend call my home number {add('(713) 524-8816', 'phone')} "
            f"or email {add('delphine.w77@homemail.example', 'email')}.",
            None,
        ),
        (
            CUSTODIANS[3],
            hr,
            "Beneficiary form",
            f"For the beneficiary form: my SSN is {add('529-31-7784', 'ssn')}; "
            "my wife Marta Brennecke's is "
            f"{add('611-04-2290', 'ssn')}.",
            None,
        ),
        (
            CUSTODIANS[5],
            cred,
            "Wire for Lone Oak margin call",
            f"Wire $2.4MM to account {add('3380-1129-0457', 'account')}, "
            f"ABA {add('113000609', 'routing')}, "
            f"and call me on {add('832-217-5530', 'phone')} when sent.",
            None,
        ),
    ]
    add("Marta Brennecke", "name")
    for k, (a, b, subject, text, charset) in enumerate(items):
        start = dt.datetime(2001, 3 + 2 * k, 11 + k, 10, 15)
        tid = p.new_thread("personal", subject)
        m = p.mail(
            tid,
            a,
            [b],
            start,
            subject,
            p.body(a, b, text),
            charset=charset,
            subject_charset=charset,
        )
        p.reply(m, b, [a], "Done.", drop_refs=False)


def announcements(p: Planner) -> None:
    for k, subject in enumerate(ANNOUNCEMENTS * 2):
        round_ = k // len(ANNOUNCEMENTS)
        subj = (
            subject
            if round_ == 0
            else f"{subject} ({2002 if 'Holiday' in subject else 'reminder'})"
        )
        tid = p.new_thread("announcement", subj)
        d = dt.datetime(2001, 1 + (k * 3) % 12, 1 + k % 27, 6, 30)
        text = (
            f"{subj}.\n\nPlease read the details on the intranet. "
            "Questions go to your HR representative."
        )
        p.mail(
            tid,
            COMMS,
            [ALL_STAFF],
            d,
            subj,
            p.body(COMMS, ALL_STAFF, text, sig=False),
            broadcast=True,
            with_id=k % 4 != 3,
        )


def singletons(p: Planner, n: int) -> None:
    rng = p.rng
    seen: set[str] = set()
    fill = {
        "day": ("Friday", "Monday", "Thursday", "Saturday"),
        "drive": ("O:", "the P: drive", "SharePoint", "the curve server"),
        "cp": ("Tallgrass", "Harbor Gas", "Red River", "Bluestem", "Cascade"),
    }
    for k in range(n):
        while True:
            subject = rng.choice(SINGLETON_SUBJECTS).format(
                n=rng.randint(10000, 99999), **{key: rng.choice(v) for key, v in fill.items()}
            )
            if subject not in seen:
                break
        seen.add(subject)
        a = p.someone(custodian=True)
        b = p.someone(besides=(a,))
        d = dt.datetime(2001, 1 + k % 12, 1 + (k * 7) % 27, rng.randint(7, 19), rng.randint(0, 59))
        tid = p.new_thread("single", subject)
        charset = (
            "iso-8859-1"
            if a is CUSTODIANS[4]
            else ("windows-1252" if rng.random() < 0.08 else None)
        )
        text = _tone(f"Quick note about this - {subject.lower()}. Let me know.", charset)
        p.mail(
            tid,
            a,
            [b],
            d,
            subject,
            p.body(a, b, text, sig=rng.random() < 0.6),
            charset=charset,
            with_id=k % 25 != 7,
        )
