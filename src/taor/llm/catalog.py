"""The model catalog: context window, max output, prices and capabilities per model.

The shipped data lives in ``catalog.json`` beside this module and is read on first use, never
at import. ``Catalog.from_file`` reads a user's own file in the same format.

Prices are USD per million tokens. ``cost`` bills a normalized ``Usage`` (see its docstring):
uncached input at the input price, cache reads at the cache-read price, cache writes at the
cache-write price, output (reasoning included) at the output price. A missing cache price falls
back to the input price; a missing input or output price makes the cost unknown (``None``).

Not modelled: long-context tiers (Anthropic Haiku 5.5 over 100K, OpenAI over 272K, Gemini Pro
over 200K input tokens are billed at higher rates), Anthropic 1-hour cache writes, OpenAI
12-hour cache writes, Gemini cache storage per hour, batch/flex/priority/fast tiers, regional
surcharges. Entries say so in their ``note``.

Unknown model ids pass through: ``lookup`` returns conservative per-provider defaults with
``known=False`` and no prices. An ``openai-compat`` server (Ollama, vLLM, llama.cpp) gets the
compat default (32K context, 4K output) unless the id is listed under that provider; a ``local``
GGUF file of one's own gets 8K context, 2K output and zero prices.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

from taor._records import frozen
from taor.errors import ConfigurationError
from taor.llm.response import Usage

THINKING_KINDS = ("budget", "level", "effort")


@frozen
class ModelInfo:
    """What taor knows about one model. ``thinking`` says how reasoning is controlled:
    ``"budget"`` (Anthropic budget_tokens, Gemini 2.5 thinkingBudget), ``"level"`` (Gemini 3
    thinkingLevel), ``"effort"`` (OpenAI reasoning.effort, Anthropic adaptive thinking with
    output_config.effort) or ``None``."""

    id: str
    provider: str
    display_name: str
    context_window: int
    max_output: int
    input_price: float | None = None
    output_price: float | None = None
    cache_read_price: float | None = None
    cache_write_price: float | None = None
    tools: bool = True
    vision: bool = False
    reasoning: bool = False
    thinking: str | None = None
    aliases: tuple[str, ...] = ()
    known: bool = True
    note: str = ""
    parameters: float | None = None  # the model's size, billions of weights, when known


def _fallback(provider: str, context_window: int, max_output: int, vision: bool) -> ModelInfo:
    return ModelInfo(
        id="",
        provider=provider,
        display_name="",
        context_window=context_window,
        max_output=max_output,
        vision=vision,
        known=False,
    )


_FALLBACKS: Mapping[str, ModelInfo] = MappingProxyType(
    {
        "anthropic": _fallback("anthropic", 200_000, 8_192, True),
        "openai": _fallback("openai", 128_000, 16_384, False),
        "gemini": _fallback("gemini", 1_048_576, 8_192, True),
        # a GGUF file of one's own under the local provider: the server's default context, free
        "local": replace(
            _fallback("local", 8_192, 2_048, False), input_price=0.0, output_price=0.0
        ),
    }
)
_COMPAT_FALLBACK = _fallback("openai-compat", 32_768, 4_096, False)


class Catalog:
    """Models by provider and id (or alias). Loads its data once, on first use."""

    def __init__(self, load: Callable[[], str], *, source: str) -> None:
        self._load = load
        self._source = source
        self._index: dict[tuple[str, str], ModelInfo] | None = None
        self._models: list[ModelInfo] = []

    @classmethod
    def default(cls) -> Catalog:
        """The catalog shipped with taor."""
        from importlib.resources import files  # here: importing taor reads no package data

        resource = files("taor.llm").joinpath("catalog.json")
        return cls(lambda: resource.read_text(encoding="utf-8"), source="taor catalog.json")

    @classmethod
    def from_file(cls, path: str | Path) -> Catalog:
        """A catalog from the caller's own file, in the shipped format. Checked on first use."""
        file = Path(path)
        return cls(lambda: _read(file), source=str(file))

    def lookup(self, provider: str, model_id: str) -> ModelInfo:
        """The entry for ``model_id`` or one of its aliases; defaults for an unknown id."""
        index = self._ensure_loaded()
        provider = provider.lower()
        for key in (model_id, model_id.removeprefix("models/")):
            if (provider, key) in index:
                return index[(provider, key)]
        base = _FALLBACKS.get(provider, _COMPAT_FALLBACK)
        return replace(
            base,
            id=model_id,
            provider=provider,
            display_name=model_id,
            parameters=size_from_id(model_id),
        )

    def models(self, provider: str | None = None) -> list[ModelInfo]:
        """Every listed model, in file order, optionally of one provider."""
        self._ensure_loaded()
        return [m for m in self._models if provider is None or m.provider == provider.lower()]

    def cost(self, info: ModelInfo, usage: Usage) -> float | None:
        """USD for ``usage`` at ``info``'s prices; ``None`` when the prices are unknown."""
        if info.input_price is None or info.output_price is None:
            return None
        read = info.input_price if info.cache_read_price is None else info.cache_read_price
        write = info.input_price if info.cache_write_price is None else info.cache_write_price
        total = (
            max(usage.uncached_input_tokens, 0) * info.input_price
            + usage.cache_read_tokens * read
            + usage.cache_write_tokens * write
            + usage.output_tokens * info.output_price
        )
        return total / 1_000_000

    def _ensure_loaded(self) -> dict[tuple[str, str], ModelInfo]:
        if self._index is None:
            self._models = _parse(self._load(), self._source)
            self._index = _build_index(self._models, self._source)
        return self._index


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigurationError(f"cannot read model catalog {path}: {exc}") from None


