"""What a hostile command in SandboxEnvironment cannot do, even run by root: remount, write
outside the workspace, reach host unix sockets, read private files or taor's environment; and
what it still can: the usual toolchain."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import os
import pwd
import shutil
import socket
import uuid
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from taor.env import LocalEnvironment, SandboxEnvironment
from taor.env.sandbox_mounts import toolchain_paths

pytestmark = pytest.mark.skipif(
    shutil.which("bwrap") is None, reason="bubblewrap is not installed (apt-get install bubblewrap)"
)
HOME = Path(pwd.getpwuid(os.getuid()).pw_dir)
as_root = pytest.mark.skipif(os.getuid() != 0, reason="shows what root can do without the fix")


@pytest.fixture
def root(tmp_path: Path) -> Path:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    return workspace


@pytest.fixture
async def env(root: Path) -> SandboxEnvironment:
    environment = SandboxEnvironment(root)  # the host's real environment: PATH, HOME, ...
    await environment.initialize()
    return environment


@as_root
async def test_root_in_the_sandbox_has_no_capabilities_and_cannot_remount(
    env: SandboxEnvironment,
) -> None:
    caps = await env.run("grep -E '^Cap(Eff|Prm|Bnd)' /proc/self/status")
    assert [line.split()[1] for line in caps.stdout.splitlines()] == ["0" * 16] * 3
    escaped = Path("/usr/local/escaped")
    for attempt in (
        "mount -o remount,bind,rw /usr",
        "mount -o remount,rw /etc",
        "mount --bind / /mnt",
        "mount -t tmpfs none /usr/local",
        "umount -l /etc",
    ):
        result = await env.run(f"{attempt} && touch {escaped}")
        assert result.exit_code != 0, attempt
    assert not await asyncio.to_thread(escaped.exists)


@as_root
@pytest.mark.parametrize("where", ["/usr/local", "/etc", "/opt", "/usr/lib", "/var", "/", "HOME"])
async def test_root_cannot_write_outside_the_workspace(
    env: SandboxEnvironment, root: Path, where: str
) -> None:
    directory = HOME if where == "HOME" else Path(where)
    target = directory / f"taor-escape-{uuid.uuid4().hex}"

    result = await env.run(f"echo x > {target} || touch {target}; ls {target}")

    assert not target.exists(), result.output
    assert (await env.run("echo ok > inside")).exit_code == 0
    assert (root / "inside").read_text() == "ok\n"


@pytest.fixture
def listeners() -> Iterator[list[tuple[Path, socket.socket]]]:
    """Listening unix sockets on the host in /tmp, /var/tmp, /run and the home directory."""
    made: list[tuple[Path, socket.socket]] = []
    for directory in (Path("/tmp"), Path("/var/tmp"), Path("/run"), HOME):
        if not directory.is_dir():
            continue
        path = directory / f"taor-sock-{uuid.uuid4().hex[:12]}"
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.bind(str(path))
        server.listen(4)
        server.setblocking(False)
        made.append((path, server))
    yield made
    for path, server in made:
        server.close()
        path.unlink(missing_ok=True)


async def test_host_unix_sockets_are_unreachable(
    env: SandboxEnvironment, listeners: list[tuple[Path, socket.socket]]
) -> None:
    assert len(listeners) >= 3
    for path, server in listeners:
        probe = (
            "import socket; s = socket.socket(socket.AF_UNIX); "
            f"s.connect({str(path)!r}); s.sendall(b'hello host')"
        )
        result = await env.run(f"python3 -c {probe!r} && echo SENT")
        assert "SENT" not in result.stdout, (path, result.output)
        with pytest.raises(BlockingIOError):
            server.accept()  # nobody connected
    # the same probe from an unconfined command does get through: the check can fail
    path, server = listeners[0]
    local = LocalEnvironment(env.paths.root)
    sent = await local.run(
        f"python3 -c \"import socket; s = socket.socket(socket.AF_UNIX); s.connect('{path}')\""
    )
    assert sent.exit_code == 0, sent.output
    await asyncio.sleep(0.05)
    server.accept()[0].close()


@pytest.fixture
def private_file() -> Iterator[Path]:
    path = HOME / f".taor-private-{uuid.uuid4().hex[:12]}"
    path.write_text("do not read me\n")
    path.chmod(0o600)
    yield path
    path.unlink()


async def test_private_files_cannot_be_read(env: SandboxEnvironment, private_file: Path) -> None:
    for command in (f"cat {private_file}", f"ls -a {HOME}", "ls /root /home", "cat /etc/shadow"):
        result = await env.run(command)
        assert "do not read me" not in result.stdout and private_file.name not in result.stdout
        assert not any(line.startswith("root:") for line in result.stdout.splitlines()), command
    # the home is empty but for the toolchains PATH points into (here ~/.pyenv, ~/.cargo, ...)
    home = Path(os.environ.get("HOME", str(HOME)))
    toolchains = {
        Path(p).relative_to(home).parts[0]
        for p in toolchain_paths(os.environ, HOME)
        if Path(p).is_relative_to(home)
    }
    listed = await env.run('ls -A "$HOME"')
    assert set(listed.stdout.split()) == toolchains
    assert (
        "do not read me"
        in (await LocalEnvironment(env.paths.root).run(f"cat {private_file}")).stdout
    )


async def test_taors_own_environment_is_hidden(env: SandboxEnvironment, root: Path) -> None:
    """Under LocalEnvironment a command can read taor's environment (API keys) from /proc; the
    sandbox's own pid namespace and /proc hide taor's process."""
    command = f"cat /proc/{os.getpid()}/environ | tr '\\0' '\\n' | grep -c '^PATH='"
    local = await LocalEnvironment(root).run(command)
    sandboxed = await env.run(command)
    assert local.stdout.strip() == "1"
    assert sandboxed.stdout.strip() in ("", "0") and sandboxed.exit_code != 0


async def test_the_usual_toolchain_still_works(env: SandboxEnvironment, root: Path) -> None:
    python = await env.run("python3 -c 'import sys, ssl, sqlite3; print(sys.version_info[0])'")
    assert python.stdout == "3\n", python.output
    git = await env.run(
        "git init -q . && echo hi > a.txt && git add a.txt && "
        "git -c user.name=t -c user.email=t@e commit -qm first && git log --oneline | wc -l"
    )
    assert git.stdout.strip() == "1", git.output
    if shutil.which("rg") is not None:
        assert (await env.run("rg -c hi a.txt")).stdout == "1\n"
    wheel = _tiny_wheel(root)
    pip = await env.run(
        "python3 -m venv .venv && .venv/bin/python -m pip install -q --no-index "
        f"--disable-pip-version-check {wheel.name} && .venv/bin/python -c "
        "'import taor_tiny; print(taor_tiny.VALUE)'",
        timeout=120,
    )
    assert pip.stdout.strip().endswith("42"), pip.output


def _tiny_wheel(directory: Path) -> Path:
    """A pure-Python wheel made by hand, so pip can install it with no index and no build."""
    dist = "taor_tiny-1.0.dist-info"
    files = {
        "taor_tiny/__init__.py": b"VALUE = 42\n",
        f"{dist}/METADATA": b"Metadata-Version: 2.1\nName: taor-tiny\nVersion: 1.0\n",
        f"{dist}/WHEEL": b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
        b"Tag: py3-none-any\n",
    }
    record = [f"{name},sha256={_digest(data)},{len(data)}" for name, data in files.items()] + [
        f"{dist}/RECORD,,"
    ]
    path = directory / "taor_tiny-1.0-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
        archive.writestr(f"{dist}/RECORD", "\n".join(record) + "\n")
    return path


def _digest(data: bytes) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
