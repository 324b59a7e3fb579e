"""The ``anthropic`` profile: Claude Code's tool shapes over taor's executors.

Tools: ``read_file``, ``write_file``, ``edit_file`` (exact ``old_string`` replacement, never
apply_patch), ``shell`` (``timeout`` in milliseconds, 120 s when not given), ``grep`` (ripgrep,
with ``output_mode``) and ``glob``. Arguments use Claude Code's names: ``file_path``,
``old_string``/``new_string``/``replace_all``, ``-i``, ``head_limit``.
"""

from __future__ import annotations

from taor.agent.profiles.base import SUBAGENT_TOOLS, Profile
from taor.agent.profiles.prompts.anthropic import ANTHROPIC_PROMPT
from taor.agent.profiles.schema import boolean, choice, integer, number, obj, string
from taor.tools.base import Tool
from taor.tools.builtin.edit import EditFileTool
from taor.tools.builtin.read import ReadFileTool
from taor.tools.builtin.search import GlobTool, GrepTool
from taor.tools.builtin.shell import ShellTool
from taor.tools.builtin.write import WriteFileTool
from taor.tools.profiled import ArgumentMap, ProfiledTool

_FILE_PATH = string("Path of the file: absolute (inside the workspace) or relative to it.")
_TO_PATH = ArgumentMap(rename={"file_path": "path"})

READ_DESCRIPTION = (
    "Read a file. Text comes back with line numbers (`     1\\tcode`); by default up to 2000 "
    "lines from the start. For long files pass offset (1-based line) and limit. Images (png, "
    "jpeg, gif, webp) come back as images. Read a file before you edit it. Several reads can go "
    "in one turn."
)
WRITE_DESCRIPTION = (
    "Write a whole file, creating parent directories; an existing file is replaced. Use it for "
    "new files or complete rewrites; to change part of a file use edit_file. Read an existing "
    "file before overwriting it."
)
EDIT_DESCRIPTION = (
    "Replace old_string with new_string in a file. old_string must match the file exactly "
    "(indentation included, without the line-number prefix read_file shows) and only once: "
    "include enough surrounding lines to make it unique, or set replace_all to change every "
    "occurrence (e.g. renaming a variable). Read the file first."
)
SHELL_DESCRIPTION = (
    "Run a bash command in the workspace and get its exit code, duration and output (stdout and "
    "stderr together). Use it for builds, tests, git and other programs, not to read, search or "
    "edit files (use the other tools). stdin is closed: no interactive commands. timeout is in "
    "milliseconds (default 120000, at most 600000). Quote paths that contain spaces."
)
GREP_DESCRIPTION = (
    "Search file contents with a regular expression (ripgrep syntax), respecting .gitignore. "
    "output_mode: content (path:line:text, the default), files_with_matches (paths) or count "
    '(path:count). Narrow with path and glob (e.g. "*.py"). Use it instead of grep or rg in '
    "the shell."
)
GLOB_DESCRIPTION = (
    'Find files whose paths match a glob (e.g. "**/*.py", "src/**/test_*.ts"), newest '
    "first, respecting .gitignore."
)


def _read() -> Tool:
    parameters = obj(
        {
            "file_path": _FILE_PATH,
            "offset": integer("Line number to start reading at (1-based).", minimum=1),
            "limit": integer("Number of lines to read.", minimum=1),
        },
        ["file_path"],
    )
    return ProfiledTool.over(
        ReadFileTool(), description=READ_DESCRIPTION, parameters=parameters, translate=_TO_PATH
    )


def _write() -> Tool:
    parameters = obj(
        {"file_path": _FILE_PATH, "content": string("The complete content of the file.")},
        ["file_path", "content"],
    )
    return ProfiledTool.over(
        WriteFileTool(), description=WRITE_DESCRIPTION, parameters=parameters, translate=_TO_PATH
    )


def _edit() -> Tool:
    parameters = obj(
        {
            "file_path": _FILE_PATH,
            "old_string": string("The exact text to replace."),
            "new_string": string("The text to put in its place (must differ)."),
            "replace_all": boolean("Replace every occurrence (default false)."),
        },
        ["file_path", "old_string", "new_string"],
    )
    return ProfiledTool.over(
        EditFileTool(), description=EDIT_DESCRIPTION, parameters=parameters, translate=_TO_PATH
    )


def _shell(default_timeout: float) -> Tool:
    parameters = obj(
        {
            "command": string("The bash command to run."),
            "timeout": number("Milliseconds before the command is stopped (max 600000)."),
            "description": string("What the command does, in 5-10 words."),
        },
        ["command"],
    )
    translate = ArgumentMap(divide={"timeout": 1000}, defaults={"timeout": default_timeout})
    return ProfiledTool.over(
        ShellTool(), description=SHELL_DESCRIPTION, parameters=parameters, translate=translate
    )


def _grep() -> Tool:
    parameters = obj(
        {
            "pattern": string("Regular expression to search for."),
            "path": string("File or directory to search (default: the workspace)."),
            "glob": string('Only files matching this glob, e.g. "*.py" or "src/**/*.ts".'),
            "output_mode": choice(
                "content (default), files_with_matches or count.",
                ["content", "files_with_matches", "count"],
            ),
            "-i": boolean("Case-insensitive search."),
            "head_limit": integer("Show at most this many entries (default 100).", minimum=1),
        },
        ["pattern"],
    )
    translate = ArgumentMap(rename={"-i": "case_insensitive"})
    return ProfiledTool.over(
        GrepTool(), description=GREP_DESCRIPTION, parameters=parameters, translate=translate
    )


def _glob() -> Tool:
    parameters = obj(
        {
            "pattern": string("The glob to match paths against."),
            "path": string("Directory to search in (default: the workspace)."),
        },
        ["pattern"],
    )
    return ProfiledTool.over(GlobTool(), description=GLOB_DESCRIPTION, parameters=parameters)


def anthropic_tools(default_timeout: float) -> tuple[Tool, ...]:
    return (_read(), _write(), _edit(), _shell(default_timeout), _grep(), _glob())


def anthropic_profile() -> Profile:
    return Profile(
        id="anthropic",
        base_prompt=ANTHROPIC_PROMPT,
        tool_factory=anthropic_tools,
        supports_parallel_tool_calls=True,
        default_command_timeout=120.0,
        max_output_tokens=32_000,
        instruction_files=("CLAUDE.md",),
        subagent_tools=SUBAGENT_TOOLS,
    )
