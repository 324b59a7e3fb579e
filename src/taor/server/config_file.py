"""``taor serve``'s settings: the ``[serve]`` table of the person's own config file, then
``TAOR_SERVE_<KEY>`` variables, then the flags (later wins).

    [serve]
    host = "127.0.0.1"
    port = 8765
    data_dir = "~/taor-service"        # relative paths: from the config file's folder
    workers = 4
    model = "anthropic:claude-sonnet-4-5"   # for a run that names none
    cors_origins = ["https://tools.example.org"]

The keys are ``host`` and ``port`` (``Address``) and every field of ``ServiceConfig`` by its
name (``model`` is ``default_model``), each checked against the field's type: a field added
to ``ServiceConfig`` is a key here with nothing else to change.

Only the person's own file configures a service. A repository's ``.taor/config.toml`` could
otherwise widen CORS or a host allowlist for whoever starts a service in it, so its
``[serve]`` table is ignored (``project_notice`` says so in one line).

Nothing here imports the server's libraries: ``taor doctor`` reads these settings too.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar

from taor._records import frozen
from taor.errors import ConfigurationError
from taor.server.config import ServiceConfig
from taor.server.config_types import Key, convert, from_text, keys_of

SECTION = "serve"
RENAMED = {"default_model": "model"}  # field: its key in the file (and its flag)
ENV_PREFIX = "TAOR_SERVE_"
T = TypeVar("T")


@frozen
class Address:
    """Where the service listens."""

    host: str = "127.0.0.1"
    port: int = 8765


@frozen
class Serve:
    """The service's settings, with where each one set came from (``sources``, by key)."""

    address: Address
    config: ServiceConfig
    sources: Mapping[str, str]


def keys() -> dict[str, Key]:
    """Every key ``[serve]`` may hold, by its name there."""
    return keys_of((Address, ServiceConfig), RENAMED)


def user_file() -> Path:
    """The person's own config file (``$XDG_CONFIG_HOME/taor/config.toml`` on Linux)."""
    from platformdirs import user_config_dir

    return Path(user_config_dir("taor")) / "config.toml"


def default_data_dir() -> Path:
    from platformdirs import user_data_dir

    return Path(user_data_dir("taor")) / "service"


def load(
    *,
    flags: Mapping[str, Any],
    environ: Mapping[str, str],
    cwd: Path,
    file: Path | None = None,
) -> Serve:
    """The settings from the user's file (``file``, by default ``user_file()``), the
    variables and ``flags`` (by key; None: not given). A bad key or value raises
    ``ConfigurationError`` naming where it was, the key and what it takes."""
    known = keys()
    path = file or user_file()
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for name, raw in read_table(path).items():
        if name not in known:
            raise unknown(name, str(path), known)
        values[name] = convert(known[name], raw, f"{path}: serve.{name} = {raw!r}", path.parent)
        sources[name] = str(path)
    for name, key in known.items():
        text = environ.get(ENV_PREFIX + name.upper())
        if text:
            var = f"{ENV_PREFIX}{name.upper()}"
            values[name] = convert(key, from_text(key, text), f"{var}={text!r}", cwd)
            sources[name] = f"env {var}"
    for name, raw in flags.items():
        if raw is not None:
            flag = "--" + name.replace("_", "-")
            values[name] = convert(known[name], raw, f"{flag} {raw}", cwd)
            sources[name] = f"flag {flag}"
    values.setdefault("data_dir", default_data_dir())
    by_field = {known[name].field: value for name, value in values.items()}
    return Serve(
        address=_made(Address, by_field), config=_made(ServiceConfig, by_field), sources=sources
    )


def read_table(path: Path) -> dict[str, Any]:
    """The ``[serve]`` table of the TOML file at ``path`` (empty when there is none)."""
    import tomllib

    try:
        with path.open("rb") as handle:
            table = tomllib.load(handle)
    except FileNotFoundError:
        return {}
    except tomllib.TOMLDecodeError as error:
        raise ConfigurationError(f"{path}: not valid TOML: {error}") from None
    except UnicodeDecodeError as error:
        raise ConfigurationError(f"{path}: not UTF-8 text (byte {error.start})") from None
    except OSError as error:
        raise ConfigurationError(f"{path}: cannot be read: {error.strerror}") from None
    serve = table.get(SECTION, {})
    if not isinstance(serve, dict):
        raise ConfigurationError(f"{path}: serve must be a table ([serve] and its keys)")
    return serve


def unknown(name: str, where: str, known: Mapping[str, Key]) -> ConfigurationError:
    import difflib

    near = RENAMED.get(name) or next(iter(difflib.get_close_matches(name, known, n=1)), None)
    hint = f"did you mean 'serve.{near}'?" if near else "known keys: " + ", ".join(known)
    return ConfigurationError(f"{where}: unknown key 'serve.{name}' ({hint})")


def project_notice(cwd: Path) -> str | None:
    """One line when the project's ``.taor/config.toml`` has a ``[serve]`` table: it is not
    used. A project file taor cannot read is left to the commands that read it."""
    from taor.host.sessions.paths import project_root

    path = project_root(cwd) / ".taor" / "config.toml"
    try:
        found = bool(read_table(path))
    except ConfigurationError:
        return None
    if not found:
        return None
    return (
        f"ignored [serve] in {path}: a project's file never configures a service; "
        f"put it in your own config file ({user_file()})"
    )


def _made(cls: type[T], by_field: Mapping[str, Any]) -> T:
    names = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    return cls(**{name: value for name, value in by_field.items() if name in names})
