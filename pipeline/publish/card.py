"""The dataset card ``README.md``: Hugging Face YAML header, then how the data was made."""

from __future__ import annotations

import polars as pl
import yaml

CONFIGS = [
    {
        "config_name": "qa",
        "data_files": [{"split": "test", "path": "data/qa/test.parquet"}],
        "default": True,
    },
    {
        "config_name": "qa_examples",
        "data_files": [{"split": "dev", "path": "data/qa_examples/dev.parquet"}],
    },
]
WORKFLOWS_CONFIG = {
    "config_name": "workflows",
    "data_files": [{"split": "test", "path": "data/workflows/test.parquet"}],
}

CITATION = """@misc{{ledgerforge_{slug},
  title  = {{{title}}},
  note   = {{Release {version}; oracle-backed tasks over scanned finance statements}},
  year   = {{2026}}
}}"""


def _counts_table(frame: pl.DataFrame, by: str) -> str:
    counts = frame.group_by(by).len().sort(by)
    lines = [f"| {by} | tasks |", "|---|---|"]
    lines += [f"| {r[by]} | {r['len']} |" for r in counts.iter_rows(named=True)]
    return "\n".join(lines)


def _workflows_section(workflows: pl.DataFrame | None) -> str:
    if workflows is None:
        return ""
    multi = workflows.filter(pl.col("steps") >= 2).height
    types = workflows.explode("task_types").rename({"task_types": "task_type"})
    return f"""
- `workflows` (split `test`, {workflows.height} tasks, {multi} of them multi-step): Finch-style
  spreadsheet work. Each task gives an instruction written as a colleague would, the input
  workbook (`files/<sha256>.xlsx`), its Finch task types and business type. The checker
  program `oracles/workflows/<task_id>.py` grades an output workbook; the reference
  workbooks are in `private/files/` and `private/workflow_references.parquet`. Tasks come
  from mail threads that state a goal over an attached workbook (*strong*: the revised
  workbook is attached in the thread too; *partial*: otherwise) and from successive
  versions of the same workbook; a multi-step task spans k >= 2 consecutive versions and
  is graded on the final state. Names, e-mail addresses, phone, account and
  social-security-like numbers are scrubbed from every published text; people become
  roles.

{_counts_table(types, "task_type") if types.height else ""}
"""


def dataset_card(
    *,
    version: str,
    title: str,
    license: str,
    public: pl.DataFrame,
    examples: pl.DataFrame,
    tasks: pl.DataFrame,
    n_drafts: int,
    previous: str | None,
    workflows: pl.DataFrame | None = None,
) -> str:
    """The card text. ``tasks`` is every validated draft (accepted and rejected);
    ``workflows`` the published workflow tasks (``WORKFLOW_PUBLIC_SCHEMA``), if any."""
    header = {
        "license": license,
        "pretty_name": title,
        "language": ["en"],
        "task_categories": ["question-answering", "table-question-answering"],
        "tags": ["finance", "tables", "ocr", "benchmark", "oracle-verified"],
        "configs": CONFIGS + ([WORKFLOWS_CONFIG] if workflows is not None else []),
    }
    released = pl.concat([public.select("kind", "quality"), examples.select("kind", "quality")])
    rejected = tasks.filter(pl.col("status") == "rejected")
    rules = (
        rejected.select(
            pl.col("reasons").list.eval(pl.element().str.extract(r"^([a-z_]+)")).list.unique()
        )
        .explode("reasons", empty_as_null=True)
        .drop_nulls()
        .group_by("reasons")
        .len()
        .sort("reasons")
    )
    rule_lines = "\n".join(f"| {r['reasons']} | {r['len']} |" for r in rules.iter_rows(named=True))
    slug = version.replace(".", "_").replace("-", "_")
    since = f"`{previous}`" if previous else "nothing (first release)"
    body = f"""
# {title} — release {version}

Question-answering tasks over scanned government finance statements. Every answer key
is computed by a short Python *oracle* program shipped with the release
(`oracles/<task_id>.py`), so anyone can re-derive every key.

## Configurations

- `qa` (split `test`, {public.height} tasks): questions without answers.
- `qa_examples` (split `dev`, {examples.height} tasks): worked examples with their keys,
  acceptance intervals and known-wrong answers.

The keys of `qa` are in `private/qa_answers.parquet` (not a public config). Workbook
tasks (kind `workbook_total`: a cell computed by a SUM, re-added from its members) name
the workbook they read by its file in the release, `files/<sha256>.xlsx`.
{_workflows_section(workflows)}
```python
from datasets import load_dataset
qa = load_dataset("parquet", data_files={{"test": "data/qa/test.parquet"}})
```

## How the data was built

1. Scanned statement volumes are rendered, OCR'd (tesseract) and their tables rebuilt
   from word boxes: titles, unit lines, row labels, column headers, parsed numbers.
2. Each table's printed totals are checked; a number is usable only when a total of its
   table confirms it (a printed number that contradicts its total is replaced by the
   value the total implies).
3. A deterministic template drafter writes one task per candidate and kind (read one
   number, sum of rows, difference, change between periods, share of a total, percent
   change or excess, a statistic over several years) with its oracle program and the
   known-wrong answers a careless reader would give (misread digit, adjacent row or
   column, other base, flipped sign, printed-vs-total, earlier unrevised printing).
   Where a figure was revised in a later volume, the key is the latest revision.

## How it was validated

Every oracle ran in a sandbox (import allow-list, CPU, memory and time limits, no
network, read-only data). A draft was rejected when it had no oracle, the oracle failed,
it had no known-wrong answers, a known-wrong answer fell inside the acceptance interval,
the key fell outside its own interval, it duplicated another task, its key is printed
verbatim anywhere in the archive, or it read a number its table's totals do not confirm.
{n_drafts} drafts, {tasks.filter(pl.col("status") == "accepted").height} accepted.

| rejection rule | drafts |
|---|---|
{rule_lines}

## Counts

{_counts_table(released, "kind")}

{_counts_table(released, "quality")}

## Answer format and grading

Each task states its unit and precision. The acceptance interval is as narrow as the
precision asks (half a unit of the last requested place each side). A response passes
when its one extracted number lies inside the interval.

## Integrity

`MANIFEST.json` holds the sha256 of every file; `CHANGELOG.md` and `changelog.parquet`
list the answer keys added, removed or changed since {since}.
`ledgerforge audit <release>` reruns every oracle and reports any key that changed.

## Citation

```bibtex
{CITATION.format(slug=slug, title=title, version=version)}
```
"""
    return "---\n" + yaml.safe_dump(header, sort_keys=False) + "---\n" + body
