"""The default mail corpus: an Enron-like maildir whose spreadsheet attachments evolve
across threads, a spreadsheet corpus of version families, and their ground truth.

``generate_mail_corpus(out_dir, seed)`` writes, byte for byte the same for the same
seed (LibreOffice's .xls bytes aside, whose hashes are recorded after writing)::

    out_dir/maildir/<custodian>/<folder>/<n>.   RFC 5322 messages, CMU Enron layout
    out_dir/spreadsheets/<area>/<file>          version families (.xlsx, some .xls)
    out_dir/truth.json                          threads, families, edits, personal data

The mailbox exercises what ingestion and threading must survive: replies and
forwards with quoted history, subject prefixes and a list tag, replies without
``In-Reply-To``/``References``, same-subject decoy threads months apart, the same
message in several folders (with and without a Message-ID), cp1252 and latin-1
bodies, RFC 2047 subjects and names, an RFC 2231 attachment name, a forwarded
``message/rfc822`` carrying a workbook, and a few broken files to quarantine (listed
in truth["quarantine"]). Thread plans are in :mod:`pipeline.synth.mail_plans`, the
seeded workbook edits in :mod:`pipeline.synth.workbook_families`.

truth.json (the contract's section 5, plus helpful extras)::

    seed, generator_version, params
    messages: [{key, message_id, thread, paths, duplicate_of, date, subject,
                attachments, has_xls}]   -- paths: every copy; duplicate_of: always null
                                           (copies are merged into paths)
    threads: [{thread, kind, subject}]
    families: [{family, origin: thread|corpus, template, desk, thread, grounding,
                decoy_group, versions: [{file_name, where, message_id, message_ids,
                path, sha256, format, order, date}], steps: [{step, ops, goal,
                trivial, trivial_reason, n_edits}]}]
    edits: [{family, step, kind, sheet, address, trivial, implied, before?, after?}]
           -- step k turns version k-1 into version k; implied edits are consequences
              (ranges grown, references moved, values recomputed) nobody typed
    pii: [every seeded personal string], pii_kinds: {string: kind}
    quarantine: [relative paths of broken files], quarantine_reasons: {path: reason}
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
from dataclasses import dataclass
from email import policy
from email.header import Header
from email.message import EmailMessage
from email.utils import format_datetime, formataddr
from pathlib import Path

from pipeline.synth.mail_plans import (
    announcements,
    decoy_threads,
    ordinary_threads,
    pii_threads,
    singletons,
    workbook_threads,
)
from pipeline.synth.mail_text import CUSTODIANS, PEOPLE, Person
from pipeline.synth.mail_threads import Mail, Planner, address_of, deliver
from pipeline.synth.spreadsheet_corpus import (
    XlsBatch,
    build_corpus_families,
    family_truth,
    write_corpus_files,
)

GENERATOR_VERSION = 2  # bump whenever output bytes change, so default_mail_corpus regenerates
DEFAULT_MAIL_PARAMS: dict[str, int] = {
    "workbook_threads": 14,
    "partial_threads": 5,
    "ordinary_threads": 36,
    "singletons": 110,
}
POLICY = policy.default.clone(linesep="\n")
XLSX_TYPE = ("application", "vnd.openxmlformats-officedocument.spreadsheetml.sheet")
XLS_TYPE = ("application", "vnd.ms-excel")
FOLDER_LABELS = {
    "inbox": "Inbox",
    "sent_items": "Sent Items",
    "all_documents": "All documents",
    "discussion_threads": "Discussion threads",
}


@dataclass(frozen=True)
class MailCorpus:
    """A generated mail corpus: where its maildir, spreadsheets and truth live."""

    root: Path
    maildir: Path
    spreadsheets: Path
    truth_path: Path
    seed: int = 7

    def truth(self) -> dict:
        return json.loads(self.truth_path.read_text(encoding="utf-8"))


def _person_header(p: Person) -> str:
    return formataddr((p.name, address_of(p)))


def _message(mail: Mail, batch: XlsBatch, copy: tuple[str, str] | None) -> EmailMessage:
    """One copy of a mail as an EmailMessage; ``copy`` adds the Enron X-Folder headers."""
    msg = EmailMessage(policy=POLICY)
    if mail.message_id:
        msg["Message-ID"] = f"<{mail.message_id}>"
    msg["Date"] = format_datetime(mail.date)
    msg["From"] = _person_header(mail.sender)
    msg["To"] = ", ".join(_person_header(p) for p in mail.to)
    if mail.cc:
        msg["Cc"] = ", ".join(_person_header(p) for p in mail.cc)
    msg["Subject"] = mail.subject
    if mail.in_reply_to:
        msg["In-Reply-To"] = f"<{mail.in_reply_to}>"
    if mail.references:
        msg["References"] = " ".join(f"<{r}>" for r in mail.references)
    msg["X-From"] = mail.sender.name
    msg["X-To"] = ", ".join(p.name for p in mail.to)
    if copy is not None and mail.message_id:
        owner = next(c for c in CUSTODIANS if c.custodian == copy[0])
        msg["X-Folder"] = f"\\{owner.outlook_name}\\{FOLDER_LABELS.get(copy[1], copy[1])}"
    body = mail.body
    charset = mail.charset or ("us-ascii" if body.isascii() else "utf-8")
    msg.set_content(body, charset=charset)
    for att in mail.attachments:
        if att.inner is not None:
            msg.add_attachment(_message(att.inner, batch, None))
            continue
        vf = att.version
        assert vf is not None
        maintype, subtype = XLS_TYPE if vf.xls_key else XLSX_TYPE
        msg.add_attachment(
            vf.data(batch), maintype=maintype, subtype=subtype, filename=att.file_name
        )
    n = 0
    for part in msg.walk():
        if part.get_content_maintype() == "multipart":
            part.set_boundary(f"----=_Part_{mail.key}_{n}")
            n += 1
    return msg


def render(mail: Mail, batch: XlsBatch, copy: tuple[str, str] | None) -> bytes:
    raw = _message(mail, batch, copy).as_bytes(policy=POLICY)
    if mail.subject_charset and not mail.subject.isascii():
        # a legacy client's encoded-word (ISO-8859-1) instead of the policy's UTF-8 one
        head, sep, rest = raw.partition(b"\n\n")
        lines = head.split(b"\n")
        out, skip = [], False
        for line in lines:
            if line.startswith(b"Subject:"):
                enc = Header(mail.subject, mail.subject_charset).encode(linesep="\n")
                out.append(b"Subject: " + enc.encode("ascii"))
                skip = True
                continue
            if skip and line[:1] in (b" ", b"\t"):
                continue
            skip = False
            out.append(line)
        raw = b"\n".join(out) + sep + rest
    return raw


BROKEN = (  # (custodian, folder, reason)
    ("whitfield-d", "inbox", "empty"),
    ("brennecke-t", "all_documents", "binary_garbage"),
    ("oyelaran-m", "inbox", "truncated"),
    ("castellano-p", "sent_items", "binary_garbage"),
)


BROKEN_MTIME = 1003000000.0  # 2001-10-13


def _broken_bytes(reason: str, rng: random.Random) -> bytes:
    if reason == "empty":
        return b""
    if reason == "binary_garbage":
        return bytes(rng.randrange(256) for _ in range(1500)) + b"\x00\x00\xff\xfe"
    return b"Message-ID: <31337.1075855999999.JavaMail.evans@thyme>\nDate: Tue, 16 Oct 2001 0"


def _write_maildir(root: Path, mails: list[Mail], batch: XlsBatch, seed: int) -> tuple[dict, dict]:
    """Files for every copy of every mail, numbered per folder in date order."""
    rng = random.Random(f"{seed}:deliver")
    copies: list[tuple[Mail, tuple[str, str]]] = []
    for m in sorted(mails, key=lambda m: (m.date, m.key)):
        m.copies = deliver(m, rng)
        copies += [(m, c) for c in m.copies]
    counters: dict[tuple[str, str], int] = {}
    paths: dict[str, list[str]] = {}
    for m, c in copies:
        counters[c] = counters.get(c, 0) + 1
        rel = f"maildir/{c[0]}/{c[1]}/{counters[c]}."
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(render(m, batch, c))
        os.utime(path, (m.date.timestamp(), m.date.timestamp()))  # delivery time, reproducible
        paths.setdefault(m.key, []).append(rel)
    broken: dict[str, str] = {}
    for custodian, folder, reason in BROKEN:
        c = (custodian, folder)
        counters[c] = counters.get(c, 0) + 1
        rel = f"maildir/{custodian}/{folder}/{counters[c]}."
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(_broken_bytes(reason, rng))
        os.utime(root / rel, (BROKEN_MTIME, BROKEN_MTIME))
        broken[rel] = reason
    return paths, broken


def _seeded_pii(planner: Planner) -> dict[str, str]:
    """Every personal string the mailbox really contains (decoded), with its kind.

    Candidates are each person's names, addresses and phones plus the numbers the
    personal-data threads seeded; a candidate counts when it occurs in a header, a
    body (signatures and quoted history included) or a folder name.
    """
    for person in PEOPLE:
        planner.pii.person(person)
    for person in CUSTODIANS:  # mailbox folder names are derived from names too
        planner.pii.add(person.custodian, "custodian")  # type: ignore[arg-type]
    text = [c.custodian or "" for c in CUSTODIANS]
    text += [f"\\{c.outlook_name}\\" for c in CUSTODIANS]  # X-Folder
    for m in planner.mails:
        text += [m.subject, m.body, *(a.file_name for a in m.attachments)]
        text += [f"{p.name} <{address_of(p)}>" for p in (m.sender, *m.to, *m.cc)]
    blob = "\n".join(text)
    return {s: k for s, k in sorted(planner.pii.items.items()) if s in blob}


def generate_mail_corpus(out_dir: Path, seed: int = 7, **params: int) -> MailCorpus:
    """Generate the mailbox, the spreadsheet corpus and truth.json into ``out_dir``."""
    out_dir = Path(out_dir)
    p = {**DEFAULT_MAIL_PARAMS, **params}
    for sub in ("maildir", "spreadsheets"):
        shutil.rmtree(out_dir / sub, ignore_errors=True)
    out_dir.mkdir(parents=True, exist_ok=True)
    batch = XlsBatch()
    corpus = build_corpus_families(seed, batch)
    planner = Planner(seed)
    threaded = workbook_threads(planner, seed, p["workbook_threads"], p["partial_threads"], batch)
    ordinary_threads(planner, p["ordinary_threads"])
    decoy_threads(planner)
    pii_threads(planner)
    announcements(planner)
    singletons(planner, p["singletons"])
    batch.convert()  # one LibreOffice start for every .xls

    paths, broken = _write_maildir(out_dir, planner.mails, batch, seed)
    for _spec, _fam, files in corpus:
        write_corpus_files(out_dir, files, batch)

    by_key = {m.key: m for m in planner.mails}
    families, edits = [], []
    for fam, files, extra in threaded:
        for vf in files:
            vf.message_ids = [by_key[k].message_id or k for k in vf.message_ids]
        goal_ids = {s: by_key[k].message_id for s, k in extra["goal_messages"].items()}
        extra = {**extra, "goal_messages": goal_ids, "decoy_group": None}
        entry, rows = family_truth(fam, files, batch, **extra)
        families.append(entry)
        edits += rows
    for spec, fam, files in corpus:
        entry, rows = family_truth(
            fam,
            files,
            batch,
            origin="corpus",
            thread=None,
            grounding=None,
            decoy_group=spec.decoy_group,
            mtime_ordered=spec.mtime_ordered,
        )
        families.append(entry)
        edits += rows
    pii = _seeded_pii(planner)
    messages = [
        {
            "key": m.key,
            "message_id": m.message_id,
            "thread": m.thread,
            "paths": paths[m.key],
            "duplicate_of": None,
            "date": m.date.isoformat(),
            "subject": m.subject,
            "attachments": [a.file_name for a in m.attachments],
            "has_xls": any(a.version is not None and a.version.xls_key for a in m.attachments),
        }
        for m in planner.mails
    ]
    truth = {
        "seed": seed,
        "generator_version": GENERATOR_VERSION,
        "params": p,
        "messages": messages,
        "threads": planner.threads,
        "families": families,
        "edits": edits,
        "pii": list(pii),
        "pii_kinds": pii,
        "quarantine": sorted(broken),
        "quarantine_reasons": broken,
    }
    truth_path = out_dir / "truth.json"
    truth_path.write_text(json.dumps(truth, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return MailCorpus(out_dir, out_dir / "maildir", out_dir / "spreadsheets", truth_path, seed)


def _existing(out_dir: Path, seed: int, params: dict[str, int]) -> MailCorpus | None:
    """The corpus already in ``out_dir`` if it is complete and made the same way."""
    truth_path = out_dir / "truth.json"
    try:
        truth = json.loads(truth_path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None
    if (
        truth.get("generator_version") != GENERATOR_VERSION
        or truth.get("seed") != seed
        or truth.get("params") != params
    ):
        return None
    for msg in truth["messages"]:
        if not all((out_dir / rel).is_file() for rel in msg["paths"]):
            return None
    if not all((out_dir / rel).is_file() for rel in truth.get("quarantine", [])):
        return None
    for fam in truth["families"]:
        for v in fam["versions"]:
            if v["path"] is None:
                continue
            path = out_dir / v["path"]
            if not path.is_file() or hashlib.sha256(path.read_bytes()).hexdigest() != v["sha256"]:
                return None
    return MailCorpus(out_dir, out_dir / "maildir", out_dir / "spreadsheets", truth_path, seed)


def default_mail_corpus(out_dir: Path) -> MailCorpus:
    """The default mail corpus (seed 7, ``DEFAULT_MAIL_PARAMS``) in ``out_dir``.

    An existing corpus is reused without regenerating when its truth.json has the same
    generator version, seed and parameters and every file it lists is present (corpus
    workbooks with the recorded sha256).
    """
    out_dir = Path(out_dir)
    existing = _existing(out_dir, 7, DEFAULT_MAIL_PARAMS)
    if existing is not None:
        return existing
    return generate_mail_corpus(out_dir, seed=7)
