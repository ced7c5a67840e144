"""Money: the price table, cost per call, the budget cap, the call log, the progress line.

Prices come from ``config/llm.yaml`` (USD per 1M input / output tokens per
``provider:model``, meant to be edited). :class:`Ledger` counts requests, cache hits,
tokens and dollars; it refuses a paid call once ``spent >= budget_usd`` (calls already in
flight finish and are kept, so the overshoot is at most ``concurrency - 1`` calls).
:class:`CallLog` appends one JSON line per call — time, provider, model, purpose, cache
hit, tokens, cost, latency, request hash, status — and never a key or a header.
:class:`Progress` is the live line for a CLI (:class:`ProgressPrinter` prints it) and the
same numbers as a dict for Dagster metadata; ``projected_usd = spent / done * total``.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import yaml

from pipeline.config import REPO_ROOT
from pipeline.llm.errors import BudgetExceeded, LLMError, redact
from pipeline.llm.spec import ModelSpec

CONFIG_ENV = "LEDGERFORGE_LLM_CONFIG"
BUDGET_ENV = "LEDGERFORGE_LLM_BUDGET_USD"
DEFAULT_CONFIG = REPO_ROOT / "config" / "llm.yaml"


def load_config(path: str | Path | None = None) -> dict:
    """``config/llm.yaml`` (or ``LEDGERFORGE_LLM_CONFIG``) as {"prices": ..., "defaults": ...}."""
    chosen = Path(path or os.environ.get(CONFIG_ENV) or DEFAULT_CONFIG)
    try:
        raw = yaml.safe_load(chosen.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as exc:
        raise LLMError(f"{chosen}: cannot read the LLM configuration ({exc})") from None
    prices = {}
    for name, entry in (raw.get("prices") or {}).items():
        try:
            prices[str(name)] = {"input": float(entry["input"]), "output": float(entry["output"])}
        except (TypeError, KeyError, ValueError):
            raise LLMError(
                f"{chosen}: price of {name!r} must be {{input: USD, output: USD}} per 1M tokens"
            ) from None
    return {"prices": prices, "defaults": dict(raw.get("defaults") or {}), "path": str(chosen)}


def price_of(spec: ModelSpec, prices: dict) -> dict:
    """The {input, output} USD-per-1M-token price of ``spec``, or an error saying where
    to add it."""
    entry = prices.get(str(spec))
    if entry is None:
        raise LLMError(
            f"no price for {spec} in the price table ({DEFAULT_CONFIG} or the file named by"
            f" {CONFIG_ENV}): add a line"
            f" '{spec}: {{input: USD, output: USD}}' (per 1M tokens)"
        )
    return entry


def cost_usd(price: dict, input_tokens: int, output_tokens: int) -> float:
    return (input_tokens * price["input"] + output_tokens * price["output"]) / 1_000_000


_COUNTERS = ("requests", "cache_hits", "errors", "input_tokens", "output_tokens", "cost_usd")


class Ledger:
    """Running totals of one LLM facade (across its batches), and the budget cap.

    :meth:`begin` starts a batch: :meth:`batch` gives that batch's own figures, from which
    the progress line and its projection (``spent / done * total``) are computed.
    """

    def __init__(self, budget_usd: float | None = None):
        self.budget_usd = budget_usd
        self.requests = self.cache_hits = self.errors = 0
        self.input_tokens = self.output_tokens = 0
        self.cost_usd = 0.0
        self.stopped = False  # the budget stopped new calls
        self.done = self.total = 0  # of the current batch
        self._base = dict.fromkeys(_COUNTERS, 0)

    def begin(self, total: int) -> None:
        self.done, self.total = 0, total
        self._base = {name: getattr(self, name) for name in _COUNTERS}

    def admit(self) -> None:
        """Allow one paid call, or raise BudgetExceeded (and stop every later one)."""
        if self.budget_usd is not None and (self.stopped or self.cost_usd >= self.budget_usd):
            self.stopped = True
            raise BudgetExceeded(
                f"budget of ${self.budget_usd:.4f} reached (spent ${self.cost_usd:.4f}):"
                " no new LLM calls are issued; responses already received are kept"
            )

    def paid(self, input_tokens: int, output_tokens: int, cost: float) -> None:
        self.requests += 1
        self.input_tokens += input_tokens
        self.output_tokens += output_tokens
        self.cost_usd += cost

    def hit(self) -> None:
        self.cache_hits += 1

    def batch(self) -> dict:
        """The current batch's own counters, and its projected cost."""
        figures = {name: getattr(self, name) - self._base[name] for name in _COUNTERS}
        spent = figures["cost_usd"]
        figures["projected_usd"] = spent / self.done * self.total if self.done else spent
        return figures

    @property
    def projected_usd(self) -> float:
        """Spent before this batch plus this batch's projection."""
        return self._base["cost_usd"] + self.batch()["projected_usd"]

    def stats(self) -> dict:
        return {
            "requests": self.requests,
            "cache_hits": self.cache_hits,
            "errors": self.errors,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cost_usd": round(self.cost_usd, 6),
            "projected_usd": round(self.projected_usd, 6),
            "budget_usd": self.budget_usd,
            "budget_stopped": self.stopped,
            "done": self.done,
            "total": self.total,
        }


