"""Completion of local commands, their arguments, and ``@`` paths in the workspace."""

from __future__ import annotations

from pathlib import Path

from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from taor.cli.interactive.commands.registry import COMMANDS
from taor.cli.interactive.completion import PromptCompleter


def offered(root: Path, text: str) -> list[str]:
    completer = PromptCompleter({c.name: c for c in COMMANDS}, root)
    return [c.text for c in completer.get_completions(Document(text), CompleteEvent())]


def test_commands_and_their_fixed_arguments(tmp_path: Path) -> None:
    assert offered(tmp_path, "/c") == ["compact", "clear", "cost", "context", "checkpoint"]
    assert offered(tmp_path, "/effort h") == ["high"]
    assert offered(tmp_path, "/permissions ") == ["default", "accept_edits", "plan", "bypass"]
    assert offered(tmp_path, "hello /c") == []


def test_paths_after_an_at_sign(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("")
    (tmp_path / "src" / "my notes.md").write_text("")
    (tmp_path / ".env").write_text("")
    (tmp_path / ".git").mkdir()
    assert offered(tmp_path, "look at @s") == ["src/"]
    assert offered(tmp_path, "look at @src/") == ["app.py", "my\\ notes.md"]
    assert offered(tmp_path, "@src/my\\ n") == ["my\\ notes.md"]
    assert offered(tmp_path, "@") == ["src/"]  # hidden files only when asked for
    assert offered(tmp_path, "@.") == [".env"]  # .git never
    assert offered(tmp_path, "mail me@s") == []
