"""Publishing: layout, Hugging Face loading, immutability, examples, changelog, card."""

from __future__ import annotations

import json

import datasets
import polars as pl
import pytest
import yaml

from pipeline.publish import ReleaseExists, is_example, publish_release, verify_manifest
from pipeline.publish.schemas import QA_ANSWER_SCHEMA, QA_PUBLIC_SCHEMA


@pytest.fixture(scope="module")
def release(validated_sample, tmp_path_factory):
    releases = tmp_path_factory.mktemp("releases")
    path = publish_release(validated_sample.tasks, validated_sample.drafts, releases, "v1")
    return path


def test_layout_and_manifest(release, validated_sample):
    accepted = validated_sample.tasks.filter(pl.col("status") == "accepted")
    test = pl.read_parquet(release / "data/qa/test.parquet")
    dev = pl.read_parquet(release / "data/qa_examples/dev.parquet")
    answers = pl.read_parquet(release / "private/qa_answers.parquet")
    assert test.columns == list(QA_PUBLIC_SCHEMA)
    assert "answer" not in test.columns
    assert dev.columns == list(QA_PUBLIC_SCHEMA) + [c for c in QA_ANSWER_SCHEMA if c != "task_id"]
    assert answers.columns == list(QA_ANSWER_SCHEMA)
    assert sorted(test["task_id"]) == sorted(answers["task_id"])
    assert test.height + dev.height == accepted.height
    assert {p.stem for p in (release / "oracles").glob("*.py")} == set(accepted["task_id"])
    manifest = json.loads((release / "MANIFEST.json").read_text())
    assert manifest["version"] == "v1"
    assert "README.md" in manifest["files"] and "oracles" not in manifest["files"]
    assert len(manifest["files"]) == accepted.height + 6  # oracles + 3 parquet + card + 2 changelog
    assert verify_manifest(release) == []
    # keys in the release are the oracle keys
    keyed = answers.join(accepted.select("task_id", "answer"), on="task_id", suffix="_task")
    assert (keyed["answer"] == keyed["answer_task"]).all()


def test_examples_are_a_small_stable_share(release):
    dev = pl.read_parquet(release / "data/qa_examples/dev.parquet")
    test = pl.read_parquet(release / "data/qa/test.parquet")
    assert all(is_example(t) for t in dev["task_id"])
    assert not any(is_example(t) for t in test["task_id"])
    share = sum(is_example(f"{n:016x}") for n in range(5_000)) / 5_000
    assert 0.08 < share < 0.12


def test_each_config_loads_with_datasets(release, tmp_path):
    card = (release / "README.md").read_text()
    header = yaml.safe_load(card.split("---\n")[1])
    assert header["license"] and header["configs"]
    loaded = {}
    for config in header["configs"]:
        files = {f["split"]: str(release / f["path"]) for f in config["data_files"]}
        ds = datasets.load_dataset("parquet", data_files=files, cache_dir=str(tmp_path / "hf"))
        loaded[config["config_name"]] = ds
    test = pl.read_parquet(release / "data/qa/test.parquet")
    assert loaded["qa"]["test"].num_rows == test.height
    assert set(loaded["qa"]["test"].column_names) == set(QA_PUBLIC_SCHEMA)
    assert "answer" in loaded["qa_examples"]["dev"].column_names
    assert "@misc" in card and "How it was validated" in card


def test_publishing_onto_an_existing_version_refuses(release, validated_sample):
    before = (release / "MANIFEST.json").read_text()
    with pytest.raises(ReleaseExists, match="immutable"):
        publish_release(validated_sample.tasks, validated_sample.drafts, release.parent, "v1")
    assert (release / "MANIFEST.json").read_text() == before
    assert not [p for p in release.parent.iterdir() if p.name.startswith(".")]


def test_changelog_against_the_previous_release(release, validated_sample):
    tasks = validated_sample.tasks
    accepted = tasks.filter(pl.col("status") == "accepted")
    first_id, second_id = accepted["task_id"][0], accepted["task_id"][1]
    new_key = str(int(accepted["answer"][1].split(".")[0]) + 1)
    changed = tasks.with_columns(
        pl.when(pl.col("task_id") == first_id)
        .then(pl.lit("rejected"))
        .otherwise(pl.col("status"))
        .alias("status"),
        pl.when(pl.col("task_id") == second_id)
        .then(pl.lit(new_key))
        .otherwise(pl.col("answer"))
        .alias("answer"),
    )
    v2 = publish_release(changed, validated_sample.drafts, release.parent, "v2")
    log = pl.read_parquet(v2 / "changelog.parquet")
    assert log.filter(pl.col("change") == "removed")["task_id"].to_list() == [first_id]
    row = log.filter(pl.col("change") == "changed").to_dicts()
    assert row == [
        {
            "task_id": second_id,
            "change": "changed",
            "old_answer": accepted["answer"][1],
            "new_answer": new_key,
        }
    ]
    text = (v2 / "CHANGELOG.md").read_text()
    assert "`v1`" in text and second_id in text and first_id in text
    first = pl.read_parquet(release / "changelog.parquet")
    assert set(first["change"]) == {"added"} and first.height == accepted.height
