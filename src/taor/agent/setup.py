"""What a ``Session`` is made of, resolved from what the host gave.

- The model: a ``Model``, or a ``"provider:model"`` string connected here (the session then owns
  it and closes it).
- The environment: given, or a ``LocalEnvironment`` in the current directory.
- The profile (``taor.agent.profiles``): ``"auto"`` picks the one of the model's provider
  (anthropic, openai, gemini, openai-compat, local); test doubles and unknown providers get
  none.
  ``None`` means no profile.
- The tools: given ones are the whole set (a ``ToolRegistry`` or tools); otherwise the profile's,
  or ``default_tools()`` without a profile. Tools registered later on ``session.tools`` replace
  the ones of the same name.
- The system prompt settings: the profile's base prompt and instruction files, the model, the
  user's instructions (``SessionConfig.instructions``), the user-level file.

``SessionOptions`` are the keyword arguments a session made from a transcript file passes on.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypedDict

from taor.agent.config import LoopDetectionConfig, SessionConfig
from taor.agent.context.prompt.cache import PromptSettings
from taor.agent.parts import CanUseTool
from taor.agent.policy.hooks import Hooks
from taor.agent.profiles import Profile, profile_for
from taor.env.base import Environment
from taor.llm.catalog import Catalog
from taor.llm.model import Model
from taor.tools.base import Tool
from taor.tools.registry import ToolRegistry
from taor.tools.sources import StaticSource

if TYPE_CHECKING:
    from taor.tools.mcp.config import McpServerConfig

ProfileChoice = Profile | None | Literal["auto"]
# The providers a session picks a profile for by itself ("auto"); others (a scripted model, a
# host's own adapter) get taor's own tools unless given one.
PROFILED_PROVIDERS = frozenset({"anthropic", "openai", "gemini", "openai-compat", "local"})


class SessionOptions(TypedDict, total=False):
    """The keyword arguments ``Session.recorded`` and ``Session.resume`` pass on to ``Session``
    (the transcript file gives the store and, on resume, the history and the id)."""

    environment: Environment | None
    tools: Iterable[Tool] | ToolRegistry | None
    config: SessionConfig | None
    hooks: Hooks | None
    can_use_tool: CanUseTool | None
    catalog: Catalog | None
    profile: ProfileChoice
    mcp_servers: Sequence[McpServerConfig]


def default_tools() -> list[Tool]:
    """The tools of a session without a profile: taor's own names and schemas."""
    from taor.tools.builtin import EditFileTool, ListDirTool, ReadFileTool, WriteFileTool
    from taor.tools.builtin.search import GlobTool, GrepTool
    from taor.tools.builtin.shell import ShellTool

    return [
        ReadFileTool(),
        ListDirTool(),
        GrepTool(),
        GlobTool(),
        WriteFileTool(),
        EditFileTool(),
        ShellTool(),
    ]


def resolve_model(model: Model | str) -> tuple[Model, bool]:
    """The model, and whether the session owns it (made it from a string)."""
    if isinstance(model, str):
        from taor.llm.connect import connect

        return connect(model), True
    return model, False


def resolve_environment(environment: Environment | None) -> Environment:
    if environment is not None:
        return environment
    from taor.env.local import LocalEnvironment

    return LocalEnvironment(os.getcwd())


def resolve_profile(choice: ProfileChoice, model: Model) -> Profile | None:
    if choice != "auto":
        return choice
    return profile_for(model) if model.provider in PROFILED_PROVIDERS else None


def resolve_tools(
    tools: Iterable[Tool] | ToolRegistry | None, profile: Profile | None
) -> ToolRegistry:
    if isinstance(tools, ToolRegistry):
        return tools
    if tools is not None:
        return ToolRegistry(tools)
    if profile is not None:
        return profile.registry()
    return ToolRegistry(sources=[StaticSource(offered=tuple(default_tools()))])


def with_profile_defaults(config: SessionConfig, profile: Profile | None) -> SessionConfig:
    """The profile's max output tokens, provider options, parallel tool calls, answer checks
    and loop window where the config sets none (or keeps the default)."""
    if profile is None:
        return config
    import dataclasses

    changes: dict[str, Any] = {}
    if config.max_tokens is None:
        changes["max_tokens"] = profile.max_output_tokens
    if config.parallel_tool_calls is None:
        changes["parallel_tool_calls"] = profile.supports_parallel_tool_calls
    if not config.provider_options and profile.provider_options:
        changes["provider_options"] = profile.provider_options
    if config.check_answers is None:
        changes["check_answers"] = profile.check_answers
    if profile.loop_window and config.loop_detection == LoopDetectionConfig():
        window = profile.loop_window
        changes["loop_detection"] = LoopDetectionConfig(window=window, cooldown=window)
    return dataclasses.replace(config, **changes) if changes else config


def prompt_settings(config: SessionConfig, profile: Profile | None, model: Model) -> PromptSettings:
    user_file = config.user_instructions_file
    return PromptSettings(
        base_prompt=profile.base_prompt if profile is not None else "",
        model=model.model_id,
        instruction_files=profile.instruction_files if profile is not None else (),
        user_instructions=config.instructions,
        user_file=Path(user_file) if user_file else None,
        list_files=profile.list_files if profile is not None else 0,
        working_directory=profile.working_directory if profile is not None else True,
    )
