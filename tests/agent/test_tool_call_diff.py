"""The diff an editing call's ``tool_call_end`` carries for the host: edit_file, write_file and
apply_patch through a session, and the diff itself."""

from __future__ import annotations

from typing import Any

from taor.agent.events import ToolCallEnd
from taor.agent.session import Session
from taor.agent.setup import default_tools
from taor.env.memory import MemoryEnvironment
from taor.llm.types import ToolCallPart
from taor.testing import ScriptedModel, text, tool_calls
from taor.tools.builtin import ApplyPatchTool, builtin_tools
from taor.tools.diff import NO_NEWLINE, unified_diff
from taor.tools.prepared import PreparedCall
from taor.tools.registry import ToolRegistry

from .session_drive import config, drive, of_kind

PATCH = """*** Begin Patch
*** Update File: app.py
@@
-a = 1
+a = 2
*** Add File: new.txt
+hello
*** End Patch"""


async def end_of(call: tuple[str, dict[str, Any]]) -> ToolCallEnd:
    env = MemoryEnvironment(files={"app.py": "a = 1\nb = 2\n", "blob.bin": "\x00\x01"})
    model = ScriptedModel([tool_calls(call), text("done")])
    tools = [*default_tools(), ApplyPatchTool()]
    async with Session(model, environment=env, tools=tools, config=config()) as session:
        (end,) = of_kind(await drive(session, "edit"), "tool_call_end")
    return end  # type: ignore[no-any-return]


async def test_an_edit_carries_the_unified_diff_of_its_file() -> None:
    end = await end_of(
        ("edit_file", {"path": "app.py", "old_string": "a = 1", "new_string": "a = 3"})
    )
    assert end.metadata["diff"].splitlines() == [
        "--- a/app.py",
        "+++ b/app.py",
        "@@ -1,2 +1,2 @@",
        "-a = 1",
        "+a = 3",
        " b = 2",
    ]


async def test_a_new_file_is_diffed_from_dev_null_and_a_patch_covers_every_file() -> None:
    written = await end_of(("write_file", {"path": "notes.md", "content": "one\ntwo"}))
    assert written.metadata["diff"].startswith("--- /dev/null\n+++ b/notes.md\n")
    assert written.metadata["diff"].endswith("+two\n" + NO_NEWLINE)
    patched = await end_of(("apply_patch", {"patch": PATCH}))
    assert "-a = 1\n+a = 2\n" in patched.metadata["diff"]
    assert "--- /dev/null\n+++ b/new.txt\n" in patched.metadata["diff"]


async def test_a_failed_edit_and_a_reading_tool_carry_no_diff() -> None:
    failed = await end_of(("edit_file", {"path": "app.py", "old_string": "zzz", "new_string": "y"}))
    assert failed.is_error and "diff" not in failed.metadata
    read = await end_of(("read_file", {"path": "app.py"}))
    assert "diff" not in read.metadata


def test_edits_declare_the_files_they_write() -> None:
    tools = ToolRegistry(builtin_tools())

    def writes(name: str, **arguments: Any) -> tuple[str, ...]:
        prepared = tools.prepare(ToolCallPart(id="c", name=name, arguments=arguments))
        assert isinstance(prepared, PreparedCall)
        return prepared.effects.writes if not prepared.effects.writes_elsewhere else ()

    assert writes("edit_file", path="a.py", old_string="a", new_string="b") == ("a.py",)
    assert writes("apply_patch", patch=PATCH) == ("app.py", "new.txt")
    assert writes("shell", command="sed -i s/a/b/ a.py") == ()


def test_unified_diff_leaves_out_unchanged_and_unreadable_files() -> None:
    before = {"same.txt": "x\n", "gone.txt": "bye\n", "binary.bin": "ignored"}
    after = {"same.txt": "x\n", "gone.txt": None}  # binary.bin could not be read after
    assert unified_diff(before, after) == "--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n"
