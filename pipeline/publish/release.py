"""Publishing a release: ``data/releases/<version>/`` in the layout of ``schemas.py``.

A release is written to a hidden staging folder (``.<version>.<random>``) and renamed
into place at the end, so a failed publish leaves nothing behind, and a published version
is never written again: publishing onto an existing version raises ``ReleaseExists``.
A publish that is killed before the rename leaves its staging folder; such folders are
never releases (their names are not versions) and are removed by :func:`clean_staging`,
which every publish and every look-up of the latest release runs. Publishers hold an
exclusive lock on the ``releases/`` folder, so the staging folder of a publisher that is
still at work is never taken for a stale one.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import polars as pl

from oracles.sandbox import remove_tree
from pipeline.publish.card import dataset_card
from pipeline.publish.changelog import changelog_markdown, diff_keys, previous_release, release_keys
from pipeline.publish.manifest import sha256_file, write_manifest
from pipeline.publish.naming import InvalidVersion, staging_version, validate_version
from pipeline.publish.schemas import QA_ANSWER_SCHEMA, QA_PUBLIC_SCHEMA
from pipeline.publish.workflows import write_workflows
from pipeline.store import BlobStore, check_schema
from pipeline.validate.schemas import TASKS_SCHEMA

EXAMPLE_SHARE = 0.10

__all__ = [
    "InvalidVersion",
    "ReleaseExists",
    "clean_staging",
    "is_example",
    "publish_release",
    "validate_version",
]


class ReleaseExists(FileExistsError):
    """The version is already published; releases are immutable."""


@contextmanager
def _publish_lock(releases_dir: Path, *, wait: bool = True) -> Iterator[bool]:
    """Hold the exclusive publish lock (a ``flock`` on the ``releases_dir`` folder itself,
    so no lock file is left); yields False, without the lock, when ``wait`` is off and
    another publisher holds it."""
    fd = os.open(releases_dir, os.O_RDONLY | os.O_DIRECTORY)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            yield False
            return
        yield True
    finally:
        os.close(fd)  # closing the only descriptor releases the lock


def _remove_staging(releases_dir: Path) -> list[Path]:
    removed = []
    for path in sorted(releases_dir.iterdir()):
        if staging_version(path.name) and path.is_dir() and not path.is_symlink():
            remove_tree(path)
            removed.append(path)
    return removed


def clean_staging(releases_dir: Path) -> list[Path]:
    """Remove the staging folders an interrupted publish left in ``releases_dir``; return
    them. Does nothing (returns ``[]``) while another publisher holds the lock, or where
    the folder cannot be written."""
    releases_dir = Path(releases_dir)
    if not releases_dir.is_dir():
        return []
    try:
        with _publish_lock(releases_dir, wait=False) as locked:
            return _remove_staging(releases_dir) if locked else []
    except OSError:
        return []


def is_example(task_id: str, share: float = EXAMPLE_SHARE) -> bool:
    """Whether a task is a public worked example: a stable hash of its id, not a draw.

    The same task stays on the same side in every release, so worked examples never
    leak into a later test split.
    """
    bucket = int(hashlib.sha256(f"qa_examples:{task_id}".encode()).hexdigest()[:8], 16)
    return bucket % 10_000 < share * 10_000


def _answers(accepted: pl.DataFrame, oracle_sha: dict[str, str]) -> pl.DataFrame:
    return accepted.select(
        "task_id",
        "answer",
        "lo",
        "hi",
        "known_wrong",
        pl.col("task_id").replace_strict(oracle_sha, return_dtype=pl.String).alias("oracle_sha256"),
    )


def _ship_workbooks(staging: Path, accepted: pl.DataFrame, blobs: BlobStore | None) -> None:
    """Copy the workbooks QA tasks read (``source_docs`` entries ``files/<sha256>.xlsx``,
    :func:`pipeline.draft.workbook_qa.release_file`) into the release."""
    shipped = sorted(
        {
            doc
            for docs in accepted["source_docs"].to_list()
            for doc in docs or []
            if doc.startswith("files/") and doc.endswith(".xlsx")
        }
    )
    if shipped and blobs is None:
        raise ValueError(f"{len(shipped)} workbook(s) to ship but no blob store given")
    for rel in shipped:
        sha = rel.removeprefix("files/").removesuffix(".xlsx")
        target = staging / rel
        if target.exists():
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(blobs.local_path(sha), target)
        if sha256_file(target) != sha:
            raise ValueError(f"blob {sha}: its bytes no longer hash to its name")


def publish_release(
    tasks: pl.DataFrame,
    drafts: pl.DataFrame,
    releases_dir: Path,
    version: str,
    *,
    previous: Path | None = None,
    example_share: float = EXAMPLE_SHARE,
    license: str = "cc-by-4.0",
    title: str = "LedgerForge QA",
    workflow_tasks: pl.DataFrame | None = None,
    blobs: BlobStore | None = None,
) -> Path:
    """Write the accepted tasks as release ``version`` under ``releases_dir``; return its folder.

    ``workflow_tasks`` (``pipeline.validate.workflows.WORKFLOW_TASKS_SCHEMA``) adds the
    ``workflows`` config, their workbooks copied from ``blobs``
    (:mod:`pipeline.publish.workflows`).

    ``tasks`` is the validation output (``TASKS_SCHEMA``: accepted and rejected, the
    card reports both); ``drafts`` the drafts it came from (counted in the card).
    ``previous`` is the release to diff keys against (default: the latest older
    version in ``releases_dir``). Raises ``InvalidVersion`` for a name that cannot be a
    version (:mod:`pipeline.publish.naming`) and ``ReleaseExists`` if the version exists.
    """
    validate_version(version)
    if workflow_tasks is not None and blobs is None:
        raise ValueError("workflow tasks need the blob store their workbooks are in")
    # the workbooks of workbook QA tasks are shipped too (``_ship_workbooks``)
    releases_dir = Path(releases_dir)
    target = releases_dir / version
    if target.exists():
        raise ReleaseExists(
            f"release {target} already exists: releases are immutable, publish a new version"
        )
    tasks = check_schema(tasks, TASKS_SCHEMA, "tasks")
    accepted = tasks.filter(pl.col("status") == "accepted").sort("task_id")
    if accepted["task_id"].n_unique() != accepted.height:
        raise ValueError("tasks: accepted task_ids are not unique; validate the drafts first")
    releases_dir.mkdir(parents=True, exist_ok=True)
    with _publish_lock(releases_dir):
        _remove_staging(releases_dir)
        if target.exists():
            raise ReleaseExists(
                f"release {target} already exists: releases are immutable, publish a new version"
            )
        previous = previous if previous is not None else previous_release(releases_dir, version)
        workflows = (
            workflow_tasks.filter(pl.col("status") == "accepted")
            if workflow_tasks is not None
            else None
        )
        return _publish(
            tasks,
            accepted,
            drafts,
            releases_dir,
            version,
            previous,
            example_share,
            license,
            title,
            (workflows, blobs),
        )


def _publish(
    tasks: pl.DataFrame,
    accepted: pl.DataFrame,
    drafts: pl.DataFrame,
    releases_dir: Path,
    version: str,
    previous: Path | None,
    example_share: float,
    license: str,
    title: str,
    workflow_side: tuple[pl.DataFrame | None, BlobStore | None] = (None, None),
) -> Path:
    target = releases_dir / version
    staging = Path(tempfile.mkdtemp(prefix=f".{version}.", dir=releases_dir))
    try:
        oracle_sha = {}
        (staging / "oracles").mkdir()
        for task_id, source in zip(accepted["task_id"], accepted["oracle_source"], strict=True):
            path = staging / "oracles" / f"{task_id}.py"
            path.write_text(source)
            oracle_sha[task_id] = sha256_file(path)

        example = accepted["task_id"].map_elements(
            lambda t: is_example(t, example_share), return_dtype=pl.Boolean
        )
        public = check_schema(accepted.filter(~example), QA_PUBLIC_SCHEMA, "data/qa/test")
        answers = check_schema(
            _answers(accepted.filter(~example), oracle_sha), QA_ANSWER_SCHEMA, "private/qa_answers"
        )
        examples_public = check_schema(accepted.filter(example), QA_PUBLIC_SCHEMA, "qa_examples")
        examples = examples_public.join(
            _answers(accepted.filter(example), oracle_sha), on="task_id", how="left"
        )
        for rel, frame in (
            ("data/qa/test.parquet", public),
            ("data/qa_examples/dev.parquet", examples),
            ("private/qa_answers.parquet", answers),
        ):
            (staging / rel).parent.mkdir(parents=True, exist_ok=True)
            frame.write_parquet(staging / rel, compression="zstd")
        workflows, blobs = workflow_side
        _ship_workbooks(staging, accepted, blobs)
        workflows_public = None
        if workflows is not None and blobs is not None:
            workflows_public, _ = write_workflows(staging, workflows, blobs)

        new_keys = dict(zip(accepted["task_id"], accepted["answer"], strict=True))
        old_keys = release_keys(previous) if previous is not None else {}
        changes = diff_keys(old_keys, new_keys)
        changes.write_parquet(staging / "changelog.parquet")
        previous_name = previous.name if previous is not None else None
        (staging / "CHANGELOG.md").write_text(changelog_markdown(changes, version, previous_name))
        (staging / "README.md").write_text(
            dataset_card(
                version=version,
                title=title,
                license=license,
                public=public,
                examples=examples_public,
                tasks=tasks,
                n_drafts=drafts.height,
                previous=previous_name,
                workflows=workflows_public,
            )
        )
        write_manifest(staging, version)
        os.chmod(staging, 0o755)  # mkdtemp makes it private to the owner
        try:
            # rename is atomic and fails on an existing non-empty folder, so two
            # publishers racing on one version cannot both win
            os.rename(staging, target)
        except OSError as err:
            raise ReleaseExists(f"release {target} appeared while publishing: {err}") from err
    except BaseException:
        remove_tree(staging)
        raise
    return target
