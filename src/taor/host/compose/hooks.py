"""Hooks from the config files: shell commands a session runs at its events.

    [[hooks.before_tool]]
    match = "shell"                  # tool names, fnmatch-style (default: every tool)
    command = "python scripts/guard.py"
    timeout = 30                     # seconds (default 30)

Events: ``before_tool``, ``after_tool``, ``user_prompt``, ``stop``. The command runs with
``sh -c`` in the project's folder, with the host's variables less those that look like
secrets, and reads one JSON object on stdin: ``event``, ``cwd``, and the event's own fields
(``tool``, ``call_id``, ``arguments``; ``output`` and ``is_error`` after a tool; ``prompt``;
``final_text``). It answers with its exit code and, optionally, one JSON object on stdout:

- exit 0 and nothing on stdout: go on as if there were no hook;
- ``before_tool``: ``{"decision": "deny", "message": ...}`` refuses the call, ``{"arguments":
  {...}}`` runs it with those, ``{"output": ...}`` answers it without running it; exit 2
  refuses it with stderr as the message;
- ``after_tool``: ``{"output": ..., "is_error": ...}`` replaces what the model gets;
- ``user_prompt``: ``{"prompt": ...}`` replaces the input;
- ``stop``: ``{"continue": ...}``, or exit 2 with stderr, keeps the model going with that text;
- any other exit code, a time-out or stdout that is not such an object: the hook failed; the
  session says so (an ``error`` event; a tool call's result tells the model).

Project hooks come only from a trusted folder (``taor.host.settings.confine``).
"""

from __future__ import annotations

import asyncio
import contextlib
import fnmatch
import json
import os
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

from taor.agent.policy.hooks import (
    AnswerCall,
    BeforeToolResult,
    ChangeArguments,
    DenyCall,
    Hooks,
    ToolCallInfo,
)
from taor.env.envvars import filter_environ
from taor.errors import TaorError
from taor.tools.base import ToolOutput

DEFAULT_TIMEOUT = 30.0
BLOCK = 2  # the exit code that refuses a call, or keeps the model going at a stop


class HookError(TaorError):
    """A hook command failed: its exit code, a time-out or an answer it may not give."""


def hooks_from(config: Mapping[str, tuple[Mapping[str, Any], ...]], cwd: Path) -> Hooks | None:
    """The session hooks the ``[hooks]`` settings describe (None when there are none)."""
    if not any(config.values()):
        return None
    made = {
        event: [_Command(hook, event, cwd) for hook in hooks] for event, hooks in config.items()
    }
    return Hooks(
        before_tool=tuple(_before_tool(c) for c in made.get("before_tool", [])),
        after_tool=tuple(_after_tool(c) for c in made.get("after_tool", [])),
        on_user_prompt=tuple(_user_prompt(c) for c in made.get("user_prompt", [])),
        on_stop=tuple(_stop(c) for c in made.get("stop", [])),
    )


class _Command:
    def __init__(self, hook: Mapping[str, Any], event: str, cwd: Path) -> None:
        self.command: str = hook["command"]
        self.match: str = hook.get("match", "*")
        self.timeout = float(hook.get("timeout", DEFAULT_TIMEOUT))
        self.event, self.cwd = event, cwd

    def matches(self, tool: str) -> bool:
        return fnmatch.fnmatchcase(tool, self.match)

    async def run(self, fields: Mapping[str, Any]) -> tuple[int, dict[str, Any], str]:
        """The exit code, the JSON object on stdout (empty when none) and stderr."""
        message = json.dumps({"event": self.event, "cwd": str(self.cwd), **fields})
        process = await asyncio.create_subprocess_shell(
            self.command,
            cwd=self.cwd,
            env=filter_environ(os.environ, "inherit_all"),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
        )
        try:
            out, err = await asyncio.wait_for(process.communicate(message.encode()), self.timeout)
        except TimeoutError:
            _kill(process)
            raise HookError(f"timed out after {self.timeout:g} s") from None
        except BaseException:
            _kill(process)
            raise
        text = err.decode(errors="replace").strip()
        code = process.returncode or 0
        if code not in (0, BLOCK):
            raise HookError(f"exited with {code}" + (f": {text[-500:]}" if text else ""))
        return code, _answer(out), text


def _kill(process: asyncio.subprocess.Process) -> None:
    if process.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, 9)


def _answer(out: bytes) -> dict[str, Any]:
    text = out.decode(errors="replace").strip()
    if not text:
        return {}
    try:
        answer = json.loads(text)
    except ValueError:
        answer = None
    if not isinstance(answer, dict):
        raise HookError(f"printed something that is not one JSON object: {text[:200]!r}")
    return answer


def _named(command: _Command, hook: Callable[..., Awaitable[Any]]) -> Any:
    hook.__qualname__ = f"{command.event} hook `{command.command}`"
    return hook


def _before_tool(command: _Command) -> Any:
    async def hook(call: ToolCallInfo) -> BeforeToolResult | None:
        if not command.matches(call.name):
            return None
        code, answer, err = await command.run(
            {"tool": call.name, "call_id": call.call_id, "arguments": dict(call.arguments)}
        )
        if code == BLOCK:
            return DenyCall(message=err or f"refused by the hook `{command.command}`")
        if answer.get("decision") == "deny":
            return DenyCall(message=str(answer.get("message") or "refused by a hook"))
        if isinstance(answer.get("arguments"), dict):
            return ChangeArguments(arguments=answer["arguments"])
        if "output" in answer:
            return AnswerCall(output=ToolOutput.of(str(answer["output"])))
        return None

    return _named(command, hook)


def _after_tool(command: _Command) -> Any:
    async def hook(call: ToolCallInfo, output: ToolOutput) -> ToolOutput | None:
        if not command.matches(call.name):
            return None
        fields = {"tool": call.name, "call_id": call.call_id, "arguments": dict(call.arguments)}
        _, answer, _ = await command.run(
            {**fields, "output": output.text, "is_error": output.is_error}
        )
        if "output" not in answer:
            return None
        return ToolOutput.of(str(answer["output"]), is_error=bool(answer.get("is_error")))

    return _named(command, hook)


def _user_prompt(command: _Command) -> Any:
    async def hook(text: str) -> str | None:
        _, answer, _ = await command.run({"prompt": text})
        prompt = answer.get("prompt")
        return prompt if isinstance(prompt, str) else None

    return _named(command, hook)


def _stop(command: _Command) -> Any:
    async def hook(final_text: str) -> str | None:
        code, answer, err = await command.run({"final_text": final_text})
        if code == BLOCK:
            return err or None
        go_on = answer.get("continue")
        return go_on if isinstance(go_on, str) else None

    return _named(command, hook)
