"""What the documents stage must say about each kind of the malformed corpus, and a way
to make its locked folder unreadable when the tests run as root (plain helpers)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pipeline.ingest import scans
from pipeline.synth.malformed import MalformedCase

# kind -> a phrase its quarantine reason must hold
REASON_WORDS = {
    "zero_bytes": "zero-byte file",
    "wrong_magic": "not a PDF",
    "truncated": "truncated",
    "encrypted": "encrypted PDF",
    "zero_pages": "zero pages",
    "huge_page": "absurd page size",
    "huge_image": "huge image",
    "pdf_bomb": "decompression bomb",
    "form_bomb": "form fan-out bomb",
    "too_many_pages": "too many pages",
    "page_tree_cycle": "page tree",
    "javascript": "active content",
    "embedded_files": "active content: embedded files",
    "corrupt": "corrupt PDF",
    "symlink_loop": "symlink loop",
    "dangling_symlink": "dangling symlink",
    "device_link": "character device",
    "fifo": "FIFO",
    "socket": "socket",
    "directory": "directory",
    "unreadable_folder": "unreadable folder",
    "duplicate": "duplicate of",
    "too_large": "file too large",
}
# entries whose kind is their name, not their content: what their content earns them
BY_CONTENT = {"non_utf8_name": "zero-byte file", "odd_name": ("zero-byte file", "not a PDF")}


def reason_words(case: MalformedCase) -> tuple[str, ...]:
    words = BY_CONTENT.get(case.kind) or REASON_WORDS[case.kind]
    return (words,) if isinstance(words, str) else words


def lock_folder(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    """Make listing ``folder`` fail as it does for a user without read permission (a no-op
    when the folder's mode 000 already does that, i.e. when not running as root)."""
    if not os.access(folder, os.R_OK | os.X_OK):
        return
    list_dir = scans._list_dir

    def denied(path):
        if Path(path) == folder:
            raise PermissionError(13, "Permission denied", str(path))
        return list_dir(path)

    monkeypatch.setattr(scans, "_list_dir", denied)
