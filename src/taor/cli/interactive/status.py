"""The status line under the prompt: the model, the reasoning effort, how full the context window
is and what the session has cost so far, then the permission mode. Its numbers come from the
session's own reports (``Session.context_report``, ``usage_report``), the ones ``/context`` and
``/cost`` show, so the two never disagree. Parts are dropped from the right when the terminal
is too narrow for all of them.
"""

from __future__ import annotations

from dataclasses import dataclass

from taor.agent.session import Session


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

    def parts(self) -> list[str]:
        return [
            self.model,
            f"effort {self.effort}",
            f"context {self.context:.0%} of {_tokens(self.window)}",
            money(self.cost),
            f"{self.mode} mode",
        ]

    def line(self, width: int) -> str:
        """The parts that fit in ``width`` columns, most important first."""
        parts = self.parts()
        while len(parts) > 1 and len(_joined(parts)) > width:
            parts.pop()
        return _joined(parts)[:width]


def money(cost: float | None) -> str:
    if cost is None:
        return "cost unknown"  # a model the catalog has no prices for
    return f"${cost:.4f}" if cost < 0.01 else f"${cost:.2f}"


def _tokens(count: int) -> str:
    if count >= 1_000_000:
        return f"{count / 1_000_000:g}M"
    return f"{count // 1000}k" if count >= 1000 else str(count)


def _joined(parts: list[str]) -> str:
    return " " + " · ".join(parts)
