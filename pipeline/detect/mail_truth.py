"""Scoring threads, version chains and version diffs against the default corpus's
ground truth (``truth.json`` written by pipeline.synth, format in the issue-10
contract, section 5).

* Threads: pairwise precision/recall/F1 over pairs of messages in the same thread,
  keyed by Message-ID (a duplicate copy is the same message, so ``duplicate_of``
  entries are skipped), counted from the contingency of predicted and true threads
  (never by listing pairs).
* Version chains: a link is a consecutive pair (earlier sha256, later sha256) of a
  family; precision over predicted links, recall over true links. A reversed link
  counts as wrong and is reported.
* Edits: every seeded edit of a step (``implied`` edits excluded: consequences
  nobody typed) must appear in ``version_diffs`` at that step with the same sheet,
  kind and address (a cell edit inside a column or row the diff reports as
  inserted counts as found: appending a column is both, and a cell typed into a new
  row has no before); an edit the diff reports
  at a true step that matches no true edit, seeded or implied, is a phantom (the
  cascade a misaligned row insertion would produce).
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl
from openpyxl.utils.cell import column_index_from_string, coordinate_from_string

from pipeline.detect.diffs import CELL_KINDS

THREAD_F1_MIN = 0.95
LINK_PRECISION_MIN = 0.95
LINK_RECALL_MIN = 0.9
MAX_LISTED = 20  # examples kept of each kind of miss


@dataclass
class ThreadScore:
    precision: float
    recall: float
    f1: float
    n_messages: int  # messages scored (in the truth and in the prediction)
    n_true_pairs: int
    n_pred_pairs: int
    n_missing: int  # truth messages the prediction does not have


@dataclass
class ChainScore:
    precision: float
    recall: float
    n_true_links: int
    n_pred_links: int
    n_correct: int
    n_reversed: int
    wrong: list[tuple[str, str]] = field(default_factory=list)
    missed: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class EditScore:
    n_seeded: int
    n_found: int
    n_phantom: int
    n_steps: int  # true steps
    n_steps_diffed: int  # true steps whose (before, after) pair was diffed
    missed: list[dict] = field(default_factory=list)
    phantoms: list[dict] = field(default_factory=list)

    @property
    def recall(self) -> float:
        return self.n_found / self.n_seeded if self.n_seeded else 1.0


@dataclass
class MailTruthScore:
    threads: ThreadScore | None
    chains: ChainScore | None
    edits: EditScore | None

    @property
    def passed(self) -> bool:
        ok = True
        if self.threads is not None:
            ok &= self.threads.f1 >= THREAD_F1_MIN
        if self.chains is not None:
            ok &= self.chains.precision >= LINK_PRECISION_MIN
            ok &= self.chains.recall >= LINK_RECALL_MIN
        if self.edits is not None:
            ok &= self.edits.n_found == self.edits.n_seeded and self.edits.n_phantom == 0
        return bool(ok)

    def lines(self) -> list[str]:
        out: list[str] = []
        if (t := self.threads) is not None:
            out.append(
                f"threads: pairwise P {t.precision:.3f} R {t.recall:.3f} F1 {t.f1:.3f} "
                f"({t.n_messages} messages, {t.n_true_pairs} true pairs, "
                f"{t.n_pred_pairs} predicted, {t.n_missing} truth messages missing)"
            )
        if (c := self.chains) is not None:
            out.append(
                f"version chains: link P {c.precision:.3f} R {c.recall:.3f} "
                f"({c.n_correct}/{c.n_pred_links} predicted links right, "
                f"{c.n_true_links} true, {c.n_reversed} reversed)"
            )
        if (e := self.edits) is not None:
            out.append(
                f"edits: {e.n_found}/{e.n_seeded} seeded edits found, {e.n_phantom} phantom "
                f"({e.n_steps_diffed}/{e.n_steps} true steps diffed)"
            )
        return out


def load_truth(path: str | Path) -> dict:
    path = Path(path)
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"{path}: cannot read the ground truth: {exc}") from exc


def _pairs(n: int) -> int:
    return n * (n - 1) // 2


def score_threads(threads: pl.DataFrame, messages: pl.DataFrame, truth: dict) -> ThreadScore:
    """Pairwise scores of ``threads`` (THREADS_SCHEMA) against the truth's threads."""
    true_thread = {
        m["message_id"].strip("<>"): str(m["thread"])
        for m in truth.get("messages", [])
        if m.get("message_id") and not m.get("duplicate_of")
    }
    pred = (
        threads.select("thread_id", "message_key")
        .join(messages.select("message_key", "message_id"), on="message_key")
        .drop_nulls("message_id")
        .unique("message_id")
    )
    pred_thread = dict(zip(pred["message_id"], pred["thread_id"], strict=True))
    common = [m for m in true_thread if m in pred_thread]
    cells = Counter((pred_thread[m], true_thread[m]) for m in common)
    tp = sum(_pairs(n) for n in cells.values())
    n_pred = sum(_pairs(n) for n in Counter(pred_thread[m] for m in common).values())
    n_true = sum(_pairs(n) for n in Counter(true_thread[m] for m in common).values())
    precision = tp / n_pred if n_pred else 1.0
    recall = tp / n_true if n_true else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return ThreadScore(
        precision, recall, f1, len(common), n_true, n_pred, len(true_thread) - len(common)
    )


