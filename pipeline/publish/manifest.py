"""``MANIFEST.json``: the sha256 of every file of a release, and its verification.

A manifest is ``{"version": <release version>, "algorithm": "sha256", "files": {<path>:
<64 lower-case hex digits>}}`` and nothing else. Verification checks the manifest's own
fields as well as every file: the algorithm, the version (a valid version name, the one
the hashed card and changelog state, and the folder's name inside a ``releases/``
folder), that every path is a plain relative path inside the release, and that the
release holds only real folders and regular files: a symbolic link (to a file or a
folder, even with the same bytes) or any other kind of file (FIFO, device, socket) is a
problem of its own and is never read.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from pipeline.publish.naming import version_problem

MANIFEST = "MANIFEST.json"
ALGORITHM = "sha256"
MANIFEST_FIELDS = frozenset({"version", "algorithm", "files"})
_DIGEST = re.compile(r"[0-9a-f]{64}")
# Where the version is stated inside hashed files (the card's title, the changelog's).
_STATED_VERSION = {
    "CHANGELOG.md": re.compile(r"^# Changelog of answer keys: (.+)$", re.MULTILINE),
    "README.md": re.compile(r"^# .* — release (.+)$", re.MULTILINE),
}


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


@dataclass(frozen=True)
class FileProblem:
    """One file that does not match the manifest, or a problem of the manifest itself."""

    path: str
    # missing | extra | sha256 mismatch | unreadable manifest | bad manifest |
    # symbolic link | not a regular file | unreadable
    problem: str
    expected: str = ""
    actual: str = ""

    def __str__(self) -> str:
        if self.problem == "sha256 mismatch":
            return f"{self.path}: sha256 mismatch (manifest {self.expected}, file {self.actual})"
        return f"{self.path}: {self.problem}" + (f" ({self.expected})" if self.expected else "")


@dataclass
class ReleaseScan:
    """What a release folder holds, found without following any link."""

    files: list[str]  # regular files, sorted POSIX relative paths (the manifest included)
    problems: list[FileProblem]  # links and entries that are not regular files or folders


def scan_release(release_dir: Path) -> ReleaseScan:
    """Walk ``release_dir`` without following links (never opening anything)."""
    release_dir = Path(release_dir)
    files: list[str] = []
    problems: list[FileProblem] = []
    todo = [""]
    while todo:
        rel_dir = todo.pop()
        try:
            entries = list(os.scandir(release_dir / rel_dir if rel_dir else release_dir))
        except OSError as err:
            problems.append(FileProblem(rel_dir or ".", "unreadable", str(err)))
            continue
        for entry in entries:
            rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
            try:
                mode = entry.stat(follow_symlinks=False).st_mode
            except OSError as err:
                problems.append(FileProblem(rel, "unreadable", str(err)))
                continue
            if stat.S_ISLNK(mode):
                problems.append(FileProblem(rel, "symbolic link", _link_target(entry.path)))
            elif stat.S_ISDIR(mode):
                todo.append(rel)
            elif stat.S_ISREG(mode):
                files.append(rel)
            else:
                problems.append(FileProblem(rel, "not a regular file", _kind(mode)))
    return ReleaseScan(sorted(files), sorted(problems, key=lambda p: p.path))


def _link_target(path: str) -> str:
    try:
        return f"-> {os.readlink(path)}"
    except OSError:
        return ""


def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISFIFO, "FIFO"),
        (stat.S_ISSOCK, "socket"),
        (stat.S_ISCHR, "character device"),
        (stat.S_ISBLK, "block device"),
    ):
        if test(mode):
            return name
    return "unknown kind"


def release_files(release_dir: Path) -> list[str]:
    """Every regular file of the release except its top-level manifest, as sorted POSIX
    relative paths (links and other non-regular entries are never listed)."""
    return [rel for rel in scan_release(release_dir).files if rel != MANIFEST]


def write_manifest(release_dir: Path, version: str) -> dict:
    """Hash every file and write ``MANIFEST.json``; return its content."""
    manifest = {
        "version": version,
        "algorithm": ALGORITHM,
        "files": {rel: sha256_file(release_dir / rel) for rel in release_files(release_dir)},
    }
    (release_dir / MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    return manifest


def _path_problem(rel: object) -> str | None:
    if not isinstance(rel, str) or not rel:
        return "not a path"
    if rel.startswith("/") or "\\" in rel or "\x00" in rel:
        return "not a relative POSIX path"
    parts = rel.split("/")
    if any(p in ("", ".", "..") for p in parts):
        return "not a plain path inside the release"
    if rel == MANIFEST:
        return "the manifest cannot list itself"
    return None


def _read_manifest(release_dir: Path, scan: ReleaseScan) -> tuple[dict | None, list[FileProblem]]:
    """The manifest's content and every problem of its own fields."""
    path = release_dir / MANIFEST
    if any(p.path == MANIFEST for p in scan.problems):
        return None, []  # a link or not a regular file: already reported, never read
    if MANIFEST not in scan.files:
        return None, [FileProblem(MANIFEST, "unreadable manifest", f"{path}: no such file")]
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        return None, [FileProblem(MANIFEST, "unreadable manifest", f"{path}: {err}")]
    if not isinstance(manifest, dict):
        return None, [FileProblem(MANIFEST, "bad manifest", "not a JSON object")]
    problems: list[str] = []
    fields = set(manifest)
    if fields != MANIFEST_FIELDS:
        missing, extra = sorted(MANIFEST_FIELDS - fields), sorted(fields - MANIFEST_FIELDS)
        problems.append(f"field(s) missing {missing}, unknown {extra}")
    if manifest.get("algorithm") != ALGORITHM:
        problems.append(f"algorithm {manifest.get('algorithm')!r}, not {ALGORITHM!r}")
    problems += _version_problems(release_dir, scan, manifest.get("version"))
    files = manifest.get("files")
    if not isinstance(files, dict):
        problems.append("files is not an object of path -> sha256")
        files = {}
    for rel, digest in files.items():
        why = _path_problem(rel)
        if why is not None:
            problems.append(f"files lists {rel!r}: {why}")
        elif not isinstance(digest, str) or not _DIGEST.fullmatch(digest):
            problems.append(f"files gives {rel!r} a malformed sha256 {digest!r}")
    manifest["files"] = {
        rel: d
        for rel, d in files.items()
        if _path_problem(rel) is None and isinstance(d, str) and _DIGEST.fullmatch(d)
    }
    bad = [FileProblem(MANIFEST, "bad manifest", "; ".join(problems))] if problems else []
    return manifest, bad


