"""Clean errors: ``ledgerforge push`` without network, with a bad repo id, a refusing Hub, a
missing token or a tampered release fails with one clear line (no traceback); and the
publish / audit / push path works under a data root whose path holds glob characters."""

from __future__ import annotations

import http.server
import json
import shutil
import socket
import threading
from types import SimpleNamespace

import huggingface_hub.constants
import pytest
from typer.testing import CliRunner

from pipeline.cli import app
from pipeline.publish import audit_release, publish_release
from pipeline.publish import hub as hub_module
from pipeline.publish.versions import latest_release, unchanged_since

runner = CliRunner()


@pytest.fixture
def release(validated_sample, tmp_path):
    return publish_release(validated_sample.tasks, validated_sample.drafts, tmp_path, "2026.1")


def _lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.strip()]


def _assert_one_clear_line(result, *needles: str) -> str:
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    lines = _lines(result.output)
    assert len(lines) == 1, result.output
    assert lines[0].startswith("error: ")
    assert "Traceback" not in result.output
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


@pytest.fixture
def closed_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()  # nothing listens there: connection refused, as without network
    return port


def test_push_without_network_fails_in_one_line(release, monkeypatch, closed_port):
    endpoint = f"http://127.0.0.1:{closed_port}"
    monkeypatch.setattr(huggingface_hub.constants, "ENDPOINT", endpoint)
    monkeypatch.setenv("HF_TOKEN", "hf_sentinel_token")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    result = runner.invoke(app, ["push", str(release), "org/ledgerforge-qa"])
    line = _assert_one_clear_line(result, "cannot reach the Hub", endpoint, "org/ledgerforge-qa")
    assert "hf_sentinel_token" not in result.output and "hf_sentinel_token" not in line


@pytest.mark.parametrize("repo", ["not a repo!!", "org/", "a/b/c", "org/x..y", "org/x" + "y" * 100])
def test_push_to_a_bad_repo_id_fails_in_one_line(release, monkeypatch, repo):
    monkeypatch.setenv("HF_TOKEN", "hf_x")
    result = runner.invoke(app, ["push", str(release), repo])
    _assert_one_clear_line(result, "not a valid Hub repo id")


class _Refusing(http.server.BaseHTTPRequestHandler):
    status = 401

    def _answer(self):
        body = json.dumps({"error": "Invalid credentials in Authorization header"}).encode()
        self.send_response(self.status)
        self.send_header("Content-Type", "application/json")
        self.send_header("X-Error-Message", "Invalid credentials in Authorization header")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = do_PUT = do_HEAD = _answer

    def log_message(self, *args):  # quiet
        pass


@pytest.mark.parametrize(("status", "needle"), [(401, "401"), (403, "403"), (404, "404")])
def test_push_refused_by_the_hub_fails_in_one_line(release, monkeypatch, status, needle):
    handler = type("Handler", (_Refusing,), {"status": status})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        endpoint = f"http://127.0.0.1:{server.server_address[1]}"
        monkeypatch.setattr(huggingface_hub.constants, "ENDPOINT", endpoint)
        monkeypatch.setenv("HF_TOKEN", "hf_x")
        monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
        result = runner.invoke(app, ["push", str(release), "org/ledgerforge-qa"])
    finally:
        server.shutdown()
        server.server_close()
    _assert_one_clear_line(result, needle, "org/ledgerforge-qa")


def test_push_without_a_token_fails_in_one_line(release, monkeypatch):
    monkeypatch.delenv("HF_TOKEN", raising=False)
    result = runner.invoke(app, ["push", str(release), "org/ledgerforge-qa"])
    _assert_one_clear_line(result, "HF_TOKEN")


def test_push_of_a_tampered_release_fails_in_one_line(release, monkeypatch):
    monkeypatch.setenv("HF_TOKEN", "hf_x")
    (release / "README.md").write_text("changed")
    result = runner.invoke(app, ["push", str(release), "org/ledgerforge-qa"])
    _assert_one_clear_line(result, "README.md")


# ------------------------------------------------------------------ glob characters in paths

ODD_ROOTS = ["data[1]", "data[!x]", "data*?", "da[ta] {v1}"]


@pytest.mark.parametrize("name", ODD_ROOTS)
def test_publish_rebuild_and_audit_under_a_glob_like_data_root(validated_sample, tmp_path, name):
    root = tmp_path / name / "inner[0]"
    warehouse = root / "warehouse"
    shutil.copytree(validated_sample.warehouse_dir, warehouse)
    releases = root / "releases"
    v1 = publish_release(validated_sample.tasks, validated_sample.drafts, releases, "v1")
    # a rebuild reads the previous release's keys: changelog and "unchanged" check
    assert latest_release(releases) == v1
    assert unchanged_since(v1, validated_sample.tasks)
    v2 = publish_release(validated_sample.tasks, validated_sample.drafts, releases, "v2")
    assert (
        "No answer key changed" in (v2 / "CHANGELOG.md").read_text()
        or (v2 / "changelog.parquet").exists()
    )
    report = audit_release(v2, warehouse)
    assert report.ok, report.render()


def test_audit_and_push_through_the_cli_under_a_glob_like_data_root(
    validated_sample, tmp_path, monkeypatch
):
    root = tmp_path / "data[1]"
    shutil.copytree(validated_sample.warehouse_dir, root / "warehouse")
    v1 = publish_release(validated_sample.tasks, validated_sample.drafts, root / "releases", "v1")
    clean = runner.invoke(app, ["audit", str(v1), "--data-root", str(root)])
    assert clean.exit_code == 0, clean.output
    assert "OK" in clean.output

    calls = []

    class FakeHfApi:
        endpoint = "https://hub.invalid"

        def __init__(self, token=None):
            pass

        def create_repo(self, repo_id, **kwargs):
            calls.append("create_repo")

        def upload_folder(self, **kwargs):
            calls.append(kwargs["folder_path"])
            return SimpleNamespace(oid="abc", commit_url="https://hub.invalid/commit/abc")

        def create_tag(self, repo_id, **kwargs):
            calls.append(kwargs["tag"])

    monkeypatch.setattr(hub_module, "HfApi", FakeHfApi)
    monkeypatch.setenv("HF_TOKEN", "hf_x")
    pushed = runner.invoke(app, ["push", str(v1), "org/ledgerforge-qa"])
    assert pushed.exit_code == 0, pushed.output
    assert calls == ["create_repo", str(v1), "v1"]
