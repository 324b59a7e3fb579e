#!/usr/bin/env python3
"""Driver for the shared agent-loop benchmark harness: the echo loop through taor's
`openai-compat` adapter (`model.stream` + `Assembler`, as an agent loop uses it).

Copy it into the harness's `drivers/` (see benchmarks/README.md), or run it from here:
`_common` is found next to this file or in `$TAOR_BENCH_DRIVERS` (default:
`../shared/bench/drivers` relative to the repository).
"""

import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.append(
    os.environ.get("TAOR_BENCH_DRIVERS", os.path.join(REPO, "..", "shared", "bench", "drivers"))
)

import openai  # noqa: E402, F401  (taor imports it on the first request; count it at import)
from _common import ECHO_DESCRIPTION, main, prompt  # noqa: E402

from taor.llm import Assembler, Message, Request, ToolDefinition, connect, tool_result  # noqa: E402

SCHEMA = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}


def build(args, echo):
    model = connect("openai-compat:gpt-4o-mini", api_key="mock", base_url=args.base_url + "/v1")
    tools = (ToolDefinition(name="echo", description=ECHO_DESCRIPTION, parameters=SCHEMA),)

    async def go():
        messages = [Message.user(prompt(args.n))]
        while True:
            assembler = Assembler(model.provider)
            async for event in model.stream(Request(messages=tuple(messages), tools=tools)):
                assembler.feed(event)
            response = assembler.response()
            if not response.tool_calls:
                return response.text
            messages.append(response.message)
            results = [tool_result(c.id, echo(**c.arguments)) for c in response.tool_calls]
            messages.append(Message.tool_results(*results))

    return go


if __name__ == "__main__":
    main("taor-openai-compat", "taor", ("taor", "openai"), build, protocol="openai")
