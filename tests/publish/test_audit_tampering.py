"""The audit catches every tampering, also when the forger rewrites answers and manifest
consistently: the manifest's own fields, links and odd files inside the release, oracles
that do not compute their key from the warehouse, and public / private files that disagree.
It also never stops on one bad oracle or file: it always ends with its report."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
from decimal import Decimal

import polars as pl
import pytest
from typer.testing import CliRunner

from oracles.sandbox import run_oracle
from pipeline.publish import audit_release, publish_release
from pipeline.publish.manifest import MANIFEST, verify_manifest, write_manifest


@pytest.fixture
def fresh(validated_sample, tmp_path):
    """A private copy of the warehouse and release v1 built on it (in ``releases/``)."""
    warehouse = tmp_path / "warehouse"
    shutil.copytree(validated_sample.warehouse_dir, warehouse)
    release = publish_release(
        validated_sample.tasks, validated_sample.drafts, tmp_path / "releases", "v1"
    )
    return release, warehouse


def _manifest(release) -> dict:
    return json.loads((release / MANIFEST).read_text())


def _write_manifest(release, manifest: dict) -> None:
    (release / MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")


def _reseal(release) -> None:
    """What a consistent forger does last: hash every (regular) file again."""
    write_manifest(release, _manifest(release)["version"])


def _row(release, kind: str = "read_number") -> dict:
    answers = pl.read_parquet(release / "private/qa_answers.parquet")
    test = pl.read_parquet(release / "data/qa/test.parquet")
    return test.filter(pl.col("kind") == kind).join(answers, on="task_id").row(0, named=True)


def _problems(report, task_id: str) -> list[str]:
    return [c.problem for c in report.key_changes if c.task_id == task_id]


def _forge_oracle(release, task_id: str, source: str, key: str, lo: str, hi: str) -> None:
    """Replace a task's oracle and rewrite its key, interval and oracle digest to match."""
    path = release / "oracles" / f"{task_id}.py"
    path.write_text(source)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    answers_path = release / "private/qa_answers.parquet"
    answers = pl.read_parquet(answers_path)
    hit = pl.col("task_id") == task_id
    answers = answers.with_columns(
        answer=pl.when(hit).then(pl.lit(key)).otherwise("answer"),
        lo=pl.when(hit).then(pl.lit(lo)).otherwise("lo"),
        hi=pl.when(hit).then(pl.lit(hi)).otherwise("hi"),
        oracle_sha256=pl.when(hit).then(pl.lit(digest)).otherwise("oracle_sha256"),
    )
    answers.write_parquet(answers_path)
    _reseal(release)


def test_a_fresh_release_audits_clean(fresh):
    release, warehouse = fresh
    report = audit_release(release, warehouse)
    assert report.ok, report.render()
    assert report.n_oracles == report.n_reproduced > 0


# ------------------------------------------------------------------ the manifest's own fields


@pytest.mark.parametrize(
    ("field", "value", "expected"),
    [
        ("version", "v2", "version"),
        ("version", "v1 ", "version"),
        ("version", None, "version"),
        ("algorithm", "md5", "algorithm"),
        ("algorithm", "SHA256", "algorithm"),
        ("algorithm", None, "algorithm"),
        ("comment", "extra field", "field"),
    ],
)
def test_edits_to_the_manifests_own_fields_are_caught(fresh, field, value, expected):
    release, warehouse = fresh
    manifest = _manifest(release)
    if value is None:
        del manifest[field]
    else:
        manifest[field] = value
    _write_manifest(release, manifest)
    problems = verify_manifest(release)
    assert [p.path for p in problems] == [MANIFEST], problems
    assert expected in str(problems[0])
    report = audit_release(release, warehouse)
    assert not report.ok and MANIFEST in report.render()


def test_the_version_is_checked_against_the_card_and_changelog_too(fresh, tmp_path):
    """Outside ``releases/`` (a downloaded copy) the folder name says nothing, but the
    card and changelog (hashed) still state the version."""
    release, _ = fresh
    copy = tmp_path / "downloaded-copy"
    shutil.copytree(release, copy)
    assert verify_manifest(copy) == []
    manifest = _manifest(copy)
    manifest["version"] = "v9"
    _write_manifest(copy, manifest)
    problems = verify_manifest(copy)
    assert problems and all(p.path == MANIFEST for p in problems)
    assert "v9" in str(problems[0])


@pytest.mark.parametrize(
    "bad", ["../outside.txt", "/etc/hostname", "oracles/../README.md", "", "a//b"]
)
def test_manifest_entries_outside_the_release_are_refused(fresh, bad):
    release, _ = fresh
    manifest = _manifest(release)
    manifest["files"][bad] = "0" * 64
    _write_manifest(release, manifest)
    assert any(p.path == MANIFEST or p.path == bad for p in verify_manifest(release))


