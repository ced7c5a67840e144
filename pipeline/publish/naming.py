"""Names in ``releases/``: what a release version may be, and what a staging folder is.

A version names a folder, a Hub tag and a line of the changelog, so it is a short ASCII
name: letters, digits and ``. _ + -``, starting and ending with a letter or digit, no
``..``, not ending in ``.lock`` (a git ref rule the Hub applies to tags), at most 64
characters. No space, newline, slash, or leading dot: a leading dot is how the staging
folders of an unfinished publish are named (``.<version>.<8 random characters>``), and
those are never releases.
"""

from __future__ import annotations

import re

MAX_VERSION_CHARS = 64
_VERSION = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._+-]*[A-Za-z0-9])?")
# tempfile.mkdtemp(prefix=".<version>.") adds 8 characters of [a-z0-9_]
_STAGING = re.compile(r"\.(?P<version>.+)\.[a-z0-9_]{8}")


class InvalidVersion(ValueError):
    """The name cannot be a release version."""


def version_problem(version: object) -> str | None:
    """Why ``version`` is not a valid release version (None when it is)."""
    if not isinstance(version, str):
        return f"a version is text, not {type(version).__name__}"
    if not version:
        return "it is empty"
    if len(version) > MAX_VERSION_CHARS:
        return f"it is longer than {MAX_VERSION_CHARS} characters"
    if not _VERSION.fullmatch(version):
        return (
            "use ASCII letters, digits and . _ + - only, starting and ending with a letter "
            "or digit (no spaces, newlines, slashes or leading dot)"
        )
    if ".." in version:
        return "it contains '..'"
    if version.endswith(".lock"):
        return "it ends in '.lock'"
    return None


def validate_version(version: object) -> str:
    """``version`` itself when it is a valid release version; else ``InvalidVersion``."""
    problem = version_problem(version)
    if problem is not None:
        raise InvalidVersion(f"{version!r} is not a valid release version: {problem}")
    return version  # type: ignore[return-value]


def is_version(name: str) -> bool:
    return version_problem(name) is None


def staging_version(name: str) -> str | None:
    """The version a staging folder name (``.v1.k2j4l5m6``) was publishing, or None."""
    m = _STAGING.fullmatch(name)
    return m.group("version") if m and is_version(m.group("version")) else None
