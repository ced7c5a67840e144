"""Choosing a release version: the next ``vN``, or none when nothing changed.

Releases are immutable, so a rebuild whose accepted tasks are identical to the latest
release (same task ids, answer keys and oracle programs) publishes nothing and points at
that release instead of minting a copy.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import polars as pl

from pipeline.publish.changelog import _version_key, published_releases, release_keys
from pipeline.publish.release import clean_staging


def latest_release(releases_dir: Path) -> Path | None:
    """The newest published release folder (natural version order), if any.

    Only folders named by a valid version and holding a manifest count: the staging
    folder of an interrupted publish (``.v1.k2j4l5m6``) never does, and is removed here
    (unless a publisher is at work), so a rebuild never adopts it.
    """
    releases_dir = Path(releases_dir)
    clean_staging(releases_dir)
    done = published_releases(releases_dir)
    return max(done, key=lambda p: _version_key(p.name)) if done else None


def next_version(releases_dir: Path) -> str:
    """``v1`` for the first release, then one more than the highest ``vN``."""
    numbers = [
        int(m.group(1))
        for p in (releases_dir.iterdir() if releases_dir.exists() else [])
        if (m := re.fullmatch(r"v(\d+)", p.name))
    ]
    return f"v{max(numbers, default=0) + 1}"


def _oracle_digests(release_dir: Path) -> dict[str, str]:
    return {
        p.stem: hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted((release_dir / "oracles").glob("*.py"))
    }


def _checker_digests(release_dir: Path) -> dict[str, str]:
    return {
        p.stem: hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted((release_dir / "oracles" / "workflows").glob("*.py"))
    }


def unchanged_since(
    release_dir: Path, tasks: pl.DataFrame, workflow_tasks: pl.DataFrame | None = None
) -> bool:
    """True when ``release_dir`` holds exactly the accepted tasks' keys and oracles (and
    the accepted workflow tasks' checkers)."""
    if workflow_tasks is not None:
        wf = workflow_tasks.filter(pl.col("status") == "accepted")
        checkers = {
            t: hashlib.sha256(src.encode()).hexdigest()
            for t, src in zip(wf["task_id"], wf["checker"], strict=True)
        }
        if _checker_digests(release_dir) != checkers:
            return False
    accepted = tasks.filter(pl.col("status") == "accepted")
    keys = dict(zip(accepted["task_id"], accepted["answer"], strict=True))
    oracles = {
        t: hashlib.sha256(src.encode()).hexdigest()
        for t, src in zip(accepted["task_id"], accepted["oracle_source"], strict=True)
    }
    return release_keys(release_dir) == keys and _oracle_digests(release_dir) == oracles
