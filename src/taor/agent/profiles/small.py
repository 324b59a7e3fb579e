"""The ``small`` profile: small models, whoever serves them.

It is chosen for taor's own local model (``--model local``), for an ``openai-compat`` model
whose size the catalog knows or its id says (``qwen2.5-coder:1.5b``, ``llama3.2-3b``) to be at
most ``SMALL_MODEL_BILLIONS``, and by ``--profile small`` (or ``profile = "small"``).

A 1.5B model is literal: it copies the prompt's examples, repeats a failing call, and rewrites a
whole file to change one line. So this profile gives it a short prompt with no examples and the
folder's files named in it, four tools with one-line descriptions and only the arguments they
need (others are ignored, not refused), an edit that changes every place its text appears
(renaming is the common case, and "matches 2 places" stalled it), a plain note when a call
repeats an earlier one to no effect, one call per reply, rewrites that would drop most of a
file refused once, and a loop guard that fires after a few repeats instead of ten.
"""

from __future__ import annotations

from typing import Any

from taor.agent.profiles.base import Profile
from taor.agent.profiles.prompts.small import SMALL_PROMPT
from taor.agent.profiles.repeats import RepeatNotes
from taor.agent.profiles.schema import obj, string
from taor.tools.base import Tool
from taor.tools.builtin.edit import EditFileTool
from taor.tools.builtin.read import ReadFileTool
from taor.tools.builtin.shell import ShellTool
from taor.tools.builtin.write import WriteFileTool
from taor.tools.profiled import ArgumentMap, ProfiledTool

_PATH = string("The file's path in the folder.")


def _tool(
    executor: Tool, description: str, defaults: dict[str, Any] | None = None, **properties: Any
) -> Tool:
    """``executor`` taking only ``properties`` from the model (others are dropped, not
    refused), with the profile's ``defaults``, and telling a repeated call to no effect so."""
    return ProfiledTool.over(
        executor,
        description=description,
        parameters=obj(properties, list(properties), extra=True),
        translate=ArgumentMap(keep=frozenset(properties), defaults=defaults or {}),
        repeats=RepeatNotes(),
    )


def small_tools(default_timeout: float) -> tuple[Tool, ...]:
    return (
        _tool(ReadFileTool(), "Read a whole file.", path=_PATH),
        _tool(
            EditFileTool(plain=True),
            "Replace old_string, copied exactly from the file, with new_string (everywhere "
            "it appears in the file).",
            {"replace_all": True},
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
        _tool(
            ShellTool(plain=True),
            "Run a bash command in the folder and get its output.",
            {"timeout": default_timeout},
            command=string("The command."),
        ),
    )


def small_profile() -> Profile:
    return Profile(
        id="small",
        base_prompt=SMALL_PROMPT,
        tool_factory=small_tools,
        supports_parallel_tool_calls=False,
        default_command_timeout=60.0,
        max_output_tokens=1024,
        list_files=40,
        working_directory=False,  # paths relative to it: shorter calls, and no path to copy
        loop_window=4,
        check_answers=True,
    )
