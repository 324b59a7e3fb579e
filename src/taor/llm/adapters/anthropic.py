"""Anthropic Messages API (``POST /v1/messages``, streamed) through the official SDK's client.

Request encoding. The system prompt goes top level as text blocks (system-role messages join
it). Messages alternate strictly: consecutive messages of one role are merged, ``tool``
messages become user messages of ``tool_result`` blocks, and user text that follows tool results
joins that same user message after them (Anthropic wants the results first). Thinking blocks go
back verbatim with their signature (redacted ones as ``redacted_thinking``); thinking produced
by another provider is dropped. Each message is encoded once and its fragments are reused on
every later request.

Reasoning effort follows the catalog: ``thinking="budget"`` models get ``thinking.budget_tokens``
from ``BUDGETS`` (kept below ``max_tokens``, at least 1024), ``thinking="effort"`` models get
adaptive thinking with ``output_config.effort``, models that do not reason get nothing. With
thinking on, ``temperature`` is not sent and a forced tool choice becomes ``auto`` (Anthropic
rejects both). Thinking stays off in the middle of a tool-use loop whose assistant turn has no
thinking block (history from another provider): Anthropic rejects turning it on mid-turn.
``max_tokens`` defaults to the catalog's ``max_output``.

Prompt caching (on unless ``provider_options={"anthropic": {"auto_cache": False}}``): at most
four ``cache_control`` breakpoints: (1) the last tool definition, (2) the last system block,
(3) the last block of the newest message, which writes this turn's prefix to the cache, and
(4) the last block of the user turn before it, where the previous request put breakpoint 3, so
that entry is read back even when the turn added more blocks than Anthropic's 20-block lookback.

``provider_options["anthropic"]`` is merged into the body, except taor's own keys: ``auto_cache``
and ``beta_headers`` (a list, sent comma-joined as the ``anthropic-beta`` header).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, assert_never

from taor.errors import StreamInterruptedError
from taor.llm.adapters._base import HttpModel
from taor.llm.adapters._http import FragmentCache, dumps, error_from_body, inline_image
from taor.llm.catalog import ModelInfo
from taor.llm.events import (
    Finish,
    StreamEvent,
    StreamStart,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    UsageUpdate,
)
from taor.llm.sse import SSEvent
from taor.llm.types import (
    FinishKind,
    FinishReason,
    ImagePart,
    Message,
    Part,
    ReasoningEffort,
    Request,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolChoice,
    ToolDefinition,
    ToolResultPart,
    Usage,
)

BUDGETS: dict[str, int] = {"low": 2048, "medium": 8192, "high": 24576, "xhigh": 32000}
MAX_IMAGE_MB = 5  # per image, measured base64-encoded
_CACHE_CONTROL = ',"cache_control":{"type":"ephemeral"}}'
_THINKING_BLOCKS = ('{"type":"thinking"', '{"type":"redacted_thinking"')
_OWN_OPTIONS = ("auto_cache", "beta_headers")
_MERGED_OPTIONS = ("output_config", "metadata")
_FINISH: dict[str, FinishKind] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "tool_use": "tool_calls",
    "refusal": "content_filter",
    "pause_turn": "other",
}


@dataclass(frozen=True, kw_only=True, slots=True)
class _Encoded:
    """One message as JSON fragments: its blocks (the first ``results`` are tool results) and
    the whole message, as sent when it is a turn of its own without a breakpoint."""

    role: str
    blocks: tuple[str, ...]
    results: int = 0
    json: str = ""


class AnthropicModel(HttpModel):
    provider: ClassVar[str] = "anthropic"

    def __init__(self, model_id: str, **kwargs: Any) -> None:
        super().__init__(model_id, **kwargs)
        self._messages: FragmentCache[Message, _Encoded] = FragmentCache()
        self._tools: FragmentCache[ToolDefinition, str] = FragmentCache()

    def _make_client(self) -> Any:
        import anthropic

        return anthropic.AsyncAnthropic(
            api_key=self._api_key,
            base_url=self._base_url,
            max_retries=0,
            timeout=self._httpx_timeout(),
            http_client=self._http_client(),
        )

    def _encode(self, request: Request) -> tuple[str, bytes, dict[str, str]]:
        options = dict(request.provider_options.get("anthropic", {}))
        auto_cache, beta = options.get("auto_cache", True), options.get("beta_headers")
        model = request.model or self._model_id
        system, turns = self._turns(request.system, request.messages)
        head = _head(request, model, self.info(model), options, _may_think(turns))
        tools = [self._tools.get(tool, _tool) for tool in request.tools]
        self._messages.rotate()
        self._tools.rotate()
        for blocks in (tools, system) if auto_cache else ():
            if blocks:
                blocks[-1] = blocks[-1][:-1] + _CACHE_CONTROL
        body = _join(head, system, tools, _messages(turns, cache=bool(auto_cache)))
        headers = {"anthropic-beta": ",".join(beta)} if beta else {}
        return "/v1/messages", body.encode(), headers

    def _turns(
        self, system_prompt: str, messages: Sequence[Message]
    ) -> tuple[list[str], list[list[_Encoded]]]:
        """System blocks, and the strictly alternating turns (the messages each one merges)."""
        system = [dumps({"type": "text", "text": system_prompt})] if system_prompt else []
        turns: list[list[_Encoded]] = []
        for message in messages:
            encoded = self._messages.get(message, _encode_message)
            if encoded.role == "system":
                system.extend(encoded.blocks)
            elif turns and turns[-1][0].role == encoded.role:
                turns[-1].append(encoded)
            elif encoded.blocks:
                turns.append([encoded])
        return system, turns

    async def _translate(
        self, events: AsyncIterator[SSEvent], request: Request
    ) -> AsyncIterator[StreamEvent]:
        state = _Stream()
        async for sse in events:
            if sse.event != "ping":
                for event in state.handle(_parse(sse.data)):
                    yield event
        if not state.finished:
            if state.stop is None:
                raise StreamInterruptedError(
                    "the Anthropic stream ended before message_stop", provider="anthropic"
                )
            for event in state.finish():
                yield event


# -- request ----------------------------------------------------------------------------------


def _head(
    request: Request, model: str, info: ModelInfo, options: dict[str, Any], may_think: bool
) -> dict[str, Any]:
    """Every body field but system, tools and messages, provider options merged in."""
    max_tokens = request.max_tokens or info.max_output
    head: dict[str, Any] = {"model": model, "max_tokens": max_tokens, "stream": True}
    if may_think:
        head.update(_thinking(request.reasoning_effort, info, max_tokens))
    if request.temperature is not None:
        head["temperature"] = request.temperature
    if request.stop:
        head["stop_sequences"] = list(request.stop)
    if request.metadata.get("user_id"):
        head["metadata"] = {"user_id": request.metadata["user_id"]}
    if request.tools:
        head["tool_choice"] = _tool_choice(request.tool_choice)
    for key, value in options.items():
        if key in _MERGED_OPTIONS and isinstance(value, dict):
            head[key] = {**head.get(key, {}), **value}
        elif key not in _OWN_OPTIONS:
            head[key] = value
    thinking = head.get("thinking")
    if isinstance(thinking, dict) and thinking.get("type") not in (None, "disabled"):
        head.pop("temperature", None)
        if head.get("tool_choice", {}).get("type") in ("any", "tool"):
            head["tool_choice"] = {"type": "auto"}
    return head


def _thinking(effort: ReasoningEffort | None, info: ModelInfo, max_tokens: int) -> dict[str, Any]:
    if effort is None or not info.reasoning:
        return {}
    if info.thinking == "effort":
        return {"thinking": {"type": "adaptive"}, "output_config": {"effort": effort}}
    budget = min(BUDGETS[effort], max_tokens - 1)
    if info.thinking != "budget" or budget < 1024:
        return {}
    return {"thinking": {"type": "enabled", "budget_tokens": budget}}


def _may_think(turns: list[list[_Encoded]]) -> bool:
    """False in the middle of a tool-use loop whose assistant turn has no thinking block (it
    came from another provider, or thinking was off): Anthropic rejects switching it on there."""
    if len(turns) < 2 or turns[-2][0].role != "assistant":
        return True
    in_loop = _blocks(turns[-1])[0].startswith('{"type":"tool_result"')
    return not in_loop or _blocks(turns[-2])[0].startswith(_THINKING_BLOCKS)


def _tool_choice(choice: ToolChoice) -> dict[str, Any]:
    if choice.mode == "named":
        return {"type": "tool", "name": choice.name}
    return {"type": {"auto": "auto", "none": "none", "required": "any"}[choice.mode]}


def _tool(tool: ToolDefinition) -> str:
    schema = dict(tool.parameters)
    return dumps({"name": tool.name, "description": tool.description, "input_schema": schema})


def _messages(turns: list[list[_Encoded]], *, cache: bool) -> list[str]:
    """Each turn as JSON; with ``cache``, the rolling breakpoints (see the module docstring)
    on the newest turn and on the user turn before it."""
    out = [t[0].json if len(t) == 1 else _message_json(t[0].role, _blocks(t)) for t in turns]
    last = len(turns) - 1
    previous = next((i for i in range(last - 1, -1, -1) if turns[i][0].role == "user"), -1)
    for i in (last, previous) if cache else ():
        blocks = _blocks(turns[i]) if i >= 0 else None
        if blocks and not blocks[-1].startswith(_THINKING_BLOCKS):
            blocks[-1] = blocks[-1][:-1] + _CACHE_CONTROL
            out[i] = _message_json(turns[i][0].role, blocks)
    return out


def _blocks(turn: list[_Encoded]) -> list[str]:
    """A turn's blocks: the tool results of all its messages first, then the rest."""
    if len(turn) == 1:
        return list(turn[0].blocks)
    results = [b for e in turn for b in e.blocks[: e.results]]
    return results + [b for e in turn for b in e.blocks[e.results :]]


