"""``edit_file`` (over ``taor.tools.edit.apply_edit``) and ``apply_patch`` (``taor.tools.patch``).

Both check every change in memory first and only then write through the environment, so an
edit or patch that does not apply leaves every file as it was. Files are read as bytes and
decoded as strict UTF-8: a binary or non-UTF-8 file is refused rather than rewritten with
replacement characters. A patch's files are written first and deleted last (``Environment.remove``;
a move writes its destination before removing its source); if the environment fails part-way,
the error names the files already changed and those left as they were.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from taor.env.base import EnvError, Environment
from taor.tools.base import ToolContext, ToolError, ToolOutput
from taor.tools.builtin._common import environment_of, guarded, missing_file_message, model_output
from taor.tools.edit import EditError, apply_edit
from taor.tools.effects import (
    Effects,
    Texts,
    files_summary,
    patch_headers,
    path_argument,
    path_summary,
    string_field,
    text_argument,
)
from taor.tools.truncation import Limits

if TYPE_CHECKING:  # the patch machinery is imported by the first apply_patch call
    from taor.tools.patch import FileChange, PatchResult, Section

EDIT_LIMITS = Limits(chars=10_000, mode="tail")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}")  # an identifier of three characters or more
_STILL_SHOWN = 8  # places a renamed name is still found, listed in the result


async def read_utf8(env: Environment, path: str) -> str | None:
    """The text of ``path``, None when it does not exist; ToolError for binary or non-UTF-8."""
    if not await env.exists(path):
        return None
    if (await env.stat(path)).is_dir:
        raise ToolError(f"{path!r} is a directory, not a file.")
    data = await env.read_bytes(path)
    if b"\x00" in data:
        raise ToolError(f"{path!r} is a binary file; it cannot be edited as text.")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ToolError(
            f"{path!r} is not valid UTF-8 (byte {exc.start}); editing it as text would corrupt "
            "it. Convert it first (e.g. with iconv) or rewrite it with write_file."
        ) from exc


@dataclass(frozen=True, kw_only=True)
class EditFileTool:
    """Replaces an exact, unique string of a file (with a fuzzy fallback that says so)."""

    name: str = "edit_file"
    description: str = (
        "Replace old_string with new_string in a file. old_string must match exactly one place "
        "(include enough surrounding lines to make it unique) unless replace_all is true. If "
        "nothing matches exactly, whitespace and typographic punctuation are tolerated and the "
        "result says so. An empty old_string creates a missing (or fills an empty) file. The "
        "result shows the edited region with line numbers."
    )
    parameters: Mapping[str, Any] = field(
        default_factory=lambda: {
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "File path, relative to the workspace."},
                "old_string": {"type": "string", "description": "The exact text to replace."},
                "new_string": {"type": "string", "description": "The text to put in its place."},
                "replace_all": {"type": "boolean", "description": "Replace every occurrence."},
            },
            "required": ["path", "old_string", "new_string"],
            "additionalProperties": False,
        }
    )
    read_only: bool = False
    plain: bool = False  # results for small models (``EditResult.plain``)

    @property
    def output_limits(self) -> Limits:
        return EDIT_LIMITS

    def effects(self, arguments: Mapping[str, Any]) -> Effects:
        paths = path_argument(arguments)
        return Effects(
            writes=paths,
            writes_elsewhere=False,
            subject_style="path",
            subjects=string_field(arguments, "path"),
            file_edit=True,
            summary=path_summary(arguments),
            preview=lambda before: _edited(arguments, before),
        )

    async def execute(self, arguments: Mapping[str, Any], context: ToolContext) -> ToolOutput:
        return await guarded(self._edit(arguments, context))

    async def _edit(self, arguments: Mapping[str, Any], context: ToolContext) -> ToolOutput:
        env, path = environment_of(context), str(arguments["path"])
        old, new = str(arguments["old_string"]), str(arguments["new_string"])
        text = await read_utf8(env, path)
        if text is None and old:
            message = await missing_file_message(env, path)
            return ToolOutput.error(f"{message} To create a file, use write_file.")
        result = apply_edit(
            text or "", old, new, replace_all=bool(arguments.get("replace_all", False))
        )
        await env.write(path, result.text)
        meta = {"path": path, "replacements": result.replacements, "fuzzy": result.fuzzy}
        summary = result.plain if self.plain else result.summary
        if self.plain:
            summary += await _still_named(env, _renamed(old, new))
        return model_output(EDIT_LIMITS, f"Edited {path}. {summary}", meta)


def _renamed(old: str, new: str) -> list[str]:
    """The names an edit replaced with others, when it reads as a rename: all but names is
    the same on both sides, and at most two names of old_string are gone from new_string."""
    if _NAME.sub("", old) != _NAME.sub("", new):
        return []
    gone = set(_NAME.findall(old)) - set(_NAME.findall(new))
    return sorted(gone) if len(gone) <= 2 else []


async def _still_named(env: Environment, names: Sequence[str]) -> str:
    """Where the workspace still has ``names`` (a rename done in one place of several), as
    lines to add to the result; empty when nowhere."""
    lines = []
    for name in names:
        try:
            found = await env.grep(rf"\b{re.escape(name)}\b", ".", max_matches=_STILL_SHOWN + 1)
        except (OSError, EnvError):
            continue
        if found:
            places = ", ".join(f"{m.path} line {m.line_number}" for m in found[:_STILL_SHOWN])
            more = " and more" if len(found) > _STILL_SHOWN else ""
            lines.append(f"\n{name} still appears in {places}{more}.")
    return "".join(lines)


@dataclass(frozen=True, kw_only=True)
class ApplyPatchTool:
    """Applies a v4a patch: all of it, or (when any part does not fit) none of it."""

    name: str = "apply_patch"
    description: str = (
        "Apply a patch in the v4a format: `*** Begin Patch`, then sections `*** Add File: path` "
        "(lines prefixed `+`), `*** Delete File: path` or `*** Update File: path` (optionally "
        "`*** Move to: new_path`) with `@@` hunks of ` ` context, `-` removed and `+` added "
        "lines, then `*** End Patch`. Add File onto an existing file replaces it, and Move to "
        "onto an existing file replaces that file. The patch applies all or nothing: every "
        "section is checked before anything is written, and if one does not apply, no file "
        "changes (fix the failing part and send the whole patch again)."
    )
    parameters: Mapping[str, Any] = field(
        default_factory=lambda: {
            "type": "object",
            "properties": {"patch": {"type": "string", "description": "The patch text."}},
            "required": ["patch"],
            "additionalProperties": False,
        }
    )
    read_only: bool = False
    # The last patch parsed and its sections: a call's effects parse its patch, and running
    # the same call uses that parse.
    _parsed: dict[str, tuple[Section, ...]] = field(default_factory=dict, repr=False, compare=False)

    @property
    def output_limits(self) -> Limits:
        return EDIT_LIMITS

    def effects(self, arguments: Mapping[str, Any]) -> Effects:
        from taor.tools.patch import PatchError

        patch = arguments.get("patch") or arguments.get("input")  # codex's name, when recorded
        sections: tuple[Section, ...] | None = None
        try:
            sections = self._sections(str(patch or ""))
            paths = _section_paths(sections)
        except PatchError:  # the headers still say which files the patch means
            paths = patch_headers(str(patch or ""))
        writes = tuple(paths) if isinstance(patch, str) else ()
        shown = text_argument(arguments, "patch")  # a summary reads taor's name only
        return Effects(
            writes=writes,
            writes_elsewhere=False,
            subject_style="path",
            subjects=tuple(paths),
            file_edit=True,
            summary=files_summary(paths) if shown else None,
            preview=None if sections is None else lambda before: _patched(sections, before),
        )

    def _sections(self, patch: str) -> tuple[Section, ...]:
        """``patch`` parsed (PatchError when it breaks the grammar), once for a call."""
        from taor.tools.patch import parse_patch

        if patch not in self._parsed:
            sections = parse_patch(patch)
            self._parsed.clear()
            self._parsed[patch] = sections
        return self._parsed[patch]

    async def execute(self, arguments: Mapping[str, Any], context: ToolContext) -> ToolOutput:
        return await guarded(self._apply(arguments, context))

    async def _apply(self, arguments: Mapping[str, Any], context: ToolContext) -> ToolOutput:
        from taor.tools.patch import apply_patch

        env, sections = environment_of(context), self._sections(str(arguments["patch"]))
        originals: dict[str, str | None] = {}
        for path in _section_paths(sections):
            if path not in originals:
                originals[path] = await read_utf8(env, path)
        result = apply_patch(sections, originals.get)
        await _write_changes(env, result)
        meta = {"changes": [(c.action, c.path, c.moved_from) for c in result.changes]}
        return model_output(EDIT_LIMITS, result.summary, meta)


def _section_paths(sections: Sequence[Section]) -> list[str]:
    """Every path the sections touch (moves' destinations too), in order, once each."""
    found = [p for s in sections for p in (s.path, getattr(s, "move_to", None)) if p]
    return list(dict.fromkeys(found))


def _edited(arguments: Mapping[str, Any], before: Texts) -> Texts | None:
    """The file as an edit_file call would leave it; None when the call would fail."""
    path = str(arguments["path"])
    text, old = before[path], str(arguments["old_string"])
    if text is None and old:  # no such file: the tool refuses
        return None
    replace_all = bool(arguments.get("replace_all", False))
    try:
        result = apply_edit(text or "", old, str(arguments["new_string"]), replace_all=replace_all)
    except EditError:
        return None
    return {path: result.text}


def _patched(sections: Sequence[Section], before: Texts) -> Texts | None:
    """The files as the patch would leave them; None when it would not apply."""
    from taor.tools.patch import PatchError, apply_patch

    try:
        result = apply_patch(sections, before.get)
    except PatchError:
        return None
    return {change.path: change.content for change in result.changes}


async def _write_changes(env: Environment, result: PatchResult) -> None:
    """Writes (moves' destinations too) before deletions (moves' sources), so a failure part-way
    never loses text; the error says exactly which files changed and which did not."""
    ordered = sorted(result.changes, key=lambda c: c.content is None)
    for index, change in enumerate(ordered):
        try:
            await _write_change(env, change)
        except Exception as exc:  # guarded() reports it; say what was and was not done
            raise ToolError(_partial_message(exc, ordered[:index], ordered[index:])) from exc


async def _write_change(env: Environment, change: FileChange) -> None:
    if change.content is None:
        await env.remove(change.path)
    else:
        await env.write(change.path, change.content)


def _partial_message(exc: Exception, done: Sequence[FileChange], left: Sequence[FileChange]) -> str:
    failed = left[0]
    verb = "delete" if failed.content is None else "write"
    reason = (str(exc) or type(exc).__name__).rstrip(".")
    head = f"Could not {verb} {failed.path}: {reason}."
    if not done:
        return f"{head} No file was changed."
    changed = ", ".join(f"{_verb(c)} {c.path}" for c in done)
    unchanged = ", ".join(c.path for c in left)
    return (
        f"{head} The patch was applied only in part: already changed: {changed}; not changed: "
        f"{unchanged}. Read those files before patching again."
    )


def _verb(change: FileChange) -> str:
    return "deleted" if change.content is None else "wrote"
