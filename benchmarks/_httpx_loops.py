"""Baselines below the SDKs: the same tool loop on raw ``httpx2`` + ``json``, one per protocol.

The floor for a Python client: no SDK types, no parameter transforms, plain dicts in the
history, the whole body re-encoded with ``json.dumps`` on every turn.
"""

from __future__ import annotations

import json

import httpx2
from _driver import DESCRIPTION, SCHEMA, prompt


async def sse_json(client: httpx2.AsyncClient, url: str, body: dict, headers: dict):
    """The JSON payload of every ``data:`` line of a streamed POST."""
    async with client.stream("POST", url, content=json.dumps(body), headers=headers) as r:
        r.raise_for_status()
        async for line in r.aiter_lines():
            if line.startswith("data:") and line[5:].strip() != "[DONE]":
                yield json.loads(line[5:])


def _client() -> httpx2.AsyncClient:
    return httpx2.AsyncClient(timeout=60)


def build_anthropic(base_url: str, n: int, echo):
    url = base_url + "/v1/messages"
    headers = {
        "x-api-key": "fake",
        "anthropic-version": "2023-06-01",
        "content-type": "application/json",
    }
    tools = [{"name": "echo", "description": DESCRIPTION, "input_schema": SCHEMA}]

    async def go() -> str:
        messages: list = [{"role": "user", "content": prompt(n)}]
        async with _client() as client:
            while True:
                body = {
                    "model": "claude-sonnet-4-5",
                    "max_tokens": 1024,
                    "messages": messages,
                    "tools": tools,
                    "stream": True,
                }
                blocks: dict[int, dict] = {}
                args: dict[int, list[str]] = {}
                async for ev in sse_json(client, url, body, headers):
                    kind = ev["type"]
                    if kind == "content_block_start":
                        blocks[ev["index"]] = dict(ev["content_block"])
                    elif kind == "content_block_delta":
                        d = ev["delta"]
                        if d["type"] == "text_delta":
                            blocks[ev["index"]]["text"] += d["text"]
                        elif d["type"] == "input_json_delta":
                            args.setdefault(ev["index"], []).append(d["partial_json"])
                content = [blocks[i] for i in sorted(blocks)]
                for i, parts in args.items():
                    blocks[i]["input"] = json.loads("".join(parts) or "{}")
                uses = [b for b in content if b["type"] == "tool_use"]
                if not uses:
                    return "".join(b["text"] for b in content if b["type"] == "text")
                messages.append({"role": "assistant", "content": content})
                results = [
                    {"type": "tool_result", "tool_use_id": u["id"], "content": echo(**u["input"])}
                    for u in uses
                ]
                messages.append({"role": "user", "content": results})

    return go


def build_responses(base_url: str, n: int, echo):
    url = base_url + "/v1/responses"
    headers = {"authorization": "Bearer fake", "content-type": "application/json"}
    tools = [{"type": "function", "name": "echo", "description": DESCRIPTION, "parameters": SCHEMA}]

    async def go() -> str:
        items: list = [{"role": "user", "content": prompt(n)}]
        async with _client() as client:
            while True:
                body = {
                    "model": "gpt-4.1",
                    "input": items,
                    "tools": tools,
                    "stream": True,
                    "store": False,
                }
                output = []
                async for ev in sse_json(client, url, body, headers):
                    if ev["type"] == "response.output_item.done":
                        output.append(ev["item"])
                calls = [o for o in output if o["type"] == "function_call"]
                if not calls:
                    return "".join(
                        c["text"]
                        for o in output
                        if o["type"] == "message"
                        for c in o["content"]
                        if c["type"] == "output_text"
                    )
                items += output
                items += [
                    {
                        "type": "function_call_output",
                        "call_id": c["call_id"],
                        "output": echo(**json.loads(c["arguments"])),
                    }
                    for c in calls
                ]

    return go


def build_chat(base_url: str, n: int, echo):
    url = base_url + "/v1/chat/completions"
    headers = {"authorization": "Bearer fake", "content-type": "application/json"}
    tools = [
        {
            "type": "function",
            "function": {"name": "echo", "description": DESCRIPTION, "parameters": SCHEMA},
        }
    ]

    async def go() -> str:
        messages: list = [{"role": "user", "content": prompt(n)}]
        async with _client() as client:
            while True:
                body = {
                    "model": "llama3.1",
                    "messages": messages,
                    "tools": tools,
                    "stream": True,
                    "stream_options": {"include_usage": True},
                }
                text, calls = [], {}
                async for chunk in sse_json(client, url, body, headers):
                    for choice in chunk.get("choices") or ():
                        d = choice.get("delta") or {}
                        if d.get("content"):
                            text.append(d["content"])
                        for tc in d.get("tool_calls") or ():
                            slot = calls.setdefault(tc["index"], {"id": "", "name": "", "args": []})
                            slot["id"] = tc.get("id") or slot["id"]
                            f = tc.get("function") or {}
                            slot["name"] = f.get("name") or slot["name"]
                            slot["args"].append(f.get("arguments") or "")
                if not calls:
                    return "".join(text)
                tool_calls = [
                    {
                        "id": c["id"],
                        "type": "function",
                        "function": {"name": c["name"], "arguments": "".join(c["args"])},
                    }
                    for _, c in sorted(calls.items())
                ]
                messages.append(
                    {
                        "role": "assistant",
                        "content": "".join(text) or None,
                        "tool_calls": tool_calls,
                    }
                )
                for tc in tool_calls:
                    output = echo(**json.loads(tc["function"]["arguments"]))
                    messages.append({"role": "tool", "tool_call_id": tc["id"], "content": output})

    return go


def build_gemini(base_url: str, n: int, echo):
    url = base_url + "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
    headers = {"x-goog-api-key": "fake", "content-type": "application/json"}
    tools = [
        {
            "functionDeclarations": [
                {"name": "echo", "description": DESCRIPTION, "parametersJsonSchema": SCHEMA}
            ]
        }
    ]

    async def go() -> str:
        contents: list = [{"role": "user", "parts": [{"text": prompt(n)}]}]
        async with _client() as client:
            while True:
                body = {"contents": contents, "tools": tools}
                text, calls = [], []
                async for chunk in sse_json(client, url, body, headers):
                    for cand in (chunk.get("candidates") or ())[:1]:
                        for part in (cand.get("content") or {}).get("parts") or ():
                            if "functionCall" in part:
                                calls.append(part)
                            elif "text" in part:
                                text.append(part["text"])
                if not calls:
                    return "".join(text)
                contents.append(
                    {"role": "model", "parts": [{"text": "".join(text)}, *calls] if text else calls}
                )
                responses = []
                for p in calls:
                    fc = p["functionCall"]
                    fr = {"name": fc["name"], "response": {"output": echo(**fc.get("args", {}))}}
                    if fc.get("id"):
                        fr["id"] = fc["id"]
                    responses.append({"functionResponse": fr})
                contents.append({"role": "user", "parts": responses})

    return go
