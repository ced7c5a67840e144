"""Content-addressed on-disk cache of paid LLM responses: a rerun costs nothing.

The key is the sha256 of the canonical JSON of everything that determines the answer
(provider, model, system prompt, messages, output schema and its name — i.e. the tool —
temperature, max_tokens; see :meth:`ChatRequest.key_material`) and nothing volatile (no
time, no purpose label, no key). Entries are written atomically (temp file + rename) so a
crash never leaves a half entry; provider errors are never cached. A response whose text
violates the schema *is* cached (it was paid for) and is re-validated on every hit.

Modes: ``on`` (read and write), ``refresh`` (write only: re-buy and overwrite), ``off``
(neither); default from ``LEDGERFORGE_LLM_CACHE``, else ``on``. :meth:`ResponseCache.clear`
removes every entry.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path

from pipeline.llm.errors import LLMError
from pipeline.llm.schema import canonical_json

CACHE_ENV = "LEDGERFORGE_LLM_CACHE"
MODES = ("on", "off", "refresh")
FORMAT = 1


def request_hash(material: dict) -> str:
    return hashlib.sha256(canonical_json({"v": FORMAT, **material}).encode()).hexdigest()


def cache_mode(mode: str | None = None) -> str:
    chosen = (mode or os.environ.get(CACHE_ENV) or "on").strip().lower()
    chosen = {"0": "off", "false": "off", "no": "off", "1": "on", "true": "on"}.get(chosen, chosen)
    if chosen not in MODES:
        raise LLMError(f"{CACHE_ENV}={chosen!r}: expected one of {', '.join(MODES)}")
    return chosen


class ResponseCache:
    """``<root>/<h[:2]>/<h>.json`` per response; ``root`` is ``<data>/cache/llm``."""

    def __init__(self, root: Path, mode: str | None = None):
        self.root = Path(root)
        self.mode = cache_mode(mode)

    @property
    def reads(self) -> bool:
        return self.mode == "on"

    @property
    def writes(self) -> bool:
        return self.mode in ("on", "refresh")

    def path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict | None:
        if not self.reads:
            return None
        path = self.path(key)
        try:
            entry = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, json.JSONDecodeError):
            return None  # unreadable entry: treated as a miss, overwritten on the next put
        return entry if entry.get("request_hash") == key else None

    def put(self, key: str, entry: dict) -> None:
        if not self.writes:
            return
        path = self.path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump({**entry, "request_hash": key}, out, ensure_ascii=False, sort_keys=True)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def clear(self) -> int:
        """Remove every cached response (not the call log); returns how many."""
        if not self.root.exists():
            return 0
        count = 0
        for sub in self.root.iterdir():
            if sub.is_dir() and len(sub.name) == 2:
                count += sum(1 for _ in sub.glob("*.json"))
                shutil.rmtree(sub)
        return count

    def __len__(self) -> int:
        return sum(1 for _ in self.root.glob("??/*.json")) if self.root.exists() else 0


def summarize_log(path: Path) -> list[dict]:
    """Spend per ``provider:model`` and purpose from a call log: calls, cache hits, errors,
    tokens, USD. Unreadable lines are skipped (a log cut short by a crash)."""
    totals: dict[tuple, dict] = {}
    if not Path(path).exists():
        return []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            continue
        key = (f"{row.get('provider')}:{row.get('model')}", row.get("purpose") or "")
        t = totals.setdefault(key, {"model": key[0], "purpose": key[1], "calls": 0,
                                    "cache_hits": 0, "errors": 0, "input_tokens": 0,
                                    "output_tokens": 0, "cost_usd": 0.0})  # fmt: skip
        t["calls"] += 1
        t["cache_hits"] += bool(row.get("cache_hit"))
        t["errors"] += row.get("status") not in ("ok", None)
        t["input_tokens"] += int(row.get("input_tokens") or 0)
        t["output_tokens"] += int(row.get("output_tokens") or 0)
        t["cost_usd"] += float(row.get("cost_usd") or 0.0)
    return [totals[k] for k in sorted(totals)]
