"""The OpenAI Responses API (``POST /v1/responses``), stateless: ``store=false``, streamed.

Request. The system prompt goes to ``instructions``; each message becomes input items: user text
and images (``input_text`` / ``input_image``), assistant text (``output_text`` messages, with
their ``phase``), ``function_call`` items (``call_id`` is the ``ToolCallPart.id``) and
``function_call_output`` items (a string, or a list when the result carries images). Tools are
flat function tools. Reasoning models (per the catalog) get ``reasoning`` (effort, summaries)
and ``include: ["reasoning.encrypted_content"]``; other models reject both, and reasoning models
reject ``temperature``, so each is sent only where it is accepted. The Responses API has no stop
sequences: ``Request.stop`` is ignored.

Opaque state. A reasoning item is kept whole as ``provider_state["openai"]`` of its
``ThinkingPart`` and sent back as ``{"type": "reasoning", "summary", "encrypted_content"}``.
Item ids (``rs_``, ``msg_``, ``fc_``) are never sent back, as Codex does: with ``store=false``
they name nothing on the server, and sending some ids but not others trips the API's pairing
checks ("provided without its required reasoning item"). Thinking from other providers, and
reasoning items without encrypted content, are dropped.

Stream. The part index is the item's ``output_index``. ``response.completed`` / ``incomplete``
give usage and the finish reason; ``error`` events and ``response.failed`` raise.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any, ClassVar

from taor import errors as e
from taor.llm.adapters._base import HttpModel
from taor.llm.adapters._http import FragmentCache, dumps, error_from_body, inline_image
from taor.llm.catalog import ModelInfo
from taor.llm.events import (
    Finish,
    StateDelta,
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
    Request,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolDefinition,
    ToolResultPart,
    Usage,
)

_P = "openai"
_REASONING_ID = re.compile(r"^(o\d|gpt-[5-9])(?!.*-chat)")
_INCOMPLETE: dict[str, FinishKind] = {
    "max_output_tokens": "length",
    "content_filter": "content_filter",
}


class OpenAIModel(HttpModel):
    """A model behind the OpenAI Responses API. Request bodies are built from per-message JSON
    fragments cached by identity, so a turn costs the size of what is new, not the history."""

    provider: ClassVar[str] = "openai"

    def __init__(self, model_id: str, **options: Any) -> None:
        super().__init__(model_id, **options)
        self._messages: FragmentCache[Message, str] = FragmentCache()
        self._tools: FragmentCache[ToolDefinition, str] = FragmentCache()
        self._texts: FragmentCache[str, str] = FragmentCache()

    def _make_client(self) -> Any:
        import openai

        return openai.AsyncOpenAI(
            api_key=self._api_key,
            base_url=self._base_url,
            max_retries=0,
            timeout=self._httpx_timeout(),
            http_client=self._http_client(),
        )

    def _encode(self, request: Request) -> tuple[str, bytes, dict[str, str]]:
        model = request.model or self._model_id
        info = self.info(model)
        params = _params(request, info, _is_reasoning(model, info, request))
        head = {"model": dumps(model)}
        if request.system:
            head["instructions"] = self._texts.get(request.system, dumps)
        if request.tools:
            head["tools"] = "[" + ",".join(self._tools.get(t, _tool) for t in request.tools) + "]"
        for key in ("model", "instructions", "tools"):
            if key in params:
                value = params.pop(key)
                head[key] = dumps(value)  # a provider option overrides
        items = (self._messages.get(m, _message_items) for m in request.messages)
        pieces = [f'"{k}":{v}' for k, v in head.items() if v != "null"]
        pieces.append('"input":[' + ",".join(i for i in items if i) + "]")
        tail = dumps(params)[1:-1]
        body = "{" + ",".join(pieces) + ("," + tail if tail else "") + "}"
        for cache in (self._messages, self._tools, self._texts):
            cache.rotate()
        return "/responses", body.encode(), {}

    async def _translate(
        self, events: AsyncIterator[SSEvent], request: Request
    ) -> AsyncIterator[StreamEvent]:
        state = _State()
        try:
            async for sse in events:
                data = _parse(sse)
                if data is None or state.finished:
                    continue
                handler = _HANDLERS.get(data.get("type") or sse.event)
                if handler is not None:
                    for event in handler(state, data):
                        yield event
        finally:
            close = getattr(events, "aclose", None)
            if close is not None:
                await close()
        if not state.finished:
            raise e.StreamInterruptedError(
                "the stream ended before response.completed", provider=_P
            )


# -- request ---------------------------------------------------------------------------------


def _is_reasoning(model: str, info: ModelInfo, request: Request) -> bool:
    if info.known:
        return info.reasoning
    return request.reasoning_effort is not None or bool(_REASONING_ID.match(model))


def _params(request: Request, info: ModelInfo, reasoning: bool) -> dict[str, Any]:
    """Everything after ``input``: small, rebuilt per request, then provider options merged."""
    params: dict[str, Any] = {}
    if request.tools:
        params["tool_choice"] = _tool_choice(request)
    if reasoning:
        effort = {"effort": request.reasoning_effort} if request.reasoning_effort else {}
        params["reasoning"] = {**effort, "summary": "auto"}
        params["include"] = ["reasoning.encrypted_content"]
    elif request.temperature is not None:
        params["temperature"] = request.temperature
    params["max_output_tokens"] = request.max_tokens or info.max_output
    if request.metadata:
        params["metadata"] = dict(request.metadata)
    options = dict(request.provider_options.get(_P) or {})
    cache_key = options.pop("prompt_cache_key", None) or _cache_key(request.metadata)
    if cache_key:
        params["prompt_cache_key"] = cache_key
    params["store"] = False
    params["stream"] = True
    for key, value in options.items():
        if value is None:
            params.pop(key, None)
        elif isinstance(value, Mapping) and isinstance(params.get(key), dict):
            merged = {**params[key], **value}
            params[key] = {k: v for k, v in merged.items() if v is not None}
        else:
            params[key] = value
    return params


def _cache_key(metadata: Mapping[str, str]) -> str | None:
    session = metadata.get("session_id")
    if not session:
        return None
    return session if len(session) <= 64 else hashlib.sha256(session.encode()).hexdigest()


def _tool_choice(request: Request) -> Any:
    choice = request.tool_choice
    if choice.mode == "named":
        return {"type": "function", "name": choice.name}
    return choice.mode


def _tool(tool: ToolDefinition) -> str:
    return dumps(
        {
            "type": "function",
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.parameters,
            "strict": False,
        }
    )


def _message_items(message: Message) -> str:
    """The message's input items, comma-joined (empty when nothing of it can be sent)."""
    if message.role == "assistant":
        return ",".join(i for i in map(_assistant_item, message.parts) if i)
    items = [_result_item(p) for p in message.parts if isinstance(p, ToolResultPart)]
    content = [_content(p) for p in message.parts if isinstance(p, (TextPart, ImagePart))]
    if content:
        role = "developer" if message.role == "system" else "user"
        items.append(dumps({"type": "message", "role": role, "content": content}))
    return ",".join(items)


