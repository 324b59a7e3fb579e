"""A host that is not the command composes its session from settings alone: the project's
settings resolved for a folder, a session recorded in the project's folder of sessions,
continued by the next host, with the real provider SDK path against the fake server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from taor.host import sessions
from taor.host.compose.session import session_for
from taor.host.settings.project import settings_for
from taor.testing import FakeProviderServer, Reply, text


@pytest.fixture
def server() -> Iterator[FakeProviderServer]:
    with FakeProviderServer(default=Reply(text="(the script is over)")) as fake:
        yield fake


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME"):
        monkeypatch.setenv(name, str(tmp_path / name.lower()))
    root = tmp_path / "project"
    (root / ".taor").mkdir(parents=True)
    (root / ".taor" / "config.toml").write_text('model = "openai-compat:local"\n')
    return root


async def test_a_session_made_from_settings_is_recorded_and_continued(
    project: Path, server: FakeProviderServer
) -> None:
    flags = {"base_url": server.base_url("openai-compat")}
    settings = settings_for(project, {}, flags=flags)
    assert (settings.model, settings.sources["model"]) == (
        "openai-compat:local",
        str(project / ".taor" / "config.toml"),
    )
    server.push(text("First."), text("Second."))

    session, model = session_for(project, settings)
    async with session:
        first = await session.run("one")
    await model.aclose()
    (recorded,) = sorted(sessions.sessions_dir(project).glob("*.jsonl"))
    assert first.text == "First." and sessions.session_id(recorded) == session.id

    again, model = session_for(project, settings, latest=True)
    async with again:
        second = await again.run("two")
    await model.aclose()
    assert (second.text, again.id) == ("Second.", session.id)
    assert [m["content"] for m in server.requests[-1].json["messages"] if m["role"] == "user"] == [
        "one",
        "two",
    ]
