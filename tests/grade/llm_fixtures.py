"""Shared by the solve and solver-trial tests: a real release of the sample archive (drafted,
validated in the sandbox, published) and a mocked OpenAI / Anthropic HTTP API answering
through the real SDK clients with protocol-correct payloads. No network."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import polars as pl

from pipeline.config import DataPaths, data_paths
from pipeline.draft import draft_tasks
from pipeline.draft.sample import write_sample_warehouse
from pipeline.publish.release import publish_release
from pipeline.store import Warehouse
from pipeline.validate import build_contamination_index, validate_drafts

OPENAI_KEY = "sk-SENTINEL-solve-openai-4b7e19"
ANTHROPIC_KEY = "sk-ant-SENTINEL-solve-anthropic-93ac51"
PRICES = {
    "openai:gpt-test": {"input": 0.40, "output": 1.60},
    "anthropic:claude-test": {"input": 3.00, "output": 15.00},
}
INPUT_TOKENS, OUTPUT_TOKENS = 1000, 50


@dataclass
class SampleRelease:
    paths: DataPaths  # the data root: warehouse with pages, and releases/
    release: Path
    tasks: pl.DataFrame  # validated tasks (TASKS_SCHEMA)
    keys: dict[str, dict]  # task_id -> task row, by task id


def build_sample_release(root: Path, version: str = "2026.1.0") -> SampleRelease:
    paths = data_paths(root)
    warehouse = Warehouse(paths)
    frames = write_sample_warehouse(warehouse, seed=21)
    drafts = draft_tasks(
        frames["anchored_cells"],
        frames["tables"],
        frames["documents"],
        seed=4,
        table_cells=frames["table_cells"],
    )
    tasks = validate_drafts(drafts, warehouse.root, build_contamination_index(warehouse.root))
    warehouse.replace("tasks", tasks)
    release = publish_release(tasks, drafts, paths.releases, version)
    keys = {row["task_id"]: row for row in tasks.iter_rows(named=True)}
    return SampleRelease(paths, release, tasks, keys)


@dataclass
class Call:
    provider: str
    system: str
    prompt: str  # the last user message
    tool: str | None  # the structured-output name asked for (Anthropic tool / OpenAI schema)


@dataclass
class MockAPI:
    """Both providers' chat endpoints. ``answer(call)`` returns text, or a dict for a
    structured (tool / json_schema) request."""

    answer: Callable[[Call], str | dict]
    calls: list[Call] = field(default_factory=list)

    @property
    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self.handler)

    def handler(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        if request.url.path.endswith("/messages"):
            tools = body.get("tools") or []
            call = Call(
                "anthropic",
                body.get("system") or "",
                body["messages"][-1]["content"],
                tools[0]["name"] if tools else None,
            )
            self.calls.append(call)
            answer = self.answer(call)
            if isinstance(answer, dict):
                content = [
                    {"type": "tool_use", "id": "toolu_01", "name": call.tool, "input": answer}
                ]
                stop = "tool_use"
            else:
                content, stop = [{"type": "text", "text": answer}], "end_turn"
            return httpx.Response(
                200,
                json={
                    "id": "msg_01",
                    "type": "message",
                    "role": "assistant",
                    "model": body["model"],
                    "content": content,
                    "stop_reason": stop,
                    "stop_sequence": None,
                    "usage": {"input_tokens": INPUT_TOKENS, "output_tokens": OUTPUT_TOKENS},
                },
            )
        messages = body["messages"]
        fmt = (body.get("response_format") or {}).get("json_schema") or {}
        call = Call(
            "openai",
            next((m["content"] for m in messages if m["role"] == "system"), ""),
            messages[-1]["content"],
            fmt.get("name"),
        )
        self.calls.append(call)
        answer = self.answer(call)
        text = json.dumps(answer) if isinstance(answer, dict) else answer
        return httpx.Response(
            200,
            json={
                "id": "chatcmpl-01",
                "object": "chat.completion",
                "created": 1_800_000_000,
                "model": body["model"],
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": text, "refusal": None},
                        "logprobs": None,
                        "finish_reason": "stop",
                    }
                ],
                "usage": {
                    "prompt_tokens": INPUT_TOKENS,
                    "completion_tokens": OUTPUT_TOKENS,
                    "total_tokens": INPUT_TOKENS + OUTPUT_TOKENS,
                },
            },
        )


def task_of(prompt: str, questions: dict[str, str]) -> str:
    """The task id whose question the prompt asks."""
    for question, task_id in questions.items():
        if f"Question: {question}\n" in prompt:
            return task_id
    raise AssertionError(f"no known question in prompt {prompt[:200]!r}")
