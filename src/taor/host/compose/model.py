"""The model a run uses: the one the settings name, else the first provider with a key, else
the local model; a clear error that says how to get one when there is none."""

from __future__ import annotations

from taor.errors import ConfigurationError
from taor.host.settings import Settings
from taor.llm.connect import PROVIDERS, connect
from taor.llm.model import Model

# The model a key alone chooses, in this order of preference.
DEFAULT_MODELS = (
    ("anthropic", "claude-sonnet-4-5"),
    ("openai", "gpt-5.1"),
    ("gemini", "gemini-2.5-pro"),
)


def model_from(settings: Settings) -> Model:
    """The model ``default_model`` chooses; a clear error when there is none."""
    chosen = default_model(settings)
    if chosen is None:
        raise ConfigurationError(no_key_message())
    return connect(chosen[0], base_url=settings.base_url, env=settings.provider_env)


def default_model(settings: Settings) -> tuple[str, str] | None:
    """The model a run uses and why: the one the settings name, else the first provider with
    a key, else the local model when it is installed (so taor works offline with no key)."""
    env = settings.provider_env
    if settings.model:
        return settings.model, f"from {settings.sources.get('model', 'the settings')}"
    for provider, model_id in DEFAULT_MODELS:
        if any(env.get(var) for var in PROVIDERS[provider].key_vars):
            why = "the first provider with a key; --model or model = in the config picks another"
            return f"{provider}:{model_id}", why
    from taor.llm.local.known import resolve

    if resolve("", env).path.is_file():
        return "local", "no provider key, and the local model is installed"
    return None


def no_key_message() -> str:
    looked = ", ".join(var for p, _ in DEFAULT_MODELS for var in PROVIDERS[p].key_vars)
    return (
        f"no model to use: none of {looked} is set. Set one of them (for example "
        "`export ANTHROPIC_API_KEY=...`, or a line `ANTHROPIC_API_KEY=...` in the project's "
        '.env, or `[keys] anthropic = "..."` in ~/.config/taor/config.toml), or run a model on '
        "this machine (`taor models install`, then `--model local`), or point taor at an "
        "OpenAI-compatible server with "
        "`--model openai-compat:NAME --base-url http://localhost:8080/v1`."
    )
