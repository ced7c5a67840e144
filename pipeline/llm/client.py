"""The LLM facade every caller uses: one small interface over OpenAI and Anthropic.

``make_llm("openai:gpt-4.1-mini", paths)`` gives an :class:`LLM` (or None for
``template`` / ``none``); ``llm.chat(ChatRequest(...))`` returns a :class:`ChatResponse`
whose ``data`` is the structured answer validated against the request's JSON Schema;
``llm.chat_many(requests, progress=print)`` runs a batch with bounded asyncio
concurrency. Every request goes, in order, through:

1. the response cache (:mod:`pipeline.llm.cache`): a hit returns without any HTTP request
   and without spending;
2. the budget (:class:`pipeline.llm.costs.Ledger`): once spent >= budget, no new paid call
   is issued (BudgetExceeded for the rest; responses already received are kept);
3. the provider's official SDK (:mod:`pipeline.llm.providers`) with its own retries;
4. accounting: tokens x price table -> cost, one line in the call log, the progress line.

A missing key (MissingKey, naming OPENAI_API_KEY / ANTHROPIC_API_KEY) or a model absent
from the price table is raised before the first request of a batch, not midway. Output
that is not valid JSON for the schema raises SchemaViolation carrying the text (and
``.response`` with its tokens and cost) so the caller can run a repair round.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
from collections.abc import Callable, Sequence
from pathlib import Path

from pipeline.llm import providers
from pipeline.llm.cache import ResponseCache, request_hash
from pipeline.llm.costs import (
    BUDGET_ENV,
    CallLog,
    Ledger,
    Progress,
    ProgressPrinter,
    cost_usd,
    load_config,
    now,
    price_of,
    snapshot,
)
from pipeline.llm.errors import (
    KEY_VARS,
    BudgetExceeded,
    LLMError,
    MissingKey,
    ProviderError,
    SchemaViolation,
)
from pipeline.llm.spec import ChatRequest, ChatResponse, ModelSpec, is_llm_choice

__all__ = [
    "LLM", "make_llm", "ModelSpec", "ChatRequest", "ChatResponse", "is_llm_choice",
    "LLMError", "BudgetExceeded", "MissingKey", "SchemaViolation", "ProviderError",
    "Progress", "ProgressPrinter",
]  # fmt: skip


def _run(coro):
    """Run ``coro`` to completion from sync code, also when a loop is already running."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