def test_a_manifest_with_a_malformed_digest_is_refused(fresh):
    release, _ = fresh
    manifest = _manifest(release)
    first = sorted(manifest["files"])[0]
    manifest["files"][first] = manifest["files"][first].upper()
    _write_manifest(release, manifest)
    assert verify_manifest(release)


# ------------------------------------------------------------------ links and odd files


def test_a_symlinked_oracle_with_the_same_bytes_is_refused(fresh, tmp_path):
    release, warehouse = fresh
    row = _row(release)
    path = release / "oracles" / f"{row['task_id']}.py"
    outside = tmp_path / "outside.py"
    shutil.copy(path, outside)
    path.unlink()
    path.symlink_to(outside)
    problems = verify_manifest(release)
    assert [(p.path, p.problem) for p in problems] == [
        (f"oracles/{row['task_id']}.py", "symbolic link")
    ]
    report = audit_release(release, warehouse)
    assert not report.ok
    assert "symbolic link" in report.render()


def test_a_symlinked_folder_is_refused(fresh, tmp_path):
    release, warehouse = fresh
    outside = tmp_path / "outside-oracles"
    shutil.copytree(release / "oracles", outside)
    shutil.rmtree(release / "oracles")
    (release / "oracles").symlink_to(outside)
    problems = verify_manifest(release)
    assert ("oracles", "symbolic link") in [(p.path, p.problem) for p in problems]
    report = audit_release(release, warehouse)
    assert not report.ok and report.n_oracles == 0


def test_a_symlink_listed_in_a_resealed_manifest_is_refused(fresh, tmp_path):
    release, _ = fresh
    outside = tmp_path / "notes.txt"
    outside.write_text("hello\n")
    (release / "notes.txt").symlink_to(outside)
    manifest = _manifest(release)
    manifest["files"]["notes.txt"] = hashlib.sha256(b"hello\n").hexdigest()
    _write_manifest(release, manifest)
    assert [(p.path, p.problem) for p in verify_manifest(release)] == [
        ("notes.txt", "symbolic link")
    ]


def test_a_linked_manifest_is_refused(fresh, tmp_path):
    release, _ = fresh
    outside = tmp_path / "MANIFEST.json"
    shutil.copy(release / MANIFEST, outside)
    (release / MANIFEST).unlink()
    (release / MANIFEST).symlink_to(outside)
    assert [(p.path, p.problem) for p in verify_manifest(release)][:1] == [
        (MANIFEST, "symbolic link")
    ]


def test_a_fifo_inside_the_release_is_refused_without_hanging(fresh):
    release, warehouse = fresh
    os.mkfifo(release / "oracles" / "zz_pipe.py")

    def hung(*_):
        raise TimeoutError("the audit blocked on a FIFO")

    old = signal.signal(signal.SIGALRM, hung)
    signal.alarm(120)
    try:
        problems = verify_manifest(release)
        report = audit_release(release, warehouse)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    assert ("oracles/zz_pipe.py", "not a regular file") in [(p.path, p.problem) for p in problems]
    assert not report.ok


def test_a_nested_manifest_name_is_still_verified(fresh):
    release, _ = fresh
    (release / "oracles" / MANIFEST).write_text("{}")
    assert ("oracles/MANIFEST.json", "extra") in [
        (p.path, p.problem) for p in verify_manifest(release)
    ]


# ------------------------------------------------------------------ forged oracles


def test_a_constant_oracle_with_consistent_rewrites_is_caught(fresh):
    release, warehouse = fresh
    row = _row(release)
    source = "from oracles.api import emit, D\n\n"
    source += f'emit(answer=D("12345"), places=0, unit={row["unit"]!r})\n'
    _forge_oracle(release, row["task_id"], source, "12345", "12344.5", "12345.5")
    assert verify_manifest(release) == []
    report = audit_release(release, warehouse)
    assert not report.ok
    assert "reads no source" in _problems(report, row["task_id"]), report.render()


def test_a_constant_oracle_that_reads_and_ignores_its_cell_is_caught(fresh):
    release, warehouse = fresh
    row = _row(release)
    honest = (release / "oracles" / f"{row['task_id']}.py").read_text()
    forged = honest.replace("emit(answer=x1,", 'emit(answer=x1 * 0 + D("12345"),').replace(
        "from oracles.api import emit, table_cell", "from oracles.api import emit, table_cell, D"
    )
    assert forged != honest
    _forge_oracle(release, row["task_id"], forged, "12345", "12344.5", "12345.5")
    report = audit_release(release, warehouse)
    assert not report.ok
    assert "ignores its sources" in _problems(report, row["task_id"]), report.render()


