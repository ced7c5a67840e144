"""People, signatures and message text for the synthetic Enron-like mailbox.

Everyone here is made up, at a made-up energy trading company (Calder Energy). The
personal data a release must never contain is seeded on purpose: names, e-mail
addresses (work and private), phone numbers in signatures and bodies, SSN-like and
bank-account-like numbers in an HR and an accounts-payable thread. Every such string
is registered in :class:`PiiLog` so the ground truth lists it and a test can grep
the release for each one.

Quoted history is written the three ways the Enron mail has it: Outlook's
``-----Original Message-----`` block, ``> `` quoting under an "On ... wrote:" line,
and Lotus Notes' ``---------------------- Forwarded by ...`` block.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

DOMAIN = "calderenergy.example"
COMPANY = "Calder Energy"


@dataclass(frozen=True)
class Person:
    first: str
    last: str
    role: str
    domain: str = DOMAIN
    phone: str | None = None
    cell: str | None = None
    custodian: str | None = None  # maildir folder name when the mailbox is in the corpus

    @property
    def name(self) -> str:
        return f"{self.first} {self.last}"

    @property
    def addr(self) -> str:
        return f"{self.first}.{self.last}@{self.domain}".lower().translate(_ASCII)

    @property
    def notes_name(self) -> str:
        return f"{self.name}/HOU/CALDER"

    @property
    def outlook_name(self) -> str:
        return f"{self.last}, {self.first}"

    def signature(self) -> str:
        lines = [self.name, f"{self.role} | {COMPANY}" if self.domain == DOMAIN else self.role]
        phones = [f"Direct: {self.phone}"] if self.phone else []
        if self.cell:
            phones.append(f"Cell: {self.cell}")
        if phones:
            lines.append("  ".join(phones))
        return "\n".join(lines)


_ASCII = str.maketrans("áéíóúñüçÁÉÍÓÚÑÜÇ", "aeiounucAEIOUNUC")

CUSTODIANS = (
    Person(
        "Delphine",
        "Whitfield",
        "Gas Texas Desk",
        phone="(713) 853-4471",
        cell="713.409.2288",
        custodian="whitfield-d",
    ),
    Person("Marcus", "Oyelaran", "Market Risk", phone="(713) 853-6120", custodian="oyelaran-m"),
    Person(
        "Priya",
        "Castellano",
        "Financial Planning",
        phone="(713) 345-7782",
        cell="(281) 630-1945",
        custodian="castellano-p",
    ),
    Person(
        "Tobias", "Brennecke", "East Power Trading", phone="(713) 853-9034", custodian="brennecke-t"
    ),
    Person("Lucía", "Ferrández", "Accounting", phone="(713) 646-3310", custodian="ferrandez-l"),
    Person(
        "Gunnar",
        "Halvorsen",
        "VP, Gas Trading",
        phone="(713) 853-2006",
        cell="(832) 217-5530",
        custodian="halvorsen-g",
    ),
)
EXTERNALS = (
    Person(
        "Renée", "Dubois", "Harbor Gas Supply", domain="harborgas.example", phone="(504) 581-2270"
    ),
    Person(
        "Samuel",
        "Okafor",
        "Tallgrass Utilities",
        domain="tallgrassutil.example",
        phone="(918) 742-6651",
    ),
    Person("Kimberly", "Lasker", "IT Help Desk", phone="(713) 853-5000"),
    Person("Edmund", "Marchetti", "Legal", phone="(713) 853-7715"),
    Person("Joanne", "Pruitt", "Human Resources", phone="(713) 853-4100"),
    Person("Bettina", "Quarles", "Credit", phone="(713) 345-2289"),
    Person("Yusuf", "Demir", "Structuring", phone="(713) 853-8842"),
)
PEOPLE = CUSTODIANS + EXTERNALS
LIST_ADDR = f"gas-desk@{DOMAIN}"
LIST_TAG = "[gas-desk]"


@dataclass
class PiiLog:
    """Every seeded personal string, by kind (truth["pii"] is the union)."""

    items: dict[str, str] = field(default_factory=dict)

    def add(self, value: str, kind: str) -> str:
        self.items.setdefault(value, kind)
        return value

    def person(self, p: Person) -> None:
        self.add(p.name, "name")
        self.add(p.outlook_name, "name")
        self.add(p.addr, "email")
        for phone in (p.phone, p.cell):
            if phone:
                self.add(phone, "phone")


def when_text(d: dt.datetime) -> str:
    return d.strftime("%m/%d/%Y %I:%M %p")


def outlook_quote(sender: Person, to: list[Person], d: dt.datetime, subject: str, body: str) -> str:
    """Outlook's reply history block."""
    return (
        "\n\n -----Original Message-----\n"
        f"From: \t{sender.outlook_name}  \n"
        f"Sent:\t{d.strftime('%A, %B %d, %Y %I:%M %p')}\n"
        f"To:\t{'; '.join(p.outlook_name for p in to)}\n"
        f"Subject:\t{subject}\n\n{body}"
    )


