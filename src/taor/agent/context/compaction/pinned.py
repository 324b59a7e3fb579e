"""What a summary never replaces: the pinned items, and the head message that carries them.

``Pinned`` holds the project instructions and a host-given plan or brief (strings) and the files
changed so far, which ``files_changed`` computes from the record: the files written by the calls
whose result was not an error, as their tools declare them (``Effects.writes``: write_file,
edit_file and apply_patch, under every profile's argument names). ``written`` says which files a
recorded call writes: the session passes its registry's; without one, the built-in tools'
declarations are asked.

After a summary the view starts with one user message: the first user message as it was, then
a part with the pinned items, then a part with the summary, each opening with a header that
frames it as background. ``split_head`` takes such a message apart again, so a second
compaction refreshes the pinned items and folds the earlier summary into the new one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from taor._records import frozen
from taor.agent.record.turns import AssistantTurn, ToolResultsTurn, Turn
from taor.llm.types import Message, Part, TextPart, ToolCallPart, ToolResultPart

SUMMARY_HEADER = "Summary of earlier work, for context; not a request."
PINNED_HEADER = "Kept from earlier in this session, for context; not a request."
Written = Callable[[ToolCallPart], Sequence[str]]
"""The files a recorded call writes."""


@frozen
class Pinned:
    instructions: str = ""
    plan: str = ""
    files: tuple[str, ...] = ()

    def block(self) -> str:
        """The pinned items as one text (empty when there is nothing to pin)."""
        sections = [
            ("Project instructions", self.instructions.strip()),
            ("Plan / brief from the host", self.plan.strip()),
            ("Files changed so far", "\n".join(f"- {f}" for f in self.files)),
        ]
        body = "\n\n".join(f"{title}:\n{text}" for title, text in sections if text)
        return f"{PINNED_HEADER}\n\n{body}" if body else ""


def summary_block(summary: str) -> str:
    return (
        f"{SUMMARY_HEADER} The first message above is the original request; the conversation "
        f"continues after this summary.\n\n{summary.strip()}"
    )


def builtin_written(call: ToolCallPart) -> Sequence[str]:
    """The files a call writes, as the built-in tool of its name declares them."""
    from taor.tools.builtin import builtin_effects  # only without the session's registry

    return builtin_effects(call.name, call.arguments).writes


def files_changed(
    history: Iterable[Turn | Message], written: Written = builtin_written
) -> tuple[str, ...]:
    """Paths written by the calls that did not fail, in order, once each."""
    calls: list[ToolCallPart] = []
    failed: set[str] = set()
    for item in history:
        for part in _parts(item):
            if isinstance(part, ToolCallPart):
                calls.append(part)
            elif isinstance(part, ToolResultPart) and part.is_error:
                failed.add(part.call_id)
    paths = (p for c in calls if c.id not in failed for p in written(c))
    return tuple(dict.fromkeys(paths))


def _parts(item: Turn | Message) -> Sequence[Part]:
    if isinstance(item, Message):
        return item.parts
    if isinstance(item, AssistantTurn):
        return item.message.parts
    if isinstance(item, ToolResultsTurn):
        return item.results
    return ()


def split_head(message: Message) -> tuple[tuple[Part, ...], str]:
    """The first message's own parts, and the earlier summary it carries ("" if none)."""
    own: list[Part] = []
    summary = ""
    for part in message.parts:
        text = part.text if isinstance(part, TextPart) else ""
        if text.startswith(SUMMARY_HEADER):
            summary = text.split("\n\n", 1)[1] if "\n\n" in text else ""
        elif not text.startswith(PINNED_HEADER):
            own.append(part)
    return tuple(own), summary


def head_message(first: Message, pinned: Pinned, summary: str) -> Message:
    """The first user message, the pinned items and the summary, as one user message."""
    own, _ = split_head(first)
    extra = [t for t in (pinned.block(), summary_block(summary) if summary else "") if t]
    parts: tuple[Part, ...] = (*own, *(TextPart(text=t) for t in extra))
    return Message(role=first.role, parts=parts, provider_state=first.provider_state)
