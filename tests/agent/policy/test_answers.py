"""Answer checks in a session of the small profile: a final answer whose claims the input's
calls leave unchecked sends the model back once per check, with what it needs (the files
changed, the failing output); real files and real commands in a temporary folder."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from taor.agent.config import Limits
from taor.agent.events import LoopDetection, ProcessingEnd, SteeringInjected
from taor.agent.session import Session
from taor.env.local import LocalEnvironment
from taor.testing import ScriptedModel, text, tool_calls

from ..loop_support import collect, config, of


def small_model(*replies: object) -> ScriptedModel:
    return ScriptedModel(list(replies), provider="local", model_id="qwen2.5-coder-1.5b")  # type: ignore[arg-type]


def shell(command: str) -> object:
    return tool_calls(("shell", {"command": command}))


def write(path: str, content: str) -> object:
    return tool_calls(("write_file", {"path": path, "content": content}))


async def run(tmp_path: Path, model: ScriptedModel, prompt: str, **cfg: object) -> list[object]:
    env = LocalEnvironment(str(tmp_path))
    async with Session(model, environment=env, config=config(**cfg)) as session:
        events = await collect(session, prompt)
    assert model.remaining == 0  # every scripted reply was asked for: no more, no less
    return events


def checks(events: list[object]) -> list[str]:
    return [e.text for e in of(events, SteeringInjected) if e.source == "check"]


def end(events: list[object]) -> ProcessingEnd:
    return of(events, ProcessingEnd)[-1]


async def test_a_file_named_without_looking_is_checked_then_answered_from_what_was_read(
    tmp_path: Path,
) -> None:
    (tmp_path / "helpers.py").write_text("def parse():\n    pass\n")
    (tmp_path / "tools.py").write_text("def slug():\n    pass\n")
    model = small_model(
        text("parse is defined in tools.py."),
        shell("grep -n 'def parse' *.py"),
        text("parse is defined in helpers.py."),
    )
    events = await run(tmp_path, model, "Which file defines parse?")
    [note] = checks(events)
    assert "not read any file or run anything yet, so this answer is a guess" in note
    assert end(events).text == "parse is defined in helpers.py."
    [result] = model.requests[2].messages[-1].parts
    assert "helpers.py:1:def parse" in result.text  # type: ignore[union-attr]


async def test_a_greeting_is_not_checked(tmp_path: Path) -> None:
    events = await run(tmp_path, small_model(text("Hello! What shall I do?")), "hi")
    assert checks(events) == [] and end(events).stop_reason == "completed"


async def test_a_script_written_and_never_run_is_run_before_the_answer(tmp_path: Path) -> None:
    model = small_model(
        write("hello.py", "print(greeting)\n"),
        text("I wrote hello.py."),
        shell("python3 hello.py"),
        write("hello.py", "greeting = 'hi'\nprint(greeting)\n"),
        shell("python3 hello.py"),
        text("hello.py prints hi."),
    )
    events = await run(tmp_path, model, "Write hello.py that prints hi.")
    [note] = checks(events)
    assert "you changed hello.py and ran nothing" in note
    assert end(events).text == "hello.py prints hi."


async def test_a_change_after_the_last_run_is_run_again(tmp_path: Path) -> None:
    (tmp_path / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    model = small_model(
        shell("python3 -c 'import calc; assert calc.add(1, 2) == 3'"),
        write("calc.py", "def add(a, b):\n    return a + b\n"),
        text("Fixed."),
        shell("python3 -c 'import calc; assert calc.add(1, 2) == 3'"),
        text("Fixed: add adds."),
    )
    events = await run(tmp_path, model, "Fix add in calc.py.")
    [note] = checks(events)
    assert "changed calc.py after the last command you ran" in note


async def test_an_answer_that_says_it_works_when_the_last_run_failed_gets_the_output(
    tmp_path: Path,
) -> None:
    (tmp_path / "test_it.py").write_text("import unittest\n\nassert 1 == 2, 'one is not two'\n")
    model = small_model(
        shell("python3 test_it.py"),
        text("The tests pass."),
        text("The test fails: one is not two."),
    )
    events = await run(tmp_path, model, "Do the tests pass?")
    [note] = checks(events)
    assert "says it works, but the last command you ran failed (`python3 test_it.py`)" in note
    assert "AssertionError: one is not two" in note
    assert end(events).text == "The test fails: one is not two."


async def test_an_answer_that_explains_the_fix_instead_of_making_it_is_sent_back(
    tmp_path: Path,
) -> None:
    (tmp_path / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    check = "python3 -c 'import calc; assert calc.add(1, 2) == 3, calc.add(1, 2)'"
    model = small_model(
        shell(check),
        text("To fix this, replace a - b with a + b in calc.py."),
        write("calc.py", "def add(a, b):\n    return a + b\n"),
        shell(check),
        text("Fixed: add adds."),
    )
    events = await run(tmp_path, model, "Make calc.add add.")
    [note] = checks(events)
    assert note.startswith("Check before you answer: the last command you ran failed")
    assert "AssertionError: -1" in note and "do it now with the tools" in note
    assert end(events).text == "Fixed: add adds."


async def test_a_command_that_failed_and_was_not_run_again_is_run_again(tmp_path: Path) -> None:
    (tmp_path / "test_a.py").write_text("")
    model = small_model(
        shell("mv test_*.py tests/"),
        shell("mkdir tests"),
        text("The tests folder is made."),
        shell("mv test_*.py tests/"),
        text("test_a.py is in tests."),
    )
    events = await run(tmp_path, model, "Move the test files into a folder named tests.")
    [note] = checks(events)
    assert "`mv test_*.py tests/` failed, and you have not run it again since" in note
    assert "tests/" in note and "run it again now" in note
    assert (tmp_path / "tests" / "test_a.py").exists()
    assert end(events).text == "test_a.py is in tests."


async def test_a_failed_command_run_again_since_is_not_checked(tmp_path: Path) -> None:
    model = small_model(
        shell("python3 go.py"),
        write("go.py", "print('go')\n"),
        shell("python3 go.py"),
        text("go.py prints go."),
    )
    events = await run(tmp_path, model, "Write go.py that prints go, and run it.")
    assert checks(events) == [] and end(events).text == "go.py prints go."


async def test_a_failed_script_run_again_by_another_path_is_not_checked(tmp_path: Path) -> None:
    model = small_model(
        shell("python3 go.py"),
        write("go.py", "print('go')\n"),
        shell(f"python3 {tmp_path / 'go.py'}"),
        text("go.py prints go."),
    )
    events = await run(tmp_path, model, "Write go.py that prints go, and run it.")
    assert checks(events) == [] and end(events).text == "go.py prints go."


async def test_a_reply_that_announces_the_work_instead_of_doing_it_is_sent_back(
    tmp_path: Path,
) -> None:
    (tmp_path / "notes.txt").write_text("limit: MAX_SIZE\n")
    model = small_model(
        text("To do this, I will replace MAX_SIZE with MAX_ITEMS in notes.txt."),
        tool_calls(
            (
                "edit_file",
                {"path": "notes.txt", "old_string": "MAX_SIZE", "new_string": "MAX_ITEMS"},
            )
        ),
        text("notes.txt says MAX_ITEMS."),
    )
    events = await run(tmp_path, model, "Use MAX_ITEMS in notes.txt.")
    [note] = checks(events)
    assert note.startswith("Check before you answer: your reply says what to do, but you did")
    assert (tmp_path / "notes.txt").read_text() == "limit: MAX_ITEMS\n"
    assert end(events).text == "notes.txt says MAX_ITEMS."


async def test_each_check_is_said_once_per_input(tmp_path: Path) -> None:
    model = small_model(
        write("a.py", "print(1)\n"),
        text("Done."),
        text("Done, I said."),  # still not run: the model has the last word
    )
    events = await run(tmp_path, model, "Write a.py.")
    assert len(checks(events)) == 1 and end(events).text == "Done, I said."


async def test_an_answer_on_the_last_call_a_limit_allows_is_not_checked(tmp_path: Path) -> None:
    """Sent back then, it would end on the limit, its answer lost to the limit's summary."""
    model = small_model(write("a.py", "print(1)\n"), text("Done."))
    events = await run(tmp_path, model, "Write a.py.", limits=Limits(max_model_calls=2))
    assert checks(events) == []
    assert (end(events).stop_reason, end(events).text) == ("completed", "Done.")


