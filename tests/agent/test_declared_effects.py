"""What a tool declares is all the session needs: the example ``append_line`` tool
(``example_tool.py``, one file, registered by passing it) is checkpointed, diffed, previewed in
a permission question, matched by path rules, allowed by ``accept_edits`` and summarized, with
no change to ``taor.agent``."""

from __future__ import annotations

from pathlib import Path

from taor.agent.events import PermissionRequest, ToolCallEnd, ToolCallStart
from taor.agent.session import Session
from taor.agent.setup import default_tools
from taor.env.local import LocalEnvironment
from taor.testing import ScriptedModel, text, tool_calls

from .example_tool import AppendLineTool
from .session_drive import config, drive, of_kind

APPEND = ("append_line", {"path": "notes.txt", "line": "third"})


def session(root: Path, mode: str, **permissions: object) -> Session:
    return Session.recorded(
        root.parent / "s.jsonl",
        ScriptedModel([tool_calls(APPEND), text("done")]),
        environment=LocalEnvironment(root),
        tools=[*default_tools(), AppendLineTool()],
        config=config(mode, **permissions),
    )


def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir(parents=True)
    (root / "notes.txt").write_text("first\nsecond\n")
    return root


async def test_a_new_tool_is_previewed_diffed_and_checkpointed(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    asked: list[PermissionRequest] = []
    async with session(root, "default") as s:

        def allow(request: PermissionRequest) -> None:
            asked.append(request)
            assert (root / "notes.txt").read_text() == "first\nsecond\n"  # not yet run
            s.decide(request.request_id, "allow")

        events = await drive(s, "append a line", allow)
        (request,) = asked
        assert request.summary == "append_line: 'third' to notes.txt"
        assert request.rules == ("append_line(./notes.txt)",)
        assert request.diff.splitlines()[-2:] == [" second", "+third"]
        (start,) = of_kind(events, "tool_call_start")
        assert isinstance(start, ToolCallStart) and start.summary == request.summary
        (end,) = of_kind(events, "tool_call_end")
        assert isinstance(end, ToolCallEnd) and end.metadata["diff"] == request.diff
        (checkpoint,) = [c for c in s.checkpoints() if c.turn == 1]
        assert [(f.path, f.state, f.restorable) for f in checkpoint.files] == [
            ("notes.txt", "changed", True)
        ]
        await s.rewind(1, conversation=False)
    assert (root / "notes.txt").read_text() == "first\nsecond\n"


async def test_its_declared_file_edit_is_allowed_by_accept_edits_and_path_rules(
    tmp_path: Path,
) -> None:
    for mode, permissions in [
        ("accept_edits", {}),
        ("default", {"allow": ("append_line(*.txt)",)}),
    ]:
        root = workspace(tmp_path / mode)
        async with session(root, mode, **permissions) as s:
            events = await drive(s, "append a line")  # no one answers: nothing may ask
        assert of_kind(events, "permission_request") == []
        assert (root / "notes.txt").read_text() == "first\nsecond\nthird\n"
