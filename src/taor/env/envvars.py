"""Which environment variables a command sees.

Names containing KEY, SECRET, TOKEN, PASSW, CREDENTIAL or PRIVATE (any case) are never passed
on from the host environment. Policies:

- ``inherit_all``: every host variable except those secrets;
- ``core_only``: only the allowlist (PATH, HOME, USER, SHELL, LANG, LC_*, TERM, TMPDIR and the
  toolchain variables below), secrets still dropped;
- ``none``: nothing from the host.

Variables the caller passes explicitly are added as given, whatever their names. This is a
guard against leaking credentials into transcripts, not a security boundary.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Literal

EnvPolicy = Literal["inherit_all", "core_only", "none"]

_SECRET = re.compile(r"KEY|SECRET|TOKEN|PASSW|CREDENTIAL|PRIVATE", re.IGNORECASE)

CORE_NAMES = frozenset(
    {
        "PATH",
        "HOME",
        "USER",
        "LOGNAME",
        "SHELL",
        "LANG",
        "LANGUAGE",
        "TERM",
        "TMPDIR",
        "TZ",
        # toolchains
        "GOPATH",
        "GOROOT",
        "GOCACHE",
        "GOMODCACHE",
        "CARGO_HOME",
        "RUSTUP_HOME",
        "JAVA_HOME",
        "GRADLE_USER_HOME",
        "MAVEN_HOME",
        "VIRTUAL_ENV",
        "CONDA_PREFIX",
        "PYENV_ROOT",
        "PYTHONPATH",
        "UV_CACHE_DIR",
        "PIP_CACHE_DIR",
        "NODE_PATH",
        "NVM_DIR",
        "NPM_CONFIG_PREFIX",
        "BUN_INSTALL",
        "DENO_DIR",
        "GEM_HOME",
        "GEM_PATH",
        "RBENV_ROOT",
        "DOTNET_ROOT",
        "ANDROID_HOME",
        "CC",
        "CXX",
    }
)
_CORE_PREFIXES = ("LC_",)


def is_secret_name(name: str) -> bool:
    """True for names that look like they hold credentials."""
    return _SECRET.search(name) is not None


def is_core_name(name: str) -> bool:
    """True for the allowlisted names kept by ``core_only``."""
    return name in CORE_NAMES or name.startswith(_CORE_PREFIXES)


def filter_environ(environ: Mapping[str, str], policy: EnvPolicy) -> dict[str, str]:
    """The host variables ``policy`` passes on, secrets always removed."""
    if policy == "none":
        return {}
    keep_all = policy == "inherit_all"
    return {
        name: value
        for name, value in environ.items()
        if not is_secret_name(name) and (keep_all or is_core_name(name))
    }


def command_environ(
    environ: Mapping[str, str],
    policy: EnvPolicy,
    extra: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The environment of a command: the filtered host variables, then ``extra`` as given."""
    result = filter_environ(environ, policy)
    if extra:
        result.update(extra)
    return result
