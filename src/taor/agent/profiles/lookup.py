"""``profile_for``: the profile for a model string, a provider name or a ``Model``.

``"anthropic:claude-sonnet-4-5"`` and ``"anthropic"`` pick by the provider prefix; a Model picks
by its ``.provider``. A bare model id picks by its family's usual prefix (``claude-``, ``gpt-``,
``o3``, ``gemini-``). A few aliases are known (``claude``, ``google``, ``vertex``); anything else,
including local servers (``ollama``, ``vllm``, ``lmstudio``), gets the forgiving
``openai-compat`` profile.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Protocol

from taor.agent.profiles.anthropic import anthropic_profile
from taor.agent.profiles.base import Profile, ProfileId
from taor.agent.profiles.compat import compat_profile
from taor.agent.profiles.gemini import gemini_profile
from taor.agent.profiles.local import local_profile
from taor.agent.profiles.openai import openai_profile


class _HasProvider(Protocol):
    @property
    def provider(self) -> str: ...


BUILDERS: Mapping[ProfileId, Callable[[], Profile]] = {
    "anthropic": anthropic_profile,
    "openai": openai_profile,
    "gemini": gemini_profile,
    "openai-compat": compat_profile,
    "local": local_profile,
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
    return BUILDERS[profile_id_for(model)]()
