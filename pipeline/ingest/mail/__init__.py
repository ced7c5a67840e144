"""Mail ingestion: mailbox folders (maildir, mbox, .eml trees, an HTML web-mail export)
-> the ``messages`` and ``attachments`` tables, attachments in the blob store.

Entry point :func:`ingest_mail`; formats are adapters (:mod:`.adapters`,
worked example :mod:`.html_export`).
"""

from pipeline.ingest.mail.adapters import (
    Claim,
    MailAdapter,
    MailReadError,
    RawItem,
    Rejected,
    default_adapters,
)
from pipeline.ingest.mail.ingest import MailIngest, ingest_mail
from pipeline.ingest.mail.schemas import ATTACHMENTS_SCHEMA, MESSAGES_SCHEMA, STAGE

__all__ = [
    "ATTACHMENTS_SCHEMA",
    "MESSAGES_SCHEMA",
    "STAGE",
    "Claim",
    "MailAdapter",
    "MailIngest",
    "MailReadError",
    "RawItem",
    "Rejected",
    "default_adapters",
    "ingest_mail",
]
