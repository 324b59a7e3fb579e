"""``ProfiledTool`` in ``taor.tools``: a tool under another name and argument names forwards
what its executor declares (effects on the translated arguments, output limits), and a call the
registry prepared runs with the arguments it translated then, not translated again."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from taor.env.memory import MemoryEnvironment
from taor.llm.types import ToolCallPart
from taor.tools.base import ToolContext
from taor.tools.builtin import WriteFileTool
from taor.tools.builtin.write import WRITE_LIMITS
from taor.tools.prepared import PreparedCall
from taor.tools.profiled import ArgumentMap, ProfiledTool
from taor.tools.registry import ToolRegistry

SCHEMA = {
    "type": "object",
    "properties": {"file_path": {"type": "string"}, "content": {"type": "string"}},
    "required": ["file_path", "content"],
}


class CountingRename:
    """``file_path`` to ``path``, counting the translations."""

    def __init__(self) -> None:
        self.calls = 0
        self.rename = ArgumentMap(rename={"file_path": "path"})

    def __call__(self, arguments: Mapping[str, Any]) -> dict[str, Any]:
        self.calls += 1
        return self.rename(arguments)


async def test_a_profiled_tool_forwards_its_executors_declarations_and_translates_once() -> None:
    translate = CountingRename()
    save = ProfiledTool.over(
        WriteFileTool(), name="Save", description="Save a file.", parameters=SCHEMA,
        translate=translate,
    )  # fmt: skip
    registry = ToolRegistry([save])
    call = ToolCallPart(id="c1", name="Save", arguments={"file_path": "a.txt", "content": "hi\n"})
    prepared = registry.prepare(call)
    assert isinstance(prepared, PreparedCall)
    assert prepared.executor_arguments == {"path": "a.txt", "content": "hi\n"}
    assert prepared.effects.writes == ("a.txt",) and prepared.effects.file_edit
    assert prepared.effects.subject_style == "path" and prepared.effects.subjects == ("a.txt",)
    assert prepared.summary == "Save: a.txt"
    assert prepared.limits == WRITE_LIMITS == registry.limits("Save")
    assert prepared.effects.preview is not None
    assert prepared.effects.preview({"a.txt": None}) == {"a.txt": "hi\n"}

    env = MemoryEnvironment()
    output = await registry.invoke(prepared, ToolContext(environment=env))
    assert not output.is_error and await env.read_text("a.txt") == "hi\n"
    assert translate.calls == 1  # prepared once, run with that


async def test_arguments_it_cannot_translate_are_reported_when_it_runs() -> None:
    def refuse(arguments: Mapping[str, Any]) -> dict[str, Any]:
        raise ValueError("no such directory")

    save = ProfiledTool.over(
        WriteFileTool(), description="Save a file.", parameters=SCHEMA, translate=refuse
    )
    registry = ToolRegistry([save])
    call = ToolCallPart(
        id="c1", name="write_file", arguments={"file_path": "a.txt", "content": "x"}
    )
    prepared = registry.prepare(call)
    assert isinstance(prepared, PreparedCall) and prepared.executor_arguments is None
    output = await registry.invoke(prepared, ToolContext(environment=MemoryEnvironment()))
    assert output.is_error and "no such directory" in output.text
