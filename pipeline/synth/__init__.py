"""Synthetic default corpora with ground truth (scanned statement bulletins, malformed inputs)."""

from pipeline.synth.malformed import MalformedCase, write_malformed_corpus, write_malformed_pdfs
from pipeline.synth.scans import DEFAULT_PARAMS, ScanCorpus, default_corpus, generate_scans

__all__ = [
    "DEFAULT_PARAMS",
    "MalformedCase",
    "ScanCorpus",
    "default_corpus",
    "generate_scans",
    "write_malformed_corpus",
    "write_malformed_pdfs",
]