def _message_json(role: str, blocks: Sequence[str]) -> str:
    return f'{{"role":"{role}","content":[{",".join(blocks)}]}}'


def _join(head: dict[str, Any], system: list[str], tools: list[str], messages: list[str]) -> str:
    """The body: the head fields, then system, tools and the messages (options win)."""
    parts = [
        dumps({k: v for k, v in head.items() if k not in ("system", "tools", "messages")})[:-1]
    ]
    encoded = {
        "system": "[" + ",".join(system) + "]" if system else None,
        "tools": "[" + ",".join(tools) + "]" if tools else None,
        "messages": "[" + ",".join(messages) + "]",
    }
    for key, value in encoded.items():
        value = dumps(head[key]) if key in head else value
        if value is not None:
            parts.append(f',"{key}":{value}')
    parts.append("}")
    return "".join(parts)


def _encode_message(message: Message) -> _Encoded:
    if message.role == "system":
        texts = (
            dumps({"type": "text", "text": p.text})
            for p in message.parts
            if isinstance(p, TextPart) and p.text
        )
        return _Encoded(role="system", blocks=tuple(texts))
    role = "assistant" if message.role == "assistant" else "user"
    results: list[str] = []
    blocks: list[str] = []
    for part in message.parts:
        if isinstance(part, ToolResultPart):
            if role == "user":
                results.append(_tool_result(part))
        elif (block := _block(part, role)) is not None:
            blocks.append(block)
    everything = (*results, *blocks)
    return _Encoded(
        role=role, blocks=everything, results=len(results), json=_message_json(role, everything)
    )