def gt_quote(sender: Person, d: dt.datetime, body: str) -> str:
    """``> `` quoting under an attribution line."""
    quoted = "\n".join(("> " + line) if line else ">" for line in body.splitlines())
    return f"\n\nOn {when_text(d)}, {sender.name} wrote:\n{quoted}"


def notes_forward(
    by: Person,
    d: dt.datetime,
    sender: Person,
    to: list[Person],
    sent: dt.datetime,
    subject: str,
    body: str,
) -> str:
    """Lotus Notes' forward block (the commonest forward in the Enron mail)."""
    return (
        f"\n---------------------- Forwarded by {by.notes_name} on {when_text(d)} "
        "---------------------------\n\n\n"
        f"{sender.name}\n{when_text(sent)}\n"
        f"To: {', '.join(p.notes_name + '@CALDER' for p in to)}\n"
        f"cc: \nSubject: {subject}\n\n{body}"
    )


# Small talk and business chatter for the ordinary threads: (subject, opening, replies).
TOPICS = (
    (
        "Storage injections",
        "Are we still on track for the Bammel injections this week? Volumes look light.",
        (
            "We are about 40,000/day behind; I will catch up over the weekend.",
            "Ok, keep me posted.",
        ),
    ),
    (
        "Credit line for Harbor Gas",
        "Harbor is asking for an increase of their unsecured line to $15MM. Thoughts?",
        ("Not before we see their Q3 numbers.", "Agreed, I will tell them."),
    ),
    (
        "EOL outage",
        "The online trading system was down from 10:05 to 10:40 this morning. "
        "Please check your deals entered in that window.",
        ("Two of mine did not make it, re-entering now.",),
    ),
    (
        "Transport capacity",
        "Firm capacity on the Tallgrass lateral is up for bid. Do we want any?",
        ("Yes, 20,000/day for the winter strip.", "I can bid that by Thursday."),
    ),
    (
        "Basis marks",
        "Waha basis marks look stale on the curve. Who owns them?",
        ("Risk does; I will refresh them tonight.",),
    ),
    (
        "Offsite agenda",
        "Draft agenda for the offsite is below; comments by Friday please.",
        ("Can we move the risk session to the morning?", "Done.", "Thanks."),
    ),
    (
        "Deal 4471 confirm",
        "Counterparty says the confirm shows the wrong delivery point.",
        ("It should be Katy, not Waha. I will fix and resend.",),
    ),
    (
        "Curve review",
        "Please review the forward curve changes before the 3pm close.",
        ("Looks fine except Dec power, which I bumped by $1.50.",),
    ),
    (
        "Hedge accounting question",
        "Does the new swap qualify for hedge accounting?",
        ("Only if we document it before trade date.", "We did.", "Then yes."),
    ),
    (
        "Conference in Denver",
        "Anyone going to the gas conference in Denver next month?",
        ("I am, flying out Tuesday.",),
    ),
    (
        "Month-end close",
        "Reminder: all accruals are due by noon on the 2nd business day.",
        ("Mine are in.",),
    ),
    (
        "Late payment from Red River",
        "Red River Power is 15 days late on the September invoice.",
        ("I called them; the check is in the mail.", "Let's flag them with Credit anyway."),
    ),
)
DECOY_SUBJECTS = ("Update", "Schedule", "Question", "Meeting")
DECOY_BODIES = (
    "Quick update: the numbers are in and look fine.",
    "Here is the schedule for next week, let me know if it works.",
    "I have a question about the invoice; can you call me?",
    "Can we meet Thursday at 2 in 32C2?",
    "Update from my side: the counterparty signed.",
    "Schedule is attached to the calendar invite.",
)
ANNOUNCEMENTS = (
    "Calder Energy announces third quarter earnings",
    "Building security reminder",
    "United Way campaign kicks off",
    "New expense reporting system",
    "Holiday schedule",
    "Parking garage closure this weekend",
    "Benefits enrollment deadline",
    "Flu shots in the lobby",
)
