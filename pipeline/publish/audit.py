"""Auditing a release: verify every file against the manifest and rerun every oracle.

``audit_release`` never trusts the release's own answer files for the rerun: it runs each
``oracles/<task_id>.py`` in the sandbox against the given warehouse and compares the
emitted key and interval with the published ones. Because a forger can rewrite answers
and manifest consistently, matching keys are not enough; the audit also checks

- the manifest's own fields and that the release holds only regular files and folders
  (no link is ever followed or read; see :mod:`pipeline.publish.manifest`);
- that the public and private files hold the same task ids, each once, and that every
  task has its oracle;
- that every oracle computes its key from the warehouse through ``oracles.api``: it reads
  at least one number (every QA task kind needs inputs), its key moves when the numbers
  it reads are replaced by probe numbers (two probe runs), and the key is what the
  task's own question asks of the numbers read (the question read back by
  :mod:`pipeline.validate.reading`, recomputed and rounded independently of the oracle).

Any problem makes ``report.ok`` false, and the audit always ends with its report: an
oracle that cannot be run, a file that cannot be read or a sandbox that cannot start is
reported, never raised.
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import stat
import tempfile
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path

import polars as pl

from oracles.sandbox import OracleResult, SandboxError, run_oracles
from pipeline.draft.workbook_qa import WORKBOOK_KINDS
from pipeline.publish.manifest import FileProblem, ReleaseScan, scan_release, verify_manifest
from pipeline.publish.workflow_audit import audit_workflows

PUBLIC_TEST = "data/qa/test.parquet"
PRIVATE_ANSWERS = "private/qa_answers.parquet"
EXAMPLES = "data/qa_examples/dev.parquet"
# Task kinds whose key needs no source number (none of the QA kinds).
INPUT_FREE_KINDS: frozenset[str] = frozenset()
PROBE_SEEDS = (1, 2)
_ORACLE = re.compile(r"oracles/([^/]+)\.py")


@dataclass(frozen=True)
class KeyChange:
    """One task whose rerun does not reproduce the published key, or whose files or
    oracle are not what a release promises."""

    task_id: str
    # changed | interval changed | oracle failed | no oracle | unpublished oracle |
    # oracle altered | oracle unreadable | reads no source | ignores its sources |
    # not what its question asks | question unreadable | duplicate task id |
    # missing from <file> | in both splits
    problem: str
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
    n_checkers: int = 0  # workflow tasks whose checker was rerun
    n_checkers_ok: int = 0  # ... that passed their reference and failed their input
    file_problems: list[FileProblem] = field(default_factory=list)
    key_changes: list[KeyChange] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # the audit itself could not run a part

    @property
    def ok(self) -> bool:
        return not self.file_problems and not self.key_changes and not self.errors

    def render(self) -> str:
        """A plain-text report: the verdict, then every file and every task at fault."""
        verdict = "OK" if self.ok else "FAILED"
        lines = [
            f"audit of {self.release_dir}: {verdict}",
            f"files checked: {self.n_files}; oracles rerun: {self.n_oracles}; "
            f"keys reproduced: {self.n_reproduced}",
        ]
        if self.n_checkers:
            lines.append(
                f"workflow checkers rerun: {self.n_checkers}; reference passes and input "
                f"fails: {self.n_checkers_ok}"
            )
        if self.errors:
            lines.append(f"audit errors ({len(self.errors)}):")
            lines += [f"  {e}" for e in self.errors]
        if self.file_problems:
            lines.append(f"files not matching MANIFEST.json ({len(self.file_problems)}):")
            lines += [f"  {p}" for p in self.file_problems]
        if self.key_changes:
            lines.append(f"answer keys not reproduced ({len(self.key_changes)}):")
            lines += [f"  {c}" for c in self.key_changes]
        return "\n".join(lines)


def _read_regular(path: Path) -> bytes:
    """The bytes of a regular file, never through a link and never blocking on a FIFO."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"{path} is not a regular file")
        with os.fdopen(fd, "rb", closefd=False) as fh:
            return fh.read()
    finally:
        os.close(fd)


