"""Which lines are local commands, and that every command has its help."""

from __future__ import annotations

import pytest

from taor.cli.interactive.commands import BY_NAME, COMMANDS, is_command


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
    assert set((wanted + " mcp voice exit expand").split()) == {c.name for c in COMMANDS}
    assert all(command.help for command in COMMANDS) and BY_NAME["quit"].name == "exit"
