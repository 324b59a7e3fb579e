"""Which environment variables a command sees.

Host variables that look like credentials are never passed on, by name or by value:

- names (any case) containing KEY, SECRET, TOKEN, PASSW, PASSPHRASE, CREDENTIAL, PRIVATE or
  COOKIE, or with AUTH, PAT, PWD or DSN as a whole ``_``-separated word (``NPM_AUTH``, ``GH_PAT``,
  ``MYSQL_PWD``, ``SENTRY_DSN``; ``PWD``, ``OLDPWD`` and ``GIT_AUTHOR_NAME`` pass);
- values holding a URL with a password (``postgres://user:pw@host/db`` in ``DATABASE_URL``,
  ``http://user:pw@proxy`` in ``HTTPS_PROXY``), a well-known token (GitHub ``ghp_``/``gho_``/
  ``ghu_``/``ghs_``/``ghr_``/``github_pat_``, OpenAI/Anthropic ``sk-``, Slack ``xox?-``, AWS
  ``AKIA``/``ASIA`` key ids, GitLab ``glpat-``, Google ``AIza``, npm ``npm_``, Hugging Face
  ``hf_``, Stripe ``sk_live_``/``rk_live_``, SendGrid ``SG.``), a JSON Web Token, a PEM
  private key, a Slack or Discord webhook URL, or a password field (``Password=...`` in a
  connection string, ``password=...`` in a URL's query or a libpq DSN, ``"password": "..."``).

Policies:

- ``inherit_all``: every host variable except those secrets;
- ``core_only``: only the allowlist (PATH, HOME, USER, SHELL, LANG, LC_*, TERM, TMPDIR and the
  toolchain variables below), secrets still dropped;
- ``none``: nothing from the host.

Variables the caller passes explicitly are added as given, whatever their names. This keeps
credentials out of commands' output and so out of transcripts; it is not a security boundary
on its own: under ``LocalEnvironment`` a command can still read taor's own environment from
``/proc/<pid>/environ`` (only ``SandboxEnvironment``, with its own pid namespace, hides it).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Literal

EnvPolicy = Literal["inherit_all", "core_only", "none"]

_SECRET_NAME = re.compile(
    r"KEY|SECRET|TOKEN|PASSW|PASSPHRASE|CREDENTIAL|PRIVATE|COOKIE"
    r"|(?:^|_)(?:AUTH|PAT|DSN)(?:_|$)|_PWD(?:_|$)",
    re.IGNORECASE,
)
_SECRET_VALUE = re.compile(
    r"[A-Za-z][A-Za-z0-9+.-]*://[^/\s:@]*:[^/\s@]+@"  # a URL with user:password@
    r"|\b(?:gh[pousr]_|github_pat_)[A-Za-z0-9_]{20,}"
    r"|\bsk-[A-Za-z0-9_-]{20,}"
    r"|\bxox[abposr]-[A-Za-z0-9-]{10,}"
    r"|\b(?:AKIA|ASIA)[A-Z0-9]{16}\b"
    r"|\bglpat-[A-Za-z0-9_-]{20,}"
    r"|\bAIza[0-9A-Za-z_-]{35}"
    r"|\bnpm_[A-Za-z0-9]{36}"
    r"|\bhf_[A-Za-z0-9]{30,}"
    r"|\b[sr]k_live_[A-Za-z0-9]{20,}"
    r"|\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}"
    r"|\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\."  # a JSON Web Token
    r"|-----BEGIN [A-Z ]*PRIVATE KEY-----"
    r"|\bhooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/-]+"  # a Slack webhook
    r"|\bdiscord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_-]+"  # a Discord webhook
    r"|(?<![A-Za-z0-9_])(?i:password|passwd|pwd)\s*=\s*[^\s;&'\"]"  # Password=x;, ?password=x
    r"|\"(?i:password|passwd)\"\s*:\s*\"[^\"]"  # "password": "x" (JSON)
)

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
    return _SECRET_NAME.search(name) is not None


def is_secret_value(value: str) -> bool:
    """True for values that look like credentials whatever their variable's name."""
    return _SECRET_VALUE.search(value) is not None


def is_secret(name: str, value: str) -> bool:
    """True when the name or the value looks like a credential."""
    return is_secret_name(name) or is_secret_value(value)


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
        if (keep_all or is_core_name(name)) and not is_secret(name, value)
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
