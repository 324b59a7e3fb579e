"""Fixtures of the parity suite: one loopback server for the whole package (each test's steps
go to its ``Script``) and ``parity``, parametrized over the three profiles."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from taor.testing import FakeProviderServer

from .harness import Parity, Script
from .native import PROFILES, Native

MEMORY_ROOT = "/workspace"


@pytest.fixture(scope="package")
def shared() -> Iterator[tuple[FakeProviderServer, Script]]:
    script = Script()
    with FakeProviderServer(default=script) as server:
        yield server, script


@pytest.fixture(params=PROFILES)
def profile(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def _parity(shared: tuple[FakeProviderServer, Script], profile: str, root: str) -> Iterator[Parity]:
    server, script = shared
    script.reset()
    server.requests.clear()
    yield Parity(
        profile=profile,
        server=server,
        script=script,
        native=Native(profile=profile, root=root),
        root=root,
    )
    assert script.left() == 0, f"{script.left()} scripted step(s) were never used"


@pytest.fixture
def parity(shared: tuple[FakeProviderServer, Script], profile: str) -> Iterator[Parity]:
    """A row on MemoryEnvironment (root /workspace)."""
    yield from _parity(shared, profile, MEMORY_ROOT)


@pytest.fixture
def local(
    shared: tuple[FakeProviderServer, Script], profile: str, tmp_path: Path
) -> Iterator[Parity]:
    """A row on LocalEnvironment(tmp_path), with real processes."""
    yield from _parity(shared, profile, str(tmp_path))
