"""The ``small`` profile in a session: the prompt names the folder's files (not its path),
the loop guard fires after a few repeats of what a tool actually uses (arguments it ignores make
no difference), a repeat to no effect is told so at once, an edit changes every place its text
appears, and commands get the profile's timeout."""

from __future__ import annotations

from taor.agent.events import LoopDetection, ToolCallEnd
from taor.agent.profiles.repeats import NOTE
from taor.agent.profiles.small import small_tools
from taor.agent.session import Session
from taor.env.memory import MemoryEnvironment
from taor.testing import ScriptedModel, text, tool_calls

from .loop_support import collect, config, of


def local_model(*replies: object) -> ScriptedModel:
    return ScriptedModel(list(replies), provider="local", model_id="qwen2.5-coder-1.5b")  # type: ignore[arg-type]


async def test_the_prompt_names_the_files_of_the_folder_but_not_its_path() -> None:
    env = MemoryEnvironment(
        files={"stats.py": "x = 1\n", "docs/guide.md": "# Guide\n", ".env": "K=1"}
    )
    model = local_model(text("ok"))
    async with Session(model, environment=env) as session:
        await collect(session, "hi")
    system = model.requests[0].system
    assert "Files here: docs/, stats.py" in system  # hidden files left out
    # no absolute path for the model to copy into each call: names relative to the folder
    assert env.working_directory() not in system and "Working directory" not in system
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
    assert '"offset":4' in warning.message  # shown as the model wrote it, not as matched
    assert rest and rest[-1].stopped  # it went on after the warning: stopped


async def test_a_call_that_repeats_an_earlier_one_to_no_effect_is_told_so() -> None:
    env = MemoryEnvironment(files={"a.txt": "alpha\n"})
    read = ("read_file", {"path": "a.txt"})
    edit = ("edit_file", {"path": "a.txt", "old_string": "alpha", "new_string": "beta"})
    model = local_model(*[tool_calls(call) for call in (read, read, edit, read)], text("done"))
    async with Session(model, environment=env, config=config()) as session:
        events = await collect(session, "read a.txt")
    outputs = [e.output for e in of(events, ToolCallEnd)]
    assert [o.endswith(NOTE) for o in outputs] == [False, True, False, False]
    assert "alpha" in outputs[1] and "beta" in outputs[3]  # the file changed: no note


async def test_an_edit_changes_every_place_its_text_appears() -> None:
    env = MemoryEnvironment(
        files={"main.py": "from util import add_numbers\n\nadd_numbers(2, 3)\n"}
    )
    edit = {"path": "main.py", "old_string": "add_numbers", "new_string": "add"}
    model = local_model(tool_calls(("edit_file", edit)), text("done"))
    async with Session(model, environment=env, config=config()) as session:
        events = await collect(session, "rename")
    assert not of(events, ToolCallEnd)[0].is_error
    assert await env.read_text("main.py") == "from util import add\n\nadd(2, 3)\n"


def test_commands_get_the_profiles_timeout_whatever_the_model_asks() -> None:
    shell = small_tools(60.0)[-1]
    translate = shell.executor_arguments  # type: ignore[attr-defined]
    assert translate({"command": "make", "timeout": 9999}) == {"command": "make", "timeout": 60.0}
