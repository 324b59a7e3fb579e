"""``--profile`` (``profile =``, ``TAOR_PROFILE``): the tools and prompt a run's model gets,
by the model (``auto``) or as named; seen in the request the model server receives."""

from __future__ import annotations

from pathlib import Path

import pytest

from taor.agent.profiles import SUBAGENT_TOOLS
from taor.testing import FakeProviderServer, text

from ..agent.test_profiles import EXPECTED_TOOLS
from .support import home, taor

TOOLS = EXPECTED_TOOLS  # each profile's own tools, as the profile tests list them


def offered(server: FakeProviderServer) -> list[str]:
    """The profile's own tools of the last request (the subagent tools that the three families'
    profiles add are left out)."""
    names = [tool["function"]["name"] for tool in server.requests[-1].json["tools"]]
    return [name for name in names if name not in SUBAGENT_TOOLS]


def run(server: FakeProviderServer, cwd: Path, model: str, *extra: str, **env: str) -> None:
    server.push(text("Done."))
    url = server.base_url("openai-compat")
    done = taor("-p", "hi", "--model", model, "--base-url", url, *extra, cwd=cwd, env=env)
    assert (done.returncode, done.stdout) == (0, "Done.\n"), done.stderr


@pytest.mark.parametrize("profile", sorted(TOOLS))
def test_each_profile_named_gives_its_tools(
    tmp_path: Path, server: FakeProviderServer, profile: str
) -> None:
    run(server, tmp_path, "openai-compat:some-model", "--profile", profile)
    assert offered(server) == TOOLS[profile]


@pytest.mark.parametrize(
    ("model", "profile"),
    [
        ("openai-compat:some-model", "openai-compat"),  # no size known: the forgiving one
        ("openai-compat:qwen2.5-coder:1.5b", "small"),  # up to 8B by its id
        ("openai-compat:qwen2.5-coder:32b", "openai-compat"),
    ],
)
def test_auto_chooses_by_the_model(
    tmp_path: Path, server: FakeProviderServer, model: str, profile: str
) -> None:
    run(server, tmp_path, model, "--profile", "auto")
    assert offered(server) == TOOLS[profile]
    run(server, tmp_path, model)  # auto is the default
    assert offered(server) == TOOLS[profile]


def test_the_config_file_and_the_environment_name_it_too(
    tmp_path: Path, server: FakeProviderServer
) -> None:
    config = home(tmp_path, "config") / "taor" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('profile = "small"\n')
    run(server, tmp_path, "openai-compat:some-model")
    assert offered(server) == TOOLS["small"]
    run(server, tmp_path, "openai-compat:some-model", TAOR_PROFILE="gemini")
    assert offered(server) == TOOLS["gemini"]
    run(server, tmp_path, "openai-compat:some-model", "--profile", "openai", TAOR_PROFILE="gemini")
    assert offered(server) == TOOLS["openai"]  # the flag over the variable over the file


def test_an_unknown_profile_is_one_line_that_says_what_is_allowed(tmp_path: Path) -> None:
    done = taor("-p", "hi", "--profile", "tiny", cwd=tmp_path)
    assert done.returncode == 2 and "invalid choice: 'tiny'" in done.stderr
    assert "small" in done.stderr and "Traceback" not in done.stderr
    done = taor("-p", "hi", cwd=tmp_path, env={"TAOR_PROFILE": "tiny"})
    assert done.returncode == 2 and "TAOR_PROFILE" in done.stderr and "small" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
