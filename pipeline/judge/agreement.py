"""Agreement of a judge with human labels: accuracy, precision and recall, PASS as the
positive class; labels read from CSV or JSONL."""

from __future__ import annotations

import csv
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import polars as pl

_LABEL_WORDS = {
    "pass": True, "passed": True, "true": True, "1": True, "yes": True, "correct": True,
    "fail": False, "failed": False, "false": False, "0": False, "no": False, "incorrect": False,
}  # fmt: skip


def _label(value: object, where: str) -> bool:
    if isinstance(value, bool):
        return value
    key = str(value).strip().casefold()
    if key not in _LABEL_WORDS:
        raise ValueError(f"{where}: label {value!r} is not pass/fail")
    return _LABEL_WORDS[key]


def load_human_labels(path: str | Path) -> dict[str, bool]:
    """Human pass/fail labels from CSV (columns ``case_id,label``) or JSONL.

    Labels may be pass/fail, true/false, 1/0, yes/no, correct/incorrect. A
    malformed row raises naming the file and line.
    """
    path = Path(path)
    labels: dict[str, bool] = {}
    if path.suffix in (".jsonl", ".json"):
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if not line.strip():
                continue
            item = json.loads(line)
            where = f"{path}:{n}"
            if "case_id" not in item or "label" not in item:
                raise ValueError(f"{where}: needs case_id and label")
            labels[str(item["case_id"])] = _label(item["label"], where)
        return labels
    with path.open(newline="") as fh:
        reader = csv.DictReader(fh)
        if not reader.fieldnames or not {"case_id", "label"} <= set(reader.fieldnames):
            raise ValueError(f"{path}: CSV needs columns case_id and label")
        for n, row in enumerate(reader, 2):
            labels[str(row["case_id"])] = _label(row["label"], f"{path}:{n}")
    return labels


@dataclass(frozen=True)
class Agreement:
    """Judge vs human labels, PASS as the positive class."""

    n: int
    tp: int
    fp: int
    fn: int
    tn: int
    undecided: int  # labelled cases the judge gave no verdict
    unlabelled: int  # judged cases without a human label
    missing: int  # labelled cases the judge never saw

    @property
    def accuracy(self) -> float | None:
        return (self.tp + self.tn) / self.n if self.n else None

    @property
    def precision(self) -> float | None:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else None

    @property
    def recall(self) -> float | None:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else None


def agreement(
    verdicts: Mapping[str, bool | None] | pl.DataFrame, labels: Mapping[str, bool]
) -> Agreement:
    """Accuracy, precision and recall of the judge's verdicts against human labels."""
    if isinstance(verdicts, pl.DataFrame):
        verdicts = dict(zip(verdicts["case_id"], verdicts["verdict"], strict=True))
    tp = fp = fn = tn = undecided = missing = 0
    for case_id, human in labels.items():
        if case_id not in verdicts:
            missing += 1
            continue
        judged = verdicts[case_id]
        if judged is None:
            undecided += 1
        elif judged and human:
            tp += 1
        elif judged:
            fp += 1
        elif human:
            fn += 1
        else:
            tn += 1
    unlabelled = sum(1 for c in verdicts if c not in labels)
    return Agreement(tp + fp + fn + tn, tp, fp, fn, tn, undecided, unlabelled, missing)


def _figure(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def agreement_markdown(results: Mapping[str, Agreement], labels_name: str = "labels") -> str:
    """One table row per judge backend: accuracy, recall, precision and the counts."""
    lines = [
        f"# Judge agreement with {labels_name}",
        "",
        "PASS is the positive class; undecided = labelled cases the judge gave no verdict "
        "(errors included), missing = labelled cases not judged.",
        "",
        "| judge | n | accuracy | recall | precision | tp | fp | fn | tn | undecided | missing |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, a in results.items():
        lines.append(
            f"| {name} | {a.n} | {_figure(a.accuracy)} | {_figure(a.recall)} | "
            f"{_figure(a.precision)} | {a.tp} | {a.fp} | {a.fn} | {a.tn} | {a.undecided} | "
            f"{a.missing} |"
        )
    return "\n".join(lines) + "\n"


def agreement_record(a: Agreement) -> dict:
    """The figures of an agreement as a JSON-ready dict."""
    return {
        "n": a.n,
        "accuracy": a.accuracy,
        "recall": a.recall,
        "precision": a.precision,
        "tp": a.tp,
        "fp": a.fp,
        "fn": a.fn,
        "tn": a.tn,
        "undecided": a.undecided,
        "unlabelled": a.unlabelled,
        "missing": a.missing,
    }