class LLM:
    def __init__(
        self,
        spec: ModelSpec,
        *,
        cache_dir: Path,
        log_path: Path | None,
        prices: dict,
        budget_usd: float | None,
        concurrency: int = 4,
        max_retries: int = 3,
        timeout_s: float = 60,
        http_client_factory: Callable | None = None,
        cache_mode: str | None = None,
    ):
        self.spec = spec
        self.prices = prices
        self.cache = ResponseCache(cache_dir, cache_mode)
        self.log = CallLog(log_path)
        self.ledger = Ledger(budget_usd)
        self.concurrency = max(1, int(concurrency))
        self.max_retries, self.timeout_s = int(max_retries), float(timeout_s)
        self.http_client_factory = http_client_factory

    def __repr__(self) -> str:
        return f"LLM({self.spec}, budget_usd={self.ledger.budget_usd}, cache={self.cache.mode})"

    # -- checks ---------------------------------------------------------------
    @property
    def key_var(self) -> str:
        return KEY_VARS[self.spec.provider]

    def check_key(self) -> None:
        """Raise MissingKey (naming the variable) unless the provider's key is set."""
        providers.api_key(self.spec.provider)

    def check_price(self) -> dict:
        return price_of(self.spec, self.prices)

    @property
    def stats(self) -> dict:
        return self.ledger.stats()

    def metadata(self) -> dict:
        """The facade's running totals as flat numbers for Dagster asset metadata."""
        s = self.ledger.stats()
        names = ("requests", "cache_hits", "errors", "input_tokens", "output_tokens",
                 "cost_usd", "projected_usd", "budget_stopped")  # fmt: skip
        meta = {"llm_model": str(self.spec)} | {f"llm_{n}": s[n] for n in names}
        if s["budget_usd"] is not None:
            meta["llm_budget_usd"] = s["budget_usd"]
        return meta

    # -- calls ----------------------------------------------------------------
    def chat(self, req: ChatRequest) -> ChatResponse:
        """One request (sync): cache first, budget before a paid call; raises LLMError."""
        (result,) = self.chat_many([req])
        if isinstance(result, LLMError):
            raise result
        return result

    def chat_many(
        self,
        reqs: Sequence[ChatRequest],
        progress: Callable[[Progress], None] | None = None,
        label: str | None = None,
    ) -> list[ChatResponse | LLMError]:
        """A batch with at most ``concurrency`` requests in flight, results in input order;
        a failed request is its LLMError in the list. MissingKey is raised up front."""
        return _run(self.achat_many(reqs, progress, label))

    async def achat_many(
        self,
        reqs: Sequence[ChatRequest],
        progress: Callable[[Progress], None] | None = None,
        label: str | None = None,
    ) -> list[ChatResponse | LLMError]:
        """:meth:`chat_many` for callers already inside an event loop."""
        reqs = list(reqs)
        keys = [request_hash(r.key_material(self.spec)) for r in reqs]
        ledger = self.ledger
        ledger.begin(len(reqs))
        label = label or str(self.spec)
        needs_network = any(self.cache.get(k) is None for k in keys)
        price = None
        if needs_network:  # fail before any work, not midway through a batch
            self.check_key()
            price = self.check_price()
        sem = asyncio.Semaphore(self.concurrency)
        provider = providers.make_provider(
            self.spec,
            max_retries=self.max_retries,
            timeout_s=self.timeout_s,
            http_client_factory=self.http_client_factory,
        )

        async def one(req: ChatRequest, key: str):
            try:
                return await self._one(req, key, provider, price, sem)
            except LLMError as exc:
                if not isinstance(exc, BudgetExceeded):
                    ledger.errors += 1
                return exc
            finally:
                ledger.done += 1
                if progress is not None:
                    progress(snapshot(label, ledger))

        if not needs_network:
            return list(await asyncio.gather(*map(one, reqs, keys)))
        async with provider:
            return list(await asyncio.gather(*map(one, reqs, keys)))

    async def _one(self, req, key, provider, price, sem) -> ChatResponse:
        started = now()
        entry = self.cache.get(key)
        if entry is not None:
            self.ledger.hit()
            return self._finish(req, key, entry, cached=True, latency=now() - started)
        async with sem:
            try:
                self.ledger.admit()
            except BudgetExceeded as exc:
                self._log(req, key, None, cached=False, latency=0.0, status="budget", error=exc)
                raise
            started = now()
            try:
                done = await provider.complete(req)
            except ProviderError as exc:
                self._log(req, key, None, cached=False, latency=now() - started, status="error",
                          error=exc)  # fmt: skip
                raise
            latency = now() - started
        cost = cost_usd(price, done.input_tokens, done.output_tokens)
        self.ledger.paid(done.input_tokens, done.output_tokens, cost)
        entry = {
            "provider": self.spec.provider,
            "model": self.spec.model,
            "response_model": done.model,
            "text": done.text,
            "data": done.data,
            "violation": done.violation,
            "input_tokens": done.input_tokens,
            "output_tokens": done.output_tokens,
            "cost_usd": cost,
            "latency_s": round(latency, 3),
        }
        self.cache.put(key, entry)
        return self._finish(req, key, entry, cached=False, latency=latency)

    def _finish(self, req, key, entry, *, cached: bool, latency: float) -> ChatResponse:
        paid = float(entry.get("cost_usd") or 0.0)
        data, violation = entry.get("data"), entry.get("violation")
        if cached and req.schema is not None and violation is None:
            data, violation = providers.structured(entry.get("text", ""), req.schema)
        response = ChatResponse(
            text=entry.get("text", ""),
            data=data,
            input_tokens=int(entry.get("input_tokens") or 0),
            output_tokens=int(entry.get("output_tokens") or 0),
            cost_usd=0.0 if cached else paid,
            cached=cached,
            latency_s=round(latency, 4),
            request_hash=key,
            model=self.spec.model,
            provider=self.spec.provider,
            cached_cost_usd=paid if cached else 0.0,
        )
        status = "schema_violation" if violation else "ok"
        self._log(req, key, response, cached=cached, latency=latency, status=status,
                  error=violation)  # fmt: skip
        if violation:
            exc = SchemaViolation(f"{self.spec}: {violation}", response.text)
            exc.response = response
            raise exc
        return response

    def _log(self, req, key, response, *, cached, latency, status, error=None) -> None:
        self.log.write(
            provider=self.spec.provider,
            model=self.spec.model,
            purpose=req.purpose,
            cache_hit=cached,
            input_tokens=response.input_tokens if response else 0,
            output_tokens=response.output_tokens if response else 0,
            cost_usd=round(response.cost_usd, 8) if response else 0.0,
            latency_s=round(latency, 4),
            request_hash=key,
            status=status,
            error=str(error) if error else None,
        )


def _budget(value) -> float | None:
    if value is None or (isinstance(value, str) and value.strip().lower() in ("", "none", "null")):
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        raise LLMError(f"budget must be a number of USD, got {value!r}") from None


def make_llm(choice: str | None, paths, **overrides) -> LLM | None:
    """The facade for a configured choice (``openai:MODEL`` / ``anthropic:MODEL``), or None
    for ``template`` / ``none``. Prices and defaults from config/llm.yaml (or
    ``config_path=``); budget from ``budget_usd=``, ``LEDGERFORGE_LLM_BUDGET_USD`` or the
    file; cache in ``<data>/cache/llm/``, log ``<data>/cache/llm/calls.jsonl``."""
    if not is_llm_choice(choice):
        return None
    spec = ModelSpec.parse(choice)
    config = load_config(overrides.pop("config_path", None))
    defaults = config["defaults"]
    cache_dir = Path(overrides.pop("cache_dir", paths.cache / "llm"))
    options = {
        "cache_dir": cache_dir,
        "log_path": overrides.pop("log_path", cache_dir / "calls.jsonl"),
        "prices": overrides.pop("prices", config["prices"]),
        "budget_usd": _budget(
            overrides.pop("budget_usd", os.environ.get(BUDGET_ENV) or defaults.get("budget_usd"))
        ),
    }
    for name in ("concurrency", "max_retries", "timeout_s"):
        if name in defaults and name not in overrides:
            options[name] = defaults[name]
    options.update(overrides)
    return LLM(spec, **options)
