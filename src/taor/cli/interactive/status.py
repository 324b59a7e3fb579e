"""The status line under the prompt: the model, the reasoning effort, how full the context window
is and what the session has cost so far, then the permission mode. Its numbers come from the
session's own reports (``Session.context_report``, ``usage_report``), the ones ``/context`` and
``/cost`` show, so the two never disagree; the cost is in the same words in both
(``cost_text``). When the terminal is too narrow for all of them, the settings are left out
first, then the cost, then the context.
"""

from __future__ import annotations

from collections.abc import Iterable

from taor._records import frozen
from taor.agent.reports import Pricing
from taor.agent.session import Session

LEFT_OUT = ("mode", "effort", "cost", "context")  # in turn, while the line is too long


@frozen
class Status:
    model: str
    effort: str
    context: float  # share of the window
    window: int
    cost: float | None
    mode: str
    pricing: Pricing = "priced"
    busy: bool = False

    @classmethod
    def of(cls, session: Session, *, busy: bool = False) -> Status:
        context, usage = session.context_report(), session.usage_report()
        return cls(
            model=f"{session.model.provider}:{session.model.model_id}",
            effort=session.config.reasoning_effort or "default",
            context=context.fraction,
            window=context.window,
            cost=usage.session_cost,
            mode=session.permission_rules().mode,
            pricing=usage.pricing,
            busy=busy,
        )

    def parts(self) -> dict[str, str]:
        return {
            "model": self.model,
            "effort": f"effort {self.effort}",
            "context": f"context {self.context:.0%} of {_tokens(self.window)}",
            "cost": cost_text(self.cost, self.pricing, self.model.partition(":")[0]),
            "mode": f"{self.mode} mode",
        }

    def line(self, width: int) -> str:
        """The parts that fit in ``width`` columns, in their order (``LEFT_OUT`` says which
        go first); a model too long on its own loses its provider, then its end."""
        parts = self.parts()
        for name in LEFT_OUT:
            if len(_joined(parts.values())) <= width:
                break
            del parts[name]
        if len(_joined(parts.values())) > width:
            parts = {"model": self.model.partition(":")[2] or self.model}
        line = _joined(parts.values())
        return line if len(line) <= width else line[: max(0, width - 1)] + "…"


def cost_text(cost: float | None, pricing: Pricing, provider: str) -> str:
    """What the session has cost: dollars; ``free (local model)`` for a model taor runs
    itself (free of charge: its prices are zero); ``price not known`` for a model the
    catalog has no prices for (from the start, not only once it has been called) or after
    calls of one."""
    if cost is None or pricing == "unknown":
        return "price not known"
    if pricing == "free" and cost == 0:
        return "free (local model)" if provider == "local" else "free"
    return money(cost)


def money(cost: float) -> str:
    """``$1.23``; a cost under a cent with its first figures (``$0.0040``), none as ``$0.00``."""
    return f"${cost:.4f}" if 0 < cost < 0.01 else f"${cost:.2f}"


def _tokens(count: int) -> str:
    if count >= 1_000_000:
        return f"{count / 1_000_000:g}M"
    return f"{count // 1000}k" if count >= 1000 else str(count)


def _joined(parts: Iterable[str]) -> str:
    return " " + " · ".join(parts)
