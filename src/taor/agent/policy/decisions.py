"""The answer to a permission request, from the host (``Session.decide``) or ``can_use_tool``."""

from __future__ import annotations

from typing import get_args

from taor._records import frozen
from taor.agent.events import DecisionKind
from taor.errors import SessionError

DECISION_KINDS: tuple[str, ...] = get_args(DecisionKind)


@frozen
class Decision:
    """``allow`` once, ``allow_always`` (adds a rule for the rest of the session), or ``deny``
    with a ``message`` the model reads (say what to do instead)."""

    kind: DecisionKind
    message: str = ""

    def __post_init__(self) -> None:
        if self.kind not in DECISION_KINDS:  # a typo must never read as an answer
            raise SessionError(
                f"Unknown permission decision {self.kind!r}: answer one of "
                f"{', '.join(DECISION_KINDS)} (exactly, lower case)."
            )

    @property
    def allows(self) -> bool:
        """True for ``allow`` and ``allow_always``: only an explicit allow lets a call run."""
        return self.kind in ("allow", "allow_always")

    @classmethod
    def of(cls, answer: object, message: str = "") -> Decision:
        """A host's answer (a ``Decision`` or exactly one of the kinds) as a Decision;
        anything else is a ``SessionError``."""
        if isinstance(answer, Decision):
            return answer
        if isinstance(answer, str):
            return cls(kind=answer, message=message)  # type: ignore[arg-type]  # checked there
        raise SessionError(
            f"A permission decision is a Decision or one of {', '.join(DECISION_KINDS)}, "
            f"not {answer!r}."
        )

    @classmethod
    def allow(cls) -> Decision:
        return cls(kind="allow")

    @classmethod
    def allow_always(cls) -> Decision:
        return cls(kind="allow_always")

    @classmethod
    def deny(cls, message: str = "") -> Decision:
        return cls(kind="deny", message=message)


def as_decision(answer: object) -> Decision:
    """What a ``can_use_tool`` callback returned, as a Decision (True/False, a kind or one)."""
    if isinstance(answer, Decision):
        return answer
    if answer is True or answer in ("allow", "allow_always"):
        return Decision(kind="allow_always" if answer == "allow_always" else "allow")
    if answer is False or answer == "deny" or answer is None:
        return Decision.deny()
    if isinstance(answer, str):
        return Decision.deny(answer)
    raise TypeError(f"can_use_tool must return a Decision, a bool or a str, not {answer!r}")
