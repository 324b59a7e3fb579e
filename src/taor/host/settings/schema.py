"""What the configuration may hold: each key's TOML name, its flag and environment variable,
and the values it allows. ``check`` turns a raw value from any layer into a valid one or a
``ConfigurationError`` that names where it came from, the key and what is allowed."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, assert_never

from taor._records import frozen
from taor.errors import ConfigurationError

Kind = Literal[
    "str",
    "path",
    "choice",
    "int",
    "number",
    "temperature",
    "bool",
    "rules",
    "limits",
    "hooks",
    "secret",
]


@frozen
class Key:
    """``name`` is the dotted TOML key; ``field`` the ``Settings`` attribute; ``flag`` and
    ``env`` the ways to set it for one run (empty: none)."""

    name: str
    field: str
    kind: Kind
    choices: tuple[str, ...] = ()
    flag: str = ""

    @property
    def env(self) -> str:
        """Scalars can come from ``TAOR_<NAME>`` (dots as underscores); lists, tables and
        keys cannot (keys have their providers' own variables)."""
        if self.kind in ("rules", "limits", "hooks", "secret"):
            return ""
        return "TAOR_" + self.name.replace(".", "_").upper()


EFFORTS = ("minimal", "low", "medium", "high")
PROFILES = ("auto", "anthropic", "openai", "gemini", "openai-compat", "small")
MODES = ("default", "accept_edits", "plan", "bypass")
LEVELS = ("debug", "info", "warning", "error")
VERBOSITY = ("quiet", "normal", "verbose")
INPUT_FORMATS = ("text", "stream-json")
OUTPUT_FORMATS = ("text", "json", "stream-json")  # --quiet, neither, --verbose
HOOK_EVENTS = ("before_tool", "after_tool", "user_prompt", "stop")
HOOK_FIELDS: Mapping[str, type | tuple[type, ...]] = {
    "command": str,
    "match": str,
    "timeout": (int, float),
}

KEYS: tuple[Key, ...] = (
    Key(name="model", field="model", kind="str", flag="--model"),
    Key(name="base_url", field="base_url", kind="str", flag="--base-url"),
    Key(name="effort", field="effort", kind="choice", choices=EFFORTS, flag="--effort"),
    Key(name="profile", field="profile", kind="choice", choices=PROFILES, flag="--profile"),
    Key(
        name="permissions.mode",
        field="permission_mode",
        kind="choice",
        choices=MODES,
        flag="--permission-mode",
    ),
    Key(name="permissions.allow", field="allow", kind="rules", flag="--allow"),
    Key(name="permissions.deny", field="deny", kind="rules", flag="--deny"),
    Key(name="max_turns", field="max_turns", kind="int", flag="--max-turns"),
    Key(name="max_budget_usd", field="max_budget_usd", kind="number", flag="--max-budget-usd"),
    Key(name="max_wall", field="max_wall", kind="number", flag="--max-wall"),
    Key(name="temperature", field="temperature", kind="temperature", flag="--temperature"),
    Key(
        name="max_output_tokens",
        field="max_output_tokens",
        kind="int",
        flag="--max-output-tokens",
    ),
    Key(name="sandbox", field="sandbox", kind="bool", flag="--sandbox"),
    Key(
        name="input_format",
        field="input_format",
        kind="choice",
        choices=INPUT_FORMATS,
        flag="--input-format",
    ),
    Key(
        name="output_format",
        field="output_format",
        kind="choice",
        choices=OUTPUT_FORMATS,
        flag="--output-format",
    ),
    Key(
        name="append_system_prompt",
        field="append_system_prompt",
        kind="str",
        flag="--append-system-prompt",
    ),
    Key(
        name="system_prompt_file",
        field="system_prompt_file",
        kind="path",
        flag="--system-prompt-file",
    ),
    Key(name="instructions_file", field="instructions_file", kind="path"),
    Key(name="verbosity", field="verbosity", kind="choice", choices=VERBOSITY, flag="--verbose"),
    Key(name="log_level", field="log_level", kind="choice", choices=LEVELS),
    Key(name="tool_output_limits", field="tool_output_limits", kind="limits"),
    Key(name="tool_line_limits", field="tool_line_limits", kind="limits"),
    Key(name="hooks", field="hooks", kind="hooks"),
    # Voice input (/voice): the speech-to-text MCP server's command and its tools' names.
    Key(name="voice.command", field="voice_command", kind="str"),
    Key(name="voice.start_tool", field="voice_start_tool", kind="str"),
    Key(name="voice.updates_tool", field="voice_updates_tool", kind="str"),
    Key(name="voice.stop_tool", field="voice_stop_tool", kind="str"),
    Key(name="keys.anthropic", field="anthropic_key", kind="secret"),
    Key(name="keys.openai", field="openai_key", kind="secret"),
    Key(name="keys.gemini", field="gemini_key", kind="secret"),
)

BY_NAME: Mapping[str, Key] = {key.name: key for key in KEYS}

_ALLOWED: Mapping[str, str] = {
    "str": "a string",
    "path": "a path (a string; ~ is your home)",
    "int": "a positive whole number",
    "number": "a positive number",
    "temperature": "a number from 0 to 2",
    "bool": "true or false",
    "rules": 'a list of rules like "shell(git status*)" or "edit_file(src/**)"',
    "limits": "a table of tool names to positive whole numbers, like { shell = 20000 }",
    "hooks": (
        "a table of hook lists by event (" + ", ".join(HOOK_EVENTS) + "), each hook a table "
        'like { command = "scripts/check.sh", match = "shell", timeout = 30 }'
    ),
    "secret": "a string (the provider's API key)",
}


def allowed(key: Key) -> str:
    if key.kind == "choice":
        return "one of " + ", ".join(key.choices)
    return _ALLOWED[key.kind]


def unknown(name: str, where: str) -> ConfigurationError:
    import difflib

    near = difflib.get_close_matches(name, BY_NAME, n=1)
    hint = f" (did you mean {near[0]!r}?)" if near else f"; known keys: {', '.join(BY_NAME)}"
    return ConfigurationError(f"{where}: unknown key {name!r}{hint}")


def check(key: Key, raw: Any, where: str, *, text: bool = False) -> Any:
    """``raw`` as a valid value of ``key``; ``text`` (an environment variable's) is parsed
    as the key's type first."""
    value = _from_text(key, raw) if text and isinstance(raw, str) else raw
    if _valid(key, value):
        return tuple(value) if key.kind == "rules" else value
    raise ConfigurationError(
        f"{where}: {key.name} = {raw!r} is not allowed; it must be {allowed(key)}"
    )


def _from_text(key: Key, text: str) -> Any:
    """An environment variable's text as the key's type (left as it is when it does not parse,
    so that the error shows what was given)."""
    try:
        if key.kind == "int":
            return int(text)
        if key.kind in ("number", "temperature"):
            return float(text)
    except ValueError:
        return text
    if key.kind == "bool":
        return {"1": True, "true": True, "yes": True, "0": False, "false": False, "no": False}.get(
            text.strip().lower(), text
        )
    return text


def _valid(key: Key, value: Any) -> bool:
    match key.kind:
        case "str" | "path" | "secret":
            return isinstance(value, str) and bool(value.strip())
        case "choice":
            return value in key.choices
        case "int":
            return type(value) is int and value > 0
        case "number":
            return type(value) in (int, float) and value > 0
        case "temperature":
            return type(value) in (int, float) and 0 <= value <= 2
        case "bool":
            return isinstance(value, bool)
        case "rules":
            return isinstance(value, list | tuple) and all(isinstance(r, str) and r for r in value)
        case "limits":
            return isinstance(value, dict) and all(
                isinstance(k, str) and type(v) is int and v > 0 for k, v in value.items()
            )
        case "hooks":
            return isinstance(value, dict) and all(
                event in HOOK_EVENTS and isinstance(hooks, list) and all(map(_hook, hooks))
                for event, hooks in value.items()
            )
        case _:
            assert_never(key.kind)


def _hook(hook: Any) -> bool:
    """``{command = "...", match = "shell*", timeout = 30}``: a command, the rest optional."""
    return (
        isinstance(hook, dict)
        and isinstance(hook.get("command"), str)
        and bool(hook["command"].strip())
        and all(
            name in HOOK_FIELDS
            and isinstance(value, HOOK_FIELDS[name])
            and not isinstance(value, bool)
            for name, value in hook.items()
        )
        and hook.get("timeout", 1) > 0
    )
