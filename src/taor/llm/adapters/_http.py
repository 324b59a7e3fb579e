"""What the adapters share (errors are mapped in ``_error_map``): reading an SSE response with
disconnect mapping, inline images, the "Error: " label of failed tool results, compact JSON,
merging provider options into a body, and the fragment cache that keeps each turn from
re-serializing the whole history."""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncGenerator, Callable, Collection, Mapping
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from taor import errors as e
from taor.llm.adapters._error_map import http_errors, map_exception, request_id_of
from taor.llm.sse import SSEDecoder, SSEvent
from taor.llm.types import ImagePart, ToolResultPart

if TYPE_CHECKING:
    from taor.llm.adapters._raw import StreamedResponse


async def read_sse(response: StreamedResponse, provider: str) -> AsyncGenerator[SSEvent, None]:
    """The SSE events of a streaming response; transport failures become taor errors (with the
    response's request id) and the response is closed however the consumer stops."""
    decoder = SSEDecoder()
    try:
        async for chunk in response.aiter_bytes():
            for event in decoder.feed(chunk):
                yield event
        for event in decoder.flush():
            yield event
    except http_errors() as exc:
        request_id = request_id_of(response.headers)
        raise map_exception(provider, exc, request_id=request_id) from exc
    finally:
        await response.aclose()


def inline_image(data: bytes, provider: str, limit_mb: float) -> str:
    """Base64 of an inline image, or a clear error when it exceeds the provider's limit."""
    size = (len(data) + 2) // 3 * 4
    if size > limit_mb * 2**20:
        raise e.InvalidRequestError(
            f"an inline image is {size / 2**20:.1f} MB base64-encoded; {provider} accepts at most "
            f"{limit_mb:g} MB per image: resize or compress it (or send it by url)",
            provider=provider,
        )
    return base64.b64encode(data).decode("ascii")


def image_url(part: ImagePart, provider: str, limit_mb: float) -> str:
    """The image's URL, or a base64 ``data:`` URL of its inline bytes."""
    if part.url is not None:
        return part.url
    return f"data:{part.media_type};base64,{inline_image(part.data or b'', provider, limit_mb)}"


def error_label(result: ToolResultPart) -> str:
    """``"Error: "`` for an error result whose text does not say so already, else ``""``."""
    return "Error: " if result.is_error and not result.text.lower().startswith("error") else ""


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def json_object(data: str) -> dict[str, Any] | None:
    """``data`` parsed, when it is a JSON object; None when it is not JSON or not an object."""
    try:
        value = json.loads(data)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def merge_options(
    body: dict[str, Any],
    options: Mapping[str, Any],
    *,
    deep: Collection[str] | None = None,
    none_deletes: bool = False,
) -> dict[str, Any]:
    """``body`` with provider options merged in: an option replaces the body's value, except
    that an object merges one level deep into an object already there (for every key, or only
    the keys in ``deep`` when given), and with ``none_deletes`` a None removes the key (at
    either level) instead of sending null."""
    for key, value in options.items():
        current = body.get(key)
        if value is None and none_deletes:
            body.pop(key, None)
        elif (
            isinstance(current, dict)
            and isinstance(value, Mapping)
            and (deep is None or key in deep)
        ):
            merged = {**current, **value}
            body[key] = {k: v for k, v in merged.items() if v is not None or not none_deletes}
        else:
            body[key] = value
    return body


K = TypeVar("K")
V = TypeVar("V")


class FragmentCache(Generic[K, V]):
    """Remembers what an immutable object (a message, a part) encoded to, by identity.

    Each request keeps only the entries it used, so the cache holds one conversation's worth
    and an object that left the history is forgotten. Encoding a turn costs its own size, not
    the size of the whole history."""

    def __init__(self) -> None:
        self._entries: dict[int, tuple[K, V]] = {}
        self._next: dict[int, tuple[K, V]] = {}

    def get(self, key: K, encode: Callable[[K], V]) -> V:
        entry = self._entries.get(id(key))
        if entry is None or entry[0] is not key:
            entry = (key, encode(key))
        self._next[id(key)] = entry
        return entry[1]

    def rotate(self) -> None:
        """Call after each request: forget what it did not use."""
        self._entries, self._next = self._next, {}
