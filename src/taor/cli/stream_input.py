"""The lines of ``--input-format stream-json``: one JSON object per line on stdin, each a command
for the session, read by a thread so that the event loop never waits on stdin.

    {"type": "user", "text": "..."}                 an input (queued behind a running cycle);
    {"type": "user", "message": {"role": "user", "content": "..." | [{"type": "text",
        "text": "..."}, ...]}}                      the same in Claude Code's shape
    {"type": "steer", "text": "..."}                for the model after the current tool round
    {"type": "follow_up", "text": "..."}            an input to run after the current cycle
    {"type": "interrupt"}                           stop the current cycle
    {"type": "permission", "request_id": "...", "decision": "allow" | "deny" | "allow_always",
        "message": "...", "agent_id": "..."}        answer a permission_request (the last two
                                                    optional)
    {"type": "checkpoints"}                         list the checkpoints (one per input so far)
    {"type": "rewind", "turn": N, "files": true, "conversation": true}
                                                    go back to before input N (when idle; the
                                                    last two optional)
    {"type": "close"}                               close the session now

``parse_line`` turns a line into a command of the session's protocol (``taor.agent.commands``,
decoded with its codec: ``user`` is a ``submit``, ``permission`` an ``answer``), or raises
``SessionError`` saying what is wrong with it; blank lines are skipped. Unknown fields are
ignored.
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
from typing import Any

from taor.agent.commands import Command
from taor.agent.record.codec import command_from_json
from taor.errors import SessionError

EXAMPLE = '{"type": "user", "text": "..."}'
TYPES = "user, steer, follow_up, interrupt, permission, checkpoints, rewind, close"
DECISIONS = ("allow", "deny", "allow_always")


def parse_line(raw: bytes | str) -> Command | None:
    """The command on a line; None for a blank line; ``SessionError`` for anything else."""
    # Bytes that are not UTF-8 go on as lone surrogates: the session replaces them and warns.
    line = raw.decode("utf-8", "surrogateescape") if isinstance(raw, bytes) else raw
    if not line.strip():
        return None
    try:
        data = json.loads(line)
    except json.JSONDecodeError as error:
        raise SessionError(
            f"not JSON ({error.msg}); send one object a line, like {EXAMPLE}"
        ) from None
    if not isinstance(data, dict):
        raise SessionError(f"not a JSON object; send one object a line, like {EXAMPLE}")
    return command_from_json(_command_fields(data))


def _command_fields(data: dict[str, Any]) -> dict[str, Any]:
    """The line's command as the codec's object: its ``kind`` and its checked fields."""
    kind = data.get("type")
    match kind:
        case "user":
            return {"kind": "submit", "text": _user_text(data)}
        case "steer" | "follow_up":
            return {"kind": kind, "text": _text(data, "text")}
        case "interrupt" | "checkpoints" | "close":
            return {"kind": kind}
        case "permission":
            return {"kind": "answer", **_permission(data)}
        case "rewind":
            return {"kind": "rewind", **_rewind(data)}
    raise SessionError(f'"type" {kind!r} is not one of {TYPES}')


def _text(data: dict[str, Any], key: str) -> str:
    value = data.get(key)
    if value is None:
        raise SessionError(f'"{key}" is missing (a string)')
    if not isinstance(value, str):
        raise SessionError(f'"{key}" is not a string but {type(value).__name__}')
    if not value.strip():
        raise SessionError(f'"{key}" is empty')
    return value


def _user_text(data: dict[str, Any]) -> str:
    """``text``, or the text of Claude Code's ``message.content`` (a string or text blocks)."""
    message = data.get("message")
    if message is None:
        return _text(data, "text")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return _text(message, "content")
    if not isinstance(content, list) or not content:
        raise SessionError('"message" needs "content": a string or a list of text blocks')
    if not all(isinstance(b, dict) and b.get("type") == "text" for b in content):
        raise SessionError('only text blocks ({"type": "text", "text": ...}) can be sent')
    return "\n".join(_text(block, "text") for block in content)


def _permission(data: dict[str, Any]) -> dict[str, str]:
    decision = _text(data, "decision")
    if decision not in DECISIONS:
        raise SessionError(f'"decision" {decision!r} is not one of {", ".join(DECISIONS)}')
    message, agent_id = data.get("message", ""), data.get("agent_id", "")
    if not isinstance(message, str) or not isinstance(agent_id, str):
        raise SessionError('"message" and "agent_id" are strings when given')
    request_id = _text(data, "request_id")
    return {
        "request_id": request_id,
        "decision": decision,
        "message": message,
        "agent_id": agent_id,
    }


def _rewind(data: dict[str, Any]) -> dict[str, Any]:
    turn, files, conversation = (
        data.get("turn"),
        data.get("files", True),
        data.get("conversation", True),
    )
    if type(turn) is not int:
        raise SessionError('"turn" is missing (the number of the input to go back before)')
    if not isinstance(files, bool) or not isinstance(conversation, bool):
        raise SessionError('"files" and "conversation" are true or false when given')
    return {"turn": turn, "files": files, "conversation": conversation}


def read_lines(fd: int = 0) -> asyncio.Queue[bytes | None]:
    """The lines of ``fd`` as they come (without their newline), then None at its end, read by
    a daemon thread with ``os.read`` (no lock a blocked read could hold at exit)."""
    loop = asyncio.get_running_loop()
    lines: asyncio.Queue[bytes | None] = asyncio.Queue()

    def put(item: bytes | None) -> bool:
        try:
            loop.call_soon_threadsafe(lines.put_nowait, item)
            return True
        except RuntimeError:  # the loop is closed: taor is exiting
            return False

    def read() -> None:
        pieces: list[bytes] = []  # of the line not ended yet
        while chunk := _read(fd):
            *ended, rest = chunk.split(b"\n")
            for piece in ended:
                if not put(b"".join((*pieces, piece))):
                    return
                pieces = []
            pieces.append(rest)
        if any(pieces):
            put(b"".join(pieces))
        put(None)

    threading.Thread(target=read, name="taor-stdin", daemon=True).start()
    return lines


def _read(fd: int) -> bytes:
    try:
        return os.read(fd, 1 << 16)
    except OSError:  # a closed or unreadable stdin ends the input
        return b""
