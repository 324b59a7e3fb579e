"""What a model call returns: the assembled ``Response``, its ``Usage`` and ``FinishReason``."""

from __future__ import annotations

from taor._records import frozen
from taor.llm.types import FinishKind, Message, ThinkingPart, ToolCallPart


@frozen
class Usage:
    """Token counts, normalized so that every provider means the same thing by each field.

    - ``input_tokens``: every prompt token, including those read from or written to the cache
      (Anthropic reports the uncached ones only; taor adds the cache counts back).
    - ``cache_read_tokens``: the part of ``input_tokens`` served from the prompt cache.
    - ``cache_write_tokens``: the part of ``input_tokens`` written to the cache (Anthropic, and
      OpenAI models that bill cache writes).
    - ``output_tokens``: every generated token, reasoning included (Gemini reports thoughts
      apart; taor adds them in).
    - ``reasoning_tokens``: the part of ``output_tokens`` spent on reasoning.
    """

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    @property
    def uncached_input_tokens(self) -> int:
        return self.input_tokens - self.cache_read_tokens - self.cache_write_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cache_read_tokens=self.cache_read_tokens + other.cache_read_tokens,
            cache_write_tokens=self.cache_write_tokens + other.cache_write_tokens,
            reasoning_tokens=self.reasoning_tokens + other.reasoning_tokens,
        )


@frozen
class FinishReason:
    reason: FinishKind
    raw: str | None = None


@frozen
class Response:
    message: Message
    finish_reason: FinishReason
    usage: Usage = Usage()
    id: str | None = None
    model: str | None = None
    provider: str = ""

    @property
    def text(self) -> str:
        return self.message.text

    @property
    def tool_calls(self) -> list[ToolCallPart]:
        return self.message.tool_calls

    @property
    def reasoning(self) -> str | None:
        chunks = [p.text for p in self.message.parts if isinstance(p, ThinkingPart) and p.text]
        return "".join(chunks) if chunks else None
