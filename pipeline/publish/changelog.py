"""The changelog of answer keys against the previous release: added, removed, changed."""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl

from pipeline.publish.naming import is_version

CHANGELOG_SCHEMA = {
    "task_id": pl.String,
    "change": pl.String,  # added | removed | changed
    "old_answer": pl.String,
    "new_answer": pl.String,
}

ANSWER_FILES = ("private/qa_answers.parquet", "data/qa_examples/dev.parquet")


def _version_key(name: str) -> list:
    """Natural order: v2 < v10, 2024.1 < 2024.12."""
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", name)]


def published_releases(releases_dir: Path) -> list[Path]:
    """The release folders of ``releases_dir``: real folders (not links) named by a valid
    version and holding a manifest; never a staging folder (``.v1.k2j4l5m6``)."""
    releases_dir = Path(releases_dir)
    if not releases_dir.is_dir():
        return []
    return sorted(
        p
        for p in releases_dir.iterdir()
        if is_version(p.name)
        and p.is_dir()
        and not p.is_symlink()
        and (p / "MANIFEST.json").is_file()
    )


def previous_release(releases_dir: Path, version: str) -> Path | None:
    """The latest release folder before ``version`` in natural version order, if any."""
    older = [
        p for p in published_releases(releases_dir) if _version_key(p.name) < _version_key(version)
    ]
    return max(older, key=lambda p: _version_key(p.name)) if older else None


def release_keys(release_dir: Path) -> dict[str, str]:
    """task_id -> answer key over the private answers and the worked examples."""
    keys: dict[str, str] = {}
    for rel in ANSWER_FILES:
        path = release_dir / rel
        if path.exists():
            # glob=False: a data root may contain '[' or '*', which polars would expand
            frame = pl.read_parquet(path, columns=["task_id", "answer"], glob=False)
            keys.update(zip(frame["task_id"], frame["answer"], strict=True))
    return keys


def diff_keys(old: dict[str, str], new: dict[str, str]) -> pl.DataFrame:
    """Added, removed and changed keys (``CHANGELOG_SCHEMA``), sorted by task_id."""
    rows = []
    for task_id in sorted(set(old) | set(new)):
        before, after = old.get(task_id), new.get(task_id)
        if before == after:
            continue
        change = "added" if before is None else "removed" if after is None else "changed"
        rows.append(
            {"task_id": task_id, "change": change, "old_answer": before, "new_answer": after}
        )
    return pl.DataFrame(rows, schema=CHANGELOG_SCHEMA)


def changelog_markdown(changes: pl.DataFrame, version: str, previous: str | None) -> str:
    """``CHANGELOG.md``: counts, then every changed and removed key (added ones counted)."""
    counts = {
        c: changes.filter(pl.col("change") == c).height for c in ("added", "removed", "changed")
    }
    lines = [f"# Changelog of answer keys: {version}", ""]
    if previous is None:
        lines += ["First release: every key is new.", ""]
    else:
        lines += [f"Against the previous release `{previous}`.", ""]
    lines += [f"- added: {counts['added']}", f"- removed: {counts['removed']}"]
    lines += [f"- changed: {counts['changed']}", ""]
    shown = changes.filter(pl.col("change") != "added")
    if not shown.is_empty():
        lines += ["| task_id | change | old key | new key |", "|---|---|---|---|"]
        for r in shown.iter_rows(named=True):
            old, new = r["old_answer"] or "", r["new_answer"] or ""
            lines.append(f"| {r['task_id']} | {r['change']} | {old} | {new} |")
        lines.append("")
    return "\n".join(lines)
