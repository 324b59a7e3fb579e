"""The ``local`` profile in a session: the prompt names the folder's files, and the loop guard
fires after a few repeats of what a tool actually uses (arguments it ignores make no
difference)."""

from __future__ import annotations

from taor.agent.events import LoopDetection
from taor.agent.session import Session
from taor.env.memory import MemoryEnvironment
from taor.testing import ScriptedModel, text, tool_calls

from .loop_support import collect, of


def local_model(*replies: object) -> ScriptedModel:
    return ScriptedModel(list(replies), provider="local", model_id="qwen2.5-coder-1.5b")  # type: ignore[arg-type]


async def test_the_prompt_names_the_files_of_the_folder() -> None:
    env = MemoryEnvironment(
        files={"stats.py": "x = 1\n", "docs/guide.md": "# Guide\n", ".env": "K=1"}
    )
    model = local_model(text("ok"))
    async with Session(model, environment=env) as session:
        await collect(session, "hi")
    system = model.requests[0].system
    assert "Files here: docs/, stats.py" in system  # hidden files left out
    assert [t.name for t in model.requests[0].tools] == [
        "read_file",
        "edit_file",
        "write_file",
        "shell",
    ]


async def test_repeats_that_differ_only_in_ignored_arguments_are_a_loop() -> None:
    env = MemoryEnvironment(files={"a.txt": "alpha\n"})
    calls = [tool_calls(("read_file", {"path": "a.txt", "offset": n})) for n in range(1, 9)]
    model = local_model(*calls, text("done"))
    async with Session(model, environment=env) as session:
        events = await collect(session, "read a.txt")
    (warning, *rest) = of(events, LoopDetection)
    assert not warning.stopped and "4 times" in warning.message
    assert rest and rest[-1].stopped  # it went on after the warning: stopped
