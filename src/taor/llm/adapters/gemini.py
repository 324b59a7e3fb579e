"""Gemini API (``POST /v1beta/models/{model}:streamGenerateContent?alt=sse``) through the
official ``google-genai`` client.

The SDK builds the URL (base URL, API version) and the headers (``x-goog-api-key``, never a
``key`` query parameter) through its request builder (``_api_client._build_request``, once per
path) and classifies HTTP errors (``google.genai.errors.APIError``); taor sends its own
pre-encoded body on the httpx2 client it gave the SDK (so the idle timeout applies per read, not
as a whole-request deadline, and nothing is retried) and parses the SSE stream itself.

Request encoding. ``systemInstruction`` holds the system prompt and system-role messages;
``contents`` alternate ``user`` / ``model`` (consecutive same-role contents are merged, tool
results are ``functionResponse`` parts of a user content, paired with their call by ``id`` and
named after it). Gemini thought signatures (``provider_state["gemini"]["thought_signature"]``)
go back verbatim on the part they came with; thinking of other providers is dropped, and a model
turn whose calls carry no Gemini signature (history from another provider) gets Gemini's
documented placeholder on its first call, which Gemini 3 requires. Tools are sent with
``parametersJsonSchema`` (full JSON Schema). Reasoning effort follows the catalog:
``thinking="level"`` models get ``thinkingLevel``, ``"budget"`` models ``thinkingBudget`` from
``BUDGETS`` clamped to the model's range; both stream thought summaries (``includeThoughts``).
``provider_options["gemini"]`` is merged into the body (one level deep for objects; its
``tools`` are appended).

Responses. Gemini gives no tool call ids: taor names them ``call_<responseId>_<index>``.
Usage is normalized: ``candidatesTokenCount`` excludes thoughts, so output = candidates +
thoughts. A 429's ``RetryInfo.retryDelay`` counts as a Retry-After; a 429 whose ``QuotaFailure``
is a per-day quota is a ``QuotaExhaustedError``.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import httpx2

from taor import errors as e
from taor.llm.adapters._base import HttpModel
from taor.llm.adapters._http import (
    FragmentCache,
    classify,
    dumps,
    inline_image,
    map_exception,
    read_sse,
)
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
from taor.llm.retry import parse_retry_after
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

BUDGETS: dict[str, int] = {"low": 1024, "medium": 8192, "high": 24576, "xhigh": 32768}
LEVELS: dict[str, str] = {"low": "LOW", "medium": "MEDIUM", "high": "HIGH", "xhigh": "HIGH"}
# thinkingBudget ranges by model family (most specific first), per Google's docs.
_BUDGET_RANGES = (
    ("gemini-2.5-pro", 128, 32768),
    ("gemini-2.5-flash-lite", 512, 24576),
    ("gemini-2.5-flash", 1, 24576),
)
# Google's documented placeholder for function calls Gemini did not produce itself.
FOREIGN_SIGNATURE = "skip_thought_signature_validator"
_MODES = {"auto": "AUTO", "none": "NONE", "required": "ANY", "named": "ANY"}
_FINISH_NAMES: dict[FinishKind, str] = {
    "stop": "STOP",
    "length": "MAX_TOKENS CONTINUATION",
    "content_filter": "SAFETY RECITATION BLOCKLIST PROHIBITED_CONTENT SPII IMAGE_SAFETY "
    "IMAGE_PROHIBITED_CONTENT IMAGE_RECITATION MODEL_ARMOR",
    "error": "MALFORMED_FUNCTION_CALL MISSING_THOUGHT_SIGNATURE MALFORMED_RESPONSE",
}  # every other finishReason (OTHER, LANGUAGE, TOO_MANY_TOOL_CALLS, ...) is "other"
_FINISH = {raw: kind for kind, names in _FINISH_NAMES.items() for raw in names.split()}
_MAJOR = re.compile(r"gemini-(\d+)(?:\.(\d+))?")


@dataclass(frozen=True, slots=True)
class _Encoded:
    """One message as its Gemini role and its comma-joined JSON part fragments."""

    role: str
    parts: str


class GeminiModel(HttpModel):
    provider: ClassVar[str] = "gemini"

    def __init__(self, model_id: str, **kwargs: Any) -> None:
        super().__init__(model_id, **kwargs)
        self._messages: FragmentCache[Message, _Encoded] = FragmentCache()
        self._tools: FragmentCache[ToolDefinition, str] = FragmentCache()
        self._http: httpx2.AsyncClient | None = None
        self._sync: httpx2.Client | None = None
        self._routes: dict[str, tuple[str, dict[str, str]]] = {}

    def _make_client(self) -> Any:
        from google import genai
        from google.genai import types

        # One TLS context for every client the SDK insists on (it would build three); the sync
        # client is never used, the async one sends taor's requests with taor's timeouts.
        tls = httpx2.create_ssl_context()
        timeout = self._httpx_timeout()
        self._http = httpx2.AsyncClient(transport=self._transport, timeout=timeout, verify=tls)
        self._sync = httpx2.Client(timeout=timeout, verify=tls)
        options = types.HttpOptions(
            base_url=self._base_url,
            api_version="v1beta",
            headers=self._headers or None,
            retry_options=types.HttpRetryOptions(attempts=1),
            httpx_client=self._sync,
            httpx_async_client=self._http,
            async_client_args={"ssl": tls},
        )
        return genai.Client(api_key=self._api_key, vertexai=False, http_options=options)

    def _encode(self, request: Request) -> tuple[str, bytes, dict[str, str]]:
        model = (request.model or self._model_id).removeprefix("models/")
        options = dict(request.provider_options.get("gemini", {}))
        system, contents = self._contents(request.system, request.messages)
        tools = [self._tools.get(tool, _tool) for tool in request.tools]
        self._messages.rotate()
        self._tools.rotate()
        fields = []
        if system:
            fields.append('"systemInstruction":{"parts":[' + ",".join(system) + "]}")
        extra_tools = options.pop("tools", None) or []
        if tools or extra_tools:
            declared = ['{"functionDeclarations":[' + ",".join(tools) + "]}"] if tools else []
            fields.append('"tools":[' + ",".join(declared + [dumps(t) for t in extra_tools]) + "]")
        fields.append('"contents":[' + ",".join(contents) + "]")
        head = _merge(_head(request, model, self.info(model)), options)
        fields.extend(dumps(key) + ":" + dumps(value) for key, value in head.items())
        body = "{" + ",".join(fields) + "}"
        return f"models/{model}:streamGenerateContent?alt=sse", body.encode(), {}

    def _contents(
        self, system_prompt: str, messages: Sequence[Message]
    ) -> tuple[list[str], list[str]]:
        """System text parts, and the contents with same-role neighbours merged."""
        system = [dumps({"text": system_prompt})] if system_prompt else []
        turns: list[tuple[str, list[str]]] = []
        for n, message in enumerate(messages):
            encode = _result_encoder(messages, n) if message.role == "tool" else _encode_message
            encoded = self._messages.get(message, encode)
            if not encoded.parts:
                continue
            if encoded.role == "system":
                system.append(encoded.parts)
            elif turns and turns[-1][0] == encoded.role:
                turns[-1][1].append(encoded.parts)
            else:
                turns.append((encoded.role, [encoded.parts]))
        contents = [f'{{"role":"{role}","parts":[{",".join(parts)}]}}' for role, parts in turns]
        return system, contents

    async def stream(self, request: Request) -> AsyncIterator[StreamEvent]:
        if self._client is None:
            self._client = self._make_client()
        path, body, _ = self._encode(request)
        response = await self._send(path, body)
        try:
            async for event in self._translate(read_sse(response, self.provider), request):
                yield event
        finally:  # also when the consumer stops early
            await response.aclose()

    async def _send(self, path: str, body: bytes) -> httpx2.Response:
        from google.genai import errors

        assert self._http is not None
        url, headers = self._route(path)
        try:
            response = await self._http.send(
                self._http.build_request("POST", url, content=body, headers=headers), stream=True
            )
            await errors.APIError.raise_for_async_response(response)
        except errors.APIError as exc:
            headers = getattr(exc.response, "headers", None) or {}
            raise api_error(exc.code, exc.details, headers) from exc
        except Exception as exc:
            raise map_exception(self.provider, exc) from exc
        return response

    def _route(self, path: str) -> tuple[str, dict[str, str]]:
        """The SDK's URL and headers for ``path`` (computed once per path)."""
        route = self._routes.get(path)
        if route is None:
            built = self._client._api_client._build_request("post", path, {}, None)
            route = self._routes[path] = (built.url, dict(built.headers))
        return route

    async def _translate(
        self, events: AsyncIterator[SSEvent], request: Request
    ) -> AsyncIterator[StreamEvent]:
        state = _Stream()
        async for sse in events:
            data = _parse(sse.data)
            if data is not None:
                for event in state.feed(data):
                    yield event
        if not state.started:
            raise e.StreamInterruptedError("the stream ended before any data", provider="gemini")
        if state.usage is not None:
            yield UsageUpdate(usage=_usage(state.usage))
        raw = state.finish  # a stream that ends cleanly without one finished normally
        kind: FinishKind = _FINISH.get(raw, "other") if raw else "stop"
        yield Finish(reason=FinishReason(reason=kind, raw=raw))

    async def aclose(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            client.close()
            await client.aio.aclose()
        if self._sync is not None:
            self._sync.close()
            self._sync = None
        if self._http is not None:
            await self._http.aclose()
            self._http = None
        self._routes.clear()


# -- request ------------------------------------------------------------------------------------


def _head(request: Request, model: str, info: ModelInfo) -> dict[str, Any]:
    head: dict[str, Any] = {}
    if request.tools:
        choice = request.tool_choice
        config: dict[str, Any] = {"mode": _MODES[choice.mode]}
        if choice.name is not None:
            config["allowedFunctionNames"] = [choice.name]
        head["toolConfig"] = {"functionCallingConfig": config}
    generation: dict[str, Any] = {"maxOutputTokens": request.max_tokens or info.max_output}
    if request.temperature is not None:
        generation["temperature"] = request.temperature
    if request.stop:
        generation["stopSequences"] = list(request.stop)
    thinking = _thinking(model, info, request.reasoning_effort)
    if thinking is not None:
        generation["thinkingConfig"] = thinking
    head["generationConfig"] = generation
    return head


def _thinking(model: str, info: ModelInfo, effort: str | None) -> dict[str, Any] | None:
    kind = info.thinking or _guess_thinking(model)
    if kind == "level":
        config: dict[str, Any] = {"includeThoughts": True}
        if effort is not None:
            config["thinkingLevel"] = LEVELS[effort]
        return config
    if kind == "budget":
        config = {"includeThoughts": True}
        if effort is not None:
            low, high = next(((lo, hi) for p, lo, hi in _BUDGET_RANGES if p in model), (1, 32768))
            config["thinkingBudget"] = min(max(BUDGETS[effort], low), high)
        return config
    return None


def _guess_thinking(model: str) -> str | None:
    match = _MAJOR.search(model)
    if match is None:
        return None
    version = (int(match.group(1)), int(match.group(2) or 0))
    return "level" if version >= (3, 0) else "budget" if version >= (2, 5) else None


def _merge(head: dict[str, Any], options: Mapping[str, Any]) -> dict[str, Any]:
    for key, value in options.items():
        current = head.get(key)
        if isinstance(current, dict) and isinstance(value, Mapping):
            head[key] = {**current, **value}
        else:
            head[key] = value
    return head


def _tool(tool: ToolDefinition) -> str:
    schema = {k: v for k, v in tool.parameters.items() if k != "$schema"}
    return dumps(
        {"name": tool.name, "description": tool.description, "parametersJsonSchema": schema}
    )


def _encode_message(message: Message) -> _Encoded:
    if message.role == "system":
        texts = [dumps({"text": p.text}) for p in message.parts if isinstance(p, TextPart)]
        return _Encoded("system", ",".join(texts))
    if message.role == "assistant":
        return _Encoded("model", ",".join(_model_parts(message.parts)))
    return _Encoded("user", ",".join(_user_parts(message.parts, {})))


def _result_encoder(messages: Sequence[Message], n: int) -> Callable[[Message], _Encoded]:
    def encode(message: Message) -> _Encoded:
        names = _call_names(messages, n, message)
        return _Encoded("user", ",".join(_user_parts(message.parts, names)))

    return encode


def _call_names(messages: Sequence[Message], n: int, message: Message) -> dict[str, str]:
    """The names of the calls ``message``'s results answer, from the turns before it."""
    wanted = {p.call_id for p in message.parts if isinstance(p, ToolResultPart) and not p.name}
    names: dict[str, str] = {}
    for earlier in reversed(messages[:n]):
        if len(names) == len(wanted):
            break
        for call in earlier.tool_calls if earlier.role == "assistant" else ():
            if call.id in wanted:
                names.setdefault(call.id, call.name)
    return names


def _user_parts(parts: Sequence[Part], names: Mapping[str, str]) -> list[str]:
    out: list[str] = []
    for part in parts:
        if isinstance(part, TextPart):
            out.append(dumps({"text": part.text}))
        elif isinstance(part, ImagePart):
            out.append(_image(part))
        elif isinstance(part, ToolResultPart):
            out.append(
                _function_response(part, part.name or names.get(part.call_id) or part.call_id)
            )
            out.extend(_image(p) for p in part.content if isinstance(p, ImagePart))
    return out


def _function_response(part: ToolResultPart, name: str) -> str:
    response = {"error": part.text} if part.is_error else {"output": part.text}
    return dumps({"functionResponse": {"id": part.call_id, "name": name, "response": response}})


def _image(part: ImagePart) -> str:
    if part.data is not None:
        data = inline_image(part.data, "gemini", 20)
        return dumps({"inlineData": {"mimeType": part.media_type, "data": data}})
    return dumps({"fileData": {"mimeType": part.media_type, "fileUri": part.url}})


def _model_parts(parts: Sequence[Part]) -> list[str]:
    calls = [p for p in parts if isinstance(p, ToolCallPart)]
    foreign = bool(calls) and not any(_signature(p) for p in calls)
    out: list[str] = []
    for part in parts:
        signature = _signature(part)
        if isinstance(part, TextPart):
            out.append(_signed({"text": part.text}, signature))
        elif isinstance(part, ThinkingPart) and part.provider == "gemini":
            out.append(_signed({"text": part.text, "thought": True}, signature))
        elif isinstance(part, ToolCallPart):
            if foreign and part is calls[0]:
                signature = FOREIGN_SIGNATURE
            call = {"id": part.id, "name": part.name, "args": dict(part.arguments)}
            out.append(_signed({"functionCall": call}, signature))
        elif isinstance(part, ImagePart):
            out.append(_image(part))
    return out


def _signature(part: Part) -> str | None:
    state = part.provider_state.get("gemini") if part.provider_state else None
    value = state.get("thought_signature") if isinstance(state, Mapping) else None
    return value if isinstance(value, str) else None


def _signed(part: dict[str, Any], signature: str | None) -> str:
    if signature is not None:
        part["thoughtSignature"] = signature
    return dumps(part)


# -- response -----------------------------------------------------------------------------------


def _parse(data: str) -> dict[str, Any] | None:
    """One chunk: a GenerateContentResponse, or an error object (raised)."""
    if not data:
        return None
    try:
        parsed = json.loads(data)
    except ValueError:
        parsed = None
    if not isinstance(parsed, dict):
        raise e.StreamInterruptedError(
            f"the stream sent a malformed chunk: {data[:200]!r}", provider="gemini", raw=data
        )
    if "error" in parsed:
        error = parsed["error"] if isinstance(parsed["error"], dict) else {}
        code = error.get("code")
        raise api_error(code if isinstance(code, int) else None, parsed, {})
    return parsed


class _Stream:
    """Turns the stream's GenerateContentResponse chunks into taor events."""

    def __init__(self) -> None:
        self.started = False
        self.response_id: str | None = None
        self.index = -1
        self.open: str | None = None  # the kind of the part still growing at ``index``
        self.finish: str | None = None
        self.usage: Any = None  # the last usageMetadata, converted once at the end

    def feed(self, data: dict[str, Any]) -> list[StreamEvent]:
        events: list[StreamEvent] = []
        if not self.started:
            self.started = True
            self.response_id = data.get("responseId")
            events.append(StreamStart(id=self.response_id, model=data.get("modelVersion")))
        feedback = data.get("promptFeedback")
        if isinstance(feedback, dict) and feedback.get("blockReason"):
            reason = str(feedback["blockReason"])
            raise e.ContentFilteredError(
                f"Gemini blocked the prompt: {reason}", provider="gemini", code=reason, raw=data
            )
        candidates = data.get("candidates")
        if candidates:
            candidate = candidates[0]
            content = candidate.get("content")
            for part in content.get("parts") or () if isinstance(content, dict) else ():
                self._part(part, events)
            self.finish = candidate.get("finishReason") or self.finish
        self.usage = data.get("usageMetadata") or self.usage
        return events

    def _part(self, part: dict[str, Any], events: list[StreamEvent]) -> None:
        signature = part.get("thoughtSignature")
        call = part.get("functionCall")
        if isinstance(call, dict):
            self.index += 1
            self.open = None
            call_id = call.get("id") or self._call_id()
            events.append(ToolCallStart(index=self.index, id=call_id, name=call.get("name", "")))
            events.append(ToolCallDelta(index=self.index, arguments=dumps(call.get("args") or {})))
            events.append(ToolCallEnd(index=self.index))
        elif "text" in part:
            thought = bool(part.get("thought"))
            text = part["text"]
            if not text and signature is None:
                return
            kind = "thinking" if thought else "text"
            if self.open != kind:
                self.index += 1
                self.open = kind
            if thought:
                events.append(ThinkingDelta(index=self.index, text=text))
            elif text:
                events.append(TextDelta(index=self.index, text=text))
        else:
            return
        if signature is not None:
            state = {"gemini": {"thought_signature": signature}}
            events.append(StateDelta(index=self.index, state=state))
            self.open = None  # a signed part is complete: what follows is a new part

    def _call_id(self) -> str:
        stem = self.response_id or uuid.uuid4().hex[:16]
        return f"call_{stem}_{self.index}"


def _usage(meta: Any) -> Usage:
    if not isinstance(meta, dict):
        return Usage()
    thoughts = int(meta.get("thoughtsTokenCount") or 0)
    return Usage(
        input_tokens=int(meta.get("promptTokenCount") or 0),
        output_tokens=int(meta.get("candidatesTokenCount") or 0) + thoughts,
        cache_read_tokens=int(meta.get("cachedContentTokenCount") or 0),
        reasoning_tokens=thoughts,
    )


# -- errors -------------------------------------------------------------------------------------


def api_error(status: int | None, body: Any, headers: Mapping[str, str]) -> e.ProviderError:
    """A Gemini error body (``{"error": {code, message, status, details}}``) as a taor error."""
    error = body.get("error", body) if isinstance(body, dict) else {}
    error = error if isinstance(error, dict) else {}
    message = str(error.get("message") or body or f"HTTP {status}")
    code = error.get("status") if isinstance(error.get("status"), str) else None
    details: list[Any] = error["details"] if isinstance(error.get("details"), list) else []
    retry_after = parse_retry_after(headers.get("retry-after"))
    retry_after = _retry_delay(details) if retry_after is None else retry_after
    if status == 429 or code == "RESOURCE_EXHAUSTED":
        kwargs: dict[str, Any] = {"provider": "gemini", "status": status, "code": code, "raw": body}
        if _daily_quota(details):
            return e.QuotaExhaustedError(message, **kwargs)
        if retry_after is not None:
            return e.RateLimitError(message, retry_after=retry_after, **kwargs)
    return classify(
        "gemini", status=status, message=message, code=code, retry_after=retry_after, raw=body
    )


def _retry_delay(details: list[Any]) -> float | None:
    for detail in details:
        if isinstance(detail, dict) and str(detail.get("@type", "")).endswith("RetryInfo"):
            delay = str(detail.get("retryDelay", "")).removesuffix("s")
            try:
                return max(0.0, float(delay))
            except ValueError:
                return None
    return None


def _daily_quota(details: list[Any]) -> bool:
    for detail in details:
        if isinstance(detail, dict) and str(detail.get("@type", "")).endswith("QuotaFailure"):
            for violation in detail.get("violations") or ():
                if "PerDay" in str(violation.get("quotaId", "")):
                    return True
    return False
