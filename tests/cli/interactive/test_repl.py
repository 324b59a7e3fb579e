"""The interactive mode as a person uses it: the real ``taor`` in a tmux pane against the fake
provider server, keys sent and the screen read back."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from taor.agent.record.store import load
from taor.agent.record.transcript import problems
from taor.testing import FakeProviderServer, Reply, rate_limited, stall, text, tool_calls

from .conftest import Start
from .terminal import COLOUR, PROMPT_READY, needs_tmux, transcripts

pytestmark = [pytest.mark.slow, needs_tmux]


def test_text_streams_in_then_ctrl_c_interrupts_and_the_next_prompt_works(
    start: Start, server: FakeProviderServer, tmp_path: Path
) -> None:
    held = Reply(text="**Plan**: read the code first.\n\nThen the second paragraph.", chunk=6)
    server.push(stall(60, after=8, reply=held), text("Back again."))
    term = start()
    term.wait_for(PROMPT_READY)
    term.send("explain the plan")
    shown = term.wait_for("Plan: read the code first.")  # the first block, rendered
    assert "**Plan**" not in shown and "second paragraph" not in shown
    term.keys("C-c")
    term.wait_for("■ interrupted")
    term.send("and now?")
    term.wait_for("Back again.")
    term.keys("C-d")
    assert term.exit_code() == 0
    (path,) = transcripts(tmp_path / "work")
    assert problems(load(path).turns) == []


def test_tool_calls_show_folded_results_diffs_and_each_permission_answer(
    start: Start, server: FakeProviderServer, tmp_path: Path
) -> None:
    workspace = tmp_path / "work"
    (workspace / "app.py").write_text("a = 1\nb = 2\n")
    edit = ("edit_file", {"path": "app.py", "old_string": "a = 1", "new_string": "a = 2"})
    server.push(
        tool_calls(("shell", {"command": "seq 1 30"})), text("Counted."),
        tool_calls(edit), text("Edited."),
        tool_calls(("shell", {"command": "touch nope"})), text("Understood."),
        tool_calls(("shell", {"command": "touch never"})), text("Not done."),
        tool_calls(("shell", {"command": "echo kept"})), text("Saved."),
    )  # fmt: skip
    term = start()
    term.wait_for(PROMPT_READY)
    term.send("count")
    term.answer("y", "allow shell: seq 1 30?")
    shown = term.wait_for("Counted.")
    assert "● shell: seq 1 30" in shown and "… +27 lines (ctrl-o or /expand 1)" in shown
    term.keys("C-o")
    term.wait_for(lambda s: "\n30\n" in s)
    term.send("edit")
    asked = term.answer("a", "allow edit_file: app.py?")
    assert "always allows: edit_file(./app.py)" in asked
    assert "    -a = 1\n    +a = 2\n" in asked  # what it would change, before it runs
    shown = term.wait_for("Edited.")
    assert "-a = 1" in shown and "+a = 2" in shown and "allowed from now on" in shown
    assert COLOUR.search(term.screen(colors=True))  # the diff in green and red
    term.send("make a file")
    term.answer("r", "allow shell: touch nope?")
    term.wait_for("reason for the model")
    term.send("use a better name")
    term.wait_for("Understood.")
    term.send("make another")
    term.answer("n", "allow shell: touch never?")
    term.wait_for("Not done.")
    term.send("echo")
    term.answer("s", "allow shell: echo kept?")
    shown = term.wait_for("Saved.")
    assert "apply them once you trust this folder: taor trust" in " ".join(shown.split())
    term.keys("C-d")
    assert term.exit_code() == 0
    assert (workspace / "app.py").read_text() == "a = 2\nb = 2\n"
    assert not (workspace / "nope").exists() and not (workspace / "never").exists()
    denied = server.requests[5].json["messages"][-1]["content"]
    assert "use a better name" in denied
    saved = (workspace / ".taor" / "config.toml").read_text()
    assert saved == '[permissions]\nallow = ["shell(echo kept)"]\n'


def test_typing_while_the_agent_works_steers_it(
    start: Start, server: FakeProviderServer, tmp_path: Path
) -> None:
    waits = ("shell", {"command": "while [ ! -e go ]; do sleep 0.1; done; echo went"})
    server.push(tool_calls(waits), text("Steered."))
    term = start("--permission-mode", "bypass")
    term.wait_for(PROMPT_READY)
    term.send("wait for go")
    term.wait_for("shell: while", whole=False)  # its spinner line
    term.send("also say hi")
    term.wait_for("also say hi  (queued for the model)", whole=False)
    (tmp_path / "work" / "go").touch()
    shown = term.wait_for("Steered.")
    assert "» also say hi  (sent to the model)" in shown
    steered = server.requests[1].json["messages"]
    assert any("also say hi" in str(m.get("content")) for m in steered[-2:])
    term.keys("C-d")
    assert term.exit_code() == 0


def test_model_cost_and_compact_commands(
    start: Start, server: FakeProviderServer, tmp_path: Path
) -> None:
    (tmp_path / "work" / "big.txt").write_text(
        "".join(f"line {n} of a big file\n" for n in range(800))
    )
    looks = [tool_calls(("list_dir", {"path": "."})) for _ in range(3)]
    server.push(tool_calls(("read_file", {"path": "big.txt"})), *looks, text("First."))
    server.push(text("Second."))
    term = start()
    term.wait_for(PROMPT_READY)
    term.send("hi")
    term.wait_for("First.")
    term.send("/model openai-compat:other")
    term.wait_for("model: openai-compat:other from the next call")
    term.wait_for(" openai-compat:other · effort default", whole=False)  # the status line
    term.send("again")
    term.wait_for("Second.")
    assert server.requests[-1].json["model"] == "other"
    term.send("/cost")
    shown = term.wait_for("calibrated ×")
    assert "· 6 model calls in this run" in shown and "from the cache" in shown
    term.send("/compact keep the names")
    shown = term.wait_for("⟳ compacted: ")
    before, after = shown.split("⟳ compacted: ")[1].split(" tokens")[0].split(" → ")
    assert int(after.replace(",", "")) < int(before.replace(",", "")) / 2
    term.keys("C-d")
    assert term.exit_code() == 0


STARTED = re.compile(r"new session ([0-9a-f]{12})")


def test_the_first_prompt_from_the_command_line_then_continue_and_commands(
    start: Start, server: FakeProviderServer
) -> None:
    server.push(text("Hello from the first run."), text("Still here."))
    term = start("say hello")
    shown = term.wait_for("Hello from the first run.")
    assert "› say hello" in shown
    term.send("/modle")
    term.wait_for("unknown command /modle; did you mean /model?")
    term.keys("C-d")
    assert term.exit_code() == 0
    again = start("--continue")
    again.wait_for("1 earlier input(s); the last: › say hello")
    again.keys("Up")  # the project's input history outlives the run
    again.wait_for("› /modle", whole=False)
    again.keys("C-c")  # clears the draft
    again.wait_for(lambda screen: "› /modle" not in screen, whole=False)
    again.send("are you there?")
    again.wait_for("Still here.")
    assert server.requests[-1].json["messages"][1]["content"] == "say hello"
    again.keys("C-c")  # at an empty prompt: asks for a second press, which leaves
    again.wait_for("press Ctrl-C again to exit", whole=False)
    again.keys("C-c")
    assert again.exit_code() == 0


def test_diff_and_checkpoint_restore_put_files_and_conversation_back(
    start: Start, server: FakeProviderServer, tmp_path: Path
) -> None:
    workspace = tmp_path / "work"
    (workspace / "app.py").write_text("a = 1\n")
    edit = ("edit_file", {"path": "app.py", "old_string": "a = 1", "new_string": "a = 2"})
    server.push(tool_calls(edit), text("Edited."))
    server.push(tool_calls(("write_file", {"path": "new.txt", "content": "hi\n"})), text("Wrote."))
    server.push(text("Fresh start."))
    term = start("--permission-mode", "bypass")
    term.wait_for(PROMPT_READY)
    term.send("edit app.py")
    term.wait_for("Edited.")
    term.send("write new.txt")
    term.wait_for("Wrote.")
    term.send("/diff")
    shown = term.wait_for("files changed this session: app.py, new.txt")
    term.wait_for("+++ b/new.txt")
    term.send("/checkpoint list")
    shown = term.wait_for("created new.txt")
    assert "changed app.py" in shown
    term.send("/checkpoint restore 1")
    shown = term.wait_for("the conversation goes on from before input 1")
    assert "files put back: app.py" in shown and "files removed (created since): new.txt" in shown
    assert (workspace / "app.py").read_text() == "a = 1\n" and not (workspace / "new.txt").exists()
    term.send("start over")
    term.wait_for("Fresh start.")
    sent = [m for m in server.requests[-1].json["messages"] if m["role"] == "user"]
    assert [m["content"] for m in sent] == ["start over"]  # nothing of the inputs undone
    term.keys("C-d")
    assert term.exit_code() == 0
    paths = transcripts(workspace)  # the original, kept, and its fork
    assert len(paths) == 2 and all(problems(load(path).turns) == [] for path in paths)


def test_pastes_mentions_retries_and_ctrl_c_at_a_question(
    start: Start, server: FakeProviderServer, tmp_path: Path
) -> None:
    (tmp_path / "work" / "app.py").write_text("print('attached')\n")
    server.push(rate_limited(retry_after=0.1), text("Read both."))
    server.push(tool_calls(("shell", {"command": "touch never"})))
    server.push(text("Still fine."))
    term = start()
    term.ready()  # a paste is bracketed only once the prompt has asked the terminal for it
    pasted = "\n".join(f"log line {n}" for n in range(12))
    term.paste(pasted)
    term.wait_for("[pasted text #1: 12 lines]", whole=False)
    term.type(" and @ap")
    term.keys("Tab")
    term.wait_for("@app.py", whole=False)
    term.keys("Enter")
    shown = term.wait_for("Read both.")
    assert "attached: app.py" in shown and "⟳ retrying in 0.1s (attempt 1)" in shown
    sent = server.requests[-1].json["messages"][-1]["content"]
    assert pasted in sent and "print('attached')" in sent
    term.send("make a file")
    term.wait_for("allow shell: touch never?", whole=False)
    term.keys("C-c")  # denies and interrupts
    shown = term.wait_for("■ interrupted")
    assert "✗ shell: touch never" in shown
    term.send("still there?")
    term.wait_for("Still fine.")
    assert not (tmp_path / "work" / "never").exists()
    term.keys("C-d")
    assert term.exit_code() == 0


def test_session_and_permission_commands(start: Start, server: FakeProviderServer) -> None:
    server.push(text("In the first."), text("In the second."), text("Back in the first."))
    term = start()
    term.wait_for(PROMPT_READY)
    term.send("one")
    term.wait_for("In the first.")
    term.send("/permissions accept_edits")
    term.wait_for("permission mode: accept_edits")
    term.wait_for("accept_edits mode", whole=False)  # the status line
    term.send("/clear")
    shown = term.wait_for(lambda s: len(STARTED.findall(s)) == 2 and "same settings" in s)
    first, second = STARTED.findall(shown)
    term.send("two")
    term.wait_for("In the second.")
    term.send("/session list")
    term.wait_for(lambda s: f"* {second}" in s and f"  {first}" in s)
    term.send(f"/session resume {first[:6]}")
    term.wait_for(f"resumed session {first}")
    term.send("three")
    term.wait_for("Back in the first.")
    users = [m["content"] for m in server.requests[-1].json["messages"] if m["role"] == "user"]
    assert users == ["one", "three"]
    term.send("/session fork")
    term.wait_for("forked: this is a copy")
    term.keys("C-d")
    assert term.exit_code() == 0


def test_output_to_a_file_is_plain_and_the_prompt_stays_on_the_terminal(
    start: Start, server: FakeProviderServer, tmp_path: Path
) -> None:
    server.push(text("Some **bold** words."))
    out = tmp_path / "out.txt"
    term = start(stdout=out)
    term.ready()  # drawn on stderr, the terminal
    term.send("hi")
    term.wait_for(lambda _: "Some bold words." in out.read_text())
    term.keys("C-d")
    assert term.exit_code() == 0
    written = out.read_text()
    assert "› hi\n" in written and "\x1b" not in written and "saved · taor --resume" in written


def test_a_folder_whose_files_would_act_is_asked_about_once_and_kept_trusted(
    start: Start, server: FakeProviderServer, tmp_path: Path
) -> None:
    workspace = tmp_path / "work"
    (workspace / ".taor").mkdir()
    (workspace / ".taor" / "config.toml").write_text('[permissions]\nmode = "bypass"\n')
    server.push(tool_calls(("shell", {"command": "touch made"})), text("Made."))
    term = start()
    asked = term.wait_for("Trust this folder? [y/N]")
    assert f"This folder is not trusted yet: {workspace}" in asked
    assert f"permissions.mode ({workspace}/.taor/config.toml)" in asked
    term.send("n")
    term.ready()
    term.send("make it")
    term.answer("n", "allow shell: touch made?")  # bypass stayed off: it asks
    term.wait_for("Made.")
    term.keys("C-d")
    assert term.exit_code() == 0 and not (workspace / "made").exists()
    server.push(tool_calls(("shell", {"command": "touch made"})), text("Made."))
    term = start()
    term.wait_for("Trust this folder? [y/N]")
    term.send("y")
    term.wait_for(f"Trusted {workspace}.")
    term.ready()
    term.send("make it")
    term.wait_for("Made.")
    assert (workspace / "made").exists()  # bypass applies once trusted
    term.keys("C-d")
    assert term.exit_code() == 0
    term = start()  # trusted: no question any more
    shown = term.wait_for(PROMPT_READY)
    assert "Trust this folder" not in shown
    term.keys("C-d")
    assert term.exit_code() == 0
