"""Merging the layers: what adds up, what is replaced, where relative paths point."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from taor.errors import ConfigurationError
from taor.host.settings import Settings, resolve


def settings(
    tmp_path: Path,
    user: str = "",
    project: str = "",
    *,
    environ: dict[str, str] | None = None,
    flags: dict[str, Any] | None = None,
    trusted: bool = True,
) -> Settings:
    config_dir, root = tmp_path / "config", tmp_path / "proj"
    (root / ".taor").mkdir(parents=True)
    config_dir.mkdir()
    if user:
        (config_dir / "config.toml").write_text(user)
    if project:
        (root / ".taor" / "config.toml").write_text(project)
    return resolve(
        cwd=root / "sub",
        root=root,
        config_dir=config_dir,
        environ=environ or {},
        flags=flags or {},
        trusted=trusted,
    )


def test_limits_merge_tool_by_tool_and_rules_keep_their_first_order(tmp_path: Path) -> None:
    s = settings(
        tmp_path,
        user='[tool_output_limits]\nshell = 100\ngrep = 50\n[permissions]\nallow = ["a", "b"]\n',
        project='[tool_output_limits]\nshell = 300\n[permissions]\nallow = ["b", "c"]\n',
        flags={"permissions.allow": ["d"]},
    )
    assert s.tool_output_limits == {"shell": 300, "grep": 50}
    assert s.allow == ("a", "b", "c", "d")
    assert s.sources["allow"].endswith("+ flag --allow")


def test_relative_paths_are_from_the_file_that_names_them(tmp_path: Path) -> None:
    s = settings(
        tmp_path, user='instructions_file = "mine.md"\n', project='system_prompt_file = "p.md"\n'
    )
    assert s.instructions_file == str(tmp_path / "config" / "mine.md")
    assert s.system_prompt_file == str(tmp_path / "proj" / "p.md")
    flagged = settings(tmp_path / "again", flags={"system_prompt_file": "x.md"})
    assert flagged.system_prompt_file == str(tmp_path / "again" / "proj" / "sub" / "x.md")


def test_the_default_instructions_file_is_in_the_user_config_dir(tmp_path: Path) -> None:
    s = settings(tmp_path)
    assert s.instructions_file == str(tmp_path / "config" / "AGENTS.md")
    assert s.sources["instructions_file"] == "default"


@pytest.mark.parametrize(("text", "value"), [("1", True), ("yes", True), ("false", False)])
def test_environment_text_is_read_as_the_keys_type(tmp_path: Path, text: str, value: bool) -> None:
    assert settings(tmp_path, environ={"TAOR_SANDBOX": text}).sandbox is value


def test_a_flag_given_a_bad_value_is_named_as_the_flag(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="flag --max-wall: max_wall = -1"):
        settings(tmp_path, flags={"max_wall": -1})


def test_a_config_file_that_is_not_utf8_is_named(tmp_path: Path) -> None:
    (tmp_path / "proj" / ".taor").mkdir(parents=True)
    (tmp_path / "proj" / ".taor" / "config.toml").write_bytes(b'model = "x\xff"\n')
    with pytest.raises(ConfigurationError, match=r"config.toml: not UTF-8 text \(byte 10\)"):
        resolve(cwd=tmp_path, root=tmp_path / "proj", config_dir=tmp_path, environ={}, flags={})


def test_a_dotenv_that_is_not_utf8_is_read_with_replacement_characters(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    (root / ".env").write_bytes(b"TAOR_APPEND_SYSTEM_PROMPT=caf\xe9 ${HOME}\n")
    s = settings(tmp_path, environ={"HOME": "/home/person"})
    assert s.append_system_prompt == "caf\ufffd ${HOME}"  # not interpolated either


@pytest.mark.parametrize(
    ("model", "kept"),
    [
        ("local:./weights/evil.gguf", False),
        ("local:/tmp/model.gguf", False),
        ("local", True),
        ("local:qwen2.5-coder-1.5b", True),
        ("anthropic:claude-sonnet-4-5", True),
    ],
)
def test_an_untrusted_project_may_pick_a_model_but_not_a_model_file(
    tmp_path: Path, model: str, kept: bool
) -> None:
    s = settings(tmp_path, project=f'model = "{model}"\n', trusted=False)
    assert (s.model == model) is kept
    assert [i.name for i in s.ignored] == ([] if kept else ["model"])
    assert settings(tmp_path / "again", project=f'model = "{model}"\n').model == model


@pytest.mark.parametrize(
    ("user", "project", "result"),
    [
        ("plan", "default", "plan"),
        ("default", "plan", "plan"),
        ("default", "accept_edits", "default"),
        ("accept_edits", "default", "default"),
        ("bypass", "plan", "plan"),
        ("accept_edits", "bypass", "accept_edits"),
    ],
)
def test_an_untrusted_project_may_only_keep_or_tighten_the_permission_mode(
    tmp_path: Path, user: str, project: str, result: str
) -> None:
    s = settings(
        tmp_path,
        f'[permissions]\nmode = "{user}"\n',
        f'[permissions]\nmode = "{project}"\n',
        trusted=False,
    )
    assert s.permission_mode == result


def test_an_untrusted_projects_deny_rules_and_limits_apply_and_allow_rules_do_not(
    tmp_path: Path,
) -> None:
    project = 'max_turns = 3\n[permissions]\nallow = ["shell(*)"]\ndeny = ["shell(rm*)"]\n'
    s = settings(tmp_path, '[permissions]\nallow = ["read_file"]\n', project, trusted=False)
    assert (s.allow, s.deny, s.max_turns) == (("read_file",), ("shell(rm*)",), 3)
    assert [(i.name, i.reason) for i in s.ignored] == [("permissions.allow", "untrusted")]


def test_an_untrusted_project_may_name_the_voice_tools_but_not_start_a_voice_server(
    tmp_path: Path,
) -> None:
    project = '[voice]\ncommand = "./listen.sh"\nstart_tool = "listen"\n'
    untrusted = settings(tmp_path, project=project, trusted=False)
    assert untrusted.voice_command == "taor voice serve"  # the default: nothing of the project's
    assert untrusted.voice_start_tool == "listen"
    assert [i.name for i in untrusted.ignored] == ["voice.command"]
    trusted = settings(tmp_path / "again", project=project)
    assert (trusted.voice_command, trusted.voice_updates_tool) == ("./listen.sh", "stt_get_updates")
