"""The second known model, Gemma 3 270M (``taor models install gemma3-270m``; skipped without
it), with taor's Gemma template: llama.cpp derives a tool-call parser from the template, so a
call the model writes as a fenced json block comes back as a tool call. The model is the base
model, so it is shown calls in the conversation rather than trusted to follow the prompt.

Run with ``pytest -m e2e tests/e2e``. A few seconds on two shared cores."""

from __future__ import annotations

import asyncio

import pytest

from taor.llm import (
    Message,
    Request,
    Response,
    ToolCallPart,
    ToolChoice,
    ToolDefinition,
    complete,
    connect,
    tool_result,
)
from taor.llm.local.install import is_installed
from taor.llm.local.known import KNOWN, models_dir

GEMMA = KNOWN["gemma3-270m"]
pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(
        not is_installed(GEMMA, models_dir()),
        reason=f"gemma3-270m is not installed: run `taor models install gemma3-270m` "
        f"({models_dir()})",
    ),
]
SHELL = ToolDefinition(
    name="shell",
    description="Run a bash command.",
    parameters={
        "type": "object",
        "properties": {"command": {"type": "string"}},
        "required": ["command"],
    },
)


def ran(script: str, n: int) -> list[Message]:
    call = ToolCallPart(id=f"call_{n}", name="shell", arguments={"command": f"python {script}"})
    return [
        Message.user(f"Run: python {script}"),
        Message.assistant(call),
        Message.tool_results(tool_result(f"call_{n}", script.removesuffix(".py"), name="shell")),
        Message.assistant("Done."),
    ]


def test_a_call_written_as_a_fenced_json_block_comes_back_as_a_tool_call() -> None:
    env = {"TAOR_MODELS_DIR": str(models_dir()), "TAOR_LOCAL_PREFIX_DIR": "off"}
    model = connect("local:gemma3-270m", env=env, threads=2)
    request = Request(
        system="You are a coding assistant. Call a tool.",
        messages=(*ran("a.py", 1), *ran("b.py", 2), Message.user("Run: python hello.py")),
        tools=(SHELL,),
        tool_choice=ToolChoice(parallel=False),
        max_tokens=40,
        temperature=0,
    )

    async def ask() -> Response:
        try:
            return await complete(model, request)
        finally:
            await model.aclose()

    response = asyncio.run(ask())
    assert response.tool_calls, response.text
    first = response.tool_calls[0]
    assert (first.name, dict(first.arguments)) == ("shell", {"command": "python hello.py"})
