"""``build_system_prompt``: the layers of the system prompt, later ones winning.

1. the profile's base prompt;
2. the ``<environment>`` block (with the git snapshot);
3. tool guidance;
4. project instructions (``<project_instructions>``, each file headed by its path, 32 KiB);
5. the user's own instructions (``<user_instructions>``), last.

Empty layers are left out; layers are separated by one blank line and trailing whitespace is
trimmed, so the same inputs always give the same bytes (prompt caching depends on it).
"""

from __future__ import annotations

from taor.agent.context.prompt.budget import INSTRUCTIONS_BUDGET, render_instructions
from taor.agent.context.prompt.facts import EnvironmentFacts, render_environment
from taor.agent.context.prompt.instructions import ProjectInstructions


def build_system_prompt(
    base_prompt: str,
    facts: EnvironmentFacts,
    *,
    tool_guidance: str = "",
    instructions: ProjectInstructions | None = None,
    user_instructions: str = "",
    budget: int = INSTRUCTIONS_BUDGET,
    working_directory: bool = True,
) -> str:
    """The system prompt for these inputs; pure and deterministic."""
    user = user_instructions.strip()
    layers = [
        base_prompt.strip(),
        render_environment(facts, working_directory=working_directory),
        tool_guidance.strip(),
        render_instructions(instructions or ProjectInstructions(), budget=budget),
        f"<user_instructions>\n{user}\n</user_instructions>" if user else "",
    ]
    return "\n\n".join(layer for layer in layers if layer)
