"""``Profile``: what makes the loop a good coding agent for one model family.

A profile names its tools (built fresh by ``tools()``, each a ``ProfiledTool`` over a built-in
executor with the family's native argument names), its base system prompt (a byte-stable
constant: prompt caching depends on it), capability flags, the default command timeout its shell
tool uses when the model gives none, the max output tokens to ask for, provider options merged
into each request, and the project instruction files it reads besides ``AGENTS.md`` (which the
prompt builder always reads).

``subagent_tools`` lists the subagent tools the profile wants (``spawn_agent`` and friends).
They are not built here yet: ``tools()`` leaves them out, and the session adds them when it
offers subagents.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from dataclasses import field
from types import MappingProxyType
from typing import Any, Literal

from taor._records import frozen
from taor.errors import ConfigurationError
from taor.tools.base import Tool
from taor.tools.registry import ToolRegistry
from taor.tools.sources import StaticSource

ProfileId = Literal["anthropic", "openai", "gemini", "openai-compat", "small"]
PROFILE_IDS: tuple[ProfileId, ...] = ("anthropic", "openai", "gemini", "openai-compat", "small")
SUBAGENT_TOOLS = ("spawn_agent", "send_input", "wait", "close_agent")
MAX_COMMAND_TIMEOUT = 600.0

ToolFactory = Callable[[float], tuple[Tool, ...]]
"""Builds a profile's tools, fresh each call, given the default command timeout in seconds."""

_NO_OPTIONS: Mapping[str, Mapping[str, Any]] = MappingProxyType({})


@frozen
class Profile:
    """One model family's tools, base prompt, flags and request defaults."""

    id: ProfileId
    base_prompt: str
    tool_factory: ToolFactory
    supports_parallel_tool_calls: bool
    default_command_timeout: float
    max_output_tokens: int
    provider_options: Mapping[str, Mapping[str, Any]] = field(default_factory=lambda: _NO_OPTIONS)
    instruction_files: tuple[str, ...] = ()
    subagent_tools: tuple[str, ...] = ()
    list_files: int = 0  # the prompt names up to this many entries of the working directory
    working_directory: bool = True  # the prompt gives the working directory's absolute path
    loop_window: int | None = None  # the loop guard's window, where the config keeps the default
    check_answers: bool = False  # check a final answer's claims (``policy.answers``)

    def __post_init__(self) -> None:
        if not 0 < self.default_command_timeout <= MAX_COMMAND_TIMEOUT:
            raise ConfigurationError(
                f"default_command_timeout must be in (0, {MAX_COMMAND_TIMEOUT:g}] seconds, "
                f"not {self.default_command_timeout!r}."
            )
        if self.max_output_tokens < 1:
            raise ConfigurationError("max_output_tokens must be positive.")

    def tools(self) -> list[Tool]:
        """The profile's tools, new instances each call (the subagent tools are not in it)."""
        return list(self.tool_factory(self.default_command_timeout))

    def tool_names(self) -> list[str]:
        return [tool.name for tool in self.tools()]

    def registry(self, extra: Iterable[Tool] = ()) -> ToolRegistry:
        """A registry of the profile's tools, then ``extra``: an extra tool of the same name
        replaces the profile's (the registry's latest-wins rule)."""
        registry = ToolRegistry(sources=[StaticSource(offered=tuple(self.tools()))])
        for tool in extra:
            registry.register(tool)
        return registry

    def with_changes(self, **changes: Any) -> Profile:
        """A copy with some fields changed (``default_command_timeout=30``, ...)."""
        return dataclasses.replace(self, **changes)
