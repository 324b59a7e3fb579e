"""Parity rows on files: create a file, read then edit, multi-file edit,
and each profile's native edit format, scripted with the profile's own tool shapes."""

from __future__ import annotations

from taor.agent.events import ToolCallStart
from taor.agent.profiles import profile_for
from taor.env.memory import MemoryEnvironment
from taor.testing import text, tool_calls

from .harness import Parity, ends, final, of
from .native import Call, patch, tool_definitions, update_section

GREETER = 'def greet():\n    return "hello"\n'


async def test_create_a_file(parity: Parity) -> None:
    env = MemoryEnvironment()
    parity.script.push(
        tool_calls(parity.native.write("src/hello.py", 'print("Hello")\n')),
        text("Created src/hello.py."),
    )
    events = await parity.run(env, "Create src/hello.py printing Hello.")
    assert env.files["src/hello.py"] == b'print("Hello")\n'
    (start,) = of(events, ToolCallStart)
    assert (start.name, start.arguments) == parity.native.write("src/hello.py", 'print("Hello")\n')
    assert not ends(events)[0].is_error
    assert final(events).text == "Created src/hello.py."
    first, second = parity.requests
    offered = tool_definitions(parity.profile, first.json)
    assert set(profile_for(parity.profile).tool_names()) <= set(offered)  # the profile's own
    assert "file_path" in offered["write_file"]["properties"]
    assert len(second.tool_results) == 1


async def test_read_then_edit(parity: Parity) -> None:
    env = MemoryEnvironment(files={"greet.py": GREETER})
    parity.script.push(
        tool_calls(parity.native.read("greet.py"), parity.native.read("greet.py", from_line=2)),
        tool_calls(parity.native.edit("greet.py", '    return "hello"', '    return "hi"')),
        text("greet() now says hi."),
    )
    events = await parity.run(env, "Make greet() say hi.")
    assert env.files["greet.py"] == b'def greet():\n    return "hi"\n'
    assert [e.is_error for e in ends(events)] == [False, False, False]
    whole, from_second = parity.requests[1].tool_results
    assert whole == '     1\tdef greet():\n     2\t    return "hello"'
    assert from_second == '     2\t    return "hello"'  # the same line for every profile
    (edit_result,) = parity.requests[2].tool_results[2:]
    assert "greet.py" in edit_result


async def test_multi_file_edit(parity: Parity) -> None:
    env = MemoryEnvironment(
        files={"a.py": "NAME = 'old'\n", "b.py": "from a import NAME\nprint('old')\n"}
    )
    changes = [("a.py", "NAME = 'old'", "NAME = 'new'"), ("b.py", "print('old')", "print('new')")]
    parity.script.push(tool_calls(*parity.native.edits(changes)), text("Renamed in both."))
    events = await parity.run(env, "Rename old to new in a.py and b.py.")
    assert env.files["a.py"] == b"NAME = 'new'\n"
    assert env.files["b.py"] == b"from a import NAME\nprint('new')\n"
    assert not any(e.is_error for e in ends(events))
    expected_calls = 1 if parity.profile == "openai" else 2  # one patch, or one edit per file
    assert len(of(events, ToolCallStart)) == expected_calls


async def test_native_edit_format(parity: Parity) -> None:
    """anthropic: edit_file with replace_all; gemini: edit_file with expected_replacements;
    openai: apply_patch (v4a) adding, updating under an @@ hint, renaming and deleting files."""
    source = "def f():\n    x = 1\n    return x\n\n\ndef g():\n    x = 1\n    return x\n"
    env = MemoryEnvironment(files={"m.py": source, "old.txt": "bye\n", "move.py": "A = 1\n"})
    native = parity.native
    call: Call
    if parity.profile == "openai":
        call = (
            "apply_patch",
            {
                "input": patch(
                    "*** Add File: docs/new.md\n+# New\n+text\n",
                    update_section("m.py", "    x = 1", "    x = 2", hint="def g():"),
                    "*** Delete File: old.txt\n",
                    "*** Update File: move.py\n*** Move to: moved.py\n@@\n-A = 1\n+A = 2\n",
                )
            },
        )
    else:
        name, arguments = native.edit("m.py", "    x = 1", "    x = 2")
        if parity.profile == "anthropic":
            call = (name, {**arguments, "replace_all": True})
        else:
            call = (name, {**arguments, "expected_replacements": 2})
    parity.script.push(tool_calls(call), text("Done."))
    events = await parity.run(env, "Set x to 2.")
    (end,) = ends(events)
    assert not end.is_error, end.output
    schemas = tool_definitions(parity.profile, parity.requests[0].json)
    if parity.profile == "openai":
        assert "edit_file" not in schemas and set(schemas["apply_patch"]["properties"]) == {"input"}
        only_g = source.replace("def g():\n    x = 1", "def g():\n    x = 2")
        assert env.files["m.py"] == only_g.encode()  # the @@ hint picked g's x
        assert env.files["docs/new.md"] == b"# New\ntext\n"
        assert env.files["moved.py"] == b"A = 2\n"
        assert "old.txt" not in env.files and "move.py" not in env.files
    else:
        assert "apply_patch" not in schemas
        native_key = "replace_all" if parity.profile == "anthropic" else "expected_replacements"
        assert native_key in schemas["edit_file"]["properties"]
        assert {"file_path", "old_string", "new_string"} <= set(schemas["edit_file"]["required"])
        assert env.files["m.py"] == source.replace("x = 1", "x = 2").encode()
        assert "2" in parity.requests[1].tool_results[0]  # the replacement count
