"""Content-addressed blob store: ``<root>/sha256/ab/cd/<sha256>``.

Tables hold the hash, never the bytes. The root is an fsspec URL so the same code
writes to a local folder today and to object storage later.
"""

from __future__ import annotations

import hashlib
import os
import uuid
from pathlib import Path

import fsspec

CHUNK_BYTES = 1 << 20


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class BlobStore:
    """Put and get raw bytes by their sha256."""

    def __init__(self, url: str):
        self.url = url.rstrip("/")
        self.fs, self.root = fsspec.core.url_to_fs(self.url)

    def key(self, sha: str) -> str:
        return f"{self.root}/sha256/{sha[:2]}/{sha[2:4]}/{sha}"

    def exists(self, sha: str) -> bool:
        return self.fs.exists(self.key(sha))

    def put(self, data: bytes) -> str:
        """Store bytes (idempotent) and return their sha256."""
        sha = sha256_bytes(data)
        path = self.key(sha)
        if not self.fs.exists(path):
            self.fs.makedirs(path.rsplit("/", 1)[0], exist_ok=True)
            tmp = f"{path}.tmp"
            with self.fs.open(tmp, "wb") as fh:
                fh.write(data)
            self.fs.mv(tmp, path)
        return sha

    def put_file(self, path: str | Path, sha: str | None = None) -> str:
        """Store a local file's bytes, streamed in chunks (idempotent); return their sha256.

        With ``sha`` (the hash the caller already knows), nothing is copied when the blob
        exists, and bytes that hash otherwise are refused (``ValueError``), never stored.
        """
        if sha is not None and self.exists(sha):
            return sha
        digest = hashlib.sha256()
        tmp = f"{self.root}/tmp/{uuid.uuid4().hex}-{os.getpid()}"
        self.fs.makedirs(tmp.rsplit("/", 1)[0], exist_ok=True)
        try:
            with open(path, "rb") as src, self.fs.open(tmp, "wb") as out:
                while chunk := src.read(CHUNK_BYTES):
                    digest.update(chunk)
                    out.write(chunk)
            got = digest.hexdigest()
            if sha is not None and got != sha:
                raise ValueError(f"{path}: bytes hash to {got}, not {sha}")
            key = self.key(got)
            if not self.fs.exists(key):
                self.fs.makedirs(key.rsplit("/", 1)[0], exist_ok=True)
                self.fs.mv(tmp, key)
        finally:
            if self.fs.exists(tmp):
                self.fs.rm(tmp)
        return got

    def link_key(self, kind: str, sha: str) -> str:
        return f"{self.root}/links/{kind}/{sha[:2]}/{sha}"

    def link(self, kind: str, sha: str, target: str) -> None:
        """Record that blob ``target`` is the ``kind`` of blob ``sha`` (e.g. the .xlsx
        LibreOffice made of an .xls), so derived bytes are made once per original."""
        path = self.link_key(kind, sha)
        self.fs.makedirs(path.rsplit("/", 1)[0], exist_ok=True)
        with self.fs.open(path, "w") as fh:
            fh.write(target)

    def linked(self, kind: str, sha: str) -> str | None:
        """The blob recorded as the ``kind`` of ``sha``, if it is still stored; else None."""
        path = self.link_key(kind, sha)
        if not self.fs.exists(path):
            return None
        with self.fs.open(path, "r") as fh:
            target = fh.read().strip()
        return target if target and self.exists(target) else None

    def get(self, sha: str) -> bytes:
        with self.fs.open(self.key(sha), "rb") as fh:
            return fh.read()

    def local_path(self, sha: str) -> str:
        """A path a subprocess can open (local stores only)."""
        if self.fs.protocol not in ("file", ("file", "local")) and "file" not in self.fs.protocol:
            raise ValueError(f"blob store {self.url} is not local; fetch bytes with get()")
        return self.key(sha)
