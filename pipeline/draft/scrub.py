"""Scrub personal data from every text LedgerForge publishes from a mailbox.

Workflow instructions are written from real mail (goal sentences, step summaries): what
they carry of the mail must not identify anyone. Two passes:

1. Detected personal data, by scrubadub's maintained detectors (e-mail addresses, phone
   numbers through Google's ``phonenumbers``, social-security numbers, credit cards,
   credentials) plus one detector of our own for account-like numbers (a run of 8+
   digits, or digits after "account", "acct", "a/c"). Each becomes a neutral
   placeholder ("[e-mail address]", "[phone number]", ...).
2. People's names -> roles. The names come from the thread's own headers (``from_name``,
   the local parts of the addresses), the name each message is signed with, and what
   the caller knows; each person gets a role
   ("your manager" for whoever asked, "the analyst" for whoever was asked, "a
   colleague" otherwise). A full name matches in any case, a lone first or last name
   only capitalised (so "bill" the verb survives where "Bill" the trader does not).

:func:`personal_data` finds what is left (the validator rejects an instruction that
still holds any), so scrubbing and checking share one definition.

Workbook cells are another matter: a real workbook names people the mail never does
(a contact list, the traders of a deal sheet). :func:`workbook_personal_data` finds
them without knowing them: a cell (or a "/", ",", ";", "&" separated part of one) that
is exactly "First Last" where First is a given name of Faker's name lists (installed
with scrubadub) and Last a capitalised surname-like word, and phone extensions
("x3-0699", "ext. 4567"). A whole-cell match keeps account and desk labels ("West
Desk", "May Forecast") out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache

import scrubadub
import scrubadub.detectors
import scrubadub.filth

__all__ = [
    "ROLE_ASKER",
    "ROLE_ASKED",
    "ROLE_OTHER",
    "PersonalDatum",
    "People",
    "name_variants",
    "people_from_headers",
    "personal_data",
    "scrub_text",
    "workbook_personal_data",
    "signature_name",
]

ROLE_ASKER = "your manager"
ROLE_ASKED = "the analyst"
ROLE_OTHER = "a colleague"

PLACEHOLDERS = {
    "email": "[e-mail address]",
    "phone": "[phone number]",
    "social_security_number": "[ID number]",
    "ssn": "[ID number]",
    "credit_card": "[account number]",
    "account_number": "[account number]",
    "credential": "[credentials]",
}

# Words that look like names in headers but are not people (mailbox and list names).
_NOT_NAMES = frozenset(
    "the and of for from to team group desk list admin administrator enron corp inc llc "
    "mail mailer postmaster info news announcements all everyone support help north south "
    "east west america american americas europe energy services company corporation trading "
    "power gas capital resources risk management legal credit finance operations".split()
)
_WORD = re.compile(r"[A-Za-z][A-Za-z'\-]+")


class AccountNumberFilth(scrubadub.filth.Filth):
    type = "account_number"


class SsnLikeFilth(scrubadub.filth.Filth):
    type = "social_security_number"


class AccountNumberDetector(scrubadub.detectors.RegexDetector):
    """Account-like numbers: digits after an account word, or a run of 10-17 digits
    (dashes and spaces allowed between groups) that is no amount (no decimal point or
    thousands comma next to it). Dates and ordinary amounts stay."""

    name = "account_number"
    filth_cls = AccountNumberFilth
    regex = re.compile(
        r"(?:(?<=account )|(?<=acct )|(?<=acct\. )|(?<=a/c )|(?<=account #)|(?<=acct #)"
        r"|(?<=account no\. )|(?<=account number ))[0-9][0-9\- ]{3,20}[0-9]"
        r"|(?<![\d.,$])\d(?:[\- ]?\d){9,16}(?![\d.,]\d)",
        re.IGNORECASE,
    )


@lru_cache(maxsize=1)
def _scrubber() -> scrubadub.Scrubber:
    return scrubadub.Scrubber(
        detector_list=[
            scrubadub.detectors.EmailDetector(),
            scrubadub.detectors.PhoneDetector(),
            scrubadub.detectors.CreditCardDetector(),
            scrubadub.detectors.CredentialDetector(),
            _SSN(),
            AccountNumberDetector(),
        ],
        post_processor_list=[],
    )


class _SSN(scrubadub.detectors.RegexDetector):
    """US social-security-like numbers (scrubadub's own detector only matches ones whose
    area, group and serial are valid; seeded and mistyped ones must go too)."""

    name = "social_security_number"
    filth_cls = SsnLikeFilth
    regex = re.compile(r"(?<!\d)\d{3}[\- ]\d{2}[\- ]\d{4}(?!\d)")


@dataclass(frozen=True)
class PersonalDatum:
    kind: str  # email | phone | social_security_number | account_number | name | ...
    text: str
    start: int
    end: int


@dataclass
class People:
    """Known people of a thread: each name variant -> the role that replaces it."""

    roles: dict[str, str] = field(default_factory=dict)

    def add(self, name: str | None, role: str) -> None:
        """Add every variant of ``name``; a person already known keeps the first role."""
        for variant in name_variants(name):
            self.roles.setdefault(variant, role)

    def merged(self, other: People) -> People:
        out = People(dict(self.roles))
        for k, v in other.roles.items():
            out.roles.setdefault(k, v)
        return out

    @property
    def full_names(self) -> list[str]:
        return sorted((n for n in self.roles if " " in n), key=len, reverse=True)

    @property
    def single_names(self) -> list[str]:
        return sorted((n for n in self.roles if " " not in n), key=len, reverse=True)


def name_variants(name: str | None) -> list[str]:
    """ "Arnold, John D." / "John D. Arnold" / "john.arnold" -> "John D. Arnold",
    "John Arnold", "Arnold, John", "John", "Arnold" (tokens of 3+ letters, not list words)."""
    if not name:
        return []
    text = re.sub(r"[<>\"()]", " ", str(name)).strip()
    if "@" in text:
        text = text.split("@", 1)[0]
    text = re.sub(r"[._]+", " ", text)
    if "," in text:
        last, _, first = text.partition(",")
        text = f"{first.strip()} {last.strip()}"
    words = _WORD.findall(text)
    words = [w for w in words if w.lower() not in _NOT_NAMES]
    if not words:
        return []
    words = [w[0].upper() + w[1:] if w.islower() else w for w in words]
    out: list[str] = []
    if len(words) >= 2:
        out.append(" ".join(words))
        first, last = words[0], words[-1]
        out += [f"{first} {last}", f"{last}, {first}", f"{last} {first}"]
    out += [w for w in words if len(w) >= 3]
    return list(dict.fromkeys(out))


_SIGNATURE_NAME = re.compile(
    r"^(?:--\s*)?([A-Z][a-z]+(?:\s+[A-Z]\.?)?(?:\s+[A-Z][a-zA-Z'\-]+){1,2})\s*$"
)


def signature_name(body: str | None, new_text: str | None) -> str | None:
    """The name a message is signed with: the first line that reads as a full name
    ("Jeff Dasovich", "Sara S. Shackleton") in the text after the new text (the
    signature block the mail stage separated), or in the last lines of the body."""
    if not body:
        return None
    rest = body
    if new_text and new_text.strip() and new_text.strip() in body:
        rest = body.split(new_text.strip(), 1)[1]
    lines = [line.strip() for line in rest.splitlines() if line.strip()][:6]
    for line in lines:
        if line.startswith(">") or "original message" in line.lower():
            break
        found = _SIGNATURE_NAME.match(line)
        if found:
            return found.group(1)
    return None


def people_from_headers(
    messages: Iterable[Mapping], askers: Iterable[str] = (), extra: Mapping[str, str] | None = None
) -> People:
    """The people of a thread from its messages' headers: senders of the ``askers``
    message keys (the goal messages) are "your manager", their recipients "the analyst",
    everyone else named in a header "a colleague". ``extra`` adds names with roles."""
    askers = set(askers)
    people = People()
    rows = list(messages)
    for m in rows:
        if m.get("message_key") in askers:
            people.add(m.get("from_name"), ROLE_ASKER)
            people.add(m.get("from_addr"), ROLE_ASKER)
            people.add(signature_name(m.get("body"), m.get("new_text")), ROLE_ASKER)
    for m in rows:
        if m.get("message_key") in askers:
            for addr in list(m.get("to_addrs") or []):
                people.add(addr, ROLE_ASKED)
    for m in rows:
        people.add(m.get("from_name"), ROLE_OTHER)
        people.add(m.get("from_addr"), ROLE_OTHER)
        people.add(signature_name(m.get("body"), m.get("new_text")), ROLE_OTHER)
        for addr in list(m.get("to_addrs") or []) + list(m.get("cc_addrs") or []):
            people.add(addr, ROLE_OTHER)
    for name, role in (extra or {}).items():
        people.add(name, role)
    return people


_DATE_RUN = re.compile(r"^(?:\d{4}[-/]\d{1,2}[-/]\d{1,2}|\d{1,2}[-/]\d{1,2}[-/]\d{4})\b")
# a quantity, not a phone or account number: one decimal point ("17546.449219") or
# thousands separators ("1,234,567.50"); phone numbers written with dots have two or more
_QUANTITY = re.compile(r"^[-+(]?\$?(?:\d+\.\d+|\d{1,3}(?:,\d{3})+(?:\.\d+)?)\)?$")
_PRIORITY = ("email", "phone", "social_security_number", "credit_card", "account_number")


def _kind(filth: scrubadub.filth.Filth) -> str:
    """The type of a find; overlapping finds of several detectors come merged ("unknown"):
    the most specific of their types names it."""
    parts = getattr(filth, "filths", None)
    if filth.type != "unknown" or not parts:
        return filth.type
    types = {p.type for p in parts}
    return next((t for t in _PRIORITY if t in types), sorted(types)[0])


def _detected(text: str) -> list[PersonalDatum]:
    found = [
        PersonalDatum(_kind(f), f.text, f.beg, f.end)
        for f in _scrubber().iter_filth(text, run_post_processors=False)
    ]
    # a date with its hour ("2020-02-21 09") is a run of digits, not an account
    found = [d for d in found if not (d.kind == "account_number" and _DATE_RUN.match(d.text))]
    # a cell value the instruction must state ("enter 17546.449219") is no phone number
    found = [
        d
        for d in found
        if not (d.kind in ("phone", "account_number") and _QUANTITY.match(d.text.strip()))
    ]
    # overlapping finds: keep the longest (an account-like run inside a phone number)
    found.sort(key=lambda d: (d.start, -(d.end - d.start)))
    out: list[PersonalDatum] = []
    for d in found:
        if out and d.start < out[-1].end:
            continue
        out.append(d)
    return out


def _name_pattern(people: People) -> re.Pattern | None:
    if not people.roles:
        return None
    # "John Arnold" also matches "John D. Arnold" (a middle initial)
    full = [re.escape(n).replace(r"\ ", r"\s+(?:[A-Z]\.?\s+)?") for n in people.full_names]
    single = [re.escape(n) for n in people.single_names]
    parts = []
    if full:
        parts.append(r"(?i:(?<![A-Za-z])(?:" + "|".join(full) + r")(?![A-Za-z]))")
    if single:
        parts.append(r"(?<![A-Za-z])(?:" + "|".join(single) + r")(?![a-z])")
    return re.compile("|".join(parts))


def _role_of(people: People, matched: str) -> str:
    key = re.sub(r"\s+[A-Z]\.?\s+", " ", matched)
    key = re.sub(r"\s+", " ", key)
    if key in people.roles:
        return people.roles[key]
    lowered = {k.lower(): v for k, v in people.roles.items()}
    return lowered.get(key.lower(), ROLE_OTHER)


def personal_data(text: str, people: People | None = None) -> list[PersonalDatum]:
    """Every personal datum still in ``text``: detected data and known names."""
    if not text:
        return []
    found = _detected(text)
    pattern = _name_pattern(people) if people else None
    if pattern is not None:
        found += [
            PersonalDatum("name", m.group(0), m.start(), m.end()) for m in pattern.finditer(text)
        ]
    return sorted(found, key=lambda d: d.start)


def scrub_text(text: str | None, people: People | None = None) -> str:
    """``text`` with detected personal data replaced by placeholders and known names by
    roles ("your manager", "the analyst", "a colleague")."""
    if not text:
        return text or ""
    pieces: list[str] = []
    last = 0
    for d in _detected(text):
        pieces += [text[last : d.start], PLACEHOLDERS.get(d.kind, "[personal data]")]
        last = d.end
    pieces.append(text[last:])
    out = "".join(pieces)
    pattern = _name_pattern(people) if people else None
    if pattern is not None:
        out = pattern.sub(lambda m: _role_of(people, m.group(0)), out)  # type: ignore[arg-type]
    # collapse a role repeated by "John Arnold (John)" style text; capitalise at a start
    out = re.sub(r"\b(your manager|the analyst|a colleague)(\s+\1)+\b", r"\1", out)
    return re.sub(
        r"(^|[.!?]\s+)(your manager|the analyst|a colleague)\b",
        lambda m: m.group(1) + m.group(2)[0].upper() + m.group(2)[1:],
        out,
    )


# --------------------------------------------------------------------------- workbooks

# capitalised words that follow a given name in business labels ("Mark Price", "May
# Forecast"): no surname
_LABEL_WORDS = frozenset(
    """
    account accounts accrual actual actuals adjustment allocation amount analysis april
    august balance bank bid book budget call capital cash change check close cost costs
    credit curve daily data date deal deals december demand desk east entry estimate
    expense expenses february final flow forecast fuel gas gross hedge income index
    interest january july june limit load long march market may month monthly net north
    november october offer option pool position power price prices profit rate rates
    region report revenue risk sale sales schedule september short south spread summary
    swap tax term total trade trades trading transport treasury trend value variance volume
    week weekly west year yearly
    avenue basin bay beach channel city county creek field gate hub island lake park pass
    pipeline plant point river road ship station street valley bridge canyon crossing
    falls grove harbor heights hill hills junction mesa mills mountain port ridge springs
    """.split()
)
_PART = re.compile(
    r"^(?P<first>[A-Z][a-z]+)\s+(?:[A-Z]\.?\s+)?(?P<last>(?:Mc|Mac|O')?[A-Z][a-z]+"
    r"(?:-[A-Z][a-z]+)?)(?:,?\s+(?:Jr\.?|Sr\.?|II|III|IV))?$"
)
_EXTENSION = re.compile(r"(?<![\w-])(?:x|ext\.?\s*)\d{1,2}-?\d{3,4}(?![\w-])", re.IGNORECASE)


@lru_cache(maxsize=1)
def _given_names() -> frozenset[str]:
    """Given names of Faker's English locales (Faker comes with scrubadub)."""
    from faker.providers.person.en import Provider as En
    from faker.providers.person.en_US import Provider as EnUs

    names = set(En.first_names) | set(EnUs.first_names_male) | set(EnUs.first_names_female)
    return frozenset(n for n in names if n.lower() not in _LABEL_WORDS)


def workbook_personal_data(texts: Iterable[str]) -> list[PersonalDatum]:
    """Person names and phone extensions in workbook text cells (see the module doc)."""
    given = _given_names()
    out: list[PersonalDatum] = []
    for text in texts:
        if not text or len(text) > 200:
            continue
        for m in _EXTENSION.finditer(text):
            out.append(PersonalDatum("phone_extension", m.group(0), m.start(), m.end()))
        for part in re.split(r"\s*[/,;&\n]\s*|\s+and\s+", text.strip()):
            m = _PART.match(part)
            if m and m.group("first") in given and m.group("last").lower() not in _LABEL_WORDS:
                start = text.find(part)
                out.append(PersonalDatum("person_name", part, start, start + len(part)))
    return out
