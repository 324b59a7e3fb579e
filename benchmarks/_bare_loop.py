"""The bare loop of ``local_tasks.py``: the ``openai`` client, two tools (``bash`` and
``write_file``), a three-sentence prompt, nothing else (no retries, no guards)."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

from openai import OpenAI

PROMPT = (
    "You are a coding agent working in the current directory. Use the bash tool to run "
    "commands and the write_file tool to create or replace files. When the task is done, "
    "stop calling tools and give a short answer."
)
TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "bash",
            "description": "Run a bash command and return its exit code and output.",
            "parameters": {
                "type": "object",
                "properties": {"command": {"type": "string"}},
                "required": ["command"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "write_file",
            "description": "Write a file with the given content.",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
                "required": ["path", "content"],
            },
        },
    },
]


def _run_tool(name: str, raw: str, cwd: Path) -> str:
    try:
        args = json.loads(raw or "{}")
    except ValueError:
        return "error: the arguments are not valid JSON"
    if name == "write_file":
        path = cwd / str(args.get("path", ""))
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(str(args.get("content", "")))
        except OSError as exc:
            return f"error: {exc}"
        return f"wrote {args.get('path')}"
    try:
        done = subprocess.run(
            ["bash", "-c", str(args.get("command", ""))],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=30,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        return "error: timed out after 30 s"
    except OSError as exc:
        return f"error: {exc}"
    return f"exit code {done.returncode}\n{(done.stdout + done.stderr)[-4000:]}"


def bare_loop(
    base_url: str, prompt: str, cwd: Path, *, max_calls: int, max_wall: float, api_key: str
) -> dict[str, Any]:
    """Runs one task; returns the answer, how it ended, the calls made and the model time."""
    client = OpenAI(base_url=base_url, api_key=api_key, max_retries=0, timeout=max_wall)
    messages: list[Any] = [
        {"role": "system", "content": PROMPT},
        {"role": "user", "content": prompt},
    ]
    started, model_s = time.monotonic(), 0.0
    for call in range(max_calls):
        if time.monotonic() - started > max_wall:
            return {"answer": "", "end": "wall", "calls": call, "model_s": model_s}
        began = time.monotonic()
        try:
            reply = client.chat.completions.create(
                model="local",
                messages=messages,
                tools=TOOLS,
                temperature=0,  # type: ignore[arg-type]
            )
        except Exception as exc:
            end = "malformed" if "parse tool call" in str(exc) else f"error: {exc}"[:80]
            return {"answer": "", "end": end, "calls": call + 1, "model_s": model_s}
        model_s += time.monotonic() - began
        message = reply.choices[0].message
        messages.append(message.model_dump(exclude_none=True))
        if not message.tool_calls:
            return {
                "answer": message.content or "",
                "end": "answer",
                "calls": call + 1,
                "model_s": model_s,
            }
        for tool_call in message.tool_calls:
            if os.environ.get("LOCAL_TASKS_TRACE"):
                print("  ", tool_call.function.name, tool_call.function.arguments[:200])
            output = _run_tool(tool_call.function.name, tool_call.function.arguments, cwd)
            messages.append({"role": "tool", "tool_call_id": tool_call.id, "content": output})
    return {"answer": "", "end": "calls", "calls": max_calls, "model_s": model_s}
