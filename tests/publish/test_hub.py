"""push_release against a fake HfApi: no network, token only from the argument or HF_TOKEN."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from pipeline.publish import HubTokenMissing, publish_release, push_release
from pipeline.publish import hub as hub_module


class FakeHfApi:
    calls: list = []

    def __init__(self, token=None):
        FakeHfApi.calls.append(("init", token))

    def create_repo(self, repo_id, **kwargs):
        FakeHfApi.calls.append(("create_repo", repo_id, kwargs))

    def upload_folder(self, **kwargs):
        FakeHfApi.calls.append(("upload_folder", kwargs))
        return SimpleNamespace(
            oid="abc123", commit_url=f"https://hf.co/datasets/{kwargs['repo_id']}/commit/abc123"
        )

    def create_tag(self, repo_id, **kwargs):
        FakeHfApi.calls.append(("create_tag", repo_id, kwargs))


@pytest.fixture
def release(validated_sample, tmp_path):
    return publish_release(validated_sample.tasks, validated_sample.drafts, tmp_path, "2026.1")


def test_push_uploads_public_files_and_tags_the_version(release, monkeypatch):
    FakeHfApi.calls = []
    monkeypatch.setattr(hub_module, "HfApi", FakeHfApi)
    monkeypatch.setenv("HF_TOKEN", "hf_env_token")
    url = push_release(release, "org/ledgerforge-qa")
    assert url.endswith("/commit/abc123")
    names = [c[0] for c in FakeHfApi.calls]
    assert names == ["init", "create_repo", "upload_folder", "create_tag"]
    assert FakeHfApi.calls[0] == ("init", "hf_env_token")
    upload = FakeHfApi.calls[2][1]
    assert upload["repo_type"] == "dataset" and upload["ignore_patterns"] == ["private/*"]
    assert upload["folder_path"] == str(release)
    assert FakeHfApi.calls[3][2]["tag"] == "2026.1"


def test_push_without_a_token_refuses(release, monkeypatch):
    monkeypatch.setattr(hub_module, "HfApi", FakeHfApi)
    monkeypatch.delenv("HF_TOKEN", raising=False)
    with pytest.raises(HubTokenMissing, match="HF_TOKEN"):
        push_release(release, "org/ledgerforge-qa")


def test_push_refuses_a_tampered_release(release, monkeypatch):
    monkeypatch.setattr(hub_module, "HfApi", FakeHfApi)
    (release / "README.md").write_text("changed")
    with pytest.raises(ValueError, match="README.md"):
        push_release(release, "org/ledgerforge-qa", token="hf_arg")
