"""Commands of one's own and ``/init``, typed at the real prompt."""

from __future__ import annotations

from pathlib import Path

import pytest

from taor.testing import FakeProviderServer, text, tool_calls

from ..support import home
from .conftest import Start
from .terminal import PROMPT_READY, needs_tmux

pytestmark = [pytest.mark.slow, needs_tmux]


def test_a_users_command_takes_arguments_and_a_projects_waits_for_trust(
    start: Start, server: FakeProviderServer, tmp_path: Path
) -> None:
    workspace = tmp_path / "work"
    mine = home(workspace, "config") / "taor" / "commands"
    mine.mkdir(parents=True)
    (mine / "review.md").write_text(
        "---\ndescription: review two files\n---\nReview $1, then $2.\n"
    )
    (workspace / ".taor" / "commands").mkdir(parents=True)
    (workspace / ".taor" / "commands" / "deploy.md").write_text("Deploy everything now.\n")
    server.push(text("Reviewed."))
    term = start()
    term.wait_for("• commands /deploy (.taor/commands)")
    term.send("n")  # not trusted: the project's commands stay off
    term.ready()  # the prompt is up: Tab completes from here on
    term.type("/rev")
    term.keys("Tab")
    term.wait_for("› /review", whole=False)
    term.send(" app.py tests.py")
    term.wait_for("Reviewed.")
    assert server.requests[-1].json["messages"][-1]["content"] == "Review app.py, then tests.py."
    term.send("/help")
    shown = term.wait_for("review two files (user)").split("/help", 1)[1]
    assert "/deploy" not in shown  # the folder is not trusted
    term.send("/deploy")
    term.wait_for("unknown command /deploy")
    term.keys("C-d")
    assert term.exit_code() == 0


def test_init_writes_agents_md_then_improves_the_one_there(
    start: Start, server: FakeProviderServer, tmp_path: Path
) -> None:
    workspace = tmp_path / "work"
    (workspace / "README.md").write_text("# demo\n")
    write = ("write_file", {"path": "AGENTS.md", "content": "# demo\nRun tests with pytest.\n"})
    server.push(tool_calls(write), text("Wrote AGENTS.md."), text("Improved it."))
    term = start("--permission-mode", "bypass")
    term.wait_for(PROMPT_READY)
    term.send("/init")
    term.wait_for("Wrote AGENTS.md.")
    asked = server.requests[0].json["messages"][-1]["content"]
    assert asked.startswith("Write AGENTS.md for this project.") and "README" in asked
    assert (workspace / "AGENTS.md").read_text() == "# demo\nRun tests with pytest.\n"
    term.send("/init")
    term.wait_for("AGENTS.md exists: the agent improves it (it is not replaced)")
    term.wait_for("Improved it.")
    assert "AGENTS.md already exists" in server.requests[-1].json["messages"][-1]["content"]
    term.keys("C-d")
    assert term.exit_code() == 0
