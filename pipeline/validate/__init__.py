"""Validation: drafts become accepted or rejected tasks, every rejection reason kept."""

from pipeline.validate.contamination import build_contamination_index, contamination_hits
from pipeline.validate.schemas import CONTAMINATION_INDEX_SCHEMA, RULES, TASKS_SCHEMA
from pipeline.validate.tasks import validate_drafts

__all__ = [
    "CONTAMINATION_INDEX_SCHEMA",
    "RULES",
    "TASKS_SCHEMA",
    "build_contamination_index",
    "contamination_hits",
    "validate_drafts",
]
