"""The quarantine: every input a stage could not ingest, with the reason.

A stage records each discovered input exactly once, as ingested or quarantined, so
``discovered = ingested + quarantined`` can be checked for every stage. Paths are
recorded through ``storable_path``: any file name, UTF-8 or not, can be recorded.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import PurePath

import polars as pl

QUARANTINE_SCHEMA = {
    "stage": pl.String,
    "path": pl.String,
    "reason": pl.String,
    "detail": pl.String,
    "recorded_at": pl.Datetime("us", "UTC"),
}

INTAKE_SCHEMA = {
    "stage": pl.String,
    "path": pl.String,
    "status": pl.String,  # ingested | quarantined
}


def storable_path(path: str | bytes | PurePath) -> str:
    """A file name as it can be stored (UTF-8 text), whatever bytes the file system holds.

    A name that is valid UTF-8 is returned unchanged. Any other name (on POSIX a file name
    is just bytes; Python hands them over as lone surrogates, which Parquet cannot store)
    is escaped: each byte that is not part of valid UTF-8 becomes ``\\xNN`` and, in such
    a name only, a backslash becomes ``\\\\``, so two different raw names never share an
    escaped form. The escaped form names the file; it does not reopen it.
    """
    try:
        raw = os.fsencode(path)
    except UnicodeEncodeError:  # a surrogate no file system produced (not 0xDC80-0xDCFF)
        raw = os.fspath(path).encode("utf-8", "surrogatepass")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.replace(b"\\", b"\\\\").decode("utf-8", "backslashreplace")


@dataclass
class Intake:
    """What one stage saw: every discovered input, ingested or quarantined."""

    stage: str
    ingested: list[str] = field(default_factory=list)
    quarantined: list[dict] = field(default_factory=list)

    def ingest(self, path: str | bytes | PurePath) -> None:
        self.ingested.append(storable_path(path))

    def quarantine(self, path: str | bytes | PurePath, reason: str, detail: str = "") -> None:
        self.quarantined.append(
            {
                "stage": self.stage,
                "path": storable_path(path),
                # a reason quotes the file name: stored the same way
                "reason": storable_path(reason),
                "detail": storable_path(detail[:2000]),
                "recorded_at": datetime.now(UTC),
            }
        )

    @property
    def discovered(self) -> int:
        return len(self.ingested) + len(self.quarantined)

    def quarantine_frame(self) -> pl.DataFrame:
        return pl.DataFrame(self.quarantined, schema=QUARANTINE_SCHEMA)

    def intake_frame(self) -> pl.DataFrame:
        rows = [{"stage": self.stage, "path": p, "status": "ingested"} for p in self.ingested]
        rows += [
            {"stage": self.stage, "path": q["path"], "status": "quarantined"}
            for q in self.quarantined
        ]
        return pl.DataFrame(rows, schema=INTAKE_SCHEMA)
