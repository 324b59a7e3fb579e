"""``taor doctor`` checks what is set up and says how to fix each gap, through the real
command: keys by where they were found (never their values), the tools on ``PATH``, a
bubblewrap that is installed but cannot start a sandbox, a broken configuration."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from .support import in_process, taor

SECRET = "sk-ant-test-0123456789abcdef"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """The working directory; its siblings hold the config directory and the test's tools."""
    (tmp_path / "project").mkdir()
    return tmp_path / "project"


def doctor(cwd: Path, **env: str) -> tuple[int, dict[str, str], str]:
    """The exit code, each check's line by its name, and everything printed."""
    isolated = {"XDG_CONFIG_HOME": str(cwd.parent / "config"), "OPENAI_COMPAT_BASE_URL": ""}
    done = in_process("doctor", cwd=cwd, env={**isolated, **env})
    assert "Traceback" not in done.stderr
    lines = {line.split()[1]: line for line in done.stdout.splitlines()}
    return done.returncode, lines, done.stdout + done.stderr


def test_a_key_in_the_environment_makes_its_provider_ready(project: Path) -> None:
    code, lines, everything = doctor(project, ANTHROPIC_API_KEY=SECRET)
    assert code == 0
    assert lines["anthropic"].split()[0] == "ok" and "ANTHROPIC_API_KEY" in lines["anthropic"]
    assert lines["model"].split()[:2] == ["ok", "model"] and "anthropic:" in lines["model"]
    assert lines["openai"].split()[0] == "missing" and "OPENAI_API_KEY" in lines["openai"]
    assert lines["sessions"].split()[0] == "ok" and lines["python"].split()[0] == "ok"
    assert lines["local"].startswith("missing") and "taor models install" in lines["local"]
    assert SECRET not in everything and SECRET[-8:] not in everything


def test_a_key_in_the_project_env_file_is_found_and_not_shown(project: Path) -> None:
    (project / ".env").write_text(f"OPENAI_API_KEY={SECRET}\n")
    code, lines, everything = doctor(project)
    assert code == 1 and lines["openai"].startswith("missing")
    assert "OPENAI_API_KEY in the project's files is not used until you trust" in lines["openai"]
    trusted = in_process(
        "trust", cwd=project, env={"XDG_CONFIG_HOME": str(project.parent / "config")}
    )
    assert trusted.returncode == 0, trusted.stderr
    code, lines, everything = doctor(project)
    assert code == 0 and "OPENAI_API_KEY (the project's .env)" in lines["openai"]
    assert SECRET not in everything


def test_no_key_says_what_to_set_and_exits_1(project: Path) -> None:
    code, lines, _ = doctor(project)
    assert code == 1
    for provider, var in [("anthropic", "ANTHROPIC_API_KEY"), ("gemini", "GOOGLE_API_KEY")]:
        assert lines[provider].startswith("missing") and var in lines[provider]
    assert lines["model"].startswith("missing") and "--model openai-compat:NAME" in lines["model"]


def test_tools_missing_from_path_say_how_to_install_them(project: Path) -> None:
    bin_dir = project.parent / "bin"
    bin_dir.mkdir()
    git = shutil.which("git")
    assert git is not None
    (bin_dir / "git").symlink_to(git)
    code, lines, _ = doctor(project, PATH=str(bin_dir), ANTHROPIC_API_KEY=SECRET)
    assert code == 0  # none of them is required
    assert "not on PATH" in lines["rg"] and "apt-get install ripgrep" in lines["rg"]
    assert lines["bwrap"].startswith("missing") and "apt-get install bubblewrap" in lines["bwrap"]
    assert lines["git"].startswith("ok")


def test_a_bwrap_that_cannot_start_a_sandbox_is_reported_as_broken(project: Path) -> None:
    bin_dir = project.parent / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "bwrap"  # what bwrap says in a container without user namespaces
    fake.write_text(
        "#!/bin/sh\necho 'bwrap: No permissions to creating new namespace' >&2\nexit 1\n"
    )
    fake.chmod(0o755)
    path = f"{bin_dir}{os.pathsep}{os.environ['PATH']}"
    code, lines, _ = doctor(project, PATH=path, ANTHROPIC_API_KEY=SECRET)
    assert code == 0
    assert lines["bwrap"].startswith("broken") and "cannot start a sandbox here" in lines["bwrap"]
    assert "No permissions to creating new namespace" in lines["bwrap"]
    assert "without --sandbox" in lines["bwrap"]


def test_a_bad_config_file_is_broken_and_usage_errors_exit_2(project: Path) -> None:
    (project / ".taor").mkdir()
    (project / ".taor" / "config.toml").write_text('[permissions]\nmode = "yolo"\n')
    code, lines, _ = doctor(project, ANTHROPIC_API_KEY=SECRET)
    assert code == 1 and lines["config"].startswith("broken")
    assert "permissions.mode" in lines["config"] and "yolo" in lines["config"]
    done = taor("doctor", "--frobnicate", cwd=project)
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1 and done.stdout == ""


def test_an_installed_local_model_is_a_model_to_use(project: Path) -> None:
    from taor.llm.local.known import DEFAULT, KNOWN

    models = project.parent / "models"
    models.mkdir()
    with (models / KNOWN[DEFAULT].filename).open("wb") as file:
        file.truncate(KNOWN[DEFAULT].size)  # sparse: the size marks it installed
    code, lines, _ = doctor(project, TAOR_MODELS_DIR=str(models))
    assert code == 0  # no key, but --model local can run
    assert lines["local"].startswith("ok") and "--model local" in lines["local"]
    assert lines["model"].split()[:3] == ["ok", "model", "local"]
