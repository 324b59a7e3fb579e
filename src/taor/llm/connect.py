"""``connect("provider:model")``: a ready ``Model`` from a model string, keys from the
environment (or arguments). No provider SDK is imported (the adapters post over taor's own
HTTP client). ``local`` (alone, ``local:NAME`` or ``local:/path/model.gguf``) is a llama.cpp
server taor runs itself (``taor.llm.local``)."""

from __future__ import annotations

import importlib
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from taor.errors import ConfigurationError
from taor.llm.model import Model, Timeouts


@dataclass(frozen=True, slots=True)
class _Provider:
    adapter: str
    key_vars: tuple[str, ...]
    base_url_vars: tuple[str, ...]
    key_required: bool = True
    # adapter option -> the variable it is read from when not given (as the SDKs read them)
    option_vars: Mapping[str, str] = field(default_factory=dict)


PROVIDERS: Mapping[str, _Provider] = {
    "anthropic": _Provider(
        "taor.llm.adapters.anthropic:AnthropicModel",
        ("ANTHROPIC_API_KEY",),
        ("ANTHROPIC_BASE_URL",),
    ),
    "openai": _Provider(
        "taor.llm.adapters.openai:OpenAIModel",
        ("OPENAI_API_KEY",),
        ("OPENAI_BASE_URL",),
        option_vars={"organization": "OPENAI_ORG_ID", "project": "OPENAI_PROJECT_ID"},
    ),
    "openai-compat": _Provider(
        "taor.llm.adapters.openai_compat:OpenAICompatModel",
        ("OPENAI_COMPAT_API_KEY",),
        ("OPENAI_COMPAT_BASE_URL",),
        key_required=False,
    ),
    "gemini": _Provider(
        "taor.llm.adapters.gemini:GeminiModel",
        ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
        ("GEMINI_BASE_URL", "GOOGLE_GEMINI_BASE_URL"),
    ),
    "local": _Provider("taor.llm.local.model:LocalModel", (), (), key_required=False),
}
LOCAL = "local"


def parse_model_string(model: str) -> tuple[str, str]:
    provider, sep, model_id = model.partition(":")
    if provider == LOCAL:
        return provider, model_id  # alone: the default local model
    if not sep or not model_id:
        raise ConfigurationError(
            f"model {model!r} needs a provider prefix, like 'anthropic:claude-sonnet-4-5'; "
            f"known providers: {', '.join(PROVIDERS)}"
        )
    if provider not in PROVIDERS:
        raise ConfigurationError(
            f"unknown provider {provider!r} in {model!r}; known providers: {', '.join(PROVIDERS)}"
        )
    return provider, model_id


def connect(
    model: str,
    *,
    api_key: str | None = None,
    base_url: str | None = None,
    timeouts: Timeouts | None = None,
    env: Mapping[str, str] | None = None,
    **options: Any,
) -> Model:
    """A model from ``provider:model_id``. Keys and base URLs come from the arguments, else
    from ``env`` (default: the process environment). Extra ``options`` go to the adapter
    (for example ``transport=`` for record/replay)."""
    provider, model_id = parse_model_string(model)
    spec = PROVIDERS[provider]
    env = os.environ if env is None else env
    if provider == LOCAL:
        local = importlib.import_module("taor.llm.local.model")
        served: Model = local.connect_local(model_id, env=env, timeouts=timeouts, **options)
        return served
    api_key = api_key or _first(env, spec.key_vars)
    base_url = base_url or _first(env, spec.base_url_vars)
    if not api_key and spec.key_required:
        raise ConfigurationError(
            f"no API key for {provider}: set {' or '.join(spec.key_vars)} in the environment"
        )
    if provider == "openai-compat" and not base_url:
        raise ConfigurationError(
            "openai-compat needs the server's URL: give --base-url (base_url= in code) or set "
            "OPENAI_COMPAT_BASE_URL, for example http://localhost:11434/v1 for Ollama"
        )
    for option, var in spec.option_vars.items():
        if env.get(var):
            options.setdefault(option, env[var])
    module_name, _, class_name = spec.adapter.partition(":")
    adapter = getattr(importlib.import_module(module_name), class_name)
    instance: Model = adapter(
        model_id, api_key=api_key or "not-needed", base_url=base_url, timeouts=timeouts, **options
    )
    return instance


def _first(env: Mapping[str, str], names: tuple[str, ...]) -> str | None:
    return next((env[n] for n in names if env.get(n)), None)
