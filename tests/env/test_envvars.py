"""Environment-variable policy: secrets never pass, the allowlist, the three policies, extras."""

from __future__ import annotations

import pytest

from taor.env.envvars import command_environ, filter_environ, is_core_name, is_secret_name

HOST = {
    "PATH": "/usr/bin",
    "HOME": "/home/u",
    "LC_ALL": "C.UTF-8",
    "GOPATH": "/go",
    "EDITOR": "vim",
    "OPENAI_API_KEY": "sk-1",
    "AWS_SECRET_ACCESS_KEY": "a",
    "GOOGLE_APPLICATION_CREDENTIALS": "/c.json",
    "TOKEN": "t",
    "github_token": "g",
    "DB_PASSWD": "p",
    "SSH_PRIVATE_KEY": "k",
    "MyPassword": "m",
}
SECRETS = {
    "OPENAI_API_KEY",
    "AWS_SECRET_ACCESS_KEY",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "TOKEN",
    "github_token",
    "DB_PASSWD",
    "SSH_PRIVATE_KEY",
    "MyPassword",
}


@pytest.mark.parametrize("name", sorted(SECRETS))
def test_secret_names_are_recognized_in_any_case(name: str) -> None:
    assert is_secret_name(name)


def test_inherit_all_keeps_everything_but_secrets() -> None:
    assert set(filter_environ(HOST, "inherit_all")) == set(HOST) - SECRETS


def test_core_only_keeps_the_allowlist() -> None:
    assert set(filter_environ(HOST, "core_only")) == {"PATH", "HOME", "LC_ALL", "GOPATH"}
    assert is_core_name("CARGO_HOME") and is_core_name("VIRTUAL_ENV")
    assert not is_core_name("EDITOR")


def test_none_passes_nothing_from_the_host() -> None:
    assert filter_environ(HOST, "none") == {}


def test_explicit_extras_are_passed_as_given_even_secret_looking_ones() -> None:
    env = command_environ(HOST, "none", {"MY_TOKEN": "explicit", "X": "1"})

    assert env == {"MY_TOKEN": "explicit", "X": "1"}
    assert command_environ(HOST, "core_only", {"PATH": "/opt"})["PATH"] == "/opt"
