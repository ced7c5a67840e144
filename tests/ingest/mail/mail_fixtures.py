"""Builders of generated mail fixtures (messages, maildirs, mbox files, HTML exports).

The HTML page template copies the real export's long lines as they are.
"""

# ruff: noqa: E501

from __future__ import annotations

import mailbox
from email.message import EmailMessage
from pathlib import Path

OLE_XLS = (
    b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
    + b"\x00" * 504
    + "Workbook".encode("utf-16-le")
    + b"\x00" * 64
)  # enough of an OLE2 file for content sniffing: the magic and a "Workbook" stream name


def message(
    subject: str = "Deal schedule",
    body: str = "Please review the schedule.",
    *,
    sender: str = "Ann Lee <ann.lee@example.com>",
    to: str = "bob@example.com",
    cc: str | None = None,
    date: str = "Mon, 26 Nov 2001 12:27:12 -0800",
    message_id: str | None = "<m1@example.com>",
    attachments: list[tuple[str, bytes, str]] = (),
) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = to
    if cc:
        msg["Cc"] = cc
    msg["Date"] = date
    msg["Subject"] = subject
    if message_id:
        msg["Message-ID"] = message_id
    msg.set_content(body)
    for name, data, ctype in attachments:
        maintype, subtype = ctype.split("/")
        msg.add_attachment(data, maintype=maintype, subtype=subtype, filename=name)
    return msg


def write_cmu(root: Path, custodian: str, folder: str, messages: list[bytes]) -> list[Path]:
    """Files ``root/custodian/folder/1.``, ``2.``, ... holding the given bytes."""
    d = root / custodian / folder
    d.mkdir(parents=True, exist_ok=True)
    paths = []
    for i, data in enumerate(messages, 1):
        p = d / f"{i}."
        p.write_bytes(data)
        paths.append(p)
    return paths


def write_mbox(path: Path, messages: list[EmailMessage]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    box = mailbox.mbox(path)
    for m in messages:
        box.add(m)
    box.flush()
    box.close()
    return path


PAGE = """<head>
<meta http-equiv="Content-Type" content="text/html;charset=UTF-8" />
</head>
<table  id=header_table>
<tr class="header_row_odd" id="from_row"><td id=from_caption nowrap width=15%>From: </td><td id=from_text><a href="mailto:Moore%20%20Jan%20%3CJan.Moore@ENRON.com%3E">Moore  Jan &lt;Jan&#46;Moore&#64;ENRON&#46;com&gt;</a></td></tr>
<tr class="header_row_even" id="to_row"><td id=to_caption nowrap width=15%>To: </td><td id=to_text nowrap><a href="mailto:Steven.Harris@ENRON.com">Harris  Steven &lt;Steven&#46;Harris&#64;ENRON&#46;com&gt;</a></td></tr><tr class="header_row_even" id="to_row"><td id=to_caption /><td id=to_text nowrap><a href="mailto:Lynn.Blair@ENRON.com">Blair&#9;  Lynn &lt;Lynn&#46;Blair&#64;ENRON&#46;com&gt;</a></td></tr>
<tr class="header_row_odd" id="cc_row"><td id=cc_caption nowrap width=15%>Cc: </td><td id=cc_text nowrap><a href="mailto:Kim.Watson@ENRON.com">Watson  Kim &lt;Kim&#46;Watson&#64;ENRON&#46;com&gt;</a></td></tr>
<tr class="header_row_odd" id="date_row"><td id=date_caption nowrap width=15%>Date: </td><td>{date}</td></tr>
<tr class="header_row_even" id="subject_row"><td id=subject_caption nowrap width=15%>Subject: </td><td>{subject}</td></tr>
{attach}</table>
<hr>
<div id=msg_body>
{body}
</div>
"""
ATTACH_FIRST = '<tr class="header_row_odd" id="attach_row" ><td id=attach_caption>Attachments: </td><td><a href="attachments\\{href}">{label}</a></td></tr>\n'
ATTACH_MORE = '<tr class="header_row_odd" id="attach_row"><td id=attach_caption /><td id=attach_text><a href="attachments\\{href}">{label}</a></td></tr>\n'
UI_PAGE = (
    "<html>\n\n<head>\n\t<title>Enron WebMail: Mailbox</title></head><body>menu</body></html>\n"
)


def html_page(
    subject: str, body_html: str, date: str = "18/10/2001 05:06:06 PM", links: list[str] = ()
) -> str:
    from urllib.parse import quote

    rows = "".join(
        (ATTACH_FIRST if i == 0 else ATTACH_MORE).format(
            href=quote(name), label=name.replace(".", "&#46;")
        )
        for i, name in enumerate(links)
    )
    return PAGE.format(date=date, subject=subject, attach=rows, body=body_html)
