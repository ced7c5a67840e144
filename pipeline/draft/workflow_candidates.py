"""Workflow candidates: where a mailbox shows a piece of spreadsheet work to be done.

Finch built its workflows two ways (seeds/finch-ru.txt, section 3) and so does this
stage:

- **Threads** that state a goal (a request or imperative about the spreadsheet: "can
  you add...", "please update...", "fix...", "we need...") and carry spreadsheet
  attachments. *Strong* grounding when the input and a revised workbook of the same
  version chain are both attached in the thread (the thread shows the request and its
  result); *partial* when only the input is (its revision is the chain's next version,
  found elsewhere) or no revision is known at all (``after_id`` null: evidence kept, no
  task can be graded).
- **Version chains**: every step between consecutive versions is a candidate (trivial
  ones too, so validation can reject them with their reason), and every run of
  ``k >= 2`` consecutive non-trivial steps (up to ``max_steps``) is one multi-step
  candidate graded on its final state: Finch's hardest workflows are exactly these.

A pair (input, reference) is offered once: a thread candidate absorbs the chain
candidate of the same pair (its goal sentences make the better instruction).
Evidence is kept: message keys, goal sentences, step ids. Goal sentences are kept as
written here; they are scrubbed when an instruction is drafted from them.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from functools import lru_cache

import polars as pl

from pipeline.draft.schemas import WORKFLOW_CANDIDATES_SCHEMA

__all__ = [
    "MAX_STEPS",
    "WORKFLOW_CANDIDATES_SCHEMA",
    "build_workflow_candidates",
    "goal_sentences",
]

MAX_STEPS = 3  # longest multi-step candidate offered from a chain
MAX_GOAL_CHARS = 400

_REQUEST = re.compile(
    r"\b(?:can|could|would|will)\s+you\b|\bplease\b|\bpls\b|\bplz\b|\bwe\s+need\b|"
    r"\bi\s+need\b|\bneed\s+(?:you\s+)?to\b|\bi'?d\s+like\b|\bwould\s+like\b|\blet'?s\b|"
    r"\bmake\s+sure\b|\bshould\s+(?:be|have|include|show)\b|\bhas\s+to\s+be\b",
    re.IGNORECASE,
)
_VERBS = (
    "add|update|fix|change|correct|insert|remove|delete|calculate|compute|fill|populate|"
    "include|put|move|rename|sort|format|highlight|reconcile|check|review|revise|adjust|"
    "recalculate|recalc|build|create|prepare|summari[sz]e|link|pull|enter|split|merge|"
    "replace|set|total|sum|append|extend|drop|clean|convert|round|use|show|break\\s+out|"
    "roll\\s+forward|plug|input|key\\s+in|flag|mark|complete|finish|redo|modify|edit|"
    "confirm|verify|double[-\\s]check|tie\\s+out|true\\s+up|book|allocate"
)
_TASK_VERB = re.compile(rf"\b(?:{_VERBS})(?:e?s|e?d|ing)?\b", re.IGNORECASE)
# Mail courtesy, not a goal: "please find attached", "please let me know", ...
_BOILERPLATE = re.compile(
    r"\bplease\s+(?:find|see|note|be\s+advised|advise|let\s+me\s+know|contact|call|"
    r"forward|feel\s+free|do\s+not\s+hesitate|review\s+and\s+let|print)\b|"
    r"\battached\s+(?:please\s+find|is|are)\b|\bif\s+you\s+(?:have|need)\b",
    re.IGNORECASE,
)
_IMPERATIVE = re.compile(rf"^\W*(?:(?:pls|please|also|and|then|just|now)\s+)*(?:{_VERBS})\b", re.I)
_SPREADSHEET = re.compile(
    r"\b(?:sheets?|spread\s*sheets?|workbooks?|worksheets?|files?|columns?|rows?|tabs?|"
    r"cells?|totals?|formulas?|schedules?|models?|numbers|figures|attached|attachment|"
    r"summary|report|xls\w*|excel|template|version|budget|forecast|positions?|"
    r"curves?|deals?|volumes?|prices?|p&l|pnl|balances?|accruals?)\b",
    re.IGNORECASE,
)


@lru_cache(maxsize=1)
def _segmenter():
    import pysbd

    return pysbd.Segmenter(language="en", clean=False)


def goal_sentences(text: str | None) -> list[str]:
    """The sentences of ``text`` that ask for spreadsheet work: an imperative ("add ...",
    "fix ...") or a request ("can you", "please", "we need") with a task verb, that names
    something of a spreadsheet (sheet, column, total, file, ...); mail courtesy ("please
    find attached", "please let me know") is no goal."""
    if not text or not text.strip():
        return []
    out: list[str] = []
    for raw in _segmenter().segment(text):
        sentence = re.sub(r"\s+", " ", raw).strip()
        if not sentence or len(sentence) > MAX_GOAL_CHARS or sentence.startswith(">"):
            continue
        if not _SPREADSHEET.search(sentence):
            continue
        if _BOILERPLATE.search(sentence) or len(sentence.split()) < 4:
            continue  # courtesy, or a label ("Total $21.7"), not a request
        if _IMPERATIVE.search(sentence) or (
            _REQUEST.search(sentence) and _TASK_VERB.search(sentence)
        ):
            out.append(sentence)
    return out


def _candidate_id(origin: str, before: str | None, after: str | None, steps: list[str]) -> str:
    key = "|".join([origin, before or "", after or "", *steps])
    return "wf-" + hashlib.sha256(key.encode()).hexdigest()[:16]


def _majority(values: Iterable[str | None]) -> str | None:
    counts = Counter(v for v in values if v)
    return counts.most_common(1)[0][0] if counts else None


def _types(steps: list[dict]) -> list[str]:
    return list(dict.fromkeys(t for s in steps for t in (s.get("task_types") or [])))


class _Chains:
    """Version chains and their steps, indexed for the thread and chain passes."""

    def __init__(self, version_chains: pl.DataFrame, version_steps: pl.DataFrame):
        self.where: dict[str, tuple[str, int]] = {}  # workbook_id -> (chain_id, position)
        self.at: dict[tuple[str, int], str] = {}  # (chain_id, position) -> workbook_id
        for row in version_chains.select("chain_id", "position", "workbook_id").iter_rows():
            chain, pos, wid = row
            self.where.setdefault(wid, (chain, pos))
            self.at[(chain, pos)] = wid
        self.steps: dict[str, list[dict]] = defaultdict(list)  # chain -> steps in order
        self.by_pair: dict[tuple[str, str], dict] = {}
        for s in version_steps.sort("chain_id", "step").iter_rows(named=True):
            self.steps[s["chain_id"]].append(s)
            self.by_pair[(s["before_id"], s["after_id"])] = s

    def path(self, before: str, after: str) -> list[dict] | None:
        """The consecutive steps of one chain from ``before`` to ``after``, or None."""
        if before not in self.where or after not in self.where:
            return None
        chain, p0 = self.where[before]
        chain_b, p1 = self.where[after]
        if chain != chain_b or p1 <= p0:
            return None
        out = []
        for pos in range(p0, p1):
            a, b = self.at.get((chain, pos)), self.at.get((chain, pos + 1))
            step = self.by_pair.get((a, b)) if a and b else None
            if step is None:
                return None
            out.append(step)
        return out

    def next_version(self, workbook_id: str) -> str | None:
        if workbook_id not in self.where:
            return None
        chain, pos = self.where[workbook_id]
        return self.at.get((chain, pos + 1))


def _step_id(step: dict) -> str:
    return f"{step['chain_id']}:{step['step']}"


def _row(
    origin: str,
    grounding: str,
    before: str,
    after: str | None,
    steps: list[dict],
    *,
    chain_id: str | None = None,
    thread_id: str | None = None,
    message_keys: list[str] | None = None,
    goals: list[str] | None = None,
) -> dict:
    step_ids = [_step_id(s) for s in steps]
    return {
        "candidate_id": _candidate_id(origin, before, after, step_ids),
        "origin": origin,
        "grounding": grounding,
        "thread_id": thread_id,
        "message_keys": list(message_keys or []),
        "goal_sentences": list(goals or []),
        "chain_id": chain_id or (steps[0]["chain_id"] if steps else None),
        "before_id": before,
        "after_id": after,
        "steps": len(steps) if steps else (1 if after else 0),
        "step_ids": step_ids,
        "task_types": _types(steps),
        "business_type": _majority(s.get("business_type") for s in steps),
    }


def _thread_attachments(
    attachments: pl.DataFrame, workbook_sources: pl.DataFrame, known: set[str]
) -> dict[str, list[str]]:
    """message_key -> workbook ids attached to it (spreadsheets that were ingested)."""
    out: dict[str, list[str]] = defaultdict(list)
    if attachments.height:
        sheets = attachments.filter(pl.col("is_spreadsheet").fill_null(False))
        for key, sha in sheets.select("message_key", "sha256").iter_rows():
            if sha in known and sha not in out[key]:
                out[key].append(sha)
    if workbook_sources.height:
        rows = workbook_sources.filter(pl.col("message_key").is_not_null())
        for key, wid in rows.select("message_key", "workbook_id").iter_rows():
            if wid not in out[key]:
                out[key].append(wid)
    return out


def _evidence(
    keys: list[str], goals: dict[str, list[str]], lo: int, hi: int
) -> tuple[list[str], list[str]]:
    """The goal messages between thread positions ``lo`` and ``hi`` (else any before
    ``hi``) and their goal sentences."""
    window = [k for k in keys[lo : hi + 1] if goals[k]] or [k for k in keys[: hi + 1] if goals[k]]
    return window, [g for k in window for g in goals[k]]


def _thread_candidates(
    threads: pl.DataFrame,
    messages: pl.DataFrame,
    attached: dict[str, list[str]],
    chains: _Chains,
) -> list[dict]:
    texts = dict(messages.select("message_key", "new_text").iter_rows())
    out: list[dict] = []
    ordered = threads.sort("thread_id", "position", "message_key")
    for (thread_id,), part in ordered.group_by("thread_id", maintain_order=True):
        keys = part["message_key"].to_list()
        goals = {k: goal_sentences(texts.get(k)) for k in keys}
        if not any(goals.values()):
            continue
        # every spreadsheet of the thread, at the first message that attaches it
        first_at: dict[str, int] = {}
        for i, k in enumerate(keys):
            for wid in attached.get(k, []):
                first_at.setdefault(wid, i)
        if not first_at:
            continue

        by_chain: dict[str, list[str]] = defaultdict(list)
        for wid in first_at:
            if wid in chains.where:
                by_chain[chains.where[wid][0]].append(wid)
        paired: set[str] = set()
        for chain_id, wids in by_chain.items():
            wids = sorted(wids, key=lambda w: chains.where[w][1])
            for before, after in zip(wids, wids[1:], strict=False):
                steps = chains.path(before, after)
                if steps is None:
                    continue
                lo, hi = sorted((first_at[before], first_at[after]))
                msg_keys, goal_list = _evidence(keys, goals, lo, hi)
                paired |= {before, after}
                out.append(
                    _row(
                        "thread",
                        "strong",
                        before,
                        after,
                        steps,
                        chain_id=chain_id,
                        thread_id=thread_id,
                        message_keys=list(dict.fromkeys([*msg_keys, keys[lo], keys[hi]])),
                        goals=goal_list,
                    )
                )
        for wid, at in first_at.items():
            if wid in paired:
                continue
            after = chains.next_version(wid)
            steps = chains.path(wid, after) if after else None
            msg_keys, goal_list = _evidence(keys, goals, 0, len(keys) - 1)
            if not goal_list:
                continue
            out.append(
                _row(
                    "thread",
                    "partial",
                    wid,
                    after,
                    steps or [],
                    chain_id=chains.where.get(wid, (None, 0))[0],
                    thread_id=thread_id,
                    message_keys=list(dict.fromkeys([*msg_keys, keys[at]])),
                    goals=goal_list,
                )
            )
    return out


def _chain_candidates(chains: _Chains, max_steps: int) -> list[dict]:
    out: list[dict] = []
    for chain_id, steps in chains.steps.items():
        for step in steps:
            out.append(_row("chain", "partial", step["before_id"], step["after_id"], [step]))
        # runs of consecutive non-trivial steps (each step's after is the next's before)
        run: list[dict] = []
        runs: list[list[dict]] = []
        for step in steps:
            contiguous = run and run[-1]["after_id"] == step["before_id"]
            if step.get("trivial_reason"):
                runs.append(run)
                run = []
                continue
            if not contiguous and run:
                runs.append(run)
                run = []
            run.append(step)
        runs.append(run)
        for run in runs:
            for k in range(2, max_steps + 1):
                for i in range(len(run) - k + 1):
                    window = run[i : i + k]
                    out.append(
                        _row(
                            "chain",
                            "partial",
                            window[0]["before_id"],
                            window[-1]["after_id"],
                            window,
                            chain_id=chain_id,
                        )
                    )
    return out


_RANK = {("thread", "strong"): 0, ("thread", "partial"): 1, ("chain", "partial"): 2}


def build_workflow_candidates(
    threads: pl.DataFrame,
    messages: pl.DataFrame,
    attachments: pl.DataFrame,
    workbook_sources: pl.DataFrame,
    version_chains: pl.DataFrame,
    version_steps: pl.DataFrame,
    *,
    max_steps: int = MAX_STEPS,
) -> pl.DataFrame:
    """Workflow candidates (``WORKFLOW_CANDIDATES_SCHEMA``) from threads and chains.

    Frames follow the issue-10 contract (THREADS, MESSAGES, ATTACHMENTS,
    WORKBOOK_SOURCES, VERSION_CHAINS, VERSION_STEPS); only the columns named there are
    read. One candidate per (input, reference) pair: strong thread > partial thread >
    chain; a thread candidate keeps the chain's step ids.
    """
    chains = _Chains(version_chains, version_steps)
    known = set(version_chains["workbook_id"].to_list()) if version_chains.height else set()
    if workbook_sources.height:
        known |= set(workbook_sources["workbook_id"].to_list())
    attached = _thread_attachments(attachments, workbook_sources, known)
    rows = _thread_candidates(threads, messages, attached, chains)
    rows += _chain_candidates(chains, max_steps)
    best: dict[tuple, dict] = {}
    for row in rows:
        pair = (row["before_id"], row["after_id"]) if row["after_id"] else (row["candidate_id"],)
        have = best.get(pair)
        if (
            have is None
            or _RANK[(row["origin"], row["grounding"])] < _RANK[(have["origin"], have["grounding"])]
        ):
            best[pair] = row
    out = sorted(
        best.values(), key=lambda r: (_RANK[(r["origin"], r["grounding"])], r["candidate_id"])
    )
    return pl.DataFrame(out, schema=WORKFLOW_CANDIDATES_SCHEMA)
