"""Where settings come from, each as a ``Layer`` of raw values: the user's and the project's
config files (TOML, read with tomllib), ``TAOR_*`` variables, the project's ``.env`` (read with
python-dotenv) and the flags of this run."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from taor._records import frozen
from taor.errors import ConfigurationError
from taor.host.settings.confine import Ignored
from taor.host.settings.schema import BY_NAME, KEYS, unknown

# Tables of the config file that belong to another front end, read by it (``[serve]``: the
# service's, and only from the person's own file: a project's is ignored, with a notice).
OTHER_TABLES = ("serve",)
# Tables read by another part of the host with rules of its own (``[mcp]``: the MCP servers,
# ``taor.host.mcp``, whose project servers start only in a trusted folder).
OWN_TABLES = ("mcp",)


@frozen
class Layer:
    """Raw values by dotted key name, each with where it came from (``sources``) and whether it
    is text to parse (environment variables). Relative paths in it are from ``base``."""

    values: Mapping[str, Any]
    sources: Mapping[str, str]
    base: Path
    text: bool = False
    project: bool = False  # the project's own files: confined (``confine``) before merging
    ignored: tuple[Ignored, ...] = ()  # left out before merging (a project's [serve])


def file_layer(path: Path, base: Path, *, project: bool = False) -> Layer | None:
    """The settings in a TOML file, or None when there is no such file."""
    import tomllib  # here: taor --help builds its flags from the schema, and reads no file

    try:
        with path.open("rb") as handle:
            table = tomllib.load(handle)
    except FileNotFoundError:
        return None
    except tomllib.TOMLDecodeError as error:
        raise ConfigurationError(f"{path}: not valid TOML: {error}") from None
    except UnicodeDecodeError as error:
        raise ConfigurationError(
            f"{path}: not UTF-8 text (byte {error.start}); save it as UTF-8"
        ) from None
    except OSError as error:
        raise ConfigurationError(f"{path}: cannot be read: {error.strerror}") from None
    others = [name for name in OTHER_TABLES if table.pop(name, None) is not None]
    for name in OWN_TABLES:
        table.pop(name, None)
    ignored = [Ignored(name=f"[{name}]", source=str(path), reason="service") for name in others]
    values = _flatten(table, "", str(path))
    return Layer(
        values=values,
        sources=dict.fromkeys(values, str(path)),
        base=base,
        project=project,
        ignored=tuple(ignored) if project else (),
    )


def _flatten(table: Mapping[str, Any], prefix: str, where: str) -> dict[str, Any]:
    """``{"permissions": {"mode": ..}}`` as ``{"permissions.mode": ..}``; tables that are values
    (tool limits) stay whole."""
    flat: dict[str, Any] = {}
    for name, value in table.items():
        dotted = prefix + name
        if dotted in BY_NAME:
            flat[dotted] = value
        elif isinstance(value, dict) and any(key.startswith(dotted + ".") for key in BY_NAME):
            flat.update(_flatten(value, dotted + ".", where))
        else:
            raise unknown(dotted, where)
    return flat


def env_layer(names: Mapping[str, str], cwd: Path, *, dotenv: bool = False) -> Layer:
    """The ``TAOR_*`` variables of the process (or, ``dotenv``, of the project's ``.env``)."""
    where = ".env" if dotenv else "env"
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for key in KEYS:
        if key.env and names.get(key.env):
            values[key.name], sources[key.name] = names[key.env], f"{where} {key.env}"
    return Layer(values=values, sources=sources, base=cwd, text=True, project=dotenv)


def read_dotenv(path: Path) -> dict[str, str]:
    """The variables a project's ``.env`` sets itself (none when it has none). ``${VAR}`` is
    left as written: a project's file does not get to read the person's other variables. Bytes
    that are not UTF-8 are read as U+FFFD."""
    import io

    from dotenv import dotenv_values

    try:
        text = path.read_bytes().decode("utf-8", errors="replace")
    except OSError:  # none, or not a file taor can read: as if there were none
        return {}
    values = dotenv_values(stream=io.StringIO(text), interpolate=False)
    return {name: value for name, value in values.items() if value}


def flag_layer(flags: Mapping[str, Any], cwd: Path) -> Layer:
    """The values the flags of this run gave (None, False and empty lists: not given)."""
    values = {name: value for name, value in flags.items() if _given(value)}
    sources = {name: f"flag {BY_NAME[name].flag}" for name in values}
    if values.get("verbosity") == "quiet":
        sources["verbosity"] = "flag --quiet"
    return Layer(values=values, sources=sources, base=cwd)


def _given(value: Any) -> bool:
    return value is not None and value is not False and value != [] and value != ()
