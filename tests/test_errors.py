"""The one error tree: every exception class taor defines is a ``TaorError``, and a misuse of a
session raises the same class whichever way it comes."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import taor
from taor.agent.session import Session
from taor.agent.subagents import SubagentManager
from taor.env.memory import MemoryEnvironment
from taor.errors import (
    ConfigurationError,
    EnvError,
    PathNotFoundError,
    SessionError,
    TaorError,
    ToolError,
    UnknownIdError,
)
from taor.testing import ScriptedModel
from taor.tools.edit import EditError
from taor.tools.patch.model import PatchError


def _exception_classes() -> dict[str, type[BaseException]]:
    found: dict[str, type[BaseException]] = {}
    for info in pkgutil.walk_packages(taor.__path__, "taor."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if (
                inspect.isclass(value)
                and issubclass(value, BaseException)
                and value.__module__ == info.name
            ):
                found[f"{info.name}.{name}"] = value
    return found


def test_every_exception_taor_defines_is_a_taor_error() -> None:
    classes = _exception_classes()
    assert len(classes) > 25  # the walk found them (the provider errors alone are 14)
    outside = sorted(name for name, cls in classes.items() if not issubclass(cls, TaorError))
    assert outside == []


def test_tool_and_environment_errors_keep_their_old_homes_and_meanings() -> None:
    from taor.env.base import EnvError as EnvErrorFromEnv
    from taor.tools.base import ToolError as ToolErrorFromTools

    assert EnvErrorFromEnv is EnvError and ToolErrorFromTools is ToolError
    assert issubclass(PathNotFoundError, EnvError)
    assert issubclass(PatchError, ToolError) and issubclass(PatchError, ValueError)
    assert issubclass(EditError, ToolError) and issubclass(EditError, ValueError)
    assert issubclass(ConfigurationError, ValueError)


async def test_an_empty_input_is_the_same_error_for_a_session_and_a_subagent() -> None:
    async with Session(ScriptedModel([]), environment=MemoryEnvironment()) as session:
        with pytest.raises(SessionError, match="empty"):
            session.submit("  ")
        manager = SubagentManager(lambda spec: session, MemoryEnvironment(), publish=print)
        with pytest.raises(SessionError, match="empty"):
            await manager.spawn("  ")


async def test_an_unknown_id_is_a_session_error_and_a_key_error_with_a_plain_message() -> None:
    async with Session(ScriptedModel([]), environment=MemoryEnvironment()) as session:
        with pytest.raises(UnknownIdError) as caught:
            session.decide("perm_nope", "allow")
    assert isinstance(caught.value, SessionError) and isinstance(caught.value, KeyError)
    assert str(caught.value) == "no pending permission request 'perm_nope'"
