from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from taor.agent.policy.shell_split import CommandPart, split_command


@pytest.mark.parametrize(
    ("command", "parts"),
    [
        ("git status", ["git status"]),
        ("  git status  ", ["git status"]),
        ("a; b && c || d | e & f", ["a", "b", "c", "d", "e", "f"]),
        ("a\nb", ["a", "b"]),
        ("(a; b)", ["a", "b"]),
        ("echo $(id) `whoami`", ["echo", "id", "whoami"]),
        ('echo "x $(id) y"', ['echo "x', "id", 'y"']),
        ("echo '$(id)'", ["echo '$(id)'"]),
        ("diff <(ls a) >(cat)", ["diff", "ls a", "cat"]),
        ("echo 'a;b' \"c|d\"", ["echo 'a;b' \"c|d\""]),
        ("echo a\\;b", ["echo a\\;b"]),
        ("cmd 2>&1 | tail", ["cmd", "tail"]),
        ("cmd >/dev/null 2>/dev/null &>/dev/null", ["cmd"]),
        ("cmd <&- >&2", ["cmd"]),
        ("", []),
        (";;", []),
    ],
)
def test_split(command: str, parts: list[str]) -> None:
    assert [p.text for p in split_command(command)] == parts


@pytest.mark.parametrize(
    ("command", "redirects"),
    [
        ("make > log", [True]),
        ("make >> log", [True]),
        ("sort < in", [True]),
        ("cmd &> all.log", [True]),
        ("echo x >| f", [True]),
        ("echo '>' \"<\"", [False]),
        ("make 2>&1; cat > out", [False, True]),
    ],
)
def test_redirections_are_flagged(command: str, redirects: list[bool]) -> None:
    assert [p.redirects for p in split_command(command)] == redirects


def test_redirection_stays_with_its_command() -> None:
    assert split_command("echo x >| f") == [CommandPart(text="echo x >| f", redirects=True)]


@given(st.text(max_size=60))
def test_any_text_splits_into_stripped_non_empty_parts(command: str) -> None:
    for part in split_command(command):
        assert part.text and part.text == part.text.strip()
