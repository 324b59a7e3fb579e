"""The ``local`` profile: small models run on this machine (``--model local``).

A 1.5B model is literal: it copies the prompt's examples, repeats a failing call, and rewrites a
whole file to change one line. So this profile gives it a short prompt with no examples and the
folder's files named in it, four tools with one-line descriptions and only the arguments they
need (others are ignored, not refused), one call per reply, rewrites that would drop most of a
file refused once, and a loop guard that fires after a few repeats instead of ten.
"""

from __future__ import annotations

from taor.agent.profiles.adapter import ArgumentMap, ProfiledTool
from taor.agent.profiles.base import Profile
from taor.agent.profiles.prompt_local import LOCAL_PROMPT
from taor.agent.profiles.schema import obj, string
from taor.tools.base import Tool
from taor.tools.builtin.edit import EditFileTool
from taor.tools.builtin.read import ReadFileTool
from taor.tools.builtin.shell import ShellTool
from taor.tools.builtin.write import WriteFileTool

_PATH = string("The file's path in the folder.")


def _tool(executor: Tool, description: str, **properties: dict[str, str]) -> Tool:
    return ProfiledTool.over(
        executor,
        description=description,
        parameters=obj(properties, list(properties), extra=True),
        translate=ArgumentMap(keep=frozenset(properties)),
    )


def local_tools(default_timeout: float) -> tuple[Tool, ...]:
    return (
        _tool(ReadFileTool(), "Read a whole file.", path=_PATH),
        _tool(
            EditFileTool(),
            "Replace old_string, copied exactly from the file, with new_string.",
            path=_PATH,
            old_string=string("Text copied exactly from the file."),
            new_string=string("The text to put in its place."),
        ),
        _tool(
            WriteFileTool(guard_rewrites=True),
            "Create a new file (or replace a whole file).",
            path=_PATH,
            content=string("The whole content of the file."),
        ),
        ProfiledTool.over(
            ShellTool(plain=True),
            description="Run a bash command in the folder and get its output.",
            parameters=obj({"command": string("The command.")}, ["command"], extra=True),
            translate=ArgumentMap(
                defaults={"timeout": default_timeout}, keep=frozenset({"command"})
            ),
        ),
    )


def local_profile() -> Profile:
    return Profile(
        id="local",
        base_prompt=LOCAL_PROMPT,
        tool_factory=local_tools,
        supports_parallel_tool_calls=False,
        default_command_timeout=60.0,
        max_output_tokens=1024,
        list_files=40,
        loop_window=4,
    )
