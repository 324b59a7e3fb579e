"""``ProfiledTool``: a tool offered under a profile's own name, schema and argument names.

Each model family's native agent spells its tool arguments its own way (Claude Code's
``file_path`` and a shell ``timeout`` in milliseconds, codex's ``input`` for a patch, gemini-cli's
0-based ``offset`` and ``dir_path``). A ``ProfiledTool`` shows the model that schema and
description, and ``translate`` maps the validated arguments onto the executor's own names and
units before the executor runs, so behaviour (path policy, truncation, errors) stays the
executor's. A ``translate`` that cannot map the arguments raises ``ToolError``; the registry turns
it into an ``is_error`` result. It forwards what the executor declares: its effects (computed on
the translated arguments: ``ToolRegistry.prepare`` translates once and asks the executor) and
its output limits.

``ArgumentMap`` is the usual ``translate``: renames, divisors (ms to s), shifts (0-based to
1-based), defaults for missing arguments, and an optional set of keys to keep (the rest dropped,
which makes a forgiving tool). ``workdir_prefix`` runs a shell command in a directory.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Mapping
from dataclasses import field
from types import MappingProxyType
from typing import Any, Protocol, runtime_checkable

from taor._records import frozen
from taor.tools.base import Tool, ToolContext, ToolError, ToolOutput
from taor.tools.effects import UNDECLARED, DeclaresEffects, DeclaresLimits, Effects
from taor.tools.truncation import FALLBACK_LIMITS, Limits

Translate = Callable[[Mapping[str, Any]], dict[str, Any]]

_EMPTY: Mapping[str, Any] = MappingProxyType({})


class AfterCall(Protocol):
    """Looks at a call's output once the executor has run (``RepeatNotes`` is one)."""

    def after(self, arguments: Mapping[str, Any], output: ToolOutput) -> ToolOutput: ...


def unchanged(arguments: Mapping[str, Any]) -> dict[str, Any]:
    """The identity ``translate``: the profile uses the executor's own names."""
    return dict(arguments)


@frozen
class ProfiledTool:
    """A tool with a profile's name, description and schema over a built-in ``executor``."""

    name: str
    description: str
    parameters: Mapping[str, Any]
    read_only: bool
    executor: Tool
    translate: Translate = unchanged
    repeats: AfterCall | None = None  # when set, a repeated call to no effect is told so

    @classmethod
    def over(
        cls,
        executor: Tool,
        *,
        description: str,
        parameters: Mapping[str, Any],
        translate: Translate = unchanged,
        name: str | None = None,
        repeats: AfterCall | None = None,
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

    @property
    def output_limits(self) -> Limits:
        executor = self.executor
        return executor.output_limits if isinstance(executor, DeclaresLimits) else FALLBACK_LIMITS

    def executor_arguments(self, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """The arguments as the executor names them (what its effects are computed on)."""
        return self.translate(arguments)

    def effects(self, arguments: Mapping[str, Any]) -> Effects:
        """The executor's effects for ``arguments``, given by the executor's names."""
        executor = self.executor
        return executor.effects(arguments) if isinstance(executor, DeclaresEffects) else UNDECLARED

    async def execute(self, arguments: Mapping[str, Any], context: ToolContext) -> ToolOutput:
        return await self.run_translated(arguments, self.executor_arguments(arguments), context)

    async def run_translated(
        self, arguments: Mapping[str, Any], translated: Mapping[str, Any], context: ToolContext
    ) -> ToolOutput:
        """Run with ``arguments`` already translated (``translated``)."""
        output = await self.executor.execute(translated, context)
        return self.repeats.after(arguments, output) if self.repeats else output


@runtime_checkable
class Translating(Protocol):
    """A tool whose executor names its arguments otherwise (``ProfiledTool``): its effects are
    declared for the translated arguments, and it can run with them translated once."""

    def executor_arguments(self, arguments: Mapping[str, Any]) -> dict[str, Any]: ...

    async def run_translated(
        self, arguments: Mapping[str, Any], translated: Mapping[str, Any], context: ToolContext
    ) -> ToolOutput: ...


@frozen
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