def _assistant_item(part: Part) -> str | None:
    if isinstance(part, TextPart):
        if not part.text:
            return None
        item: dict[str, Any] = {"type": "message", "role": "assistant"}
        item["content"] = [{"type": "output_text", "text": part.text}]
        phase = (part.provider_state or {}).get(_P, {}).get("phase")
        return dumps({**item, "phase": phase} if phase else item)
    if isinstance(part, ToolCallPart):
        arguments = part.raw_arguments or dumps(dict(part.arguments))
        call = {"type": "function_call", "call_id": part.id, "name": part.name}
        return dumps({**call, "arguments": arguments})
    if isinstance(part, ThinkingPart) and part.provider == _P:
        stored = (part.provider_state or {}).get(_P) or {}
        if not stored.get("encrypted_content"):
            return None
        summary = stored.get("summary") or []
        encrypted = stored["encrypted_content"]
        return dumps({"type": "reasoning", "summary": summary, "encrypted_content": encrypted})
    return None


def _content(part: TextPart | ImagePart) -> dict[str, Any]:
    if isinstance(part, TextPart):
        return {"type": "input_text", "text": part.text}
    return {"type": "input_image", "image_url": _image_url(part), "detail": "auto"}


def _image_url(part: ImagePart) -> str:
    if part.url is not None:
        return part.url
    return f"data:{part.media_type};base64,{inline_image(part.data or b'', _P, 20)}"


def _result_item(part: ToolResultPart) -> str:
    item = {"type": "function_call_output", "call_id": part.call_id}
    prefix = "Error: " if part.is_error and part.text[:5].lower() != "error" else ""
    if all(isinstance(p, TextPart) for p in part.content):
        return dumps({**item, "output": prefix + part.text})
    output = [_content(p) for p in part.content]
    if prefix:
        output.insert(0, {"type": "input_text", "text": prefix})
    return dumps({**item, "output": output})


# -- stream ----------------------------------------------------------------------------------


class _State:
    __slots__ = ("args_seen", "calls", "finished", "reasoning", "thought")

    def __init__(self) -> None:
        self.calls: set[int] = set()
        self.args_seen: set[int] = set()
        self.reasoning: set[int] = set()
        self.thought: set[int] = set()
        self.finished = False


Events = tuple[StreamEvent, ...] | list[StreamEvent]


def _parse(sse: SSEvent) -> dict[str, Any] | None:
    if sse.data == "[DONE]" or not sse.data:
        return None
    try:
        data = json.loads(sse.data)
    except ValueError:
        data = None
    if not isinstance(data, dict):
        raise e.StreamInterruptedError(
            f"openai sent a malformed stream event: {sse.data[:200]!r}", provider=_P
        )
    return data


