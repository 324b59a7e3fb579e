"""Prompt caching: a 30-turn session through the real adapters against
FakeProviderServer, whose prefix-cache simulation reports the longest byte prefix a request
shares with a recent one (in 128-token blocks, from 1024 tokens on).

- From turn 3 on, at least 90% of each turn's input tokens are reported cached (a turn is a
  tool round and an answer: two responses; what a round adds is new, so the response after
  turn 12's six-file round is the least cached, and the simulation counts bytes, so for
  Anthropic it also misses what a moved marker leaves behind).
- Two consecutive requests share their prefix byte for byte up to the new turn: the new body
  starts with the previous body up to the end of its conversation. Anthropic's ``cache_control``
  markers move with the conversation; they are not part of the cached content, so the
  comparison drops them; the raw bytes match up to the previous request's first message
  breakpoint (its last one, unless the round before it was wide).
- Anthropic's own rules: at most four breakpoints, and the previous request's last breakpoint
  (the entry it wrote) is marked again or lies within the ~20-block lookback of the newest one.
- OpenAI gets the session id as a stable ``prompt_cache_key``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

import pytest

from taor.agent.config import PermissionConfig, SessionConfig
from taor.agent.session import Session
from taor.env.memory import MemoryEnvironment
from taor.llm import connect
from taor.llm.response import Usage
from taor.testing import FakeProviderServer, RecordedRequest, Reply, ToolCall, text

TURNS = 30
WIDE_TURN = 12  # this turn's round reads six files at once (more blocks than a short round)
SESSION_ID = "prompt-cache-session"
MARKER = ',"cache_control":{"type":"ephemeral"}'
MODELS = {
    "anthropic": "claude-sonnet-4-5",
    "openai": "gpt-5.2",
    "gemini": "gemini-3-flash-preview",
    "openai-compat": "qwen3-coder",
}
HISTORY_KEY = {"anthropic": "messages", "openai": "input", "gemini": "contents"}
CONFIG = SessionConfig(permissions=PermissionConfig(mode="bypass"), reasoning_effort="medium")


@dataclass(frozen=True, kw_only=True, slots=True)
class Run:
    usage: list[tuple[int, Usage]]  # (turn, usage of one response)
    requests: list[RecordedRequest]


def script(provider: str) -> list[Reply]:
    """Per turn: a tool round (with thinking and a signature to send back), then an answer."""
    key = "path" if provider == "openai-compat" else "file_path"
    steps: list[Reply] = []
    for turn in range(1, TURNS + 1):
        files = range(turn, turn + 6) if turn == WIDE_TURN else (turn,)
        calls = tuple(ToolCall(name="read_file", arguments={key: f"src/m{n}.py"}) for n in files)
        thinking = f"The user asks about m{turn}.py; reading it."
        steps.append(
            Reply(text="Reading it.", tool_calls=calls, thinking=thinking, signature=f"sig{turn}")
        )
        steps.append(text(f"m{turn}.py sets x to {turn}.", thinking="Answer.", signature="s"))
    return steps


async def run_session(provider: str, server: FakeProviderServer) -> Run:
    files = {f"src/m{n}.py": f"x = {n}\n" * (10 + n % 7) for n in range(1, TURNS + 7)}
    server.push(*script(provider))
    model = connect(
        f"{provider}:{MODELS[provider]}", api_key="test", base_url=server.base_url(provider)
    )
    usage: list[tuple[int, Usage]] = []
    try:
        async with Session(
            model, environment=MemoryEnvironment(files=files), config=CONFIG, session_id=SESSION_ID
        ) as session:
            for turn in range(1, TURNS + 1):
                async for event in session.submit(f"What does src/m{turn}.py set x to?"):
                    if event.kind == "usage":
                        usage.append((turn, event.usage))
    finally:
        await model.aclose()
    server.assert_done()
    return Run(usage=usage, requests=list(server.requests))


def top_level_spans(body: str) -> dict[str, tuple[int, int]]:
    """Where each top-level value of a JSON object starts and ends in ``body``."""
    decoder, spans, index = json.JSONDecoder(), {}, 1
    while body[index] != "}":
        key, index = decoder.raw_decode(body, index)
        start = index + 1  # after the colon (the bodies are compact)
        _, index = decoder.raw_decode(body, start)
        spans[key] = (start, index)
        index += body[index] == ","
    return spans


def history_prefix(provider: str, body: str) -> str:
    """The body up to the end of its last message (before the array's closing bracket)."""
    _, end = top_level_spans(body)[HISTORY_KEY.get(provider, "messages")]
    return body[: end - 1]


def turn_shares(run: Run) -> list[tuple[int, float]]:
    """The cached share of each turn's input tokens (its two responses together)."""
    shares = []
    for turn in range(1, TURNS + 1):
        usage = [u for t, u in run.usage if t == turn]
        cached = sum(u.cache_read_tokens for u in usage)
        shares.append((turn, cached / sum(u.input_tokens for u in usage)))
    return shares


@pytest.mark.parametrize("provider", ["anthropic", "openai", "gemini"])
async def test_most_input_is_cached_from_turn_3(
    provider: str, fake_server: FakeProviderServer
) -> None:
    run = await run_session(provider, fake_server)
    assert len(run.usage) == 2 * TURNS
    assert run.usage[0][1].cache_read_tokens == 0  # a cold cache
    low = [(turn, share) for turn, share in turn_shares(run) if turn >= 3 and share < 0.9]
    assert low == []
    if provider == "openai":
        keys = {r.json.get("prompt_cache_key") for r in run.requests}
        assert keys == {SESSION_ID}


@pytest.mark.parametrize("provider", ["anthropic", "openai", "gemini", "openai-compat"])
async def test_consecutive_requests_share_their_prefix_byte_for_byte(
    provider: str, fake_server: FakeProviderServer
) -> None:
    run = await run_session(provider, fake_server)
    bodies = [r.body.decode() for r in run.requests]
    assert len(bodies) == 2 * TURNS
    for before, after in pairwise(bodies):
        if provider == "anthropic":
            first_mark = before.index(MARKER, top_level_spans(before)["messages"][0])
            assert after.startswith(before[:first_mark])  # the raw bytes
            before, after = before.replace(MARKER, ""), after.replace(MARKER, "")
        shared = history_prefix(provider, before)
        assert after.startswith(shared)
        assert after[len(shared)] == ","  # the new turn follows


def block_positions(body: Any) -> list[tuple[int, int, bool]]:
    """(message, block, marked) for every content block of an Anthropic body, in order."""
    return [
        (m, b, "cache_control" in block)
        for m, message in enumerate(body["messages"])
        for b, block in enumerate(message["content"])
    ]


async def test_anthropic_breakpoints_reuse_the_previous_entry(
    fake_server: FakeProviderServer,
) -> None:
    run = await run_session("anthropic", fake_server)
    bodies = [r.json for r in run.requests]
    assert all(r.body.count(MARKER.encode()) <= 4 for r in run.requests)
    assert all(
        "cache_control" in b["system"][-1] and "cache_control" in b["tools"][-1] for b in bodies
    )
    marked_again = 0
    for before, after in pairwise(bodies):
        written = [(m, b) for m, b, marked in block_positions(before) if marked][-1]
        blocks = block_positions(after)
        where = next(n for n, (m, b, _) in enumerate(blocks) if (m, b) == written)
        assert blocks[-1][2]  # the newest block writes this request's prefix
        assert blocks[where][2] or len(blocks) - 1 - where <= 20
        marked_again += blocks[where][2]
    assert marked_again == 1  # after turn 12's wide round only
