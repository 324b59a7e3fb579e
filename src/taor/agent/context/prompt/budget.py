"""The 32 KiB budget of project instructions and the block that shows them.

The budget is 32 KiB read as 32 × 1024 = 32,768 **characters** (Python code points, so a cut
never splits a character). It counts the files' contents only, not the
headings and notes around them.

Which part survives: precedence runs the other way from reading order (deeper files win), so
cutting the end of the concatenation, as the spec's naive version does, would drop the most
specific instructions first. Instead the budget is spent **deepest file first**: each file is
kept whole while it fits; the first one that does not is cut (its beginning kept, at a line
boundary when one lies in the last quarter of the room left, else at a character boundary); the
files of lower precedence after it (shallower directories, then the user-level file) are left
out. The survivors are still shown root first, and where text was cut the marker
``[Project instructions truncated at 32 KiB]`` says so, followed by a note naming what is
missing, so the model can read those files itself.
"""

from __future__ import annotations

from taor._records import frozen
from taor.agent.context.prompt.instructions import InstructionFile, ProjectInstructions

INSTRUCTIONS_BUDGET = 32 * 1024
HEADER = (
    "Instructions from the project's files, the most general first. "
    "Where they conflict, a later file wins."
)


@frozen
class Excerpt:
    """What is shown of one file: ``text`` is its beginning, or all of it."""

    file: InstructionFile
    text: str

    @property
    def omitted(self) -> int:
        return len(self.file.content) - len(self.text)


def truncation_marker(budget: int = INSTRUCTIONS_BUDGET) -> str:
    size = f"{budget // 1024} KiB" if budget % 1024 == 0 else f"{budget} characters"
    return f"[Project instructions truncated at {size}]"


def _head(content: str, room: int) -> str:
    if len(content) <= room:
        return content
    cut = content[: max(room, 0)]
    newline = cut.rfind("\n")
    return cut[: newline + 1] if newline >= 0 and newline + 1 >= room * 3 // 4 else cut


def allocate(
    files: tuple[InstructionFile, ...], budget: int = INSTRUCTIONS_BUDGET
) -> tuple[Excerpt, ...]:
    """One excerpt per file, in the files' order, the room given deepest (last) first."""
    room = budget
    excerpts: list[Excerpt] = []
    for file in reversed(files):
        text = _head(file.content, room)
        room = room - len(text) if text == file.content else 0
        excerpts.append(Excerpt(file=file, text=text))
    return tuple(reversed(excerpts))


def _missing_note(excerpts: tuple[Excerpt, ...]) -> str:
    parts = []
    for excerpt in excerpts:
        size = len(excerpt.file.content)
        if not excerpt.text:
            parts.append(f"{excerpt.file.path} ({size} characters)")
        elif excerpt.omitted:
            parts.append(f"the last {excerpt.omitted} of {size} characters of {excerpt.file.path}")
    return (
        "Not shown: " + "; ".join(parts) + ". Deeper files were kept first; "
        "read these files if you need the rest."
    )


def _file_block(excerpt: Excerpt, note: str | None) -> str:
    body = excerpt.text.rstrip("\n")
    if note is not None:
        body = f"{body}\n{note}" if body else note
    return f'<file path="{excerpt.file.path}">\n{body}\n</file>'


def render_instructions(
    instructions: ProjectInstructions, *, budget: int = INSTRUCTIONS_BUDGET
) -> str:
    """The ``<project_instructions>`` block within ``budget``, or "" when there are no files."""
    if not instructions.files:
        return ""
    excerpts = allocate(instructions.files, budget)
    shown = [e for e in excerpts if e.text]
    cut = [e for e in excerpts if e.omitted]
    note = f"{truncation_marker(budget)}\n{_missing_note(excerpts)}" if cut else None
    partial = next((e for e in shown if e.omitted), None)
    blocks = [_file_block(e, note if e is partial else None) for e in shown]
    if note is not None and partial is None:
        blocks.insert(0, note)
    return "<project_instructions>\n" + "\n\n".join([HEADER, *blocks]) + "\n</project_instructions>"
