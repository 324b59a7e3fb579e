"""The ``openai`` profile: codex's tool shapes over taor's executors.

Tools: ``read_file``, ``apply_patch`` (the v4a patch text as ``input``, codex's function form)
for edits, ``write_file`` for new files, ``shell`` (codex's ``command`` string, ``workdir`` and
``timeout_ms``; 10 s when no timeout is given), ``grep`` (codex's ``grep_files`` arguments:
``pattern``, ``include``, ``path``, ``limit``) and ``glob``.
"""

from __future__ import annotations

from taor.agent.profiles.base import SUBAGENT_TOOLS, Profile
from taor.agent.profiles.prompts.openai import OPENAI_PROMPT
from taor.agent.profiles.schema import choice, integer, number, obj, string
from taor.tools.base import Tool
from taor.tools.builtin.edit import ApplyPatchTool
from taor.tools.builtin.read import ReadFileTool
from taor.tools.builtin.search import GlobTool, GrepTool
from taor.tools.builtin.shell import ShellTool
from taor.tools.builtin.write import WriteFileTool
from taor.tools.profiled import ArgumentMap, ProfiledTool, workdir_prefix

_FILE_PATH = string("Path of the file, relative to the workspace (or absolute inside it).")
_TO_PATH = ArgumentMap(rename={"file_path": "path"})
_GREP_MODES = ("content", "files_with_matches")

READ_DESCRIPTION = (
    "Read a text file with line numbers (or an image). offset is the 1-based first line, limit "
    "the number of lines (default 2000)."
)
PATCH_DESCRIPTION = """\
Edit files with a patch. input is the whole patch:
*** Begin Patch
*** Update File: path/to/file.py
@@ def function_or_class_line():
 context line (space prefix)
-removed line
+added line
 context line
*** End Patch
Sections: `*** Add File: path` (every line starts with +), `*** Delete File: path`, and
`*** Update File: path` (optionally followed by `*** Move to: new/path`) with one or more @@
hunks. Give about 3 lines of context around each change; after @@ you may name the enclosing
function or class. Paths are relative to the workspace. The patch is checked as a whole first:
if any hunk does not apply, no file changes."""
WRITE_DESCRIPTION = (
    "Create a new file with the given content (parent directories are created). To change an "
    "existing file use apply_patch."
)
SHELL_DESCRIPTION = (
    "Run a bash command and return its exit code, duration and combined output. Set workdir "
    "instead of `cd`. timeout_ms defaults to 10000 (at most 600000): raise it for builds and "
    "test suites. stdin is closed. Prefer rg for searching text and files."
)
GREP_DESCRIPTION = (
    "Search file contents for a regular expression (ripgrep), respecting .gitignore. Gives "
    "path:line:text by default; output_mode files_with_matches gives paths only."
)
GLOB_DESCRIPTION = 'List files matching a glob such as "**/*.rs", newest first.'


def _read() -> Tool:
    parameters = obj(
        {
            "file_path": _FILE_PATH,
            "offset": integer("1-based line number to start from.", minimum=1),
            "limit": integer("Maximum number of lines to return.", minimum=1),
        },
        ["file_path"],
    )
    return ProfiledTool.over(
        ReadFileTool(), description=READ_DESCRIPTION, parameters=parameters, translate=_TO_PATH
    )


def _apply_patch() -> Tool:
    parameters = obj({"input": string("The entire patch, from *** Begin Patch.")}, ["input"])
    translate = ArgumentMap(rename={"input": "patch"})
    return ProfiledTool.over(
        ApplyPatchTool(), description=PATCH_DESCRIPTION, parameters=parameters, translate=translate
    )


def _write() -> Tool:
    parameters = obj(
        {"file_path": _FILE_PATH, "content": string("The full content of the file.")},
        ["file_path", "content"],
    )
    return ProfiledTool.over(
        WriteFileTool(), description=WRITE_DESCRIPTION, parameters=parameters, translate=_TO_PATH
    )


def _shell(default_timeout: float) -> Tool:
    parameters = obj(
        {
            "command": string("The bash command (script) to run."),
            "workdir": string("Directory to run it in, relative to the workspace."),
            "timeout_ms": number("Timeout in milliseconds."),
        },
        ["command"],
    )
    translate = ArgumentMap(
        rename={"timeout_ms": "timeout"},
        divide={"timeout": 1000},
        defaults={"timeout": default_timeout},
        finish=workdir_prefix("workdir"),
    )
    return ProfiledTool.over(
        ShellTool(), description=SHELL_DESCRIPTION, parameters=parameters, translate=translate
    )


def _grep() -> Tool:
    parameters = obj(
        {
            "pattern": string("Regular expression to search for."),
            "include": string('Glob of the files to search, e.g. "*.py" or "*.{ts,tsx}".'),
            "path": string("Directory or file to search (default: the workspace)."),
            "limit": integer("Maximum entries to return (default 100).", minimum=1),
            "output_mode": choice("content (default) or files_with_matches.", _GREP_MODES),
        },
        ["pattern"],
    )
    translate = ArgumentMap(rename={"include": "glob", "limit": "head_limit"})
    return ProfiledTool.over(
        GrepTool(), description=GREP_DESCRIPTION, parameters=parameters, translate=translate
    )


def _glob() -> Tool:
    parameters = obj(
        {
            "pattern": string("Glob to match, relative to path."),
            "path": string("Directory to search (default: the workspace)."),
        },
        ["pattern"],
    )
    return ProfiledTool.over(GlobTool(), description=GLOB_DESCRIPTION, parameters=parameters)


def openai_tools(default_timeout: float) -> tuple[Tool, ...]:
    return (_read(), _apply_patch(), _write(), _shell(default_timeout), _grep(), _glob())


def openai_profile() -> Profile:
    return Profile(
        id="openai",
        base_prompt=OPENAI_PROMPT,
        tool_factory=openai_tools,
        supports_parallel_tool_calls=True,
        default_command_timeout=10.0,
        max_output_tokens=32_000,
        instruction_files=(".codex/instructions.md",),
        subagent_tools=SUBAGENT_TOOLS,
    )
