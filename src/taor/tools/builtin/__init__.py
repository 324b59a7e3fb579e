"""The built-in tools: executors over a ``taor.env.Environment`` (profiles pick names later).

File tools: ``read_file``, ``read_many_files`` and ``list_dir`` (read-only), ``write_file``,
``edit_file`` and ``apply_patch`` (they write). ``file_tools()`` returns one of each.

``TakeScreenshotTool`` (``take_screenshot``, read-only): a PNG of an http(s) URL via headless
Chromium.
"""

from taor.tools.base import Tool
from taor.tools.builtin.edit import ApplyPatchTool, EditFileTool
from taor.tools.builtin.list_dir import ListDirTool
from taor.tools.builtin.read import ReadFileTool
from taor.tools.builtin.read_many import ReadManyFilesTool
from taor.tools.builtin.screenshot import TakeScreenshotTool
from taor.tools.builtin.write import WriteFileTool

__all__ = [
    "ApplyPatchTool",
    "EditFileTool",
    "ListDirTool",
    "ReadFileTool",
    "ReadManyFilesTool",
    "TakeScreenshotTool",
    "WriteFileTool",
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