def _versions(family: dict) -> list[str]:
    """A family's sha256s in order, one per order value, consecutive repeats dropped."""
    by_order: dict[int, str] = {}
    for v in sorted(family.get("versions", []), key=lambda v: v["order"]):
        by_order.setdefault(int(v["order"]), v["sha256"])
    out: list[str] = []
    for _, sha in sorted(by_order.items()):
        if not out or out[-1] != sha:
            out.append(sha)
    return out


def true_links(truth: dict) -> set[tuple[str, str]]:
    links: set[tuple[str, str]] = set()
    for fam in truth.get("families", []):
        shas = _versions(fam)
        links.update(zip(shas, shas[1:], strict=False))
    return links


def score_chains(chains: pl.DataFrame, truth: dict) -> ChainScore:
    """Link precision/recall of ``chains`` (VERSION_CHAINS_SCHEMA)."""
    truth_links = true_links(truth)
    rows = chains.drop_nulls("prev_workbook_id").select("prev_workbook_id", "workbook_id").rows()
    pred = set(rows)
    correct = pred & truth_links
    reversed_ = {(a, b) for a, b in pred - correct if (b, a) in truth_links}
    return ChainScore(
        precision=len(correct) / len(pred) if pred else 1.0,
        recall=len(correct) / len(truth_links) if truth_links else 1.0,
        n_true_links=len(truth_links),
        n_pred_links=len(pred),
        n_correct=len(correct),
        n_reversed=len(reversed_),
        wrong=sorted(pred - correct)[:MAX_LISTED],
        missed=sorted(truth_links - pred)[:MAX_LISTED],
    )


def _addr(value: object) -> str | None:
    return None if value is None else str(value).replace("$", "").upper().strip() or None


