"""Releases: publish, audit, and push to the Hub.

Names load on first use (PEP 562): ``pipeline.publish.schemas`` is a contract that the
draft and validate stages import, and eager imports here would make that circular.
"""

from __future__ import annotations

from importlib import import_module

_EXPORTS = {
    "AuditReport": "audit",
    "KeyChange": "audit",
    "audit_release": "audit",
    "HubPushError": "hub",
    "HubTokenMissing": "hub",
    "push_release": "hub",
    "FileProblem": "manifest",
    "verify_manifest": "manifest",
    "InvalidVersion": "naming",
    "validate_version": "naming",
    "ReleaseExists": "release",
    "clean_staging": "release",
    "is_example": "release",
    "publish_release": "release",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> object:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'pipeline.publish' has no attribute {name!r}")
    return getattr(import_module(f"pipeline.publish.{_EXPORTS[name]}"), name)