def _block(part: Part, role: str) -> str | None:
    match part:
        case TextPart():
            return dumps({"type": "text", "text": part.text}) if part.text else None
        case ImagePart():
            return dumps(_image(part)) if role == "user" else None
        case ToolCallPart():
            block = {
                "type": "tool_use",
                "id": part.id,
                "name": part.name,
                "input": dict(part.arguments),
            }
            return dumps(block) if role == "assistant" else None
        case ThinkingPart():
            return _thinking_block(part) if role == "assistant" else None
        case ToolResultPart():
            return None
        case _:
            assert_never(part)


def _thinking_block(part: ThinkingPart) -> str | None:
    if part.provider != "anthropic" or not part.signature:
        return None  # another provider's reasoning, or unsigned: Anthropic cannot verify it
    if part.redacted:
        return dumps({"type": "redacted_thinking", "data": part.signature})
    return dumps({"type": "thinking", "thinking": part.text, "signature": part.signature})


def _tool_result(part: ToolResultPart) -> str:
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": part.call_id}
    content = [
        {"type": "text", "text": p.text} if isinstance(p, TextPart) else _image(p)
        for p in part.content
        if not isinstance(p, TextPart) or p.text
    ]
    if content:
        block["content"] = content
    if part.is_error:
        block["is_error"] = True
    return dumps(block)


def _image(part: ImagePart) -> dict[str, Any]:
    if part.data is None:
        return {"type": "image", "source": {"type": "url", "url": part.url}}
    data = inline_image(part.data, "anthropic", MAX_IMAGE_MB)
    return {
        "type": "image",
        "source": {"type": "base64", "media_type": part.media_type, "data": data},
    }


# -- response stream --------------------------------------------------------------------------


