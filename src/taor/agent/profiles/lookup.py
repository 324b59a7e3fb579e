"""``profile_for``: the profile for a model string, a provider name or a ``Model``.

``"anthropic:claude-sonnet-4-5"`` and ``"anthropic"`` pick by the provider prefix; a Model picks
by its ``.provider``. A bare model id picks by its family's usual prefix (``claude-``, ``gpt-``,
``o3``, ``gemini-``). A few aliases are known (``claude``, ``google``, ``vertex``). taor's own
local model gets the ``small`` profile, and so does a model of any other provider that is not
one of the three families (``ollama``, ``vllm``, ``openai-compat``) when its size, as the
catalog knows it or its id says it (``qwen2.5-coder:1.5b``), is at most
``SMALL_MODEL_BILLIONS``; anything else gets the forgiving ``openai-compat`` profile.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Protocol

from taor.agent.profiles.base import Profile, ProfileId

SMALL_MODEL_BILLIONS = 8.0
"""The largest model (billions of weights) the ``small`` profile is chosen for by itself."""


class _HasProvider(Protocol):
    @property
    def provider(self) -> str: ...

    @property
    def model_id(self) -> str: ...


# id -> (module, builder): a profile's module is imported when that profile is asked for.
BUILDERS: Mapping[ProfileId, tuple[str, str]] = {
    "anthropic": ("taor.agent.profiles.anthropic", "anthropic_profile"),
    "openai": ("taor.agent.profiles.openai", "openai_profile"),
    "gemini": ("taor.agent.profiles.gemini", "gemini_profile"),
    "openai-compat": ("taor.agent.profiles.compat", "compat_profile"),
    "small": ("taor.agent.profiles.small", "small_profile"),
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
    "local": "small",  # taor's own llama.cpp server: small models
    "small": "small",
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
    if isinstance(model, str):
        provider, sep, model_id = model.strip().lower().partition(":")
        if not sep and provider not in _ALIASES:  # a bare model id
            return _by_size(provider, _by_prefix(provider))
    else:
        provider, model_id = model.provider.strip().lower(), model.model_id
    chosen = _ALIASES.get(provider, "openai-compat")
    return _by_size(model_id, chosen) if chosen == "openai-compat" else chosen


def profile_for(model: str | _HasProvider) -> Profile:
    """The profile for a model string (``"openai:gpt-5"``), a provider name, a bare model id
    or a ``Model`` (by its ``.provider`` and size); unknown ones get ``openai-compat``."""
    return profile_by_id(profile_id_for(model))


def profile_by_id(profile_id: ProfileId) -> Profile:
    """The profile named ``profile_id`` (``--profile``)."""
    module, builder = BUILDERS[profile_id]
    make: Callable[[], Profile] = getattr(importlib.import_module(module), builder)
    return make()


def _by_prefix(model_id: str) -> ProfileId:
    for prefix, profile_id in _MODEL_PREFIXES:
        if model_id.startswith(prefix):
            return profile_id
    return "openai-compat"


def _by_size(model_id: str, chosen: ProfileId) -> ProfileId:
    """``small`` for an open model the catalog or its id says is small; else ``chosen``."""
    if chosen != "openai-compat":
        return chosen
    from taor.llm.catalog import Catalog

    size = Catalog.default().lookup("openai-compat", model_id).parameters  # else by its id
    return "small" if size is not None and size <= SMALL_MODEL_BILLIONS else chosen
