"""``profile_for``: the profile for a model string, a provider name or a ``Model``.

``"anthropic:claude-sonnet-4-5"`` and ``"anthropic"`` pick by the provider prefix; a Model picks
by its ``.provider``. A bare model id picks by its family's usual prefix (``claude-``, ``gpt-``,
``o3``, ``gemini-``). A few aliases are known (``claude``, ``google``, ``vertex``); anything else,
including local servers (``ollama``, ``vllm``, ``lmstudio``), gets the forgiving
``openai-compat`` profile.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Protocol

from taor.agent.profiles.base import Profile, ProfileId


class _HasProvider(Protocol):
    @property
    def provider(self) -> str: ...


# id -> (module, builder): a profile's module is imported when that profile is asked for.
BUILDERS: Mapping[ProfileId, tuple[str, str]] = {
    "anthropic": ("taor.agent.profiles.anthropic", "anthropic_profile"),
    "openai": ("taor.agent.profiles.openai", "openai_profile"),
    "gemini": ("taor.agent.profiles.gemini", "gemini_profile"),
    "openai-compat": ("taor.agent.profiles.compat", "compat_profile"),
    "local": ("taor.agent.profiles.local", "local_profile"),
}
_ALIASES: Mapping[str, ProfileId] = {
    "anthropic": "anthropic",
    "claude": "anthropic",
    "openai": "openai",
    "codex": "openai",
    "gemini": "gemini",
    "google": "gemini",
    "google-genai": "gemini",
    "vertex": "gemini",
    "vertexai": "gemini",
    "local": "local",  # taor's own llama.cpp server: small models
}
_MODEL_PREFIXES: tuple[tuple[str, ProfileId], ...] = (
    ("claude-", "anthropic"),
    ("gpt-oss", "openai-compat"),  # open weights, served by compatible servers
    ("gpt-", "openai"),
    ("chatgpt-", "openai"),
    ("codex-", "openai"),
    ("o1", "openai"),
    ("o3", "openai"),
    ("o4", "openai"),
    ("gemini-", "gemini"),
)


def profile_id_for(model: str | _HasProvider) -> ProfileId:
    """The id of the profile that suits ``model`` (``openai-compat`` when none is known)."""
    text = (model if isinstance(model, str) else model.provider).strip().lower()
    provider, sep, _ = text.partition(":")
    if sep or provider in _ALIASES:  # a provider prefix, or a provider name alone
        return _ALIASES.get(provider, "openai-compat")
    for prefix, profile_id in _MODEL_PREFIXES:  # a bare model id
        if text.startswith(prefix):
            return profile_id
    return "openai-compat"


def profile_for(model: str | _HasProvider) -> Profile:
    """The profile for a model string (``"openai:gpt-5"``), a provider name, a bare model id
    or a ``Model`` (by its ``.provider``); unknown ones get the ``openai-compat`` profile."""
    module, builder = BUILDERS[profile_id_for(model)]
    make: Callable[[], Profile] = getattr(importlib.import_module(module), builder)
    return make()
