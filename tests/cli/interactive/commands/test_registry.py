"""Which lines are local commands, and that every command has its help."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from taor.cli.interactive.commands.registry import BY_NAME, COMMANDS, is_command


@pytest.mark.parametrize(
    ("line", "command"),
    [
        ("/help", True),
        ("/model openai:gpt-5.1", True),
        ("/modle", True),  # unknown, answered with the nearest
        ("/etc/hosts is wrong, why?", False),
        ("fix /help", False),
        ("/", True),
    ],
)
def test_is_command(line: str, command: bool) -> None:
    assert is_command(line) is command


def test_every_command_of_the_spec_is_there_with_help() -> None:
    wanted = "help model effort permissions compact clear cost context session checkpoint diff"
    assert set((wanted + " mcp voice exit expand init").split()) == {c.name for c in COMMANDS}
    assert all(command.help for command in COMMANDS) and BY_NAME["quit"].name == "exit"


async def test_help_shows_every_command_with_its_arguments(tmp_path: Path) -> None:
    from argparse import Namespace

    from taor.cli.interactive.commands.registry import show_help
    from taor.cli.interactive.screen import Screen
    from taor.host.settings import Settings

    out = io.StringIO()
    (tmp_path / "config" / "commands").mkdir(parents=True)
    (tmp_path / "config" / "commands" / "review.md").write_text(
        "---\ndescription: review the changes\n---\nReview $ARGUMENTS\n"
    )
    repl = Namespace(
        screen=Screen(out, environ={}),
        project=tmp_path,
        config_dir=tmp_path / "config",
        settings=Settings(),
        commands={},
    )
    await show_help(repl, "")  # type: ignore[arg-type]
    shown = out.getvalue()
    assert "/review [arguments]" in shown and "review the changes (user)" in shown
    for command in COMMANDS:
        if len(command.arguments) < 20:  # a longer one wraps within its column
            assert f"/{command.name} {command.arguments}".rstrip() in shown
    assert "/effort [level]" in shown and "/model [provider:model]" in shown