def _parse(data: str) -> dict[str, Any]:
    try:
        value = json.loads(data)
    except ValueError:
        value = None
    if not isinstance(value, dict):
        raise StreamInterruptedError(
            f"Anthropic sent a malformed stream event: {data[:200]!r}", provider="anthropic"
        )
    return value


class _Stream:
    """Anthropic stream events to taor events. Block indices are the part indices."""

    __slots__ = ("finished", "stop", "thinking_chars", "tools", "usage")

    def __init__(self) -> None:
        self.finished = False
        self.stop: str | None = None
        self.thinking_chars = 0
        self.tools: set[int] = set()
        self.usage: dict[str, Any] = {}

    def handle(self, data: dict[str, Any]) -> Sequence[StreamEvent]:
        try:
            kind = data.get("type")
            if kind == "content_block_delta":
                event = self.delta(data["index"], data["delta"])
                return (event,) if event is not None else ()
            if kind == "content_block_start":
                return self.start(data["index"], data["content_block"])
            if kind == "content_block_stop":
                return (ToolCallEnd(index=data["index"]),) if data["index"] in self.tools else ()
            if kind == "message_start":
                self.record(data["message"].get("usage"))
                return (
                    StreamStart(id=data["message"].get("id"), model=data["message"].get("model")),
                )
            if kind == "message_delta":
                self.stop = data.get("delta", {}).get("stop_reason") or self.stop
                self.record(data.get("usage"))
                return ()
            if kind == "message_stop":
                return self.finish()
            if kind == "error":
                raise error_from_body("anthropic", None, data)
        except (KeyError, TypeError, AttributeError) as exc:
            raise StreamInterruptedError(
                f"unexpected Anthropic stream event ({exc!r}): {str(data)[:200]}",
                provider="anthropic",
            ) from None
        return ()

    def delta(self, index: int, delta: dict[str, Any]) -> StreamEvent | None:
        kind = delta["type"]
        if kind == "text_delta":
            return TextDelta(index=index, text=delta["text"])
        if kind == "input_json_delta":
            chunk = delta["partial_json"]
            return ToolCallDelta(index=index, arguments=chunk) if chunk else None
        if kind == "thinking_delta":
            text = delta["thinking"]
            self.thinking_chars += len(text)
            return ThinkingDelta(index=index, text=text) if text else None
        if kind == "signature_delta" and delta["signature"]:
            return ThinkingDelta(index=index, signature=delta["signature"])
        return None

    def start(self, index: int, block: dict[str, Any]) -> Sequence[StreamEvent]:
        kind = block["type"]
        if kind == "tool_use":
            self.tools.add(index)
            start = ToolCallStart(index=index, id=block["id"], name=block["name"])
            given = block.get("input")
            return (
                (start, ToolCallDelta(index=index, arguments=dumps(given))) if given else (start,)
            )
        if kind == "text" and block.get("text"):
            return (TextDelta(index=index, text=block["text"]),)
        if kind == "thinking" and (block.get("thinking") or block.get("signature")):
            self.thinking_chars += len(block.get("thinking") or "")
            text, signature = block.get("thinking") or "", block.get("signature") or None
            return (ThinkingDelta(index=index, text=text, signature=signature),)
        if kind == "redacted_thinking":
            return (ThinkingDelta(index=index, signature=block["data"], redacted=True),)
        return ()

    def record(self, usage: dict[str, Any] | None) -> None:
        """Counts are cumulative: later values replace earlier ones, absent ones are kept."""
        if usage:
            self.usage.update((k, v) for k, v in usage.items() if v is not None)

    def normalized_usage(self) -> Usage:
        u = self.usage
        read = u.get("cache_read_input_tokens") or 0
        write = u.get("cache_creation_input_tokens") or 0
        output = u.get("output_tokens") or 0
        details = u.get("output_tokens_details")
        reasoning = details.get("thinking_tokens") if isinstance(details, dict) else None
        if reasoning is None:  # not reported: estimate from the thinking text
            reasoning = min(output, self.thinking_chars // 4)
        return Usage(
            input_tokens=(u.get("input_tokens") or 0) + read + write,
            output_tokens=output,
            cache_read_tokens=read,
            cache_write_tokens=write,
            reasoning_tokens=reasoning,
        )

    def finish(self) -> tuple[UsageUpdate, Finish]:
        self.finished = True
        reason = FinishReason(reason=_FINISH.get(self.stop or "", "other"), raw=self.stop)
        return UsageUpdate(usage=self.normalized_usage()), Finish(reason=reason)
