"""What ``taor doctor`` checks, one ``Check`` each: a status, and what to do about a gap.

``fatal`` marks what taor cannot run without (Python 3.11, a readable configuration, a model to
use: a key, a local server or the local model; a writable sessions directory); the tools (rg,
git, bwrap) and the local model only make some things better or possible, so their gaps are
reported and not fatal.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Set
from pathlib import Path

from taor.host.checks import Check
from taor.host.settings import Settings

PROBE_TIMEOUT = 10.0


def python() -> Check:
    """Informative: an older Python cannot import taor at all (it needs 3.11)."""
    version = ".".join(map(str, sys.version_info[:3]))
    return Check(name="python", status="ok", detail=f"{version} at {sys.executable}")


def key_sources(environ: Mapping[str, str], settings: Settings | None) -> dict[str, str]:
    """Where each provider's key is set ('' when nowhere), by provider: from the merged
    settings (the environment, the project's .env, the config files' [keys]), or from the
    environment alone when the settings could not be read. Never the key itself."""
    from taor.llm.connect import PROVIDERS

    found: dict[str, str] = {}
    for provider, spec in PROVIDERS.items():
        source = settings.sources.get(f"{provider}_key", "") if settings else ""
        if not source:
            var = next((v for v in spec.key_vars if environ.get(v)), "")
            source = f"env {var}" if var else ""
        found[provider] = source
    return found


def held_keys(settings: Settings | None) -> Set[str]:
    """The keys the project's files set that are not used: its folder is not trusted."""
    ignored = settings.ignored if settings else ()
    return {item.name for item in ignored if item.reason == "untrusted"}


def keys(
    sources: Mapping[str, str], config_file: str, *, held: Set[str] = frozenset()
) -> list[Check]:
    from taor.llm.connect import PROVIDERS

    checks = []
    for provider, source in sources.items():
        spec = PROVIDERS[provider]
        if not spec.key_required:
            continue
        if source:
            checks.append(Check(name=provider, status="ok", detail=f"key from {_where(source)}"))
            continue
        names = " or ".join(spec.key_vars)
        unused = [name for name in (*spec.key_vars, f"keys.{provider}") if name in held]
        if unused:
            detail = f"{unused[0]} in the project's files is not used until you trust this folder (taor trust)"
            checks.append(Check(name=provider, status="missing", detail=detail))
            continue
        fix = f"set {names} (in the environment or .env), or [keys] {provider} in {config_file}"
        checks.append(Check(name=provider, status="missing", detail=f"no key: {fix}"))
    return checks


def _where(source: str) -> str:
    kind, _, var = source.partition(" ")
    if kind == "env":
        return f"{var} (environment)"
    if kind == ".env":
        return f"{var} (the project's .env)"
    return f"[keys] in {source}"


def model(settings: Settings | None, environ: Mapping[str, str]) -> Check:
    """The model ``taor -p`` would use without ``--model``, chosen as a run chooses it."""
    from taor.host.compose.model import default_model

    if settings is None:
        return Check(name="model", status="note", detail="unknown until the config is fixed")
    chosen = default_model(settings)
    if chosen:
        return Check(name="model", status="ok", detail=f"{chosen[0]} ({chosen[1]})")
    compat = settings.base_url or environ.get("OPENAI_COMPAT_BASE_URL")
    if compat:
        detail = f"no key; a local server is set ({compat}): use --model openai-compat:NAME"
        return Check(name="model", status="missing", detail=detail)
    detail = (
        "no provider key: set one of the keys above, install the local model (taor models "
        "install), or use an OpenAI-compatible server with --model openai-compat:NAME "
        "--base-url URL"
    )
    return Check(name="model", status="missing", detail=detail, fatal=True)


def tool(name: str, install: str) -> Check:
    path = shutil.which(name)
    if path:
        return Check(name=name, status="ok", detail=f"{path} ({_version(path)})")
    return Check(name=name, status="missing", detail=f"not on PATH: {install}")


def ripgrep() -> Check:
    """taor's grep uses its own rg (the ripgrep package) when PATH has none; the model's
    shell commands need it on PATH."""
    from taor.tools.ripgrep import find_rg

    on_path, own = shutil.which("rg"), find_rg()
    if on_path:
        return Check(name="rg", status="ok", detail=f"{on_path} ({_version(on_path)})")
    install = "install ripgrep (apt-get install ripgrep, or brew install ripgrep)"
    if own:
        detail = (
            f"not on PATH, so the model's commands cannot run it (taor's grep uses {own}): "
            f"{install}, or add {Path(own).parent} to PATH"
        )
        return Check(name="rg", status="note", detail=detail)
    detail = f"not found (taor's grep falls back to a slower search): {install}"
    return Check(name="rg", status="missing", detail=detail)


def bwrap() -> Check:
    """A real sandbox started the way ``--sandbox`` starts one: bwrap can be installed and
    still fail (in a container without user namespaces)."""
    path = shutil.which("bwrap")
    if path is None:
        return Check(
            name="bwrap",
            status="missing",
            detail="--sandbox needs bubblewrap: "
            "apt-get install bubblewrap (Fedora: dnf install bubblewrap)",
        )
    from taor.env.sandbox import SandboxEnvironment

    with tempfile.TemporaryDirectory() as root:
        prefix = SandboxEnvironment(root).command_prefix(Path(root))
        try:
            run = subprocess.run(
                [*prefix, "/bin/true"],
                capture_output=True,
                text=True,
                timeout=PROBE_TIMEOUT,
                stdin=subprocess.DEVNULL,
            )
            error = run.stderr.strip().splitlines()[-1] if run.returncode else ""
            error = error or (f"exit code {run.returncode}" if run.returncode else "")
        except (OSError, subprocess.TimeoutExpired) as exc:
            error = str(exc)
    if not error:
        return Check(name="bwrap", status="ok", detail=f"{path} starts a sandbox (--sandbox works)")
    return Check(
        name="bwrap",
        status="broken",
        detail=f"{path} is installed but cannot start a "
        f"sandbox here ({error}); usual in a container without user namespaces: run "
        "without --sandbox, or allow unprivileged user namespaces on the host",
    )


def sessions_dir(folder: Path) -> Check:
    existing = next(p for p in (folder, *folder.parents) if p.exists())
    if existing.is_dir() and os.access(existing, os.W_OK | os.X_OK):
        return Check(name="sessions", status="ok", detail=f"{folder} (writable)")
    return Check(
        name="sessions",
        status="broken",
        fatal=True,
        detail=f"{existing} is not "
        f"writable, so no run can be recorded: fix its permissions, or set XDG_DATA_HOME",
    )


def local_model() -> Check:
    """The local provider: llama.cpp (the ``local`` extra) and the default model installed."""
    import importlib.util

    from taor.llm.local.checks import EXTRA_COMMAND
    from taor.llm.local.install import is_installed
    from taor.llm.local.known import DEFAULT, KNOWN, models_dir

    path = models_dir() / KNOWN[DEFAULT].filename
    gaps = []
    if importlib.util.find_spec("xllamacpp") is None:
        gaps.append(f"llama.cpp is not installed: {EXTRA_COMMAND}")
    if not is_installed(KNOWN[DEFAULT], path.parent):
        gaps.append(f"{DEFAULT} is not installed: taor models install")
    if gaps:
        return Check(name="local model", status="missing", detail="; ".join(gaps))
    return Check(name="local model", status="ok", detail=f"{DEFAULT} at {path}: --model local")


def _version(path: str) -> str:
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return "version unknown"
    lines = out.stdout.strip().splitlines()
    return lines[0] if lines else "version unknown"
