"""``Workspace``: the same workspace on LocalEnvironment (real files) or on MemoryEnvironment.

Set files up with ``put`` / ``mkdir`` and check them with ``get`` / ``snapshot``, without going
through the tools or the call log. ``outside`` is the absolute path of a real file next to the
workspace that holds ``secret`` (on memory, a path outside every root).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from taor.env import Environment, LocalEnvironment, MemoryEnvironment
from taor.tools.base import Tool, ToolContext, ToolOutput


class Workspace:
    """A workspace and its environment, set up and inspected without going through the tools."""

    def __init__(self, kind: str, tmp_path: Path) -> None:
        self.kind = kind
        self._root = tmp_path / "ws"
        self._root.mkdir()
        (tmp_path / "outside.txt").write_text("secret\n")
        self.outside = str(tmp_path / "outside.txt")
        self.env: Environment
        if kind == "local":
            self.env = LocalEnvironment(self._root)
        else:
            self.memory = MemoryEnvironment(root=str(self._root))
            self.env = self.memory

    def put(self, path: str, content: str | bytes) -> None:
        if self.kind == "memory":
            self.memory.put(path, content)
            return
        target = self._root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        data = content.encode() if isinstance(content, str) else content
        target.write_bytes(data)

    def mkdir(self, path: str) -> None:
        if self.kind == "memory":
            self.memory.make_dir(path)
        else:
            (self._root / path).mkdir(parents=True, exist_ok=True)

    def snapshot(self) -> dict[str, bytes]:
        """Every file of the workspace by relative path."""
        if self.kind == "memory":
            return self.memory.files
        files = (p for p in self._root.rglob("*") if p.is_file())
        return {p.relative_to(self._root).as_posix(): p.read_bytes() for p in files}

    def get(self, path: str) -> bytes | None:
        return self.snapshot().get(path)

    def outside_untouched(self) -> bool:
        """True when ``outside`` still holds ``secret`` and nothing else appeared next to it."""
        parent = Path(self.outside).parent
        return Path(self.outside).read_text() == "secret\n" and sorted(
            p.name for p in parent.iterdir()
        ) == ["outside.txt", "ws"]

    def context(self, **more: Any) -> ToolContext:
        return ToolContext(environment=self.env, **more)

    async def run(self, tool: Tool, **arguments: Any) -> ToolOutput:
        return await tool.execute(arguments, self.context())
