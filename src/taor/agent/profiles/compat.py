"""The ``openai-compat`` profile: local and third-party models behind a Chat Completions API.

Small models do better with few tools, short descriptions and plain argument names, so this
profile offers five: ``read_file``, ``write_file``, ``edit_file``, ``shell`` and ``grep``, with
taor's own names (``path``, ``timeout`` in seconds). It is forgiving: arguments a model adds
that the tool does not know are ignored rather than refused.
"""

from __future__ import annotations

from typing import Any

from taor.agent.profiles.base import Profile
from taor.agent.profiles.prompts.compat import COMPAT_PROMPT
from taor.agent.profiles.schema import boolean, integer, number, obj, string
from taor.tools.base import Tool
from taor.tools.builtin.edit import EditFileTool
from taor.tools.builtin.read import ReadFileTool
from taor.tools.builtin.search import GrepTool
from taor.tools.builtin.shell import ShellTool
from taor.tools.builtin.write import WriteFileTool
from taor.tools.profiled import ArgumentMap, ProfiledTool

_PATH = string("File path, relative to the project.")


def _forgiving(
    executor: Tool, description: str, required: list[str], **properties: dict[str, Any]
) -> Tool:
    keep = frozenset(properties)
    return ProfiledTool.over(
        executor,
        description=description,
        parameters=obj(properties, required, extra=True),
        translate=ArgumentMap(keep=keep),
    )


def compat_tools(default_timeout: float) -> tuple[Tool, ...]:
    return (
        _forgiving(
            ReadFileTool(),
            "Read a file (with line numbers).",
            ["path"],
            path=_PATH,
            offset=integer("First line (1-based).", minimum=1),
            limit=integer("Number of lines.", minimum=1),
        ),
        _forgiving(
            WriteFileTool(),
            "Create or overwrite a file.",
            ["path", "content"],
            path=_PATH,
            content=string("The whole file content."),
        ),
        _forgiving(
            EditFileTool(),
            "Replace exact text in a file. old_string must appear exactly once.",
            ["path", "old_string", "new_string"],
            path=_PATH,
            old_string=string("Exact text to find."),
            new_string=string("Replacement text."),
            replace_all=boolean("Replace every occurrence."),
        ),
        ProfiledTool.over(
            ShellTool(),
            description="Run a bash command. Returns exit code and output.",
            parameters=obj(
                {
                    "command": string("The command."),
                    "timeout": number(f"Seconds (default {default_timeout:g})."),
                },
                ["command"],
                extra=True,
            ),
            translate=ArgumentMap(
                defaults={"timeout": default_timeout}, keep=frozenset({"command", "timeout"})
            ),
        ),
        _forgiving(
            GrepTool(),
            "Search files for a regex. Returns path:line:text.",
            ["pattern"],
            pattern=string("Regular expression."),
            path=string("Directory to search (default: project root)."),
        ),
    )


def compat_profile() -> Profile:
    return Profile(
        id="openai-compat",
        base_prompt=COMPAT_PROMPT,
        tool_factory=compat_tools,
        supports_parallel_tool_calls=False,
        default_command_timeout=10.0,
        max_output_tokens=8_192,
    )
