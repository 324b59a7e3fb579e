"""Ledgers: how full the context is (``TokenLedger``) and what the session used and cost
(``UsageLedger``).

Token estimate. Characters / 4 over everything a request carries: text, thinking, tool call
names and arguments, tool results, the system prompt and the tool definitions (as JSON); each
image counts a fixed ``IMAGE_TOKENS``. The estimate is calibrated by the ratio of the input
tokens the provider reported to the estimate, kept as an exponential moving average (alpha
``CALIBRATION_ALPHA``, clamped to ``CALIBRATION_RANGE``) of the responses seen so far; the
first observation sets it. Reported input tokens come from a normalized ``Usage``, whose
``input_tokens`` already includes cache reads and writes (spec-notes C-B 20); use
``usage.input_tokens`` as is.

Cheap on long histories. Messages are immutable, so the ledger keeps the message sequence it
measured last, each message with its running character total, and on the next call compares
the new sequence with it by object identity (``is``: no hashing, no walking of parts). The
common prefix is reused and only the new tail is measured; a compaction that replaces the
history simply re-measures from the first changed message. Keeping the messages themselves
(not ``id()`` keys, which a freed object may hand to another) makes identity safe, and the
cache never holds more than the last history. ``estimate_chars(message)`` is public for a caller
that prefers to keep its own running total.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import assert_never

from taor.llm.catalog import Catalog
from taor.llm.response import Usage
from taor.llm.tooldef import ToolDefinition
from taor.llm.types import (
    ImagePart,
    Message,
    Part,
    ServerToolPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultPart,
)

CHARS_PER_TOKEN = 4
IMAGE_TOKENS = 1600
CALIBRATION_ALPHA = 0.3
CALIBRATION_RANGE = (0.25, 4.0)
_IMAGE_CHARS = IMAGE_TOKENS * CHARS_PER_TOKEN


def estimate_chars(message: Message) -> int:
    """The character weight of one message (an image weighs ``IMAGE_TOKENS`` * 4)."""
    return sum(part_chars(part) for part in message.parts)


def part_chars(part: Part) -> int:
    """The character weight of one part of a message."""
    match part:
        case TextPart(text=text) | ThinkingPart(text=text):
            return len(text)
        case ImagePart():
            return _IMAGE_CHARS
        case ToolCallPart():
            arguments = part.raw_arguments or json.dumps(dict(part.arguments), default=repr)
            return len(part.name) + len(arguments)
        case ToolResultPart():
            return len(part.name) + sum(part_chars(p) for p in part.content)
        case ServerToolPart():
            return len(json.dumps(dict(part.block), default=repr))
        case _:
            assert_never(part)


def tools_chars(tools: Sequence[ToolDefinition]) -> int:
    """The character weight of tool definitions (name, description, schema as JSON)."""
    return sum(
        len(t.name) + len(t.description) + len(json.dumps(t.parameters, default=repr))
        for t in tools
    )


class TokenLedger:
    """Estimates the tokens of the next request and says when the context is nearly full."""

    def __init__(self, context_window: int, warn_at: float = 0.8) -> None:
        self.context_window = context_window
        self.warn_at = warn_at
        self._ratio: float | None = None
        self._seen: list[Message] = []
        self._totals: list[int] = []  # running character totals, one per message in _seen
        self._tools: Sequence[ToolDefinition] | None = None
        self._tools_chars = 0
        self._warned = False

    @property
    def ratio(self) -> float:
        """Reported tokens per estimated token, 1.0 until the first observation."""
        return 1.0 if self._ratio is None else self._ratio

    def estimate(
        self,
        messages: Sequence[Message],
        system: str = "",
        tools: Sequence[ToolDefinition] = (),
    ) -> int:
        """Calibrated token estimate of a request with these messages, system and tools."""
        chars = self._messages_chars(messages) + len(system) + self._tool_defs_chars(tools)
        return round(chars / CHARS_PER_TOKEN * self.ratio)

    def observe(self, estimated: int, reported_input_tokens: int) -> None:
        """Calibrate with a response: ``estimated`` is what ``estimate()`` returned for its
        request, ``reported_input_tokens`` the provider's ``usage.input_tokens``. Zeros (a
        provider that does not report usage) are ignored."""
        if estimated <= 0 or reported_input_tokens <= 0:
            return
        raw = estimated / self.ratio
        low, high = CALIBRATION_RANGE
        sample = min(max(reported_input_tokens / raw, low), high)
        if self._ratio is None:
            self._ratio = sample
        else:
            self._ratio += CALIBRATION_ALPHA * (sample - self._ratio)

    def fraction(self, tokens: int) -> float:
        """``tokens`` as a share of the context window."""
        return tokens / self.context_window if self.context_window > 0 else 0.0

    def should_warn(self, tokens: int) -> bool:
        """True once each time ``tokens`` crosses ``warn_at`` of the window; re-arms below it."""
        above = self.context_window > 0 and self.fraction(tokens) >= self.warn_at
        fire = above and not self._warned
        self._warned = above
        return fire

    def _messages_chars(self, messages: Sequence[Message]) -> int:
        same = 0
        limit = min(len(messages), len(self._seen))
        while same < limit and messages[same] is self._seen[same]:
            same += 1
        del self._seen[same:], self._totals[same:]
        total = self._totals[-1] if self._totals else 0
        for message in messages[same:]:
            total += estimate_chars(message)
            self._seen.append(message)
            self._totals.append(total)
        return total

    def _tool_defs_chars(self, tools: Sequence[ToolDefinition]) -> int:
        if tools is not self._tools:
            self._tools = tools
            self._tools_chars = tools_chars(tools)
        return self._tools_chars


class UsageLedger:
    """Running usage and cost over a session. Each response is priced at its own model's
    rates, so switching model mid-session bills each response correctly."""

    def __init__(self, catalog: Catalog, provider: str, model: str) -> None:
        self._catalog = catalog
        self.provider = provider
        self.model = model
        self.total = Usage()
        self.known_cost = 0.0  # the sum of the costs that could be priced
        self.cost_known = True  # False once any response could not be priced
        self.responses = 0

    @property
    def total_cost(self) -> float | None:
        """USD so far; None once a response could not be priced (``known_cost`` is then a
        lower bound, still usable for a cost limit)."""
        return self.known_cost if self.cost_known else None

    def add(
        self, usage: Usage, *, provider: str | None = None, model: str | None = None
    ) -> tuple[float | None, float | None]:
        """Count one response; returns its cost and the running total cost. ``provider`` and
        ``model`` are the response's (the ledger's current ones when not given); they become
        the ledger's current ones."""
        self.provider = provider or self.provider
        self.model = model or self.model
        info = self._catalog.lookup(self.provider, self.model)
        cost = self._catalog.cost(info, usage)
        self.total = self.total + usage
        self.responses += 1
        if cost is None:
            self.cost_known = False
        else:
            self.known_cost += cost
        return cost, self.total_cost
