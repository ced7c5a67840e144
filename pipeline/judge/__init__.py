"""Workbook judging: grade an agent's output workbook against a task's input and
reference (diffs, snapshots, the deterministic checker, batch runs, agreement)."""
