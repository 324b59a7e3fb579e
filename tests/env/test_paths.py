"""Path policy: relative, '..', absolute and symlink paths, on the real filesystem and lexically."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from taor.env.base import PathPolicyError
from taor.env.paths import PathPolicy, relative_display, resolve_lexically


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / "src" / "a.py").write_text("x")
    (tmp_path / "outside.txt").write_text("secret")
    return root


def test_relative_paths_resolve_inside_the_root(workspace: Path) -> None:
    policy = PathPolicy(workspace)

    assert policy.resolve("src/a.py") == workspace.resolve() / "src" / "a.py"
    assert policy.resolve(".") == workspace.resolve()
    assert policy.resolve("src/../src/a.py") == workspace.resolve() / "src" / "a.py"
    assert policy.resolve("new/dir/file.txt") == workspace.resolve() / "new/dir/file.txt"


def test_dot_dot_leaving_the_root_is_refused_with_the_workspace_named(workspace: Path) -> None:
    policy = PathPolicy(workspace)

    with pytest.raises(PathPolicyError, match="outside the workspace") as info:
        policy.resolve("../outside.txt")
    assert str(workspace.resolve()) in str(info.value)
    assert "'..'" in str(info.value)


def test_absolute_paths_inside_are_accepted_and_elsewhere_refused(workspace: Path) -> None:
    policy = PathPolicy(workspace)

    assert policy.resolve(str(workspace / "src/a.py")) == workspace.resolve() / "src/a.py"
    with pytest.raises(PathPolicyError, match="'/etc/passwd' is outside the workspace"):
        policy.resolve("/etc/passwd")
    with pytest.raises(PathPolicyError):
        policy.resolve(str(workspace) + "-sibling/x")


def test_symlink_leading_out_is_refused(workspace: Path, tmp_path: Path) -> None:
    (workspace / "link").symlink_to(tmp_path / "outside.txt")
    (workspace / "dirlink").symlink_to(tmp_path)
    policy = PathPolicy(workspace)

    with pytest.raises(PathPolicyError, match="symlink"):
        policy.resolve("link")
    with pytest.raises(PathPolicyError, match="symlink"):
        policy.resolve("dirlink/outside.txt")


def test_symlink_inside_resolves_to_its_target(workspace: Path) -> None:
    (workspace / "alias.py").symlink_to(workspace / "src" / "a.py")

    assert PathPolicy(workspace).resolve("alias.py") == workspace.resolve() / "src" / "a.py"


def test_allowed_roots_accept_absolute_paths_there(workspace: Path, tmp_path: Path) -> None:
    extra = tmp_path / "cache"
    extra.mkdir()
    policy = PathPolicy(workspace, allowed_roots=[extra])

    assert policy.resolve(str(extra / "f")) == extra.resolve() / "f"
    with pytest.raises(PathPolicyError, match="allowed roots"):
        policy.resolve(str(tmp_path / "outside.txt"))


def test_workspace_reached_through_a_symlinked_root(tmp_path: Path, workspace: Path) -> None:
    alias = tmp_path / "alias"
    alias.symlink_to(workspace)
    policy = PathPolicy(alias)

    assert policy.resolve(str(alias / "src/a.py")) == workspace.resolve() / "src/a.py"
    assert policy.resolve(str(workspace / "src/a.py")) == workspace.resolve() / "src/a.py"


def test_empty_and_nul_paths_are_refused(workspace: Path) -> None:
    policy = PathPolicy(workspace)
    for bad in ("", "a\x00b"):
        with pytest.raises(PathPolicyError):
            policy.resolve(bad)


def test_display_is_relative_inside_and_absolute_outside(workspace: Path) -> None:
    policy = PathPolicy(workspace)

    assert policy.display(policy.resolve("src/a.py")) == "src/a.py"
    assert relative_display("/other/x", "/ws") == "/other/x"
    assert relative_display("/ws", "/ws") == "."


_segment = st.sampled_from(["a", "b", "..", ".", "c.txt", ""])


@given(st.lists(_segment, max_size=8), st.booleans())
def test_lexical_resolution_is_inside_a_root_or_refused(parts: list[str], absolute: bool) -> None:
    path = ("/" if absolute else "") + "/".join(parts)
    roots = ["/ws/root", "/extra"]
    try:
        resolved = resolve_lexically(path, roots)
    except PathPolicyError:
        return
    assert any(resolved == r or resolved.startswith(r + "/") for r in roots)
    assert ".." not in resolved.split("/")
    assert os.path.isabs(resolved)
