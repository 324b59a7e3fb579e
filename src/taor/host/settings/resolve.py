"""The command's settings, merged from every layer with where each value came from.

Layers, later wins: built-in defaults; the user file (``config.toml`` in the user config
directory: ``$XDG_CONFIG_HOME/taor`` on Linux); the project file (``.taor/config.toml`` at the
git root); the ``TAOR_*`` lines of the project's ``.env``; ``TAOR_*`` variables of the process;
the flags. Rule lists and hook lists add up across layers and tool-limit tables merge tool by
tool; any other value is replaced. The project's own layers are confined first (``confine``):
in a folder that is not trusted they may not act for the person. Provider keys come from the
process environment, else the project's ``.env`` (trusted folders only), else the config
files' ``[keys]`` table: a variable set for one run wins over a file, as with every dotenv tool.
Base URLs come only from the process environment, the person's config file and the flags.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field
from pathlib import Path
from typing import Any

from taor._records import frozen
from taor.host.settings.confine import Ignored, confine
from taor.host.settings.layers import Layer, env_layer, file_layer, flag_layer, read_dotenv
from taor.host.settings.schema import BY_NAME, KEYS, Key, check


@frozen
class Settings:
    model: str | None = None
    base_url: str | None = None
    effort: str | None = None
    profile: str = "auto"
    permission_mode: str = "default"
    allow: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()
    max_turns: int | None = None
    max_budget_usd: float | None = None
    max_wall: float | None = None
    temperature: float | None = None
    max_output_tokens: int | None = None
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
    hooks: Mapping[str, tuple[Mapping[str, Any], ...]] = field(default_factory=dict)
    voice_command: str = "taor voice serve"
    voice_start_tool: str = "stt_start_session"
    voice_updates_tool: str = "stt_get_updates"
    voice_stop_tool: str = "stt_stop_session"
    anthropic_key: str | None = None
    openai_key: str | None = None
    gemini_key: str | None = None
    # How they were made: whether the project's folder is trusted and what of its files was
    # left out, where each set value came from, the files looked at (and whether each
    # exists), and the variables providers read their keys from.
    trusted: bool = False
    ignored: tuple[Ignored, ...] = ()
    sources: Mapping[str, str] = field(default_factory=dict)
    files: Mapping[str, bool] = field(default_factory=dict)
    provider_env: Mapping[str, str] = field(default_factory=dict, repr=False)


def resolve(
    *,
    cwd: Path,
    root: Path,
    config_dir: Path,
    environ: Mapping[str, str],
    flags: Mapping[str, Any],
    trusted: bool = False,
) -> Settings:
    """Every layer merged; ``root`` is the project (git root or ``cwd``), ``config_dir`` the
    user's taor config directory, ``trusted`` whether the person trusts the project's folder.
    A bad value raises ``ConfigurationError`` naming its file (or variable, or flag), the key
    and what is allowed."""
    user, project, dotenv_path = (
        config_dir / "config.toml",
        root / ".taor" / "config.toml",
        root / ".env",
    )
    dotenv = read_dotenv(dotenv_path)
    layers = [
        file_layer(user, config_dir),
        file_layer(project, root, project=True),
        env_layer(dotenv, cwd, dotenv=True),
        env_layer(environ, cwd),
        flag_layer(flags, cwd),
    ]
    values: dict[str, Any] = {"instructions_file": str(config_dir / "AGENTS.md")}
    sources: dict[str, str] = {"instructions_file": "default"}
    ignored: list[Ignored] = []
    for layer in layers:
        if layer is not None:
            ignored += layer.ignored
            ignored += _merge(layer, values, sources, root=root, trusted=trusted)
    dotenv, left_out = _dotenv_for_providers(dotenv, trusted)
    provider_env = _provider_env(values, sources, environ, dotenv)
    return Settings(
        **values,
        trusted=trusted,
        ignored=(*ignored, *left_out),
        sources=sources,
        files={str(path): path.is_file() for path in (user, project, dotenv_path)},
        provider_env=provider_env,
    )


def _merge(
    layer: Layer, values: dict[str, Any], sources: dict[str, str], *, root: Path, trusted: bool
) -> list[Ignored]:
    checked = {
        name: check(BY_NAME[name], raw, layer.sources[name], text=layer.text)
        for name, raw in layer.values.items()
    }
    ignored: list[Ignored] = []
    if layer.project:
        checked, ignored = confine(
            checked, layer.sources, so_far=values, root=root, base=layer.base, trusted=trusted
        )
    for name, value in checked.items():
        key = BY_NAME[name]
        if key.kind == "path":
            base = layer.base / (value if layer.project else Path(value).expanduser())
            value = str(base.resolve())
        elif key.kind == "rules":
            value = tuple(dict.fromkeys((*values.get(key.field, ()), *value)))
        elif key.kind == "limits":
            value = {**values.get(key.field, {}), **value}
        elif key.kind == "hooks":
            before = values.get(key.field, {})
            value = {e: (*before.get(e, ()), *value.get(e, ())) for e in {*before, *value}}
        values[key.field] = value
        sources[key.field] = _joined(sources.get(key.field), layer.sources[name], key)
    return ignored


def _dotenv_for_providers(
    dotenv: Mapping[str, str], trusted: bool
) -> tuple[dict[str, str], list[Ignored]]:
    """What of the project's ``.env`` providers may read: its keys, in a trusted folder;
    never an endpoint."""
    from taor.llm.connect import PROVIDERS

    keys = {var for spec in PROVIDERS.values() for var in spec.key_vars}
    endpoints = {var for spec in PROVIDERS.values() for var in spec.base_url_vars}
    kept: dict[str, str] = {}
    ignored: list[Ignored] = []
    for name, value in dotenv.items():
        if name in endpoints:
            ignored.append(Ignored(name=name, source=".env", reason="endpoint"))
        elif name in keys and not trusted:
            ignored.append(Ignored(name=name, source=".env", reason="untrusted"))
        elif name in keys:
            kept[name] = value
    return kept, ignored


def _joined(before: str | None, now: str, key: Key) -> str:
    """Rules and limits name every layer that added to them."""
    if before and before != "default" and key.kind in ("rules", "limits", "hooks"):
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
