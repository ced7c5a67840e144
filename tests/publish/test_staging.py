"""Publishing is atomic end to end: a staging folder left by a crash (``releases/.v1.xxxx``)
is never taken for a release and is cleaned up; version names are validated."""

from __future__ import annotations

import fcntl
import os
import shutil
from types import SimpleNamespace

import dagster as dg
import pytest
from typer.testing import CliRunner

from pipeline.publish import publish_release
from pipeline.publish.changelog import previous_release
from pipeline.publish.release import InvalidVersion, clean_staging, validate_version
from pipeline.publish.versions import latest_release, next_version


@pytest.fixture
def crashed(validated_sample, tmp_path):
    """``releases/`` holding what a publish of v1 killed between writing its manifest and
    renaming the staging folder leaves: a complete ``.v1.<random>`` folder."""
    scratch = publish_release(
        validated_sample.tasks, validated_sample.drafts, tmp_path / "scratch", "v1"
    )
    releases = tmp_path / "data" / "releases"
    releases.mkdir(parents=True)
    staging = releases / ".v1.k2j4l5m6"
    shutil.move(scratch, staging)
    assert (staging / "MANIFEST.json").exists()
    return releases, staging


def test_a_staging_folder_is_never_the_latest_or_previous_release(crashed):
    releases, staging = crashed
    assert latest_release(releases) is None
    assert next_version(releases) == "v1"
    assert previous_release(releases, "v2") is None


def test_the_next_publish_of_v1_succeeds_and_removes_the_staging_folder(crashed, validated_sample):
    releases, staging = crashed
    target = publish_release(validated_sample.tasks, validated_sample.drafts, releases, "v1")
    assert target == releases / "v1"
    assert not staging.exists()
    assert sorted(p.name for p in releases.iterdir() if p.is_dir()) == ["v1"]


def test_staging_of_a_later_version_is_ignored_next_to_a_real_release(crashed, validated_sample):
    releases, staging = crashed
    v1 = publish_release(validated_sample.tasks, validated_sample.drafts, releases, "v1")
    left = releases / ".v2.abcdefgh"
    shutil.copytree(v1, left)
    assert latest_release(releases) == v1
    assert previous_release(releases, "v3") == v1
    assert next_version(releases) == "v2"


def test_clean_staging_removes_only_staging_folders(crashed):
    releases, staging = crashed
    other_staging = releases / ".2026.11.0.a_b9c8d7"
    other_staging.mkdir()
    (other_staging / "oracles").mkdir()
    (other_staging / "oracles").chmod(0o555)
    keep = [releases / ".not-staging", releases / "v7", releases / ".hidden.txt"]
    keep[0].mkdir()
    keep[1].mkdir()
    keep[2].write_text("x")
    removed = clean_staging(releases)
    assert sorted(p.name for p in removed) == sorted([staging.name, other_staging.name])
    assert not staging.exists() and not other_staging.exists()
    assert all(p.exists() for p in keep)


def test_a_live_publishers_staging_folder_is_left_alone(crashed):
    releases, staging = crashed
    fd = os.open(releases, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # another publisher is at work
        assert clean_staging(releases) == []
        assert latest_release(releases) is None
        assert staging.exists()
    finally:
        os.close(fd)
    assert clean_staging(releases) == [staging]


def test_the_release_asset_publishes_v1_after_a_crash(crashed, validated_sample):
    from assets.release import release
    from assets.resources import LedgerForge
    from pipeline.config import data_paths
    from pipeline.store import Warehouse

    releases, staging = crashed
    root = releases.parent
    wh = Warehouse(data_paths(root))
    wh.replace("tasks", validated_sample.tasks)
    wh.replace("drafts", validated_sample.drafts)
    result = dg.materialize([release], resources={"lf": LedgerForge(data_root=str(root))})
    assert result.success
    metadata = result.asset_materializations_for_node("release")[0].metadata
    assert metadata["version"].value == "v1"
    assert metadata["new_release"].value is True
    assert (releases / "v1" / "MANIFEST.json").exists()
    assert not staging.exists()


def test_build_prints_the_real_release_not_a_staging_folder(crashed, monkeypatch):
    from pipeline import cli

    releases, staging = crashed
    monkeypatch.setattr(cli.subprocess, "run", lambda *a, **k: SimpleNamespace(returncode=0))
    result = CliRunner().invoke(cli.app, ["build", "--data-root", str(releases.parent)])
    assert result.exit_code == 0, result.output
    assert ".v1." not in result.output
    assert "release:" not in result.output  # nothing is published yet


BAD_VERSIONS = [
    "",
    " ",
    "  v1",
    "v1 ",
    "v 1",
    "v1\n",
    "v1\nv2",
    "\t",
    ".",
    "..",
    ".v1",
    "v1/..",
    "a/b",
    "a\\b",
    "-v1",
    "v1..2",
    "v1.",
    "v1.lock",
    "v1\x00",
    "v1\u00a0",
    "v\u0131",
    "x" * 200,
    None,
    1,
]


@pytest.mark.parametrize("version", BAD_VERSIONS, ids=repr)
def test_invalid_version_names_are_refused(version, validated_sample, tmp_path):
    with pytest.raises(InvalidVersion):
        validate_version(version)
    releases = tmp_path / "releases"
    with pytest.raises(InvalidVersion):
        publish_release(validated_sample.tasks, validated_sample.drafts, releases, version)
    assert not releases.exists() or not any(releases.iterdir())


@pytest.mark.parametrize("version", ["v1", "v12", "2026.11.0", "1.0", "2026.1", "v2-rc1", "v3_b"])
def test_valid_version_names_pass(version):
    assert validate_version(version) == version


def test_the_release_command_refuses_a_bad_version_in_one_line(data_root, validated_sample):
    from pipeline import cli
    from pipeline.store import Warehouse

    wh = Warehouse(data_root)
    wh.replace("tasks", validated_sample.tasks)
    wh.replace("drafts", validated_sample.drafts)
    result = CliRunner().invoke(cli.app, ["release", "v1\nv2", "--data-root", str(data_root.root)])
    assert result.exit_code == 1
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "not a valid release version" in result.output
    assert "Traceback" not in result.output
    assert not data_root.releases.exists() or not any(
        p for p in data_root.releases.iterdir() if p.is_dir()
    )


def test_a_failed_publish_leaves_no_staging_folder(validated_sample, tmp_path, monkeypatch):
    from pipeline.publish import release as release_module

    def fail(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(release_module, "write_manifest", fail)
    releases = tmp_path / "releases"
    with pytest.raises(OSError, match="disk full"):
        publish_release(validated_sample.tasks, validated_sample.drafts, releases, "v1")
    assert [p.name for p in releases.iterdir() if p.is_dir()] == []
    assert os.listdir(releases) == []
