"""``SandboxEnvironment``: ``LocalEnvironment`` with every command run under bubblewrap.

What a command can see is listed in ``taor.env.sandbox_mounts``: system directories and the
toolchains its ``PATH`` uses read-only (private files such as /etc/shadow hidden), fresh
private /tmp, /var/tmp, /run, home, /dev and /proc, and the workspace and allowed roots
read-write. Nothing else of the host is there: no home directories, no sibling projects, no
host unix socket (docker.sock, the D-Bus bus). The network is cut (``--unshare-net``, which also
hides abstract unix sockets) unless ``network=True``. The sandbox has its own user (where the
kernel allows one), pid, IPC, UTS and cgroup namespaces, and every capability is dropped, so a
command run by root cannot remount or write outside the workspace either.

Killing: bwrap runs without ``--new-session``, so it and everything it starts stay in the
process group that ``run_command`` creates and kills; ``--die-with-parent`` and the pid
namespace finish the rest. Unlike ``LocalEnvironment`` (where they run on until its
``cleanup()``), background children never outlive the command: when bash exits, the sandbox's
pid 1 exits and the kernel kills the whole namespace. The fresh /proc also hides taor's own
process, so a command cannot read taor's environment (API keys) from ``/proc/<pid>/environ``.

File operations (read, write, list, search) are the host-side ones of ``LocalEnvironment``,
confined by its path policy.
"""

from __future__ import annotations

import asyncio
import os
import pwd
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path

from taor.env.base import EnvError
from taor.env.envvars import EnvPolicy, command_environ
from taor.env.local import LocalEnvironment
from taor.env.process import DEFAULT_TIMEOUT, MAX_TIMEOUT, OUTPUT_CAP
from taor.env.sandbox_mounts import mount_options

INSTALL_HINT = (
    "Install bubblewrap (Debian/Ubuntu: `apt-get install bubblewrap`; Fedora: "
    "`dnf install bubblewrap`) or use LocalEnvironment."
)
_PROBE_TIMEOUT = 10.0


class SandboxEnvironment(LocalEnvironment):
    """Files like ``LocalEnvironment``; commands confined by bubblewrap (``bwrap``).

    ``ro_paths`` adds host paths the commands may read (a shared cache, a toolchain that
    ``PATH`` does not name)."""

    def __init__(
        self,
        root: str | Path,
        *,
        network: bool = False,
        bwrap: str = "bwrap",
        allowed_roots: Sequence[str | Path] = (),
        ro_paths: Sequence[str | Path] = (),
        env_policy: EnvPolicy = "inherit_all",
        environ: Mapping[str, str] | None = None,
        default_timeout: float = DEFAULT_TIMEOUT,
        max_timeout: float = MAX_TIMEOUT,
        output_cap: int = OUTPUT_CAP,
    ) -> None:
        super().__init__(
            root,
            allowed_roots=allowed_roots,
            env_policy=env_policy,
            environ=environ,
            default_timeout=default_timeout,
            max_timeout=max_timeout,
            output_cap=output_cap,
        )
        self.network = network
        self.bwrap = bwrap
        self.ro_paths = tuple(ro_paths)
        self._mounts: list[str] | None = None

    async def initialize(self) -> None:
        """Check the workspace root, then that bwrap exists and can start a sandbox here."""
        await super().initialize()
        await _probe(self.command_prefix(self.paths.root))

    def command_prefix(self, cwd: Path) -> list[str]:
        """``bwrap`` and its options; ``run_command`` appends ``/bin/bash -c command``."""
        if self._mounts is None:  # the host's layout is read once
            self._mounts = mount_options(
                writable=self.paths.roots,
                environ=command_environ(self._environ, self.env_policy),
                account_home=Path(pwd.getpwuid(os.getuid()).pw_dir),
                ro_paths=self.ro_paths,
                network=self.network,
            )
        return [
            shutil.which(self.bwrap) or self.bwrap,
            *self._mounts,
            "--dev", "/dev",
            "--proc", "/proc",
            "--unshare-all",
            *(["--share-net"] if self.network else []),
            "--cap-drop", "ALL",
            "--die-with-parent",
            "--chdir", str(cwd),
        ]  # fmt: skip


async def _probe(prefix: list[str]) -> None:
    """Run ``/bin/true`` in the sandbox; any failure becomes an ``EnvError`` with the fix."""
    try:
        proc = await asyncio.create_subprocess_exec(
            *prefix,
            "/bin/true",
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
        )
    except OSError as exc:
        message = f"bubblewrap ({prefix[0]}) could not be started: {exc}. {INSTALL_HINT}"
        raise EnvError(message) from exc
    try:
        _, err = await asyncio.wait_for(proc.communicate(), _PROBE_TIMEOUT)
    except TimeoutError:
        proc.kill()
        await proc.wait()
        raise EnvError(f"bubblewrap ({prefix[0]}) did not start a sandbox within 10 s.") from None
    if proc.returncode != 0:
        detail = err.decode("utf-8", "replace").strip() or f"exit code {proc.returncode}"
        raise EnvError(
            f"bubblewrap ({prefix[0]}) could not start a sandbox: {detail}. {INSTALL_HINT} "
            "If it is installed, unprivileged user namespaces may be disabled on this host."
        )