def _created(s: _State, d: dict[str, Any]) -> Events:
    response = d.get("response") or {}
    return (StreamStart(id=response.get("id"), model=response.get("model")),)


def _item_added(s: _State, d: dict[str, Any]) -> Events:
    item, i = d.get("item") or {}, d.get("output_index", 0)
    kind = item.get("type")
    if kind == "function_call":
        s.calls.add(i)
        call_id = item.get("call_id") or item.get("id") or ""
        return (ToolCallStart(index=i, id=call_id, name=item.get("name") or ""),)
    if kind == "reasoning":
        s.reasoning.add(i)
        return (ThinkingDelta(index=i, text=""),)
    return ()


def _item_done(s: _State, d: dict[str, Any]) -> Events:
    item, i = d.get("item") or {}, d.get("output_index", 0)
    kind = item.get("type")
    out: list[StreamEvent] = []
    if kind == "function_call":
        if i not in s.calls:
            out.extend(_item_added(s, d))
        if i not in s.args_seen and item.get("arguments"):
            out.append(ToolCallDelta(index=i, arguments=item["arguments"]))
        out.append(ToolCallEnd(index=i))
    elif kind == "reasoning":
        if i not in s.thought:
            text = "\n\n".join(p.get("text", "") for p in item.get("summary") or [])
            out.append(ThinkingDelta(index=i, text=text))
        out.append(StateDelta(index=i, state={_P: item}))
    elif kind == "message" and item.get("phase"):
        out.append(StateDelta(index=i, state={_P: {"phase": item["phase"]}}))
    return out


def _text_delta(s: _State, d: dict[str, Any]) -> Events:
    return (TextDelta(index=d.get("output_index", 0), text=d.get("delta") or ""),)


def _args_delta(s: _State, d: dict[str, Any]) -> Events:
    i = d.get("output_index", 0)
    s.args_seen.add(i)
    return (ToolCallDelta(index=i, arguments=d.get("delta") or ""),)


def _args_done(s: _State, d: dict[str, Any]) -> Events:
    i = d.get("output_index", 0)
    if i in s.args_seen or not d.get("arguments"):
        return ()
    s.args_seen.add(i)
    return (ToolCallDelta(index=i, arguments=d["arguments"]),)


def _summary_part(s: _State, d: dict[str, Any]) -> Events:
    if not d.get("summary_index"):
        return ()
    return (ThinkingDelta(index=d.get("output_index", 0), text="\n\n"),)


def _thinking_delta(s: _State, d: dict[str, Any]) -> Events:
    i = d.get("output_index", 0)
    s.thought.add(i)
    return (ThinkingDelta(index=i, text=d.get("delta") or ""),)


def _finished(s: _State, d: dict[str, Any]) -> Events:
    s.finished = True
    response = d.get("response") or {}
    usage = response.get("usage")
    finish = Finish(reason=_finish_reason(response))
    return (UsageUpdate(usage=_usage(usage)), finish) if usage else (finish,)


def _finish_reason(response: dict[str, Any]) -> FinishReason:
    status = response.get("status") or "completed"
    if status == "completed":
        return FinishReason(reason="stop", raw=status)
    if status == "incomplete":
        why = (response.get("incomplete_details") or {}).get("reason") or status
        return FinishReason(reason=_INCOMPLETE.get(why, "other"), raw=why)
    return FinishReason(reason="other", raw=status)


def _usage(usage: dict[str, Any]) -> Usage:
    """OpenAI's convention is taor's: input includes the cache, output includes reasoning."""
    details = usage.get("input_tokens_details") or {}
    return Usage(
        input_tokens=usage.get("input_tokens") or 0,
        output_tokens=usage.get("output_tokens") or 0,
        cache_read_tokens=details.get("cached_tokens") or 0,
        cache_write_tokens=details.get("cache_write_tokens") or 0,
        reasoning_tokens=(usage.get("output_tokens_details") or {}).get("reasoning_tokens") or 0,
    )


def _failed(s: _State, d: dict[str, Any]) -> Events:
    error = (d.get("response") or {}).get("error") or {"message": "the response failed"}
    raise error_from_body(_P, None, {"error": error})


def _error(s: _State, d: dict[str, Any]) -> Events:
    raise error_from_body(_P, None, d)


_HANDLERS: dict[str, Callable[[_State, dict[str, Any]], Events]] = {
    "response.output_text.delta": _text_delta,
    "response.refusal.delta": _text_delta,
    "response.function_call_arguments.delta": _args_delta,
    "response.reasoning_summary_text.delta": _thinking_delta,
    "response.reasoning_text.delta": _thinking_delta,
    "response.function_call_arguments.done": _args_done,
    "response.reasoning_summary_part.added": _summary_part,
    "response.output_item.added": _item_added,
    "response.output_item.done": _item_done,
    "response.created": _created,
    "response.completed": _finished,
    "response.incomplete": _finished,
    "response.failed": _failed,
    "error": _error,
}
