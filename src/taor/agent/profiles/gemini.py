"""The ``gemini`` profile: gemini-cli's tool shapes over taor's executors.

Tools: ``read_file`` (``file_path``, 0-based ``offset``, ``limit``), ``read_many_files``
(``include``: paths or globs), ``write_file``, ``edit_file`` (gemini-cli's replace:
``expected_replacements`` instead of ``replace_all``), ``shell`` (``command``, ``description``,
``dir_path``, ``timeout_ms``; 10 s when not given), ``grep`` and ``glob`` (``dir_path``,
``include``), ``list_dir`` (``dir_path``, ``depth``).
"""

from __future__ import annotations

from typing import Any

from taor.agent.profiles.base import SUBAGENT_TOOLS, Profile
from taor.agent.profiles.prompts.gemini import GEMINI_PROMPT
from taor.agent.profiles.schema import integer, number, obj, string, strings
from taor.tools.base import Tool
from taor.tools.builtin.edit import EditFileTool
from taor.tools.builtin.list_dir import MAX_DEPTH, ListDirTool
from taor.tools.builtin.read import ReadFileTool, ReadManyFilesTool
from taor.tools.builtin.search import GlobTool, GrepTool
from taor.tools.builtin.shell import ShellTool
from taor.tools.builtin.write import WriteFileTool
from taor.tools.profiled import ArgumentMap, ProfiledTool, workdir_prefix

_FILE_PATH = string("Path of the file: absolute inside the workspace, or relative to its root.")
_DIR_PATH = string("Directory, absolute or relative to the workspace root (default: the root).")
_TO_PATH = ArgumentMap(rename={"file_path": "path", "dir_path": "path"})


def _edit_arguments(arguments: dict[str, Any]) -> dict[str, Any]:
    expected = arguments.pop("expected_replacements", 1)
    if expected > 1:
        arguments["replace_all"] = True
    return arguments


def _read() -> Tool:
    parameters = obj(
        {
            "file_path": _FILE_PATH,
            "offset": integer("0-based line to start from (for paging large files).", minimum=0),
            "limit": integer("Number of lines to read (default 2000).", minimum=1),
        },
        ["file_path"],
    )
    translate = ArgumentMap(rename={"file_path": "path"}, shift={"offset": 1})
    return ProfiledTool.over(
        ReadFileTool(),
        description="Read a file: text with line numbers, or an image. Page with offset/limit.",
        parameters=parameters,
        translate=translate,
    )


def _read_many() -> Tool:
    parameters = obj(
        {"include": strings('Paths or globs, e.g. ["src/**/*.ts", "README.md"].')}, ["include"]
    )
    return ProfiledTool.over(
        ReadManyFilesTool(),
        description="Read several text files at once (paths or globs), each under a header. "
        "Use it to take in a module or a set of related files.",
        parameters=parameters,
        translate=ArgumentMap(rename={"include": "paths"}),
    )


def _write() -> Tool:
    parameters = obj(
        {"file_path": _FILE_PATH, "content": string("The content to write.")},
        ["file_path", "content"],
    )
    return ProfiledTool.over(
        WriteFileTool(),
        description="Write content to a file, replacing it if it exists; directories are made.",
        parameters=parameters,
        translate=_TO_PATH,
    )


def _edit() -> Tool:
    parameters = obj(
        {
            "file_path": _FILE_PATH,
            "old_string": string("The exact literal text to replace, with 3+ lines of context."),
            "new_string": string("The exact literal text to replace it with."),
            "expected_replacements": integer(
                "How many occurrences to replace (default 1). Above 1, every occurrence is "
                "replaced.",
                minimum=1,
            ),
        },
        ["file_path", "old_string", "new_string"],
    )
    return ProfiledTool.over(
        EditFileTool(),
        description="Replace text in a file. old_string must match exactly, whitespace and "
        "indentation included, and be unique unless expected_replacements says otherwise. "
        "Read the file first.",
        parameters=parameters,
        translate=ArgumentMap(rename={"file_path": "path"}, finish=_edit_arguments),
    )


def _shell(default_timeout: float) -> Tool:
    parameters = obj(
        {
            "command": string("Exact bash command to run."),
            "description": string("Brief description of the command for the user."),
            "dir_path": string("Directory to run it in, relative to the workspace root."),
            "timeout_ms": number("Timeout in milliseconds (default 10000, at most 600000)."),
        },
        ["command"],
    )
    translate = ArgumentMap(
        rename={"timeout_ms": "timeout"},
        divide={"timeout": 1000},
        defaults={"timeout": default_timeout},
        finish=workdir_prefix("dir_path"),
    )
    return ProfiledTool.over(
        ShellTool(),
        description="Run a bash command; returns exit code, duration and output. Not "
        "interactive (stdin is closed). Use timeout_ms for long builds or tests.",
        parameters=parameters,
        translate=translate,
    )


def _grep() -> Tool:
    parameters = obj(
        {
            "pattern": string("Regular expression to search for."),
            "dir_path": _DIR_PATH,
            "include": string('Glob of files to search, e.g. "*.js" or "src/**".'),
        },
        ["pattern"],
    )
    return ProfiledTool.over(
        GrepTool(),
        description="Search file contents for a regular expression; gives path:line:text.",
        parameters=parameters,
        translate=ArgumentMap(rename={"dir_path": "path", "include": "glob"}),
    )


def _glob() -> Tool:
    parameters = obj(
        {"pattern": string('Glob, e.g. "**/*.py".'), "dir_path": _DIR_PATH}, ["pattern"]
    )
    return ProfiledTool.over(
        GlobTool(),
        description="Find files matching a glob, newest first, respecting .gitignore.",
        parameters=parameters,
        translate=_TO_PATH,
    )


def _list_dir() -> Tool:
    parameters = obj(
        {
            "dir_path": _DIR_PATH,
            "depth": integer("Levels to show (default 2).", minimum=1, maximum=MAX_DEPTH),
        }
    )
    return ProfiledTool.over(
        ListDirTool(),
        description="List a directory as a tree (directories end with /, files show sizes).",
        parameters=parameters,
        translate=_TO_PATH,
    )


def gemini_tools(default_timeout: float) -> tuple[Tool, ...]:
    files = (_read(), _read_many(), _write(), _edit())
    return (*files, _shell(default_timeout), _grep(), _glob(), _list_dir())


def gemini_profile() -> Profile:
    return Profile(
        id="gemini",
        base_prompt=GEMINI_PROMPT,
        tool_factory=gemini_tools,
        supports_parallel_tool_calls=True,
        default_command_timeout=10.0,
        max_output_tokens=32_768,
        instruction_files=("GEMINI.md",),
        subagent_tools=SUBAGENT_TOOLS,
    )
