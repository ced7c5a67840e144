"""Auditing a release: verify every file against the manifest and rerun every oracle.

``audit_release`` never trusts the release's own answer files for the rerun: it runs each
``oracles/<task_id>.py`` in the sandbox against the given warehouse and compares the
emitted key and interval with the published ones. Any tampered, missing or extra file,
any oracle that fails, and any key that changed makes ``report.ok`` false.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from oracles.sandbox import run_oracles
from pipeline.publish.changelog import ANSWER_FILES
from pipeline.publish.manifest import FileProblem, sha256_file, verify_manifest


@dataclass(frozen=True)
class KeyChange:
    """One task whose rerun does not reproduce the published key."""

    task_id: str
    problem: str  # changed | interval changed | oracle failed | no oracle | unpublished oracle
    old: str = ""
    new: str = ""
    detail: str = ""

    def __str__(self) -> str:
        text = f"task {self.task_id}: {self.problem}"
        if self.old or self.new:
            text += f" (published {self.old or '-'}, rerun {self.new or '-'})"
        return text + (f": {self.detail}" if self.detail else "")


@dataclass
class AuditReport:
    """What an audit found. ``ok`` is what the CLI turns into its exit status."""

    release_dir: Path
    n_files: int = 0
    n_oracles: int = 0
    n_reproduced: int = 0
    file_problems: list[FileProblem] = field(default_factory=list)
    key_changes: list[KeyChange] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.file_problems and not self.key_changes

    def render(self) -> str:
        """A plain-text report: the verdict, then every file and every task at fault."""
        verdict = "OK" if self.ok else "FAILED"
        lines = [
            f"audit of {self.release_dir}: {verdict}",
            f"files checked: {self.n_files}; oracles rerun: {self.n_oracles}; "
            f"keys reproduced: {self.n_reproduced}",
        ]
        if self.file_problems:
            lines.append(f"files not matching MANIFEST.json ({len(self.file_problems)}):")
            lines += [f"  {p}" for p in self.file_problems]
        if self.key_changes:
            lines.append(f"answer keys not reproduced ({len(self.key_changes)}):")
            lines += [f"  {c}" for c in self.key_changes]
        return "\n".join(lines)


def _published(release_dir: Path) -> dict[str, dict]:
    """task_id -> published answer row, over private answers and worked examples."""
    rows: dict[str, dict] = {}
    for rel in ANSWER_FILES:
        path = release_dir / rel
        if path.exists():
            frame = pl.read_parquet(
                path, columns=["task_id", "answer", "lo", "hi", "oracle_sha256"]
            )
            rows.update({r["task_id"]: r for r in frame.iter_rows(named=True)})
    return rows


def audit_release(
    release_dir: Path,
    warehouse_dir: Path,
    *,
    workers: int | None = None,
    timeout_s: float = 10,
    progress: bool = False,
) -> AuditReport:
    """Verify the manifest and rerun every oracle of ``release_dir`` against ``warehouse_dir``."""
    release_dir = Path(release_dir)
    report = AuditReport(release_dir)
    report.file_problems = verify_manifest(release_dir)
    report.n_files = sum(1 for p in release_dir.rglob("*") if p.is_file())
    published = _published(release_dir)
    oracle_files = {p.stem: p for p in sorted((release_dir / "oracles").glob("*.py"))}
    sources = {task_id: path.read_text() for task_id, path in oracle_files.items()}
    report.n_oracles = len(sources)
    results = (
        run_oracles(
            sources, Path(warehouse_dir), workers=workers, timeout_s=timeout_s, progress=progress
        )
        if sources
        else {}
    )
    for task_id in sorted(set(published) | set(sources)):
        row = published.get(task_id)
        if row is None:
            report.key_changes.append(
                KeyChange(task_id, "unpublished oracle", detail=f"oracles/{task_id}.py has no key")
            )
            continue
        if task_id not in sources:
            report.key_changes.append(
                KeyChange(
                    task_id, "no oracle", old=row["answer"], detail=f"oracles/{task_id}.py missing"
                )
            )
            continue
        actual_sha = sha256_file(oracle_files[task_id])
        if actual_sha != row["oracle_sha256"]:
            report.key_changes.append(
                KeyChange(
                    task_id,
                    "oracle altered",
                    detail=f"oracles/{task_id}.py sha256 {actual_sha}, "
                    f"published {row['oracle_sha256']}",
                )
            )
        result = results[task_id]
        if result.status != "ok":
            report.key_changes.append(
                KeyChange(
                    task_id,
                    "oracle failed",
                    old=row["answer"],
                    detail=f"{result.status}: {result.rule or result.error}".strip(),
                )
            )
            continue
        emitted = result.output or {}
        new = str(emitted.get("answer"))
        lo, hi = (emitted.get("interval") or [None, None])[:2]
        if new != row["answer"]:
            report.key_changes.append(KeyChange(task_id, "changed", old=row["answer"], new=new))
        elif (lo, hi) != (row["lo"], row["hi"]):
            report.key_changes.append(
                KeyChange(
                    task_id,
                    "interval changed",
                    old=f"[{row['lo']}, {row['hi']}]",
                    new=f"[{lo}, {hi}]",
                )
            )
        else:
            report.n_reproduced += 1
    return report
