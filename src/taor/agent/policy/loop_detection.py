"""Loop detection: notice when the model keeps making the same tool calls.

A call's signature is its name plus the canonical JSON of its arguments. The detector keeps the
last ``window`` signatures of the current input and, for each cycle length ``k`` in 1, 2 and 3,
checks the latest ``k * (window // k)`` of them (so a 3-cycle is found with a window of 10, which
a ``window % k`` rule would miss). A block only counts as a ``k``-cycle when
it is not itself a shorter cycle, and the window must hold at least two copies of it.

What happens on a hit:

- ``warn``: the first time a pattern fills the window. The loop tells the model (``message``).
  The window is cleared and a cooldown starts: no *other* pattern warns before the
  ``cooldown``-th call after this one.
- ``stop``: the warned pattern resumes. Within the ``window`` calls after the warning, two
  back-to-back copies of its block (in any rotation) stop the cycle; a warned pattern that fills
  the window again at any later point of the same input stops it too. One stray call that
  happens to match the block (re-reading a file after editing it) does not.

With ``repeats`` set (``LoopDetectionConfig``), a call made that many times within the window
is a loop as well, wherever the copies fall, and after its warning that many back-to-back copies
(or that many again within a window) stop the cycle: a host that wants "the same call three
times in ten" gets it from this detector, not a copy of it.

Calls with varying arguments (moving many files, paging through results) have distinct
signatures and never fire. ``reset()`` starts a new input: the window
never spans inputs. A disabled config never fires.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Mapping
from dataclasses import replace
from typing import Any, Literal

from taor._records import frozen
from taor.agent.config import LoopDetectionConfig
from taor.llm.types import ToolCallPart

CYCLE_LENGTHS = (1, 2, 3)
_STOP_COPIES = 2  # back-to-back copies of a warned block that count as "the loop resumed"
_SHOWN_CHARS = 200  # of each signature in a message

Pattern = tuple[str, ...]


@frozen
class LoopVerdict:
    """``pattern`` is the repeating block of signatures, in the order last seen."""

    kind: Literal["warn", "stop"]
    pattern: Pattern
    repeats: int
    message: str

    @property
    def cycle_length(self) -> int:
        return len(self.pattern)


def signature(call: ToolCallPart) -> str:
    """``name`` plus the canonical JSON of the arguments (``raw_arguments`` when unparsed)."""
    arguments: Any = call.arguments
    if not arguments and call.raw_arguments.strip():
        arguments = _parse_raw(call.raw_arguments)
    return f"{call.name} {_canonical(arguments)}"


class LoopDetector:
    """Feed it every tool call of an input, in call order; see the module docstring."""

    def __init__(self, config: LoopDetectionConfig) -> None:
        self._config = config
        self._recent: deque[str] = deque(maxlen=max(config.window, 1))
        self._warned: set[Pattern] = set()
        self._watch: Pattern | None = None  # the last warned block, in canonical rotation
        self._since_warning: list[str] = []
        self._calls_since_warning: int | None = None
        self._shown: dict[str, str] = {}  # signature -> the call as the model last wrote it

    def reset(self) -> None:
        """Forget everything: call at the start of each input."""
        self._recent.clear()
        self._warned.clear()
        self._shown.clear()
        self._end_watch()
        self._calls_since_warning = None

    def record(
        self, call: ToolCallPart, *, used: Mapping[str, Any] | None = None
    ) -> LoopVerdict | None:
        """Add one call; a verdict when it completes a loop, else None. ``used``: the arguments
        the tool acts on, matched instead of the call's own (messages still show the call as
        the model wrote it)."""
        if not self._config.enabled:
            return None
        sig = signature(call if used is None else replace(call, arguments=dict(used)))
        self._shown[sig] = signature(call)
        self._recent.append(sig)
        if self._calls_since_warning is not None:
            self._calls_since_warning += 1
        return self._check_watch(sig) or self._check_window()

    def _check_watch(self, sig: str) -> LoopVerdict | None:
        if self._watch is None:
            return None
        self._since_warning.append(sig)
        k, copies = len(self._watch), self._config.repeats or _STOP_COPIES
        tail = tuple(self._since_warning[-k * copies :])
        if len(tail) == k * copies and _cycle_of(tail, k) == self._watch:
            return self._stop(tail[-k:], copies)
        if len(self._since_warning) >= self._config.window:
            self._end_watch()
        return None

    def _check_window(self) -> LoopVerdict | None:
        found = _find_cycle(tuple(self._recent), self._config.window)
        if found is None and self._config.repeats:
            found = _find_repeat(tuple(self._recent), self._config.repeats)
        if found is None:
            return None
        block, repeats = found
        canonical = _rotate_min(block)
        if canonical in self._warned:
            return self._stop(block, repeats)
        if self._in_cooldown():
            return None
        return self._warn(block, repeats)

    def _warn(self, block: Pattern, repeats: int) -> LoopVerdict:
        canonical = _rotate_min(block)
        self._warned.add(canonical)
        self._recent.clear()
        self._watch = canonical
        self._since_warning = []
        self._calls_since_warning = 0
        return LoopVerdict(
            kind="warn",
            pattern=block,
            repeats=repeats,
            message=_warn_message(self._as_written(block), repeats),
        )

    def _stop(self, block: Pattern, repeats: int) -> LoopVerdict:
        self._recent.clear()
        self._end_watch()
        return LoopVerdict(
            kind="stop",
            pattern=block,
            repeats=repeats,
            message=_stop_message(self._as_written(block)),
        )

    def _as_written(self, block: Pattern) -> Pattern:
        return tuple(self._shown.get(sig, sig) for sig in block)

    def _end_watch(self) -> None:
        self._watch = None
        self._since_warning = []

    def _in_cooldown(self) -> bool:
        since = self._calls_since_warning
        return since is not None and since < self._config.cooldown


def _find_cycle(recent: Pattern, window: int) -> tuple[Pattern, int] | None:
    """The shortest block that repeats over the latest ``k * (window // k)`` signatures."""
    for k in CYCLE_LENGTHS:
        copies = window // k
        if copies < 2 or len(recent) < k * copies:
            continue
        latest = recent[len(recent) - k * copies :]
        if _cycle_of(latest, k) is not None:
            return latest[-k:], copies
    return None


def _find_repeat(recent: Pattern, repeats: int) -> tuple[Pattern, int] | None:
    """The latest call when it is in ``recent`` at least ``repeats`` times."""
    count = recent.count(recent[-1]) if recent else 0
    return ((recent[-1],), count) if repeats > 1 and count >= repeats else None


def _cycle_of(signatures: Pattern, k: int) -> Pattern | None:
    """The block's canonical rotation when ``signatures`` is one ``k``-block repeated and that
    block is not a shorter cycle itself; else None."""
    block = signatures[:k]
    if any(signatures[i] != block[i % k] for i in range(len(signatures))):
        return None
    if any(k % d == 0 and block == block[:d] * (k // d) for d in range(1, k)):
        return None
    return _rotate_min(block)


def _rotate_min(block: Pattern) -> Pattern:
    return min(block[i:] + block[:i] for i in range(len(block)))


def _parse_raw(raw: str) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        return raw.strip()


def _canonical(value: Any) -> str:
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=repr
    )


def _describe(block: Pattern) -> str:
    shown = [s if len(s) <= _SHOWN_CHARS else s[:_SHOWN_CHARS] + "…" for s in block]
    if len(shown) == 1:
        return f"the same tool call ({shown[0]})"
    return f"the same {len(shown)} tool calls in a cycle (" + " → ".join(shown) + ")"


def _warn_message(block: Pattern, repeats: int) -> str:
    return (
        f"You have repeated {_describe(block)} {repeats} times without making "
        "progress. Stop and think about why it is not working, then try a different approach "
        "(other arguments, another tool, or ask the user)."
    )


def _stop_message(block: Pattern) -> str:
    return f"Stopped: the model kept repeating {_describe(block)} after being warned."