@dataclass
class _Files:
    """The release's Parquet files, read once (None where absent or unreadable)."""

    frames: dict[str, pl.DataFrame | None]

    @classmethod
    def read(cls, release_dir: Path, scan: ReleaseScan, report: AuditReport) -> _Files:
        frames: dict[str, pl.DataFrame | None] = {}
        for rel in (PUBLIC_TEST, PRIVATE_ANSWERS, EXAMPLES):
            frames[rel] = None
            if rel not in scan.files:
                report.errors.append(f"{rel}: not in the release (as a regular file)")
                continue
            try:
                frame = pl.read_parquet(io.BytesIO(_read_regular(release_dir / rel)))
                frame.get_column("task_id")
                frames[rel] = frame
            except Exception as err:  # noqa: BLE001 - any unreadable file is reported
                report.errors.append(f"{rel}: cannot be read: {type(err).__name__}: {err}")
        return cls(frames)

    def column_rows(self, rel: str, columns: list[str]) -> list[dict]:
        """Rows of ``columns`` (None where a forged file lacks one), task ids as text."""
        frame = self.frames.get(rel)
        if frame is None:
            return []
        rows = []
        for row in frame.iter_rows(named=True):
            picked = {c: row.get(c) for c in columns}
            picked["task_id"] = str(picked.get("task_id"))
            rows.append(picked)
        return rows


def _published(files: _Files) -> dict[str, dict]:
    """task_id -> published answer row, over private answers and worked examples."""
    rows: dict[str, dict] = {}
    columns = ["task_id", "answer", "lo", "hi", "oracle_sha256"]
    for rel in (PRIVATE_ANSWERS, EXAMPLES):
        rows.update({r["task_id"]: r for r in files.column_rows(rel, columns)})
    return rows


def _questions(files: _Files) -> dict[str, dict]:
    """task_id -> public row (kind, question, precision), over the test split and examples."""
    rows: dict[str, dict] = {}
    columns = ["task_id", "kind", "question", "precision"]
    for rel in (PUBLIC_TEST, EXAMPLES):
        rows.update({r["task_id"]: r for r in files.column_rows(rel, columns)})
    return rows


def _consistency(files: _Files) -> list[KeyChange]:
    """Public and private files hold the same task ids, each once."""
    found: list[KeyChange] = []
    ids: dict[str, list[str]] = {}
    for rel in (PUBLIC_TEST, PRIVATE_ANSWERS, EXAMPLES):
        listed = [str(r["task_id"]) for r in files.column_rows(rel, ["task_id"])]
        ids[rel] = listed
        seen: set[str] = set()
        for task_id in listed:
            if task_id in seen:
                found.append(KeyChange(task_id, "duplicate task id", detail=f"twice in {rel}"))
            seen.add(task_id)
    if files.frames[PUBLIC_TEST] is not None and files.frames[PRIVATE_ANSWERS] is not None:
        public, private = set(ids[PUBLIC_TEST]), set(ids[PRIVATE_ANSWERS])
        found += [
            KeyChange(t, f"missing from {PUBLIC_TEST}", detail=f"its key is in {PRIVATE_ANSWERS}")
            for t in sorted(private - public)
        ]
        found += [
            KeyChange(t, f"missing from {PRIVATE_ANSWERS}", detail=f"the task is in {PUBLIC_TEST}")
            for t in sorted(public - private)
        ]
    both = (set(ids[PUBLIC_TEST]) | set(ids[PRIVATE_ANSWERS])) & set(ids[EXAMPLES])
    found += [
        KeyChange(t, "in both splits", detail=f"{EXAMPLES} and the test split")
        for t in sorted(both)
    ]
    return found


