"""A bare-SDK client for ``startup.py``: one streamed chat completion with the ``openai`` SDK.

    python benchmarks/_sdk_first_request.py BASE_URL REQUEST_JSON_FILE

It sends the request body in the file (the one taor sent: model, messages, tools and options)
with ``AsyncOpenAI().chat.completions.create(stream=True)`` and reads the stream to its end.
"""

from __future__ import annotations

import asyncio
import json
import sys

from openai import AsyncOpenAI


async def main(base_url: str, body: dict) -> None:
    model, messages = body.pop("model"), body.pop("messages")
    body.pop("stream", None)
    async with AsyncOpenAI(base_url=base_url, api_key="unused") as client:
        stream = await client.chat.completions.create(
            model=model, messages=messages, stream=True, extra_body=body
        )
        async for _ in stream:
            pass


if __name__ == "__main__":
    with open(sys.argv[2]) as f:
        request = json.load(f)
    asyncio.run(main(sys.argv[1], request))
