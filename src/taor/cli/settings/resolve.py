"""The command's settings, merged from every layer with where each value came from.

Layers, later wins: built-in defaults; the user file (``config.toml`` in the user config
directory: ``$XDG_CONFIG_HOME/taor`` on Linux); the project file (``.taor/config.toml`` at the
git root); ``TAOR_*`` variables (the process's, else those of the project's ``.env``); the flags.
Rule lists add up across layers and tool-limit tables merge tool by tool; any other value is
replaced. Provider keys come from the process environment, else the project's ``.env``, else
the config files' ``[keys]`` table: a variable set for one run wins over a file, as with every
dotenv tool.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from taor.cli.settings.layers import Layer, env_layer, file_layer, flag_layer, read_dotenv
from taor.cli.settings.schema import BY_NAME, KEYS, Key, check


@dataclass(frozen=True, kw_only=True, slots=True)
class Settings:
    model: str | None = None
    base_url: str | None = None
    effort: str | None = None
    permission_mode: str = "default"
    allow: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()
    max_turns: int | None = None
    max_budget_usd: float | None = None
    max_wall: float | None = None
    sandbox: bool = False
    input_format: str = "text"
    output_format: str = "text"
    append_system_prompt: str | None = None
    system_prompt_file: str | None = None
    instructions_file: str | None = None
    verbosity: str = "normal"
    log_level: str = "info"
    tool_output_limits: Mapping[str, int] = field(default_factory=dict)
    tool_line_limits: Mapping[str, int] = field(default_factory=dict)
    anthropic_key: str | None = None
    openai_key: str | None = None
    gemini_key: str | None = None
    trusted: bool = False
    # How they were made: where each set value came from, the files looked at (and whether
    # each exists), and the variables providers read their keys from.
    sources: Mapping[str, str] = field(default_factory=dict)
    files: Mapping[str, bool] = field(default_factory=dict)
    provider_env: Mapping[str, str] = field(default_factory=dict, repr=False)


def resolve(
    *, cwd: Path, root: Path, config_dir: Path, environ: Mapping[str, str], flags: Mapping[str, Any]
) -> Settings:
    """Every layer merged; ``root`` is the project (git root or ``cwd``), ``config_dir`` the
    user's taor config directory. A bad value raises ``ConfigurationError`` naming its file
    (or variable, or flag), the key and what is allowed."""
    user, project, dotenv_path = (
        config_dir / "config.toml",
        root / ".taor" / "config.toml",
        root / ".env",
    )
    dotenv = read_dotenv(dotenv_path)
    layers = [
        file_layer(user, config_dir),
        file_layer(project, root),
        env_layer(environ, dotenv, cwd),
        flag_layer(flags, cwd),
    ]
    values: dict[str, Any] = {"instructions_file": str(config_dir / "AGENTS.md")}
    sources: dict[str, str] = {"instructions_file": "default"}
    for layer in layers:
        if layer is not None:
            _merge(layer, values, sources)
    provider_env = _provider_env(values, sources, environ, dotenv)
    return Settings(
        **values,
        sources=sources,
        files={str(path): path.is_file() for path in (user, project, dotenv_path)},
        provider_env=provider_env,
    )


def _merge(layer: Layer, values: dict[str, Any], sources: dict[str, str]) -> None:
    for name, raw in layer.values.items():
        key = BY_NAME[name]
        value = check(key, raw, layer.sources[name], text=layer.text)
        if key.kind == "path":
            value = str((layer.base / Path(value).expanduser()).resolve())
        elif key.kind == "rules":
            value = tuple(dict.fromkeys((*values.get(key.field, ()), *value)))
        elif key.kind == "limits":
            value = {**values.get(key.field, {}), **value}
        values[key.field] = value
        sources[key.field] = _joined(sources.get(key.field), layer.sources[name], key)


def _joined(before: str | None, now: str, key: Key) -> str:
    """Rules and limits name every layer that added to them."""
    if before and before != "default" and key.kind in ("rules", "limits"):
        return f"{before} + {now}"
    return now


def _provider_env(
    values: dict[str, Any],
    sources: dict[str, str],
    environ: Mapping[str, str],
    dotenv: Mapping[str, str],
) -> dict[str, str]:
    """The variables a provider reads its key (and base URL) from: the config files' keys under
    the ``.env``'s under the process's. Each key's value and source follow what wins."""
    from taor.llm.connect import PROVIDERS

    merged: dict[str, str] = {}
    for key in KEYS:
        if key.kind == "secret" and key.field in values:
            merged[PROVIDERS[key.name.split(".", 1)[1]].key_vars[0]] = values[key.field]
    merged.update(dotenv)
    merged.update(environ)
    for key in KEYS:
        if key.kind != "secret":
            continue
        for var in PROVIDERS[key.name.split(".", 1)[1]].key_vars:
            where = "env" if environ.get(var) else ".env" if dotenv.get(var) else ""
            if where:
                values[key.field], sources[key.field] = merged[var], f"{where} {var}"
                break
    return merged