async def test_off_by_config_and_for_profiles_that_do_not_ask(tmp_path: Path) -> None:
    unchecked = small_model(write("a.py", "print(1)\n"), text("Done."))
    events = await run(tmp_path, unchecked, "Write a.py.", check_answers=False)
    assert checks(events) == []
    compat = ScriptedModel([text("It is in tools.py.")], provider="openai-compat", model_id="x")
    events = await run(tmp_path, compat, "Which file defines parse?")
    assert checks(events) == []


async def test_a_loop_warning_shows_the_file_as_it_is_and_the_exact_error(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    edit = tool_calls(("edit_file", {"path": "a.py", "old_string": "x = 2", "new_string": "y"}))
    model = small_model(*[edit] * 4, text("I could not."))
    env = LocalEnvironment(str(tmp_path))
    cfg = dataclasses.replace(config(), check_answers=False)
    async with Session(model, environment=env, config=cfg) as session:
        events = await collect(session, "Change x = 2 to y in a.py.")
    [warning] = of(events, LoopDetection)
    [steering] = [e for e in of(events, SteeringInjected) if e.source == "loop_detection"]
    assert steering.text.startswith(warning.message)
    assert "a.py as it is now:\n```\nx = 1\n\n```" in steering.text
    assert "The last error, exactly:\n" in steering.text and "x = 2" in steering.text