def _build_index(models: list[ModelInfo], source: str) -> dict[tuple[str, str], ModelInfo]:
    index: dict[tuple[str, str], ModelInfo] = {}
    for info in models:
        for name in (info.id, *info.aliases):
            if (info.provider, name) in index:
                raise ConfigurationError(
                    f"{source}: {info.provider} model {name!r} is listed twice"
                )
            index[(info.provider, name)] = info
    return index


def _parse(text: str, source: str) -> list[ModelInfo]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigurationError(f"{source}: not valid JSON: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("models"), list):
        raise ConfigurationError(f'{source}: expected an object with a "models" list')
    return [_parse_entry(entry, f"{source}: models[{i}]") for i, entry in enumerate(data["models"])]


def _parse_entry(entry: Any, where: str) -> ModelInfo:
    if not isinstance(entry, dict):
        raise ConfigurationError(f"{where}: expected an object")
    where = f"{where} ({entry.get('id', '?')})"
    prices = _section(entry, "prices", where)
    caps = _section(entry, "capabilities", where)
    info = ModelInfo(
        id=_text(entry, "id", where),
        provider=_text(entry, "provider", where).lower(),
        display_name=str(entry.get("display_name") or entry["id"]),
        context_window=_count(entry, "context_window", where),
        max_output=_count(entry, "max_output", where),
        input_price=_price(prices, "input", where),
        output_price=_price(prices, "output", where),
        cache_read_price=_price(prices, "cache_read", where),
        cache_write_price=_price(prices, "cache_write", where),
        tools=_flag(caps, "tools", where, default=True),
        vision=_flag(caps, "vision", where, default=False),
        reasoning=_flag(caps, "reasoning", where, default=False),
        thinking=_thinking(entry.get("thinking"), where),
        aliases=_aliases(entry.get("aliases", []), where),
        note=str(entry.get("note", "")),
        parameters=_size(entry.get("parameters"), where),
    )
    if info.max_output > info.context_window:
        raise ConfigurationError(f"{where}: max_output exceeds context_window")
    return info


def _section(entry: dict[str, Any], key: str, where: str) -> dict[str, Any]:
    value = entry.get(key, {})
    if not isinstance(value, dict):
        raise ConfigurationError(f'{where}: "{key}" must be an object')
    return value


def _text(entry: dict[str, Any], key: str, where: str) -> str:
    value = entry.get(key)
    if not isinstance(value, str) or not value:
        raise ConfigurationError(f'{where}: "{key}" must be a non-empty string')
    return value


def _count(entry: dict[str, Any], key: str, where: str) -> int:
    value = entry.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ConfigurationError(f'{where}: "{key}" must be a positive integer, got {value!r}')
    return value


def _price(prices: dict[str, Any], key: str, where: str) -> float | None:
    value = prices.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise ConfigurationError(f'{where}: price "{key}" must be a number >= 0 or null')
    return float(value)


def _flag(caps: dict[str, Any], key: str, where: str, *, default: bool) -> bool:
    value = caps.get(key, default)
    if not isinstance(value, bool):
        raise ConfigurationError(f'{where}: capability "{key}" must be true or false')
    return value


def _thinking(value: Any, where: str) -> str | None:
    if value is None:
        return None
    if isinstance(value, str) and value in THINKING_KINDS:
        return value
    raise ConfigurationError(f'{where}: "thinking" must be one of {THINKING_KINDS} or null')


def _size(value: Any, where: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise ConfigurationError(f'{where}: "parameters" must be a number > 0 (billions) or null')
    return float(value)


# "1.5b", "7B", "270m", "8x7b" in a model id: its size, as servers name their models
_SIZE = re.compile(r"(?<![a-z0-9.])(?:(\d+)x)?(\d+(?:\.\d+)?)([bm])(?![a-z])")


def size_from_id(model_id: str) -> float | None:
    """The size a model id names, in billions (``qwen2.5-coder:1.5b`` 1.5, ``gemma3:270m``
    0.27, ``mixtral-8x7b`` 56; the largest when it names several, as ``qwen3-30b-a3b`` does);
    None when it names none."""
    sizes = [
        int(experts or 1) * float(number) / (1000 if unit == "m" else 1)
        for experts, number, unit in _SIZE.findall(model_id.lower())
    ]
    return max(sizes) if sizes else None


def _aliases(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(a, str) and a for a in value):
        raise ConfigurationError(f'{where}: "aliases" must be a list of strings')
    return tuple(value)
