"""Pushing a release to the Hugging Face Hub (optional; needs a token).

Every way a push can fail comes back as one exception with a one-line message, never a
traceback of the HTTP stack: ``HubTokenMissing`` (no token), ``ValueError`` (the release
does not match its manifest) and ``HubPushError`` (a repo id the Hub cannot take, no
network, or the Hub refusing the token or the repo).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from huggingface_hub import HfApi, constants
from huggingface_hub.errors import HfHubHTTPError, HFValidationError
from huggingface_hub.utils import validate_repo_id

from pipeline.publish.manifest import MANIFEST, read_manifest, verify_manifest


class HubTokenMissing(RuntimeError):
    """No token: pass one or set HF_TOKEN."""


class HubPushError(RuntimeError):
    """The push did not happen; the message says why in one line."""


def _one_line(text: object, limit: int = 300) -> str:
    flat = re.sub(r"\s+", " ", str(text)).strip()
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def _why(err: BaseException, endpoint: str) -> str:
    """One line on why the Hub call failed."""
    if isinstance(err, HfHubHTTPError):
        response = getattr(err, "response", None)
        status = getattr(response, "status_code", None)
        reason = {
            401: "the Hub refused the token (401: invalid or expired)",
            403: "the token may not write to this repo (403)",
            404: "no such repo, or the token cannot see it (404)",
        }.get(status or 0, f"the Hub answered {status or 'an error'}")
        server = getattr(err, "server_message", None) or ""
        return f"{reason}{': ' + _one_line(server, 150) if server else ''}"
    name = type(err).__name__
    if name.endswith(("ConnectError", "ConnectTimeout", "ConnectionError", "TimeoutException")) or (
        isinstance(err, OSError) and not isinstance(err, FileNotFoundError)
    ):
        return f"cannot reach the Hub at {endpoint} ({name}: {_one_line(err, 150)})"
    return f"{name}: {_one_line(err)}"


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
    try:
        validate_repo_id(repo_id)
    except HFValidationError as err:
        raise HubPushError(
            f"pushing {release_dir}: {repo_id!r} is not a valid Hub repo id, expected "
            f"'owner/name' ({_one_line(err, 200)})"
        ) from None
    problems = verify_manifest(release_dir)
    if problems:
        raise ValueError(
            f"{release_dir}: does not match {MANIFEST}: "
            + _one_line("; ".join(str(p) for p in problems), 500)
        )
    version = read_manifest(release_dir)["version"]
    api = HfApi(token=token)
    endpoint = getattr(api, "endpoint", None) or constants.ENDPOINT
    try:
        api.create_repo(repo_id, repo_type="dataset", private=private_repo, exist_ok=True)
        commit = api.upload_folder(
            folder_path=str(release_dir),
            repo_id=repo_id,
            repo_type="dataset",
            commit_message=f"LedgerForge release {version}",
            ignore_patterns=None if include_private else ["private/*"],
        )
        api.create_tag(
            repo_id, tag=version, repo_type="dataset", revision=getattr(commit, "oid", None)
        )
    except Exception as err:  # noqa: BLE001 - every Hub failure becomes one clear line
        raise HubPushError(
            f"pushing {release_dir.name} to {repo_id} failed: {_why(err, endpoint)}"
        ) from err
    return str(getattr(commit, "commit_url", commit))
