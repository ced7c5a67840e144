"""``MANIFEST.json``: the sha256 of every file of a release, and its verification."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

MANIFEST = "MANIFEST.json"


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def release_files(release_dir: Path) -> list[str]:
    """Every file of the release except the manifest, as sorted POSIX relative paths."""
    return sorted(
        p.relative_to(release_dir).as_posix()
        for p in release_dir.rglob("*")
        if p.is_file() and p.name != MANIFEST
    )


def write_manifest(release_dir: Path, version: str) -> dict:
    """Hash every file and write ``MANIFEST.json``; return its content."""
    manifest = {
        "version": version,
        "algorithm": "sha256",
        "files": {rel: sha256_file(release_dir / rel) for rel in release_files(release_dir)},
    }
    (release_dir / MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    return manifest


@dataclass(frozen=True)
class FileProblem:
    """One file that does not match the manifest."""

    path: str
    problem: str  # missing | extra | sha256 mismatch | unreadable manifest
    expected: str = ""
    actual: str = ""

    def __str__(self) -> str:
        if self.problem == "sha256 mismatch":
            return f"{self.path}: sha256 mismatch (manifest {self.expected}, file {self.actual})"
        return f"{self.path}: {self.problem}" + (f" ({self.expected})" if self.expected else "")


def verify_manifest(release_dir: Path) -> list[FileProblem]:
    """Every missing, extra or altered file of the release (empty when it is intact)."""
    path = release_dir / MANIFEST
    try:
        listed: dict[str, str] = json.loads(path.read_text())["files"]
    except (OSError, ValueError, KeyError, TypeError) as err:
        return [FileProblem(MANIFEST, "unreadable manifest", f"{path}: {err}")]
    present = set(release_files(release_dir))
    problems = [FileProblem(rel, "missing") for rel in sorted(set(listed) - present)]
    problems += [FileProblem(rel, "extra") for rel in sorted(present - set(listed))]
    for rel in sorted(present & set(listed)):
        actual = sha256_file(release_dir / rel)
        if actual != listed[rel]:
            problems.append(FileProblem(rel, "sha256 mismatch", listed[rel], actual))
    return problems