def _oracle_sources(
    release_dir: Path, scan: ReleaseScan, report: AuditReport
) -> tuple[dict[str, str], dict[str, str]]:
    """(task_id -> source, task_id -> sha256) of every regular ``oracles/<task_id>.py``."""
    sources: dict[str, str] = {}
    digests: dict[str, str] = {}
    for rel in scan.files:
        m = _ORACLE.fullmatch(rel)
        if not m:
            continue
        task_id = m.group(1)
        try:
            data = _read_regular(release_dir / rel)
            digests[task_id] = hashlib.sha256(data).hexdigest()
            sources[task_id] = data.decode("utf-8")
        except (OSError, UnicodeDecodeError) as err:
            report.key_changes.append(
                KeyChange(task_id, "oracle unreadable", detail=f"{rel}: {err}")
            )
    return sources, digests


def _run(
    report: AuditReport,
    sources: dict[str, str],
    warehouse_dir: Path,
    what: str,
    **kwargs: object,
) -> dict[str, OracleResult]:
    if not sources:
        return {}
    try:
        return run_oracles(sources, warehouse_dir, **kwargs)  # type: ignore[arg-type]
    except (SandboxError, OSError) as err:
        report.errors.append(f"{what}: the sandbox could not run: {err}")
        return {}


def _recompute_workbook_sum(public: dict, reads: list[dict]) -> tuple[Decimal | None, str]:
    """A workbook total's question asks the sum of the cells it names, at its precision
    (:mod:`pipeline.draft.workbook_qa`; the question's cell range is what the oracle reads)."""
    from pipeline.draft.formulas import round_half_up

    try:
        values = [Decimal(str(r["value"])) for r in reads]
        return round_half_up(sum(values, Decimal(0)), int(public.get("precision") or 0)), "sum"
    except (ArithmeticError, KeyError, ValueError, TypeError) as err:
        return None, f"sum of {len(reads)} workbook cell(s): {type(err).__name__} {err}"


def _recompute(question: str, reads: list[dict]) -> tuple[Decimal | None, str]:
    """The key the question asks of the numbers read, rounded as the question says;
    (None, why) when that cannot be worked out."""
    from pipeline.validate.reading import compute, read_question, round_key

    reading = read_question(question or "")
    if reading is None:
        return None, "question unreadable"
    try:
        values = [Decimal(str(r["value"])) for r in reads]
        return round_key(compute(reading.operation, values), reading.places), reading.operation
    except (ArithmeticError, IndexError, KeyError, ValueError, TypeError) as err:
        return None, f"{reading.operation} of {len(reads)} read(s): {type(err).__name__} {err}"


