"""``ws``: a test that takes it runs on LocalEnvironment and on MemoryEnvironment."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.tools.builtin.workspace import Workspace


@pytest.fixture(params=["local", "memory"])
def ws(request: pytest.FixtureRequest, tmp_path: Path) -> Workspace:
    return Workspace(request.param, tmp_path)
