"""The quarantine: every input a stage could not ingest, with the reason.

A stage records each discovered input exactly once, as ingested or quarantined, so
``discovered = ingested + quarantined`` can be checked for every stage.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime

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


@dataclass
class Intake:
    """What one stage saw: every discovered input, ingested or quarantined."""

    stage: str
    ingested: list[str] = field(default_factory=list)
    quarantined: list[dict] = field(default_factory=list)

    def ingest(self, path: str) -> None:
        self.ingested.append(str(path))

    def quarantine(self, path: str, reason: str, detail: str = "") -> None:
        self.quarantined.append(
            {
                "stage": self.stage,
                "path": str(path),
                "reason": reason,
                "detail": detail[:2000],
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
