"""Baselines: the tool loop hand-written on each official SDK, as its docs show it.

Each ``build_<protocol>(base_url, n, echo)`` builds the client (counted in the import-only
baseline) and returns the measured coroutine function, which returns the final text.
"""

from __future__ import annotations

import json

from _driver import DESCRIPTION, SCHEMA, prompt


def build_anthropic(base_url: str, n: int, echo):
    from anthropic import AsyncAnthropic

    client = AsyncAnthropic(base_url=base_url, api_key="fake")
    tools = [{"name": "echo", "description": DESCRIPTION, "input_schema": SCHEMA}]

    async def go() -> str:
        messages: list = [{"role": "user", "content": prompt(n)}]
        while True:
            async with client.messages.stream(
                model="claude-sonnet-4-5", max_tokens=1024, messages=messages, tools=tools
            ) as stream:
                async for _event in stream:
                    pass
                msg = await stream.get_final_message()
            uses = [b for b in msg.content if b.type == "tool_use"]
            if not uses:
                return "".join(b.text for b in msg.content if b.type == "text")
            messages.append({"role": "assistant", "content": msg.content})
            results = [
                {"type": "tool_result", "tool_use_id": u.id, "content": echo(**u.input)}
                for u in uses
            ]
            messages.append({"role": "user", "content": results})

    return go


def build_responses(base_url: str, n: int, echo):
    from openai import AsyncOpenAI

    client = AsyncOpenAI(base_url=base_url + "/v1", api_key="fake")
    tools = [{"type": "function", "name": "echo", "description": DESCRIPTION, "parameters": SCHEMA}]

    async def go() -> str:
        items: list = [{"role": "user", "content": prompt(n)}]
        while True:
            stream = await client.responses.create(
                model="gpt-4.1", input=items, tools=tools, stream=True, store=False
            )
            response = None
            async for event in stream:
                if event.type == "response.completed":
                    response = event.response
            assert response is not None, "no response.completed event"
            calls = [o for o in response.output if o.type == "function_call"]
            if not calls:
                return response.output_text
            # Back as plain dicts, dumped once: passing the pydantic items themselves (the
            # docs' `input += response.output`) makes the SDK re-dump all of them every turn.
            items += [o.model_dump(mode="json", exclude_unset=True) for o in response.output]
            items += [
                {
                    "type": "function_call_output",
                    "call_id": c.call_id,
                    "output": echo(**json.loads(c.arguments)),
                }
                for c in calls
            ]

    return go


def build_chat(base_url: str, n: int, echo):
    from openai import AsyncOpenAI

    client = AsyncOpenAI(base_url=base_url + "/v1", api_key="fake")
    tools = [
        {
            "type": "function",
            "function": {"name": "echo", "description": DESCRIPTION, "parameters": SCHEMA},
        }
    ]

    async def go() -> str:
        messages: list = [{"role": "user", "content": prompt(n)}]
        while True:
            stream = await client.chat.completions.create(
                model="llama3.1",
                messages=messages,
                tools=tools,
                stream=True,
                stream_options={"include_usage": True},
            )
            text, calls = [], {}
            async for chunk in stream:
                for choice in chunk.choices:
                    delta = choice.delta
                    if delta.content:
                        text.append(delta.content)
                    for tc in delta.tool_calls or ():
                        slot = calls.setdefault(tc.index, {"id": "", "name": "", "args": []})
                        slot["id"] = tc.id or slot["id"]
                        if tc.function:
                            slot["name"] = tc.function.name or slot["name"]
                            slot["args"].append(tc.function.arguments or "")
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
                {"role": "assistant", "content": "".join(text) or None, "tool_calls": tool_calls}
            )
            for tc in tool_calls:
                output = echo(**json.loads(tc["function"]["arguments"]))
                messages.append({"role": "tool", "tool_call_id": tc["id"], "content": output})

    return go


def build_gemini(base_url: str, n: int, echo):
    from google import genai
    from google.genai import types

    options = types.HttpOptions(base_url=base_url, api_version="v1beta")
    client = genai.Client(api_key="fake", http_options=options)
    declaration = types.FunctionDeclaration(
        name="echo", description=DESCRIPTION, parameters_json_schema=SCHEMA
    )
    config = types.GenerateContentConfig(
        tools=[types.Tool(function_declarations=[declaration])],
        automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
    )

    async def go() -> str:
        contents: list = [types.Content(role="user", parts=[types.Part(text=prompt(n))])]
        while True:
            text, calls = [], []
            stream = await client.aio.models.generate_content_stream(
                model="gemini-2.5-flash", contents=contents, config=config
            )
            async for chunk in stream:
                content = chunk.candidates[0].content if chunk.candidates else None
                for part in (content.parts if content else None) or ():
                    if part.function_call:
                        calls.append(part)
                    elif part.text:
                        text.append(part.text)
            if not calls:
                return "".join(text)
            parts = [types.Part(text="".join(text)), *calls] if text else calls
            contents.append(types.Content(role="model", parts=parts))
            responses = [
                types.Part(
                    function_response=types.FunctionResponse(
                        id=fc.id, name=fc.name, response={"output": echo(**fc.args)}
                    )
                )
                for fc in (p.function_call for p in calls)
            ]
            contents.append(types.Content(role="user", parts=responses))

    return go