@dataclass(frozen=True)
class Progress:
    """A snapshot of a batch after each finished request: ``str(p)`` is the CLI line,
    :meth:`metadata` the numbers for Dagster asset metadata. Counts and money are the
    batch's own; ``total_cost_usd`` is the facade's spend, which the budget caps."""

    label: str
    done: int
    total: int
    requests: int
    cache_hits: int
    errors: int
    input_tokens: int
    output_tokens: int
    cost_usd: float
    projected_usd: float
    total_cost_usd: float
    budget_usd: float | None
    budget_stopped: bool

    @property
    def line(self) -> str:
        text = (
            f"{self.label}: {self.done}/{self.total} done, {self.requests} requests,"
            f" {self.cache_hits} cached, {self.input_tokens + self.output_tokens:,} tokens,"
            f" ${self.cost_usd:.4f} spent, ${self.projected_usd:.4f} projected"
        )
        if self.budget_usd is not None:
            text += f" (${self.total_cost_usd:.4f} of budget ${self.budget_usd:.2f})"
        if self.errors:
            text += f", {self.errors} errors"
        if self.budget_stopped:
            text += ", BUDGET REACHED: no new calls"
        return text

    def __str__(self) -> str:
        return self.line

    def metadata(self) -> dict:
        return {
            "llm_requests": self.requests,
            "llm_cache_hits": self.cache_hits,
            "llm_errors": self.errors,
            "llm_input_tokens": self.input_tokens,
            "llm_output_tokens": self.output_tokens,
            "llm_cost_usd": round(self.cost_usd, 6),
            "llm_projected_usd": round(self.projected_usd, 6),
            "llm_budget_stopped": self.budget_stopped,
        }


def snapshot(label: str, ledger: Ledger) -> Progress:
    """The current batch of ``ledger`` as a :class:`Progress`."""
    b = ledger.batch()
    return Progress(
        label,
        ledger.done,
        ledger.total,
        b["requests"],
        b["cache_hits"],
        b["errors"],
        b["input_tokens"],
        b["output_tokens"],
        b["cost_usd"],
        b["projected_usd"],
        ledger.cost_usd,
        ledger.budget_usd,
        ledger.stopped,
    )


class CallLog:
    """Append-only JSONL of every call (``<data>/cache/llm/calls.jsonl``)."""

    FIELDS = (
        "time", "provider", "model", "purpose", "cache_hit", "input_tokens",
        "output_tokens", "cost_usd", "latency_s", "request_hash", "status", "error",
    )  # fmt: skip

    def __init__(self, path: Path | None):
        self.path = Path(path) if path else None
        self._lock = threading.Lock()

    def write(self, **record) -> None:
        if self.path is None:
            return
        row = {name: record.get(name) for name in self.FIELDS}
        row["time"] = datetime.now(UTC).isoformat(timespec="milliseconds")
        if row["error"]:
            row["error"] = redact(str(row["error"]))[:500]
        line = json.dumps(row, ensure_ascii=False) + "\n"
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as out:
                out.write(line)


def now() -> float:
    return time.perf_counter()


class ProgressPrinter:
    """A ``progress=`` callback for a CLI: on a terminal one line rewritten in place, in a
    log a plain line at most every ``every_s`` seconds (and always the last one)."""

    def __init__(self, stream=None, every_s: float = 10.0, clock=time.monotonic):
        self.stream = stream or sys.stderr
        self.every_s, self.clock = every_s, clock
        self.live = bool(getattr(self.stream, "isatty", lambda: False)())
        self._last: float | None = None

    def __call__(self, progress: Progress) -> None:
        last = progress.done >= progress.total
        if self.live:
            self.stream.write("\r\033[K" + progress.line + ("\n" if last else ""))
            self.stream.flush()
            return
        moment = self.clock()
        if self._last is None or last or moment - self._last >= self.every_s:
            self._last = moment
            self.stream.write(progress.line + "\n")
            self.stream.flush()


def log_progress(emit, every_s: float = 30.0, clock=time.monotonic):  # noqa: ANN001, ANN201
    """A ``progress=`` callback for a run log (``context.log.info``): the line of the first
    call, then at most one every ``every_s`` seconds, and always the last."""
    last: list[float | None] = [None]

    def report(progress: Progress) -> None:
        moment = clock()
        done = progress.done >= progress.total
        if last[0] is None or done or moment - last[0] >= every_s:
            last[0] = moment
            emit(progress.line)

    return report