def _oracle_checks(
    task_id: str,
    key: str,
    result: OracleResult,
    public: dict | None,
    probes: dict[int, OracleResult | None],
) -> list[KeyChange]:
    """An oracle that reproduced its key: does it compute it from the warehouse?"""
    found: list[KeyChange] = []
    reads = list((result.output or {}).get("reads") or [])
    kind = (public or {}).get("kind")
    if not reads:
        if kind not in INPUT_FREE_KINDS:
            found.append(
                KeyChange(
                    task_id,
                    "reads no source",
                    old=key,
                    detail=f"a {kind or 'task'} key emitted without reading any number "
                    "through oracles.api",
                )
            )
        return found
    same = [p for p in probes.values() if p is not None and p.ok and p.answer == key]
    if len(same) == len(PROBE_SEEDS):
        found.append(
            KeyChange(
                task_id,
                "ignores its sources",
                old=key,
                detail=f"its key stays {key} when the {len(reads)} number(s) it reads are "
                "replaced by probe numbers",
            )
        )
    if public is None:
        return found  # reported as missing from the public file
    if kind in WORKBOOK_KINDS:
        asked, how = _recompute_workbook_sum(public, reads)
    else:
        asked, how = _recompute(public.get("question") or "", reads)
    if asked is None and how == "question unreadable":
        found.append(KeyChange(task_id, "question unreadable", old=key))
    elif asked is None:
        found.append(KeyChange(task_id, "not what its question asks", old=key, detail=how))
    else:
        try:
            matches = Decimal(key) == asked
        except InvalidOperation:
            matches = False
        if not matches:
            found.append(
                KeyChange(
                    task_id,
                    "not what its question asks",
                    old=key,
                    new=str(asked),
                    detail=f"the question asks the {how} of the {len(reads)} number(s) read",
                )
            )
    return found


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
    warehouse_dir = Path(warehouse_dir)
    report = AuditReport(release_dir)
    scan = scan_release(release_dir)
    report.file_problems = verify_manifest(release_dir, scan)
    report.n_files = len(scan.files)
    files = _Files.read(release_dir, scan, report)
    published = _published(files)
    public = _questions(files)
    consistency = _consistency(files)
    sources, digests = _oracle_sources(release_dir, scan, report)
    report.n_oracles = len(sources) + sum(
        1 for c in report.key_changes if c.problem == "oracle unreadable"
    )
    if sources and not warehouse_dir.is_dir():
        report.errors.append(f"warehouse folder {warehouse_dir} does not exist: no oracle rerun")
        sources = {}
    options = {"workers": workers, "timeout_s": timeout_s}
    results = _run(report, sources, warehouse_dir, "oracles", progress=progress, **options)
    probe_sources, probe_of = {}, {}
    for task_id, result in results.items():
        row = published.get(task_id)
        if result.ok and row is not None and result.answer == row["answer"]:
            for seed in PROBE_SEEDS:
                name = f"{task_id}#probe{seed}"
                probe_sources[name], probe_of[name] = sources[task_id], seed
    probed = _run(
        report,
        probe_sources,
        warehouse_dir,
        "probe runs",
        probes=probe_of,
        progress=progress,
        **options,
    )

    unreadable = {c.task_id for c in report.key_changes if c.problem == "oracle unreadable"}
    for task_id in sorted(set(published) | set(sources) | set(public) | unreadable):
        report.key_changes += [c for c in consistency if c.task_id == task_id]
        row = published.get(task_id)
        if task_id in unreadable:
            continue
        if row is None:
            if task_id in sources:
                report.key_changes.append(
                    KeyChange(
                        task_id, "unpublished oracle", detail=f"oracles/{task_id}.py has no key"
                    )
                )
            continue
        if task_id not in sources:
            report.key_changes.append(
                KeyChange(
                    task_id, "no oracle", old=row["answer"], detail=f"oracles/{task_id}.py missing"
                )
            )
            continue
        if digests[task_id] != row["oracle_sha256"]:
            report.key_changes.append(
                KeyChange(
                    task_id,
                    "oracle altered",
                    detail=f"oracles/{task_id}.py sha256 {digests[task_id]}, "
                    f"published {row['oracle_sha256']}",
                )
            )
        result = results.get(task_id)
        if result is None:
            continue  # the sandbox did not run: in report.errors
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
            probes = {s: probed.get(f"{task_id}#probe{s}") for s in PROBE_SEEDS}
            checks = _oracle_checks(task_id, new, result, public.get(task_id), probes)
            report.key_changes += checks
            if not checks:
                report.n_reproduced += 1

    def run_checkers(checkers: dict[str, str], workbooks: dict) -> dict[str, OracleResult]:
        with tempfile.TemporaryDirectory(prefix="lf-audit-wf-") as empty:
            # checkers read no warehouse asset, only the release's own workbooks
            where = warehouse_dir if warehouse_dir.is_dir() else Path(empty)
            return _run(
                report,
                checkers,
                where,
                "workflow checkers",
                workbooks=workbooks,
                progress=progress,
                workers=workers,
                timeout_s=max(timeout_s, 30),
                cpu_s=20,
            )

    audit_workflows(release_dir, scan, report, run_checkers, _read_regular, KeyChange)
    return report
