"""The diff a permission question carries for an edit, worked out before the call runs: through a
session that asks, with the file still untouched when asked, and the same diff as the one
``tool_call_end`` carries once it ran."""

from __future__ import annotations

from typing import Any

from taor.agent.events import PermissionRequest, ToolCallEnd
from taor.agent.policy.preview import edit_preview
from taor.agent.session import Session
from taor.agent.setup import default_tools
from taor.env.memory import MemoryEnvironment
from taor.llm.types import ToolCallPart
from taor.testing import ScriptedModel, text, tool_calls
from taor.tools.builtin import ApplyPatchTool, builtin_tools
from taor.tools.prepared import PreparedCall
from taor.tools.registry import ToolRegistry

from ..session_drive import config, drive, of_kind

FILES = {"app.py": "a = 1\nb = 2\n", "blob.bin": b"\x00\x01"}
PATCH = """*** Begin Patch
*** Update File: app.py
@@
-b = 2
+b = 3
*** Add File: new.txt
+hello
*** End Patch"""


class Asked:
    """Allows each call, noting the request and the files as they were when it was asked."""

    def __init__(self, env: MemoryEnvironment) -> None:
        self.env = env
        self.requests: list[PermissionRequest] = []
        self.files_then: list[dict[str, bool]] = []
        self.app_then = ""

    async def __call__(self, request: PermissionRequest, session: Session) -> None:
        self.requests.append(request)
        self.files_then.append({p: await self.env.exists(p) for p in ("new.txt", "app.py")})
        self.app_then = await self.env.read_text("app.py")
        session.decide(request.request_id, "allow")


async def asked_for(
    call: tuple[str, dict[str, Any]], env: MemoryEnvironment | None = None
) -> tuple[PermissionRequest, ToolCallEnd, Asked]:
    env = env or MemoryEnvironment(files=FILES)
    asked = Asked(env)
    model = ScriptedModel([tool_calls(call), text("done")])
    tools = [*default_tools(), ApplyPatchTool()]
    async with Session(model, environment=env, tools=tools, config=config("default")) as session:
        events = await drive(session, "edit", lambda request: asked(request, session))
    (request,) = asked.requests
    (end,) = of_kind(events, "tool_call_end")
    return request, end, asked


async def test_an_edit_is_shown_as_a_diff_before_it_runs() -> None:
    edit = ("edit_file", {"path": "app.py", "old_string": "a = 1", "new_string": "a = 3"})
    request, end, asked = await asked_for(edit)
    assert request.diff.splitlines() == [
        "--- a/app.py",
        "+++ b/app.py",
        "@@ -1,2 +1,2 @@",
        "-a = 1",
        "+a = 3",
        " b = 2",
    ]
    assert asked.app_then == "a = 1\nb = 2\n"  # nothing written to show it
    assert not end.is_error and end.metadata["diff"] == request.diff


async def test_a_write_of_a_new_file_is_all_additions() -> None:
    write = ("write_file", {"path": "new.txt", "content": "hello\nworld\n"})
    request, end, asked = await asked_for(write)
    assert request.diff.splitlines() == [
        "--- /dev/null",
        "+++ b/new.txt",
        "@@ -0,0 +1,2 @@",
        "+hello",
        "+world",
    ]
    assert asked.files_then == [{"new.txt": False, "app.py": True}]
    assert end.metadata["diff"] == request.diff


async def test_a_write_over_an_existing_file_shows_what_it_replaces() -> None:
    write = ("write_file", {"path": "app.py", "content": "a = 1\nb = 20\n"})
    request, end, asked = await asked_for(write)
    assert "-b = 2\n+b = 20\n" in request.diff and request.diff.startswith("--- a/app.py\n")
    assert asked.app_then == "a = 1\nb = 2\n"
    assert end.metadata["diff"] == request.diff


async def test_a_patch_shows_every_file_it_changes() -> None:
    request, end, asked = await asked_for(("apply_patch", {"patch": PATCH}))
    assert "--- a/app.py\n+++ b/app.py\n" in request.diff and "-b = 2\n+b = 3\n" in request.diff
    assert "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+hello\n" in request.diff
    assert asked.files_then == [{"new.txt": False, "app.py": True}]
    assert end.metadata["diff"] == request.diff


async def test_an_edit_that_will_not_apply_is_asked_without_a_preview() -> None:
    edit = ("edit_file", {"path": "app.py", "old_string": "no such text", "new_string": "x"})
    request, end, _ = await asked_for(edit)
    assert request.diff == "" and request.summary.startswith("edit_file")
    assert end.is_error  # the tool says why, as it would have anyway


async def test_a_preview_that_fails_is_left_out_and_the_call_goes_on() -> None:
    env = MemoryEnvironment(files=FILES)
    env.fail("read_bytes", error=OSError("disk on fire"))  # the preview's read, not the tool's
    edit = ("edit_file", {"path": "app.py", "old_string": "a = 1", "new_string": "a = 3"})
    request, end, _ = await asked_for(edit, env)
    assert request.diff == ""
    assert not end.is_error and "-a = 1" in end.metadata["diff"]
    assert await env.read_text("app.py") == "a = 3\nb = 2\n"


async def test_files_a_diff_cannot_show_and_other_tools_get_none() -> None:
    env = MemoryEnvironment(files={**FILES, "big.txt": "x" * 300_000})
    cases = [
        ("write_file", {"path": "blob.bin", "content": "text now"}),  # binary before
        ("write_file", {"path": "big.txt", "content": "small"}),  # too big to compare
        ("write_file", {"path": "huge.txt", "content": "y\n" * 200_000}),
        ("apply_patch", {"patch": "*** Begin Patch\n*** Delete File: gone.txt\n*** End Patch"}),
        ("shell", {"command": "echo hi > app.py"}),
        ("read_file", {"path": "app.py"}),
    ]
    tools = ToolRegistry(builtin_tools())
    for name, arguments in cases:
        prepared = tools.prepare(ToolCallPart(id="c", name=name, arguments=arguments))
        assert isinstance(prepared, PreparedCall)
        assert await edit_preview(env, prepared.effects) == "", name
    assert env.calls_of("write") == []