def _version_problems(release_dir: Path, scan: ReleaseScan, version: object) -> list[str]:
    problem = version_problem(version)
    if problem is not None:
        return [f"version {version!r}: {problem}"]
    found = []
    if release_dir.resolve().parent.name == "releases" and release_dir.resolve().name != version:
        found.append(f"version {version!r}, but the release folder is {release_dir.name!r}")
    for rel, pattern in _STATED_VERSION.items():
        if rel not in scan.files:
            continue  # reported as missing against the manifest
        try:
            text = (release_dir / rel).read_text(encoding="utf-8")
        except (OSError, ValueError):
            continue  # its sha256 is checked; an unreadable card is not a version problem
        stated = pattern.search(text)
        if stated is None:
            found.append(f"{rel} does not state the release version")
        elif stated.group(1).strip() != version:
            found.append(f"version {version!r}, but {rel} states {stated.group(1).strip()!r}")
    return found


def read_manifest(release_dir: Path) -> dict:
    """The manifest's content, checked: ``ValueError`` naming every problem otherwise."""
    release_dir = Path(release_dir)
    scan = scan_release(release_dir)
    manifest, problems = _read_manifest(release_dir, scan)
    problems += [p for p in scan.problems if p.path == MANIFEST]
    if manifest is None or problems:
        detail = "; ".join(str(p) for p in problems) or "unreadable"
        raise ValueError(f"{release_dir / MANIFEST}: {detail}")
    return manifest


def verify_manifest(release_dir: Path, scan: ReleaseScan | None = None) -> list[FileProblem]:
    """Every missing, extra, altered, linked or odd file of the release and every problem
    of the manifest's own fields (empty when the release is intact)."""
    release_dir = Path(release_dir)
    scan = scan or scan_release(release_dir)
    manifest, problems = _read_manifest(release_dir, scan)
    problems = list(scan.problems) + problems
    if manifest is None:
        return problems
    listed: dict[str, str] = manifest["files"]
    present = {rel for rel in scan.files if rel != MANIFEST}
    odd = {p.path for p in scan.problems}  # links and the like: reported, never read

    def under_odd(rel: str) -> bool:
        return rel in odd or any(rel.startswith(f"{o}/") for o in odd)

    problems += [
        FileProblem(rel, "missing") for rel in sorted(set(listed) - present) if not under_odd(rel)
    ]
    problems += [FileProblem(rel, "extra") for rel in sorted(present - set(listed))]
    for rel in sorted(present & set(listed)):
        try:
            actual = sha256_file(release_dir / rel)
        except OSError as err:
            problems.append(FileProblem(rel, "unreadable", str(err)))
            continue
        if actual != listed[rel]:
            problems.append(FileProblem(rel, "sha256 mismatch", listed[rel], actual))
    return problems
