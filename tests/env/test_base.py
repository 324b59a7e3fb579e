"""The result records and the error hierarchy of taor.env."""

from __future__ import annotations

import dataclasses

import pytest

import taor.env
from taor.env import CommandResult, EnvError, PathNotFoundError, PathPolicyError


def _result(**changes: int) -> CommandResult:
    base = CommandResult(
        command="true",
        exit_code=0,
        stdout="",
        stderr="",
        output="",
        duration=0.01,
        timed_out=False,
        timeout=10.0,
    )
    return dataclasses.replace(base, **changes)


def test_truncated_is_true_only_when_bytes_were_dropped() -> None:
    assert not _result().truncated
    assert _result(stdout_dropped=5).truncated
    assert _result(output_dropped=1).truncated


def test_records_are_frozen_and_keyword_only() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        _result().exit_code = 1  # type: ignore[misc]
    with pytest.raises(TypeError):
        CommandResult("true", 0, "", "", "", 0.0, False, 10.0)  # type: ignore[misc]


def test_errors_share_one_base_that_is_not_a_builtin_name() -> None:
    assert issubclass(PathPolicyError, EnvError)
    assert issubclass(PathNotFoundError, EnvError)
    assert not issubclass(EnvError, OSError)


def test_exports_are_listed_and_importable() -> None:
    assert sorted(taor.env.__all__) == taor.env.__all__
    for name in taor.env.__all__:
        assert hasattr(taor.env, name)
