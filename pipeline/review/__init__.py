"""Review: evidence sheets that let a person check an answer key against its pages by eye."""

from pipeline.review.evidence import (
    Evidence,
    EvidenceError,
    PagePanel,
    colour_of,
    render_evidence,
    write_evidence,
)
from pipeline.review.lookup import (
    CellRef,
    ReviewTask,
    TaskNotFound,
    accepted_task_ids,
    find_task,
    resolve_data_root,
    sample_task_ids,
)

__all__ = [
    "CellRef",
    "Evidence",
    "EvidenceError",
    "PagePanel",
    "ReviewTask",
    "TaskNotFound",
    "accepted_task_ids",
    "colour_of",
    "find_task",
    "render_evidence",
    "resolve_data_root",
    "sample_task_ids",
    "write_evidence",
]
