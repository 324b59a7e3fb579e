"""Environment-variable policy: secrets never pass, the allowlist, the three policies, extras."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from taor.env.envvars import (
    command_environ,
    filter_environ,
    is_core_name,
    is_secret,
    is_secret_name,
)

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


# What a careless host environment holds: each must stay out of commands, whatever its name.
LEAKY = {
    "DATABASE_URL": "postgres://app:hunter2@db.internal:5432/app",
    "GH_PAT": "0123456789abcdef",
    "SENTRY_DSN": "https://abc123@o1.ingest.sentry.io/42",
    "MYSQL_PWD": "hunter2",
    "PASSPHRASE": "correct horse battery staple",
    "GPG_PASSPHRASE": "x",
    "NPM_AUTH": "x",
    "HTTPS_PROXY": "http://me:pw@proxy.corp:3128",
    "DEPLOY_HOOK": "https://x-access:s3cret@git.example.com/repo.git",
    "GITHUB": "ghp_" + "a" * 36,
    "GITHUB_FINE": "github_pat_" + "b" * 40,
    "OPENAI": "sk-proj-" + "c" * 40,
    "CLAUDE": "sk-ant-api03-" + "d" * 40,
    "SLACK_HOOK_VALUE": "xoxb-1234567890-abcdefghij",
    "AWS_ID": "AKIA" + "Q" * 16,
    "GITLAB": "glpat-" + "e" * 20,
    "GOOGLE": "AIza" + "f" * 35,
    "HF": "hf_" + "g" * 34,
    "JWT": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.sig",
    "PEM": "-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n",
    "SESSION_COOKIE": "x",
    "NOTIFY": "https://hooks.slack.com/services/T0123ABCD/B0456EFGH/abcdefghijklmnopqrstuvwx",
    "CHAT_WORKFLOW": "https://hooks.slack.com/workflows/T01/A02/123/abcDEF",
    "DISCORD": "https://discord.com/api/webhooks/123456789/abcDEF-ghi_jkl",
    "CONNECTION": "Server=db;Database=app;User Id=u;Password=hunter2;",
    "ODBC": "Driver={ODBC Driver 18};Server=db;UID=u;PWD=hunter2",
    "LIBPQ": "host=db user=app password=hunter2 dbname=app",
    "QUERY": "https://api.example.com/login?user=u&password=hunter2",
    "DSN_URL": "postgres://u:pw@host/db",
    "JSON_CONFIG": '{"user": "u", "password": "hunter2"}',
}
# Ordinary values that look a little like the patterns above must still pass.
HARMLESS = {
    "PWD": "/work/app",
    "OLDPWD": "/work",
    "GIT_AUTHOR_NAME": "Ada",
    "GIT_AUTHOR_EMAIL": "ada@example.com",
    "AUTHOR": "Ada",
    "PATH_INFO": "/x",
    "DATABASE_URL_LOCAL": "sqlite:///app.db",
    "PIP_INDEX_URL": "https://pypi.example.com/simple",
    "HTTP_PROXY_PLAIN": "http://proxy.corp:3128",
    "MAILTO": "ops@example.com",
    "TASK": "sk-learn upgrade",
    "DISPLAY": ":0",
    "LS_COLORS": "rs=0:di=01;34:ln=01;36",
    "SLACK_DOCS": "https://api.slack.com/messaging/webhooks",
    "LOGIN_HELP": "use --password-stdin, or set password_file=/run/secrets/db",
    "PROMPT_COMMAND": "echo $(pwd)",
    "REGISTRY": "https://registry.npmjs.org:443/@scope/pkg",
    "NO_PW_FIELD": "Server=db;Password=;",
}


@pytest.mark.parametrize("name", sorted(LEAKY))
def test_credentials_are_dropped_by_name_or_by_value(name: str) -> None:
    assert is_secret(name, LEAKY[name])
    assert name not in filter_environ({name: LEAKY[name]}, "inherit_all")


@pytest.mark.parametrize("name", sorted(HARMLESS))
def test_ordinary_variables_pass(name: str) -> None:
    assert not is_secret(name, HARMLESS[name])
    assert filter_environ({name: HARMLESS[name]}, "inherit_all") == {name: HARMLESS[name]}


def test_core_only_also_drops_an_allowlisted_name_holding_a_credential() -> None:
    host = {"PATH": "/usr/bin", "HOME": "https://me:pw@host/"}
    assert filter_environ(host, "core_only") == {"PATH": "/usr/bin"}


_WORD = st.text("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", min_size=1)
_PASSWORD = st.text(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$*+,%", min_size=1
)


@given(_WORD, _WORD, _WORD)
def test_every_slack_webhook_is_a_secret(team: str, channel: str, key: str) -> None:
    url = f"https://hooks.slack.com/services/T{team}/B{channel}/{key}"
    assert is_secret("NOTIFY_URL", url)
    assert is_secret("X", f"curl -X POST {url} -d '{{}}'")


@given(_WORD, _PASSWORD, st.sampled_from(["Password", "password", "PWD", "Pwd", "passwd"]))
def test_every_password_field_of_a_connection_string_is_a_secret(
    user: str, password: str, field: str
) -> None:
    assert is_secret("CONN", f"Server=db,1433;User Id={user};{field}={password};Encrypt=yes")
    assert is_secret("CONN", f"{field} = {password}")
    assert is_secret("URL", f"https://h.example/x?user={user}&{field}={password}")


@given(st.sampled_from(["postgres", "mysql", "mongodb+srv", "redis", "amqp"]), _WORD, _PASSWORD)
def test_every_url_with_a_password_is_a_secret(scheme: str, user: str, password: str) -> None:
    assert is_secret("DB", f"{scheme}://{user}:{password}@db.internal:5432/app")
    assert is_secret("DB", f"{scheme}://:{password}@db.internal/0")
