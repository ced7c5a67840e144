"""Synthetic default corpora with ground truth (scanned statement bulletins, malformed
inputs, an Enron-like mailbox with evolving workbooks and a spreadsheet corpus)."""

from pipeline.synth.mailbox import (
    DEFAULT_MAIL_PARAMS,
    MailCorpus,
    default_mail_corpus,
    generate_mail_corpus,
)
from pipeline.synth.malformed import MalformedCase, write_malformed_corpus, write_malformed_pdfs
from pipeline.synth.scans import DEFAULT_PARAMS, ScanCorpus, default_corpus, generate_scans
from pipeline.synth.workbook_population import WorkbookPopulation, generate_workbook_population

__all__ = [
    "DEFAULT_MAIL_PARAMS",
    "DEFAULT_PARAMS",
    "MailCorpus",
    "WorkbookPopulation",
    "MalformedCase",
    "ScanCorpus",
    "default_corpus",
    "default_mail_corpus",
    "generate_mail_corpus",
    "generate_workbook_population",
    "generate_scans",
    "write_malformed_corpus",
    "write_malformed_pdfs",
]
