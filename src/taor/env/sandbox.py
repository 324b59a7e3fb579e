"""``SandboxEnvironment``: ``LocalEnvironment`` with every command run under bubblewrap.

Inside the sandbox the whole filesystem is read-only (``--ro-bind / /``) except the workspace
root and the allowed roots (bound read-write at the same paths), /tmp is a private tmpfs,
/dev and /proc are fresh, and the network is cut (``--unshare-net``) unless ``network=True``.
The sandbox has its own pid, IPC and UTS namespaces (``--unshare-all``).

Killing: bwrap runs without ``--new-session``, so it and everything it starts stay in the
process group that ``run_command`` creates and kills; ``--die-with-parent`` and the pid
namespace finish the rest. Unlike ``LocalEnvironment`` (where they run on until its
``cleanup()``), background children never outlive the command: when bash exits, the sandbox's
pid 1 exits and the kernel kills the whole namespace.

File operations (read, write, list, search) are the host-side ones of ``LocalEnvironment``,
confined by its path policy.
"""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path

from taor.env.base import EnvError
from taor.env.envvars import EnvPolicy
from taor.env.local import LocalEnvironment
from taor.env.process import DEFAULT_TIMEOUT, MAX_TIMEOUT, OUTPUT_CAP

INSTALL_HINT = (
    "Install bubblewrap (Debian/Ubuntu: `apt-get install bubblewrap`; Fedora: "
    "`dnf install bubblewrap`) or use LocalEnvironment."
)
_PROBE_TIMEOUT = 10.0


class SandboxEnvironment(LocalEnvironment):
    """Files like ``LocalEnvironment``; commands confined by bubblewrap (``bwrap``)."""

    def __init__(
        self,
        root: str | Path,
        *,
        network: bool = False,
        bwrap: str = "bwrap",
        allowed_roots: Sequence[str | Path] = (),
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

    async def initialize(self) -> None:
        """Check the workspace root, then that bwrap exists and can start a sandbox here."""
        await super().initialize()
        await _probe(self.command_prefix(self.paths.root))

    def command_prefix(self, cwd: Path) -> list[str]:
        """``bwrap`` and its options; ``run_command`` appends ``/bin/bash -c command``."""
        binds: list[str] = []
        for writable in self.paths.roots:
            if Path(writable).exists():  # a missing allowed root can't be bound (nor written)
                binds += ["--bind", writable, writable]
        return [
            shutil.which(self.bwrap) or self.bwrap,
            "--ro-bind", "/", "/",
            "--dev", "/dev",
            "--proc", "/proc",
            "--tmpfs", "/tmp",  # before the binds: a workspace under /tmp stays visible
            *binds,
            "--unshare-all",
            *(["--share-net"] if self.network else []),
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
