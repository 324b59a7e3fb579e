"""The system prompt: environment facts, project instructions, layering and the session cache.

``SystemPrompt.create(env, PromptSettings(...), today=...)`` is what a session uses; the parts
(``gather_facts``, ``sources_for`` + ``read_instructions``, ``render_instructions``,
``build_system_prompt``) are public for hosts that assemble prompts themselves.
"""

from taor.agent.context.prompt.budget import (
    INSTRUCTIONS_BUDGET,
    render_instructions,
    truncation_marker,
)
from taor.agent.context.prompt.builder import build_system_prompt
from taor.agent.context.prompt.cache import PromptSettings, SystemPrompt
from taor.agent.context.prompt.facts import EnvironmentFacts, gather_facts, render_environment
from taor.agent.context.prompt.git import GitSnapshot, git_snapshot
from taor.agent.context.prompt.instructions import (
    AGENTS_FILE,
    InstructionFile,
    InstructionSources,
    ProjectInstructions,
    read_instructions,
    sources_for,
)

__all__ = [
    "AGENTS_FILE",
    "INSTRUCTIONS_BUDGET",
    "EnvironmentFacts",
    "GitSnapshot",
    "InstructionFile",
    "InstructionSources",
    "ProjectInstructions",
    "PromptSettings",
    "SystemPrompt",
    "build_system_prompt",
    "gather_facts",
    "git_snapshot",
    "read_instructions",
    "render_environment",
    "render_instructions",
    "sources_for",
    "truncation_marker",
]
