"""Drafting tasks: the template drafter, the task-kind and known-wrong registries."""

from pipeline.draft.kinds import TASK_KINDS, TaskSpec, task_kind
from pipeline.draft.known_wrong import KNOWN_WRONG_FAMILIES, known_wrong_family
from pipeline.draft.schemas import DRAFTS_SCHEMA, SOURCE_REF
from pipeline.draft.template import DRAFTER_ID, draft_tasks

__all__ = [
    "DRAFTER_ID",
    "DRAFTS_SCHEMA",
    "KNOWN_WRONG_FAMILIES",
    "SOURCE_REF",
    "TASK_KINDS",
    "TaskSpec",
    "draft_tasks",
    "known_wrong_family",
    "task_kind",
]
