"""``ProfiledTool``: a built-in executor offered under a profile's own argument names.

Each model family's native agent spells its tool arguments its own way (Claude Code's
``file_path`` and a shell ``timeout`` in milliseconds, codex's ``input`` for a patch, gemini-cli's
0-based ``offset`` and ``dir_path``). A ``ProfiledTool`` shows the model that schema and
description, and ``translate`` maps the validated arguments onto the executor's own names and
units before the executor runs, so behaviour (path policy, truncation, errors) stays the
executor's. A ``translate`` that cannot map the arguments raises ``ToolError``; the registry turns
it into an ``is_error`` result.

``ArgumentMap`` is the usual ``translate``: renames, divisors (ms to s), shifts (0-based to
1-based), defaults for missing arguments, and an optional set of keys to keep (the rest dropped,
which makes a forgiving tool). ``workdir_prefix`` runs a shell command in a directory.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from taor.agent.profiles.repeats import RepeatNotes
from taor.tools.base import Tool, ToolContext, ToolError, ToolOutput

Translate = Callable[[Mapping[str, Any]], dict[str, Any]]

_EMPTY: Mapping[str, Any] = MappingProxyType({})


def unchanged(arguments: Mapping[str, Any]) -> dict[str, Any]:
    """The identity ``translate``: the profile uses the executor's own names."""
    return dict(arguments)


@dataclass(frozen=True, kw_only=True, slots=True)
class ProfiledTool:
    """A tool with a profile's name, description and schema over a built-in ``executor``."""

    name: str
    description: str
    parameters: Mapping[str, Any]
    read_only: bool
    executor: Tool
    translate: Translate = unchanged
    repeats: RepeatNotes | None = None  # when set, a repeated call to no effect is told so

    @classmethod
    def over(
        cls,
        executor: Tool,
        *,
        description: str,
        parameters: Mapping[str, Any],
        translate: Translate = unchanged,
        name: str | None = None,
        repeats: RepeatNotes | None = None,
    ) -> ProfiledTool:
        """``executor`` under a new schema; the name and ``read_only`` default to its own."""
        return cls(
            name=name or executor.name,
            description=description,
            parameters=parameters,
            read_only=executor.read_only,
            executor=executor,
            translate=translate,
            repeats=repeats,
        )

    def executor_arguments(self, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """The arguments as the executor names them (what permission subjects should read)."""
        return self.translate(arguments)

    async def execute(self, arguments: Mapping[str, Any], context: ToolContext) -> ToolOutput:
        output = await self.executor.execute(self.executor_arguments(arguments), context)
        return self.repeats.after(arguments, output) if self.repeats else output


@dataclass(frozen=True, kw_only=True, slots=True)
class ArgumentMap:
    """Renames, then converts units, then keeps only ``keep`` (if given: the model's arguments
    the tool takes, the rest dropped), then fills the profile's ``defaults``.

    ``divide`` (``{"timeout": 1000}``: ms to s) and ``shift`` (0-based to 1-based) are keyed
    by the executor's names (after renaming); numbers only.
    ``finish`` (optional) gets the result last, for a change the others cannot express.
    """

    rename: Mapping[str, str] = field(default_factory=lambda: _EMPTY)
    divide: Mapping[str, float] = field(default_factory=lambda: _EMPTY)
    shift: Mapping[str, int] = field(default_factory=lambda: _EMPTY)
    defaults: Mapping[str, Any] = field(default_factory=lambda: _EMPTY)
    keep: frozenset[str] | None = None
    finish: Callable[[dict[str, Any]], dict[str, Any]] | None = None

    def __call__(self, arguments: Mapping[str, Any]) -> dict[str, Any]:
        out = {self.rename.get(key, key): value for key, value in arguments.items()}
        for key, divisor in self.divide.items():
            if key in out:
                out[key] = out[key] / divisor
        for key, delta in self.shift.items():
            if key in out:
                out[key] = out[key] + delta
        if self.keep is not None:
            out = {key: value for key, value in out.items() if key in self.keep}
        for key, value in self.defaults.items():
            out.setdefault(key, value)
        return self.finish(out) if self.finish else out


def workdir_prefix(key: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """A ``finish`` that runs ``command`` in the directory given as ``key`` (then dropped).

    The command becomes ``cd -- DIR || exit 1`` and, on the next line, the command unchanged
    (not quoted: bash parses it as the model wrote it). A relative directory starts at the
    workspace, where commands run. The ``cd`` grants nothing: the command could run it itself.
    """

    def finish(arguments: dict[str, Any]) -> dict[str, Any]:
        directory = arguments.pop(key, None)
        if directory is None or directory in ("", "."):
            return arguments
        if not isinstance(directory, str) or "\x00" in directory:
            raise ToolError(f"{key} must be a directory path.")
        arguments["command"] = f"cd -- {shlex.quote(directory)} || exit 1\n{arguments['command']}"
        return arguments

    return finish
