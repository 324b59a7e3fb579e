"""The status line under the prompt: the model, the reasoning effort, how full the context window
is and what the session has cost so far, then the permission mode. Its numbers come from the
session's own reports (``Session.context_report``, ``usage_report``), the ones ``/context`` and
``/cost`` show, so the two never disagree. When the terminal is too narrow for all of them, the
settings are left out first, then the cost, then the context.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from taor.agent.session import Session

LEFT_OUT = ("mode", "effort", "cost", "context")  # in turn, while the line is too long


@dataclass(frozen=True, kw_only=True, slots=True)
class Status:
    model: str
    effort: str
    context: float  # share of the window
    window: int
    cost: float | None
    mode: str
    busy: bool = False

    @classmethod
    def of(cls, session: Session, *, busy: bool = False) -> Status:
        context = session.context_report()
        return cls(
            model=f"{session.model.provider}:{session.model.model_id}",
            effort=session.config.reasoning_effort or "default",
            context=context.fraction,
            window=context.window,
            cost=session.usage_report().session_cost,
            mode=session.permission_rules().mode,
            busy=busy,
        )

    def parts(self) -> dict[str, str]:
        return {
            "model": self.model,
            "effort": f"effort {self.effort}",
            "context": f"context {self.context:.0%} of {_tokens(self.window)}",
            "cost": money(self.cost),
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


def money(cost: float | None) -> str:
    if cost is None:
        return "cost unknown"  # a model the catalog has no prices for
    return f"${cost:.4f}" if cost < 0.01 else f"${cost:.2f}"


def _tokens(count: int) -> str:
    if count >= 1_000_000:
        return f"{count / 1_000_000:g}M"
    return f"{count // 1000}k" if count >= 1000 else str(count)


def _joined(parts: Iterable[str]) -> str:
    return " " + " · ".join(parts)
