"""Publishing a release: ``data/releases/<version>/`` in the layout of ``schemas.py``.

A release is written to a hidden temporary folder and renamed into place at the end,
so a failed publish leaves nothing behind, and a published version is never written
again: publishing onto an existing version raises ``ReleaseExists``.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from pathlib import Path

import polars as pl

from pipeline.publish.card import dataset_card
from pipeline.publish.changelog import changelog_markdown, diff_keys, previous_release, release_keys
from pipeline.publish.manifest import sha256_file, write_manifest
from pipeline.publish.schemas import QA_ANSWER_SCHEMA, QA_PUBLIC_SCHEMA
from pipeline.store import check_schema
from pipeline.validate.schemas import TASKS_SCHEMA

EXAMPLE_SHARE = 0.10


class ReleaseExists(FileExistsError):
    """The version is already published; releases are immutable."""


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
) -> Path:
    """Write the accepted tasks as release ``version`` under ``releases_dir``; return its folder.

    ``tasks`` is the validation output (``TASKS_SCHEMA``: accepted and rejected, the
    card reports both); ``drafts`` the drafts it came from (counted in the card).
    ``previous`` is the release to diff keys against (default: the latest older
    version in ``releases_dir``). Raises ``ReleaseExists`` if the version exists.
    """
    releases_dir = Path(releases_dir)
    target = releases_dir / version
    if target.exists():
        raise ReleaseExists(
            f"release {target} already exists: releases are immutable, publish a new version"
        )
    if not version or "/" in version or version.startswith("."):
        raise ValueError(f"release version {version!r} is not a folder name")
    tasks = check_schema(tasks, TASKS_SCHEMA, "tasks")
    accepted = tasks.filter(pl.col("status") == "accepted").sort("task_id")
    if accepted["task_id"].n_unique() != accepted.height:
        raise ValueError("tasks: accepted task_ids are not unique; validate the drafts first")
    previous = previous if previous is not None else previous_release(releases_dir, version)

    releases_dir.mkdir(parents=True, exist_ok=True)
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
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return target
