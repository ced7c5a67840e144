"""Detection: where a checkable task can be anchored (table totals, workbook diffs)."""

from pipeline.detect.anchors import AnchorResult, evaluate_anchors, find_anchors
from pipeline.detect.diffs import WorkbookDiff, diff_workbooks
from pipeline.detect.schemas import ANCHORED_CELLS_SCHEMA, IDENTITIES_SCHEMA, REPAIRS_SCHEMA

__all__ = [
    "ANCHORED_CELLS_SCHEMA",
    "AnchorResult",
    "IDENTITIES_SCHEMA",
    "REPAIRS_SCHEMA",
    "WorkbookDiff",
    "diff_workbooks",
    "evaluate_anchors",
    "find_anchors",
]