def test_an_oracle_computing_another_formula_is_caught(fresh):
    release, warehouse = fresh
    row = _row(release, "difference")
    honest = (release / "oracles" / f"{row['task_id']}.py").read_text()
    forged = honest.replace("emit(answer=x1 - x2,", "emit(answer=x1 + x2,")
    assert forged != honest
    run = run_oracle(forged, warehouse)  # the forger computes the new key the same way
    assert run.ok, run.error
    assert Decimal(run.answer) != Decimal(row["answer"])
    _forge_oracle(release, row["task_id"], forged, run.answer, *run.interval)
    report = audit_release(release, warehouse)
    assert not report.ok
    assert "not what its question asks" in _problems(report, row["task_id"]), report.render()


# ------------------------------------------------------------------ public vs private files


def test_a_task_dropped_from_the_public_file_only_is_caught(fresh):
    release, warehouse = fresh
    row = _row(release)
    path = release / "data/qa/test.parquet"
    pl.read_parquet(path).filter(pl.col("task_id") != row["task_id"]).write_parquet(path)
    _reseal(release)
    report = audit_release(release, warehouse)
    assert not report.ok
    assert "missing from data/qa/test.parquet" in _problems(report, row["task_id"])


def test_a_task_dropped_from_the_private_file_only_is_caught(fresh):
    release, warehouse = fresh
    row = _row(release)
    path = release / "private/qa_answers.parquet"
    pl.read_parquet(path).filter(pl.col("task_id") != row["task_id"]).write_parquet(path)
    _reseal(release)
    report = audit_release(release, warehouse)
    assert not report.ok
    assert "missing from private/qa_answers.parquet" in _problems(report, row["task_id"])


def test_a_task_published_twice_is_caught(fresh):
    release, warehouse = fresh
    row = _row(release)
    path = release / "data/qa/test.parquet"
    frame = pl.read_parquet(path)
    pl.concat([frame, frame.filter(pl.col("task_id") == row["task_id"])]).write_parquet(path)
    _reseal(release)
    report = audit_release(release, warehouse)
    assert not report.ok
    assert "duplicate task id" in _problems(report, row["task_id"])


# ------------------------------------------------------------------ the audit always reports


def test_the_audit_reports_on_a_deeply_nested_oracle(fresh, data_root):
    release, warehouse = fresh
    row = _row(release)
    nested = "from oracles.api import emit, D\nx = " + " + ".join(["D(1)"] * 500)
    nested += "\nemit(x, 0)\n"
    (release / "oracles" / f"{row['task_id']}.py").write_text(nested)
    report = audit_release(release, warehouse)
    assert not report.ok
    assert "oracle altered" in _problems(report, row["task_id"])
    # and through the CLI: a report, no traceback
    shutil.copytree(warehouse, data_root.warehouse, dirs_exist_ok=True)
    from pipeline.cli import app

    result = CliRunner().invoke(app, ["audit", str(release), "--data-root", str(data_root.root)])
    assert result.exit_code == 1
    assert "FAILED" in result.output and row["task_id"] in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_the_audit_reports_an_oracle_file_that_is_not_text(fresh):
    release, warehouse = fresh
    row = _row(release)
    (release / "oracles" / f"{row['task_id']}.py").write_bytes(b"x = '\xff\xfe'\n")
    report = audit_release(release, warehouse)
    assert not report.ok
    assert "oracle unreadable" in _problems(report, row["task_id"])
    assert report.n_reproduced == report.n_oracles - 1


def test_the_audit_reports_an_unreadable_parquet_file(fresh):
    release, warehouse = fresh
    (release / "data/qa/test.parquet").write_bytes(b"not parquet")
    report = audit_release(release, warehouse)
    assert not report.ok
    assert "data/qa/test.parquet" in report.render()


def test_the_audit_reports_a_missing_warehouse(fresh, tmp_path):
    release, _ = fresh
    report = audit_release(release, tmp_path / "no-warehouse")
    assert not report.ok
    assert "does not exist" in report.render()


def test_the_audit_reports_answer_files_of_another_shape(fresh):
    release, warehouse = fresh
    path = release / "private/qa_answers.parquet"
    answers = pl.read_parquet(path).drop("oracle_sha256", "lo")
    answers.write_parquet(path)
    examples = release / "data/qa_examples/dev.parquet"
    pl.DataFrame({"task_id": [1, 2], "answer": [None, "x"]}).write_parquet(examples)
    _reseal(release)
    report = audit_release(release, warehouse)
    assert not report.ok
    assert {"oracle altered", "unpublished oracle"} <= {c.problem for c in report.key_changes}
