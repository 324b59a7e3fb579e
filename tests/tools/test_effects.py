"""The helpers tools declare their effects with: the paths a patch touches, the summary of a
list of files, the canonical JSON that stands for an undeclared subject."""

from __future__ import annotations

from taor.llm.types import ToolCallPart
from taor.tools import tool
from taor.tools.effects import UNDECLARED, Effects, canonical_json, files_summary, patch_paths
from taor.tools.prepared import PreparedCall
from taor.tools.registry import ToolRegistry


def test_patch_paths_in_order_once_each_also_for_an_invalid_patch() -> None:
    valid = (
        "*** Begin Patch\n*** Update File: a.py\n*** Move to: b.py\n@@\n-x\n+y\n"
        "*** Add File: c.py\n+z\n*** Delete File: a.py\n*** End Patch"
    )
    assert patch_paths(valid) == ["a.py", "b.py", "c.py"]
    assert patch_paths("*** Update File: x.py\n  *** Delete File: ../y.py\nno end") == [
        "x.py",
        "../y.py",
    ]
    assert patch_paths("nonsense") == []


def test_files_summary_and_canonical_json() -> None:
    assert files_summary([]) is None and files_summary(["a.py"]) == "a.py"
    assert files_summary(["a.py", "b.py", "c.py"]) == "3 files (a.py, b.py, +1)"
    assert canonical_json({"b": 1, "a": "é"}) == '{"a":"é","b":1}'


def test_a_tool_that_declares_nothing_may_change_anything() -> None:
    assert UNDECLARED.writes_elsewhere and not UNDECLARED.file_edit
    assert UNDECLARED.subjects is None and UNDECLARED.summary is None


def test_an_undeclared_tools_command_argument_still_names_what_it_runs() -> None:
    @tool
    async def deploy(command: str) -> str:
        """Run a deployment command."""
        return command

    prepared = ToolRegistry([deploy]).prepare(
        ToolCallPart(id="c", name="deploy", arguments={"command": "make ship"})
    )
    assert isinstance(prepared, PreparedCall)
    assert prepared.effects == Effects(command="make ship")
    assert prepared.summary == 'deploy: {"command":"make ship"}'
