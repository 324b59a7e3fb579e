"""The built-in tools: executors over a ``taor.env.Environment`` (profiles pick names later).

File tools: ``read_file``, ``read_many_files`` and ``list_dir`` (read-only), ``write_file``,
``edit_file`` and ``apply_patch`` (they write). ``file_tools()`` returns one of each.

``TakeScreenshotTool`` (``take_screenshot``, read-only): a PNG of an http(s) URL via headless
Chromium.

``builtin_tools()`` returns one of every built-in tool (the file tools, ``shell``, ``grep``,
``glob``, ``take_screenshot``): the source of the built-ins, and what ``builtin_effects`` asks
for a recorded call with no session's registry at hand (``taor sessions show``). Each tool
declares its own effects and output limits (``taor.tools.effects``).
"""

from collections.abc import Mapping
from typing import Any

from taor.tools.base import Tool
from taor.tools.builtin.edit import ApplyPatchTool, EditFileTool
from taor.tools.builtin.list_dir import ListDirTool
from taor.tools.builtin.read import ReadFileTool
from taor.tools.builtin.read_many import ReadManyFilesTool
from taor.tools.builtin.screenshot import TakeScreenshotTool
from taor.tools.builtin.write import WriteFileTool
from taor.tools.effects import Effects
from taor.tools.prepared import declared_effects

__all__ = [
    "ApplyPatchTool",
    "EditFileTool",
    "ListDirTool",
    "ReadFileTool",
    "ReadManyFilesTool",
    "TakeScreenshotTool",
    "WriteFileTool",
    "builtin_effects",
    "builtin_tools",
    "file_tools",
]


def file_tools() -> tuple[Tool, ...]:
    """The six file tools, read-only ones first."""
    return (
        ReadFileTool(),
        ReadManyFilesTool(),
        ListDirTool(),
        WriteFileTool(),
        EditFileTool(),
        ApplyPatchTool(),
    )


def builtin_tools() -> tuple[Tool, ...]:
    """One of every built-in tool: the file tools, then shell, grep, glob and take_screenshot."""
    from taor.tools.builtin.search import GlobTool, GrepTool  # on first use: not on import
    from taor.tools.builtin.shell import ShellTool

    return (*file_tools(), ShellTool(), GrepTool(), GlobTool(), TakeScreenshotTool())


def builtin_effects(name: str, arguments: Mapping[str, Any]) -> Effects:
    """What the built-in tool called ``name`` declares for ``arguments`` (the safe defaults
    for a name no built-in tool has)."""
    tool = next((t for t in builtin_tools() if t.name == name), None)
    return declared_effects(tool, arguments)
