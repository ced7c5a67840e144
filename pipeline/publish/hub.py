"""Pushing a release to the Hugging Face Hub (optional; needs a token)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from huggingface_hub import HfApi

from pipeline.publish.manifest import MANIFEST, verify_manifest


class HubTokenMissing(RuntimeError):
    """No token: pass one or set HF_TOKEN."""


def push_release(
    release_dir: Path,
    repo_id: str,
    token: str | None = None,
    *,
    include_private: bool = False,
    private_repo: bool = False,
) -> str:
    """Upload a release folder as a dataset repo commit and tag it with the version.

    The token is the argument or ``HF_TOKEN`` from the environment, nothing else (no
    cached login). ``private/`` (the answer keys of the test split) is left out unless
    ``include_private``. The release must match its manifest. Returns the commit URL.
    """
    release_dir = Path(release_dir)
    token = token or os.environ.get("HF_TOKEN")
    if not token:
        raise HubTokenMissing(f"pushing {release_dir} to {repo_id}: set HF_TOKEN or pass a token")
    problems = verify_manifest(release_dir)
    if problems:
        raise ValueError(
            f"{release_dir}: does not match {MANIFEST}: " + "; ".join(str(p) for p in problems)
        )
    version = json.loads((release_dir / MANIFEST).read_text())["version"]
    api = HfApi(token=token)
    api.create_repo(repo_id, repo_type="dataset", private=private_repo, exist_ok=True)
    commit = api.upload_folder(
        folder_path=str(release_dir),
        repo_id=repo_id,
        repo_type="dataset",
        commit_message=f"LedgerForge release {version}",
        ignore_patterns=None if include_private else ["private/*"],
    )
    api.create_tag(repo_id, tag=version, repo_type="dataset", revision=getattr(commit, "oid", None))
    return str(getattr(commit, "commit_url", commit))
