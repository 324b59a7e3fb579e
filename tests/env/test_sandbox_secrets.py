"""Credential files inside the toolchain folders the sandbox binds read empty, through real
bubblewrap commands, while the toolchains themselves stay usable."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from taor.env import SandboxEnvironment

pytestmark = pytest.mark.skipif(
    shutil.which("bwrap") is None, reason="bubblewrap is not installed (apt-get install bubblewrap)"
)
SECRET = "s3cret-value-do-not-read"
# Where each toolchain keeps its credentials, relative to a home directory.
HOME_CREDENTIALS = (
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".gem/credentials",
    ".npmrc",
    ".pypirc",
    ".pip/pip.conf",
    ".config/pip/pip.conf",
    ".docker/config.json",
    ".netrc",
    ".git-credentials",
    ".aws/credentials",
    ".config/gcloud/credentials.db",
    ".azure/msal_token_cache.json",
    ".kube/config",
    ".ssh/id_ed25519",
)


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _credential(path: Path) -> Path:
    if path.name == "pip.conf":  # a pip.conf is a credential when its index URL has a password
        return _write(path, f"[global]\nindex-url = https://me:{SECRET}@pypi.corp/simple\n")
    return _write(path, f"token = {SECRET}\n")


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A home with a cargo (a program, its config) and a RubyGems folder, and every credential."""
    home = tmp_path / "home"
    cargo = _write(home / ".cargo/bin/cargo-hello", "#!/bin/sh\necho cargo works\n")
    cargo.chmod(0o755)
    _write(home / ".cargo/config.toml", "[build]\njobs = 2\n")
    _write(home / ".gem/gems/tiny/lib/tiny.rb", "TINY = 1\n")
    _write(home / "notes.txt", "just notes\n")
    for name in HOME_CREDENTIALS:
        _credential(home / name)
    return home


def _environ(home: Path, *path: str) -> dict[str, str]:
    return {"PATH": os.pathsep.join([*path, "/usr/bin", "/bin"]), "HOME": str(home)}


async def _sandbox(root: Path, environ: dict[str, str], **options: object) -> SandboxEnvironment:
    environment = SandboxEnvironment(root, environ=environ, **options)  # type: ignore[arg-type]
    await environment.initialize()
    return environment


@pytest.fixture
def root(tmp_path: Path) -> Path:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    return workspace


@pytest.mark.parametrize("name", ["credentials", "credentials.toml"])
async def test_cargo_home_is_usable_but_its_credentials_read_empty(
    root: Path, home: Path, name: str
) -> None:
    cargo = home / ".cargo"
    environ = {**_environ(home, str(cargo / "bin")), "CARGO_HOME": str(cargo)}
    environment = await _sandbox(root, environ)

    stolen = await environment.run(f'cat "$CARGO_HOME/{name}"')
    usable = await environment.run('cargo-hello && cat "$CARGO_HOME/config.toml"')

    assert SECRET not in stolen.output
    assert usable.stdout == "cargo works\n[build]\njobs = 2\n", usable.output
    assert SECRET in (cargo / name).read_text()  # the host's file is untouched


async def test_gem_home_is_usable_but_its_credentials_read_empty(root: Path, home: Path) -> None:
    environ = {**_environ(home), "GEM_HOME": str(home / ".gem")}
    environment = await _sandbox(root, environ)

    stolen = await environment.run('cat "$GEM_HOME/credentials"')
    usable = await environment.run('cat "$GEM_HOME/gems/tiny/lib/tiny.rb"')

    assert SECRET not in stolen.output
    assert usable.stdout == "TINY = 1\n"


@pytest.mark.parametrize("name", HOME_CREDENTIALS)
async def test_a_home_on_the_path_shows_its_files_but_no_credential(
    root: Path, home: Path, name: str
) -> None:
    environment = await _sandbox(root, _environ(home, str(home)))

    stolen = await environment.run(f'cat "$HOME/{name}"; grep -r . "$HOME/{name}"')
    usable = await environment.run('cat "$HOME/notes.txt"')

    assert SECRET not in stolen.output
    assert usable.stdout == "just notes\n"


async def test_an_extra_read_only_path_shows_no_credential(root: Path, home: Path) -> None:
    environment = await _sandbox(root, _environ(home), ro_paths=[home])

    stolen = await environment.run(f'grep -r "{SECRET}" "$HOME"')

    assert SECRET not in stolen.output
    assert (await environment.run('cat "$HOME/.cargo/config.toml"')).stdout.startswith("[build]")


async def test_a_venv_pip_conf_without_credentials_stays_readable(
    root: Path, tmp_path: Path
) -> None:
    venv = tmp_path / "venv"
    plain = _write(venv / "pip.conf", "[global]\nindex-url = https://pypi.corp/simple\n")
    _write(venv / "bin/python-ish", "")
    environ = {**_environ(tmp_path / "nohome", str(venv / "bin")), "VIRTUAL_ENV": str(venv)}
    environment = await _sandbox(root, environ)

    assert (await environment.run(f"cat {plain}")).stdout == plain.read_text()
    _credential(venv / "pip.conf")
    environment = await _sandbox(root, environ)
    assert SECRET not in (await environment.run(f"cat {plain}")).output
