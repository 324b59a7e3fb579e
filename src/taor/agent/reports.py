"""What a host shows about a session between events: its usage and cost (``UsageReport``), what
fills its context window (``ContextReport``), the permission rules in force (``RulesInForce``)
and every file change it made (``SessionDiff``).

Each is a frozen snapshot built from the runtime on request (``Session.usage_report()``,
``Session.context_report()``, ``Session.permission_rules()``: ``SessionReports``, a base class
of ``Session``), so a status line and a ``/context`` command read the same numbers: the token
ledger's calibrated estimate of what the next request sends, by the same rule the compaction
threshold uses.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, assert_never

from taor._records import frozen
from taor.agent.checkpoints.diff import SessionDiff, session_diff
from taor.agent.context.ledger import CHARS_PER_TOKEN, TokenLedger, part_chars, tools_chars
from taor.agent.parts import Accounts
from taor.agent.policy.permissions import PermissionPolicy
from taor.agent.runtime import Runtime
from taor.env.base import Environment
from taor.llm.catalog import Catalog, ModelInfo
from taor.llm.model import Model
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

Pricing = Literal["priced", "free", "unknown"]

# The parts of a request a context report names, in the order it lists them.
CONTEXT_PARTS = (
    "system prompt",
    "tool definitions",
    "your messages",
    "assistant text",
    "thinking",
    "tool calls",
    "tool results",
    "images",
    "provider tools",
)


@frozen
class UsageReport:
    """``usage``, ``cost`` and ``responses`` count this process's model calls (``cost`` None
    once a response could not be priced); ``session_model_calls`` and ``session_cost`` add
    those of the runs a resumed history records. ``cache_share``: the part of the input tokens
    read from the prompt cache. ``token_ratio``: the provider's token counts per estimated
    token, by which every estimate is calibrated (1.0 before the first response). ``pricing``:
    how the catalog prices the model in use, before its first call too: ``priced``, ``free``
    (every price zero, as for a model taor runs itself) or ``unknown`` (no prices, so its calls
    make the cost None)."""

    usage: Usage
    cost: float | None
    responses: int
    session_model_calls: int
    session_cost: float | None
    cache_share: float
    token_ratio: float
    pricing: Pricing = "priced"


@frozen
class ContextReport:
    """The calibrated token estimate of the next request (``tokens``) against the model's
    ``window``, and what it is made of: ``parts`` lists (name, tokens) in ``CONTEXT_PARTS``
    order, leaving out the empty ones. ``messages``: how many the request carries."""

    tokens: int
    window: int
    parts: tuple[tuple[str, int], ...]
    messages: int
    token_ratio: float

    @property
    def fraction(self) -> float:
        """``tokens`` as a share of the window (0 when the window is unknown)."""
        return self.tokens / self.window if self.window > 0 else 0.0


@frozen
class RulesInForce:
    """The permission mode and rules a session decides by: ``allow`` and ``deny`` from its
    config, ``added`` the allow rules given since (``allow_always``), as rule text."""

    mode: str
    allow: tuple[str, ...]
    deny: tuple[str, ...]
    added: tuple[str, ...]


class SessionReports:
    """The facts a host reads from a session (``Session`` sets ``_rt``)."""

    _rt: Runtime

    @property
    def model(self) -> Model:
        """The model the next call uses (``configure(model=...)`` changes it)."""
        return self._rt.model

    @property
    def environment(self) -> Environment:
        """Where the tools work (``configure(environment=...)`` changes it)."""
        return self._rt.environment

    def usage_report(self) -> UsageReport:
        """Usage, cost and cache share so far, and the token estimate's calibration."""
        return usage_report(self._rt, self._rt.catalog)

    def context_report(self) -> ContextReport:
        """What the next request would carry, in estimated tokens, against the window."""
        rt = self._rt
        return context_report(
            rt.system_prompt(), rt.tools.definitions(), rt.transcript.messages(), rt.tokens
        )

    def permission_rules(self) -> RulesInForce:
        """The permission mode and the rules in force, those added since included."""
        return rules_in_force(self._rt.permissions)

    async def diff(self, since: int = 1) -> SessionDiff:
        """Every file change since before user input ``since`` (the whole session by default)
        as one unified diff (``taor.agent.checkpoints.diff``); a subagent's changes are in
        its parent's."""
        if not self._rt.owns_checkpoints:
            return SessionDiff()
        return await session_diff(self._rt.checkpoints, since)


def usage_report(rt: Accounts, catalog: Catalog) -> UsageReport:
    ledger = rt.usage
    calls, cost = rt.session_totals()
    total = ledger.total
    share = total.cache_read_tokens / total.input_tokens if total.input_tokens else 0.0
    return UsageReport(
        usage=total,
        cost=ledger.total_cost,
        responses=ledger.responses,
        session_model_calls=calls,
        session_cost=cost,
        cache_share=share,
        token_ratio=rt.tokens.ratio,
        pricing=pricing(catalog.lookup(rt.model.provider, rt.model.model_id)),
    )


def pricing(info: ModelInfo) -> Pricing:
    """``unknown`` without an input or output price (as ``Catalog.cost`` reads them), ``free``
    when every price is zero."""
    if info.input_price is None or info.output_price is None:
        return "unknown"
    prices = (info.input_price, info.output_price, info.cache_read_price, info.cache_write_price)
    return "free" if not any(prices) else "priced"


def context_report(
    system: str,
    tools: Sequence[ToolDefinition],
    messages: Sequence[Message],
    tokens: TokenLedger,
) -> ContextReport:
    """What a request of ``system``, ``tools`` and ``messages`` carries, by ``tokens``' ratio."""
    chars = dict.fromkeys(CONTEXT_PARTS, 0)
    chars["system prompt"] = len(system)
    chars["tool definitions"] = tools_chars(tools)
    for message in messages:
        for part in message.parts:
            chars[_part_name(part, message.role)] += part_chars(part)
    ratio = tokens.ratio
    parts = tuple(
        (name, round(count / CHARS_PER_TOKEN * ratio)) for name, count in chars.items() if count
    )
    return ContextReport(
        tokens=sum(tokens for _, tokens in parts),
        window=tokens.context_window,
        parts=parts,
        messages=len(messages),
        token_ratio=ratio,
    )


def rules_in_force(policy: PermissionPolicy) -> RulesInForce:
    config = policy.config
    every = tuple(map(str, policy.rules(allow=True)))
    configured = tuple(map(str, policy.rules(allow=True)[: len(config.allow)]))
    return RulesInForce(
        mode=config.mode,
        allow=configured,
        deny=tuple(map(str, policy.rules(allow=False))),
        added=every[len(configured) :],
    )


def _part_name(part: Part, role: str) -> str:
    match part:
        case TextPart():
            return "assistant text" if role == "assistant" else "your messages"
        case ThinkingPart():
            return "thinking"
        case ToolCallPart():
            return "tool calls"
        case ToolResultPart():
            return "tool results"
        case ImagePart():
            return "images"
        case ServerToolPart():
            return "provider tools"
        case _:
            assert_never(part)
