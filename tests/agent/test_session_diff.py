"""``Session.diff()``: every file change of a session as one unified diff, from each file's
state before the session first changed it to now, with the files it cannot show as text named."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from taor.agent.session import Session
from taor.env.local import LocalEnvironment
from taor.testing import ScriptedModel, text, tool_calls

from .loop_support import config


def edit(path: str, old: str, new: str) -> Any:
    return tool_calls(("edit_file", {"path": path, "old_string": old, "new_string": new}))


def write(path: str, content: str) -> Any:
    return tool_calls(("write_file", {"path": path, "content": content}))


async def test_the_diff_spans_the_session_and_since_an_input(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("a = 1\nb = 1\n")
    (tmp_path / "blob.bin").write_bytes(b"\x00\x01binary")
    script = [
        edit("a.py", "a = 1", "a = 2"), write("new.txt", "hello\n"), text("one"),
        edit("a.py", "a = 2", "a = 3"), write("blob.bin", "text now\n"), text("two"),
    ]  # fmt: skip
    session = Session.recorded(
        tmp_path / "s.jsonl",
        ScriptedModel(script),
        environment=LocalEnvironment(tmp_path),
        config=config(),
        profile=None,
    )
    async with session:
        assert (await session.diff()).diff == ""
        await session.run("first")
        await session.run("second")
        whole = await session.diff()
        since_second = await session.diff(since=2)
    assert "-a = 1\n+a = 3\n" in whole.diff
    assert "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+hello\n" in whole.diff
    assert whole.files == ("a.py", "blob.bin", "new.txt")
    assert whole.notes == ("blob.bin: binary or too large to show",)
    assert "-a = 2\n+a = 3\n" in since_second.diff and "new.txt" not in since_second.diff
