"""A bare-SDK client for ``startup.py``: one streamed request with a provider's official SDK.

    python benchmarks/_sdk_first_request.py PROVIDER BASE_URL REQUEST_JSON_FILE

It sends the request body in the file (the one taor sent: model, messages, tools and options)
and reads the stream to its end:

- ``anthropic``: ``AsyncAnthropic().messages.create(stream=True)``;
- ``openai``: ``AsyncOpenAI().responses.create(stream=True)``;
- ``gemini``: ``genai.Client().aio.models.generate_content_stream``;
- ``openai-compat``: ``AsyncOpenAI().chat.completions.create(stream=True)``.

Each imports only its own SDK, as a script written for one provider would.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any


async def anthropic(base_url: str, body: dict[str, Any]) -> None:
    from anthropic import AsyncAnthropic

    required = {k: body.pop(k) for k in ("model", "max_tokens", "messages")}
    body.pop("stream", None)
    async with AsyncAnthropic(base_url=base_url, api_key="unused") as client:
        stream = await client.messages.create(**required, stream=True, extra_body=body)
        async for _ in stream:
            pass


async def openai(base_url: str, body: dict[str, Any]) -> None:
    from openai import AsyncOpenAI

    model, items = body.pop("model"), body.pop("input")
    body.pop("stream", None)
    async with AsyncOpenAI(base_url=base_url, api_key="unused") as client:
        stream = await client.responses.create(
            model=model, input=items, stream=True, extra_body=body
        )
        async for _ in stream:
            pass


async def gemini(base_url: str, body: dict[str, Any]) -> None:
    from google import genai
    from google.genai import types

    model = body.pop("model")
    options = types.HttpOptions(base_url=base_url, api_version="v1beta")
    client = genai.Client(api_key="unused", http_options=options)
    config = {
        "system_instruction": body.get("systemInstruction"),
        "tools": body.get("tools"),
        **body.get("generationConfig", {}),
        "automatic_function_calling": {"disable": True},
    }
    stream = await client.aio.models.generate_content_stream(
        model=model, contents=body["contents"], config=config
    )
    async for _ in stream:
        pass
    await client.aio.aclose()


async def openai_compat(base_url: str, body: dict[str, Any]) -> None:
    from openai import AsyncOpenAI

    model, messages = body.pop("model"), body.pop("messages")
    body.pop("stream", None)
    async with AsyncOpenAI(base_url=base_url, api_key="unused") as client:
        stream = await client.chat.completions.create(
            model=model, messages=messages, stream=True, extra_body=body
        )
        async for _ in stream:
            pass


CLIENTS = {
    "anthropic": anthropic,
    "openai": openai,
    "gemini": gemini,
    "openai-compat": openai_compat,
}

if __name__ == "__main__":
    provider, base_url, request_file = sys.argv[1:4]
    with open(request_file) as f:
        request = json.load(f)
    asyncio.run(CLIENTS[provider](base_url, request))
