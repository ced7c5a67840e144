"""A fake model behind ``httpx.MockTransport``: protocol-correct OpenAI and Anthropic
payloads built from each request, so the real SDK clients run end to end without a network.

The fake reads the request the way a model would: the drafter's JSON context (cells and
the exact ``table_cell`` calls, the operation, unit, precision, reference question) gives
a correct oracle, the question and known-wrong answers (another base, a flipped sign, a
misread digit); a rewrite request gets a reworded question. Faults are chosen per task
kind for the first round only (``static``: an oracle importing ``os``; ``schema``: output
that does not fit the schema), so the drafter's repair round is exercised; ``unit_swap``
makes the rewriter change the unit. Every request is recorded.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from decimal import Decimal

import httpx

from pipeline.draft.formulas import FORMULAS, evaluate, quantum

_JSON_BLOCK = re.compile(r"```json\n(.*?)\n```", re.DOTALL)


@dataclass
class FakeModel:
    static: set[str] = field(default_factory=set)  # kinds whose first oracle imports os
    schema: set[str] = field(default_factory=set)  # kinds whose first answer breaks the schema
    unit_swap: bool = False  # the rewriter turns millions into thousands
    requests: list[dict] = field(default_factory=list)

    # ----------------------------------------------------------------- protocol
    def handler(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        self.requests.append({"url": str(request.url), "body": body})
        path = request.url.path
        if path.endswith("/chat/completions"):
            return self._openai(body)
        if path.endswith("/messages"):
            return self._anthropic(body)
        return httpx.Response(404, json={"error": {"message": f"no route {path}"}})

    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self.handler)

    def _openai(self, body: dict) -> httpx.Response:
        messages = [m for m in body["messages"] if m["role"] != "system"]
        name = body["response_format"]["json_schema"]["name"]
        answer = self.answer(name, messages)
        content = answer if isinstance(answer, str) else json.dumps(answer)
        prompt = sum(len(str(m["content"])) for m in body["messages"])
        return httpx.Response(
            200,
            json={
                "id": f"chatcmpl-{len(self.requests)}",
                "object": "chat.completion",
                "created": 1_700_000_000,
                "model": body["model"],
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": content, "refusal": None},
                        "finish_reason": "stop",
                        "logprobs": None,
                    }
                ],
                "usage": {
                    "prompt_tokens": prompt // 4,
                    "completion_tokens": len(content) // 4,
                    "total_tokens": prompt // 4 + len(content) // 4,
                },
            },
        )

    def _anthropic(self, body: dict) -> httpx.Response:
        name = body["tools"][0]["name"]
        answer = self.answer(name, body["messages"])
        if isinstance(answer, str):  # malformed: no tool input fits, give an incomplete one
            answer = {"question": answer}
        prompt = sum(len(str(m["content"])) for m in body["messages"]) + len(body.get("system", ""))
        out = len(json.dumps(answer))
        return httpx.Response(
            200,
            json={
                "id": f"msg_{len(self.requests)}",
                "type": "message",
                "role": "assistant",
                "model": body["model"],
                "content": [
                    {
                        "type": "tool_use",
                        "id": f"toolu_{len(self.requests)}",
                        "name": name,
                        "input": answer,
                    }
                ],  # fmt: skip
                "stop_reason": "tool_use",
                "stop_sequence": None,
                "usage": {"input_tokens": prompt // 4, "output_tokens": out // 4},
            },
        )

    # ----------------------------------------------------------------- the "model"
    def answer(self, schema_name: str, messages: list[dict]) -> dict | str:
        if schema_name == "rewrite":
            return {"question": self.rewrite(messages[0]["content"])}
        first = messages[0]["content"]
        context = json.loads(_JSON_BLOCK.search(first).group(1))
        repairing = len(messages) > 1
        if repairing:
            assert "failed validation" in messages[-1]["content"]
        kind = context["task"]["kind"]
        if not repairing and kind in self.schema:
            return "Sure! Here is the draft: {question: ..."  # not JSON at all
        draft = self.draft(context)
        if not repairing and kind in self.static:
            draft["oracle"] = "import os\n" + draft["oracle"]
        return draft

    @staticmethod
    def draft(context: dict) -> dict:
        task, cells = context["task"], context["cells"]
        names = [c["var"] for c in cells]
        lines = ["from oracles.api import emit, table_cell", ""]
        lines += [f"{c['var']} = {c['call']}  # {c['item']}, {c['period']}" for c in cells]
        formula = FORMULAS[task["operation"]]
        lines += ["", f"answer = {formula.code(names)}"]
        lines.append(f"emit(answer=answer, places={task['precision']}, unit={task['unit']!r})")
        places = task["precision"]
        key = evaluate(task["operation"], [Decimal(c["value"]) for c in cells], places)
        step = quantum(places)
        wrongs = [
            (key * 1000, "read thousands where the unit is millions", "other_base"),
            (-key, "flipped the sign", "flipped_sign"),
            (key + 100 * step, "misread a digit of the hundreds place", "misread_digit"),
        ]
        known = [
            {"value": str(evaluate("value", [v], places)), "reason": r, "family": f}
            for v, r, f in wrongs
            if abs(v - key) >= step
        ]
        return {
            "question": task["reference_question"],
            "oracle": "\n".join(lines) + "\n",
            "known_wrong": known,
        }

    def rewrite(self, content: str) -> str:
        question = json.loads(content.split("\n", 1)[1])["question"]
        text = question.replace("Round to the nearest whole number.", "Give a whole number.")
        text = re.sub(r"^What was (?!the )", "How much was ", text)
        if self.unit_swap:
            text = text.replace("millions of dollars", "thousands of dollars")
        return text

    # ----------------------------------------------------------------- counts
    def count(self, kind: str | None = None, repairs: bool | None = None) -> int:
        n = 0
        for r in self.requests:
            msgs = [m for m in r["body"]["messages"] if m["role"] != "system"]
            if repairs is not None and (len(msgs) > 1) != repairs:
                continue
            if kind is not None and f'"kind": "{kind}"' not in msgs[0]["content"]:
                continue
            n += 1
        return n