def score_edits(version_diffs: pl.DataFrame, truth: dict) -> EditScore:
    """Seeded edits found and phantom edits in ``version_diffs`` (DIFFS_SCHEMA + step)."""
    steps: dict[tuple[str, str], list[dict]] = defaultdict(list)
    fam_versions = {str(f["family"]): _ordered(f) for f in truth.get("families", [])}
    for e in truth.get("edits", []):
        shas = fam_versions.get(str(e["family"]), [])
        k = int(e["step"])
        if 0 < k < len(shas):
            steps[(shas[k - 1], shas[k])].append(e)
    for shas in fam_versions.values():  # steps with no edit still count for phantoms
        for k in range(1, len(shas)):
            steps.setdefault((shas[k - 1], shas[k]), [])
    pred: dict[tuple[str, str], list[dict]] = defaultdict(list)
    cols = ["before_id", "after_id", "sheet", "kind", "before_address", "after_address"]
    for row in version_diffs.select(cols).iter_rows(named=True):
        pred[(row["before_id"], row["after_id"])].append(row)
    score = EditScore(0, 0, 0, len(steps), sum(pair in pred for pair in steps))
    for pair, edits in steps.items():
        got = pred.get(pair, [])
        keys = Counter(
            (r["sheet"], r["kind"], _addr(r["after_address"] or r["before_address"])) for r in got
        )
        bands = [_band(r) for r in got if r["kind"] in ("row_inserted", "col_inserted")]
        covering: set[tuple] = set()  # predicted bands that hold seeded cells
        for e in edits:
            key = (e["sheet"], e["kind"], _addr(e.get("address")))
            if e.get("implied"):
                continue
            score.n_seeded += 1
            band = _covering_band(e, bands) if e["kind"] in CELL_KINDS else None
            if band is not None:
                covering.add(band)
            if keys[key] > 0 or band is not None:
                score.n_found += 1
            elif len(score.missed) < MAX_LISTED:
                score.missed.append({**e, "before_id": pair[0], "after_id": pair[1]})
        expected = {(e["sheet"], e["kind"], _addr(e.get("address"))) for e in edits}
        expected |= {(sheet, f"{axis}_inserted", span) for sheet, axis, _, _, span in covering}
        for key, n in keys.items():
            if key not in expected:
                score.n_phantom += n
                if len(score.phantoms) < MAX_LISTED:
                    sheet, kind, addr = key
                    score.phantoms.append(
                        {"before_id": pair[0], "after_id": pair[1], "sheet": sheet, "kind": kind}
                        | {"address": addr, "count": n}
                    )
    return score


def _band(row: dict) -> tuple[str, str, int, int, str]:
    """A predicted inserted band as (sheet, axis, first, last, span)."""
    axis = row["kind"].split("_")[0]
    span = _addr(row["after_address"]) or ""
    first, _, last = span.partition(":")
    if axis == "row":
        lo, hi = int(first), int(last or first)
    else:
        lo, hi = column_index_from_string(first), column_index_from_string(last or first)
    return row["sheet"], axis, lo, hi, span


def _covering_band(edit: dict, bands: list[tuple]) -> tuple | None:
    """The inserted band that holds a seeded cell edit. A column (row) appended to a
    table is one insertion to the diff and cells added to the generator, both the same
    edit; and a cell typed into a row inserted in the same step had no before, so
    the insertion is all a diff can show of it."""
    addr = _addr(edit.get("address"))
    if not addr:
        return None
    try:
        col, row = coordinate_from_string(addr)
    except ValueError:
        return None
    col_idx = column_index_from_string(col)
    for band in bands:
        sheet, axis, lo, hi, _ = band
        if sheet == edit["sheet"] and lo <= (row if axis == "row" else col_idx) <= hi:
            return band
    return None


def _ordered(family: dict) -> list[str]:
    """sha256 per version index (order), repeats kept so step k indexes versions k-1, k."""
    by_order: dict[int, str] = {}
    for v in family.get("versions", []):
        by_order.setdefault(int(v["order"]), v["sha256"])
    return [sha for _, sha in sorted(by_order.items())]


def evaluate_mail_truth(
    truth: dict | str | Path,
    *,
    messages: pl.DataFrame | None = None,
    threads: pl.DataFrame | None = None,
    chains: pl.DataFrame | None = None,
    version_diffs: pl.DataFrame | None = None,
) -> MailTruthScore:
    """Score whatever tables are given against the ground truth (a dict or truth.json)."""
    if not isinstance(truth, dict):
        truth = load_truth(truth)
    return MailTruthScore(
        threads=score_threads(threads, messages, truth)
        if threads is not None and messages is not None
        else None,
        chains=score_chains(chains, truth) if chains is not None else None,
        edits=score_edits(version_diffs, truth) if version_diffs is not None else None,
    )
