from __future__ import annotations

from typing import Any

import pytest

from taor.agent.policy.subjects import (
    SubjectSpec,
    canonical_json,
    field,
    is_outside,
    normalize_path,
    subject_of,
)


@pytest.mark.parametrize(
    ("name", "arguments", "subjects"),
    [
        ("shell", {"command": "ls -la", "timeout": 5}, ["ls -la"]),
        ("read_file", {"path": "./src//app.py"}, ["src/app.py"]),
        ("edit_file", {"path": "src/../../etc/passwd"}, ["../etc/passwd"]),
        ("write_file", {"path": "/abs/x"}, ["/abs/x"]),
        ("list_dir", {}, ["."]),
        ("read_many_files", {"paths": ["a.py", "./b/c.py"]}, ["a.py", "b/c.py"]),
        ("grep", {"pattern": "x"}, ["."]),
        ("grep", {"pattern": "x", "path": "src/"}, ["src"]),
        ("glob", {"pattern": "**/*.py"}, ["."]),
        ("glob", {"pattern": "src/**/*.py"}, ["src"]),
        ("glob", {"pattern": "*.md", "path": "docs"}, ["docs"]),
        ("glob", {"pattern": "../../*", "path": "docs"}, [".."]),
        ("glob", {"pattern": "/etc/*"}, ["/etc"]),
        ("take_screenshot", {"url": "http://127.0.0.1:8000/"}, ["http://127.0.0.1:8000/"]),
        ("mcp__s__t", {"b": [1, 2], "a": "é"}, ['{"a":"é","b":[1,2]}']),
        ("read_file", {}, []),
    ],
)
def test_subject_of(name: str, arguments: dict[str, Any], subjects: list[str]) -> None:
    assert subject_of(name, arguments) == subjects


def test_subject_of_with_a_workspace() -> None:
    assert subject_of("read_file", {"path": "/w/p/src/a.py"}, workspace="/w/p") == ["src/a.py"]
    assert subject_of("read_file", {"path": "/w/p"}, workspace="/w/p/") == ["."]
    assert subject_of("read_file", {"path": "/w/px/a"}, workspace="/w/p") == ["/w/px/a"]


def test_subject_specs_extend_and_replace() -> None:
    specs = {"shell": SubjectSpec(style="text", extract=field("description"))}
    assert subject_of("shell", {"command": "ls", "description": "list"}, subjects=specs) == ["list"]


@pytest.mark.parametrize(
    ("path", "normal", "outside"),
    [
        ("", ".", False),
        ("./", ".", False),
        ("a/./b/", "a/b", False),
        ("a/../..", "..", True),
        ("//etc", "/etc", True),
        ("..foo", "..foo", False),
    ],
)
def test_normalize_path(path: str, normal: str, outside: bool) -> None:
    assert normalize_path(path) == normal
    assert is_outside(normal) is outside


def test_canonical_json_is_stable() -> None:
    assert (
        canonical_json({"b": 1, "a": {"d": None, "c": True}}) == '{"a":{"c":true,"d":null},"b":1}'
    )
