"""Allow rules saved to a project's config file: added to what is there, the rest of the file
kept byte for byte, and a file it cannot change safely left alone with what to add by hand."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from taor.errors import ConfigurationError
from taor.host.settings.write import add_allow_rules


def allow_of(path: Path) -> list[str]:
    return tomllib.loads(path.read_text())["permissions"]["allow"]  # type: ignore[no-any-return]


def test_a_missing_file_is_created_with_the_rules(tmp_path: Path) -> None:
    path = tmp_path / ".taor" / "config.toml"
    assert add_allow_rules(path, ["shell(pytest -q)"]) == ["shell(pytest -q)"]
    assert path.read_text() == '[permissions]\nallow = ["shell(pytest -q)"]\n'


def test_rules_join_an_existing_list_and_comments_stay(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(
        'model = "anthropic:claude-sonnet-4-5"  # the team\'s\n\n'
        "[permissions]\n"
        'mode = "accept_edits"\n'
        'allow = [\n    "shell(git status*)",  # read-only\n    "shell(a]b)",\n]\n'
        'deny = ["shell(git push*)"]\n\n'
        "[tool_output_limits]\nshell = 2000\n"
    )
    assert add_allow_rules(path, ["shell(git status*)", 'shell(echo "hi")']) == ['shell(echo "hi")']
    text = path.read_text()
    assert allow_of(path) == ["shell(git status*)", "shell(a]b)", 'shell(echo "hi")']
    assert text.startswith('model = "anthropic:claude-sonnet-4-5"  # the team\'s\n')
    assert 'deny = ["shell(git push*)"]\n\n[tool_output_limits]\nshell = 2000\n' in text
    assert add_allow_rules(path, ['shell(echo "hi")']) == []  # already there: unchanged


def test_a_permissions_table_without_allow_gets_one_and_other_files_get_a_table(
    tmp_path: Path,
) -> None:
    table = tmp_path / "table.toml"
    table.write_text('[permissions]\nmode = "default"\n[keys]\nanthropic = "x"\n')
    add_allow_rules(table, ["edit_file(./app.py)"])
    assert allow_of(table) == ["edit_file(./app.py)"]
    assert tomllib.loads(table.read_text())["keys"] == {"anthropic": "x"}
    other = tmp_path / "other.toml"
    other.write_text('effort = "high"')
    add_allow_rules(other, ["read_file"])
    assert other.read_text() == 'effort = "high"\n\n[permissions]\nallow = ["read_file"]\n'


def test_a_file_it_cannot_change_safely_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('permissions = { allow = ["read_file"] }\n')
    with pytest.raises(
        ConfigurationError, match=r"by hand: allow = \[\"read_file\", \"shell\(ls\)\"\]"
    ):
        add_allow_rules(path, ["shell(ls)"])
    assert path.read_text() == 'permissions = { allow = ["read_file"] }\n'
    broken = tmp_path / "broken.toml"
    broken.write_text("[permissions\n")
    with pytest.raises(ConfigurationError, match="not valid TOML"):
        add_allow_rules(broken, ["shell(ls)"])
