"""Detection: where a checkable task can be anchored (table totals, workbook diffs,
mail threads, workbook version chains and their steps)."""

from pipeline.detect.anchors import AnchorResult, evaluate_anchors, find_anchors
from pipeline.detect.diffs import WorkbookDiff, diff_workbooks
from pipeline.detect.schemas import ANCHORED_CELLS_SCHEMA, IDENTITIES_SCHEMA, REPAIRS_SCHEMA
from pipeline.detect.steps import (
    TASK_TYPES,
    VERSION_DIFFS_SCHEMA,
    VERSION_STEPS_SCHEMA,
    StepClass,
    build_version_diffs,
    classify_step,
)
from pipeline.detect.threads import THREADS_SCHEMA, build_threads
from pipeline.detect.versions import VERSION_CHAINS_SCHEMA, build_version_chains

__all__ = [
    "ANCHORED_CELLS_SCHEMA",
    "AnchorResult",
    "IDENTITIES_SCHEMA",
    "REPAIRS_SCHEMA",
    "StepClass",
    "TASK_TYPES",
    "THREADS_SCHEMA",
    "VERSION_CHAINS_SCHEMA",
    "VERSION_DIFFS_SCHEMA",
    "VERSION_STEPS_SCHEMA",
    "WorkbookDiff",
    "build_threads",
    "build_version_chains",
    "build_version_diffs",
    "classify_step",
    "diff_workbooks",
    "evaluate_anchors",
    "find_anchors",
]
