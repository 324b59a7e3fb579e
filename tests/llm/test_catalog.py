from __future__ import annotations

import json
from pathlib import Path

import pytest

from taor.errors import ConfigurationError
from taor.llm.catalog import Catalog, ModelInfo
from taor.llm.response import Usage


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return Catalog.default()


def test_lookup_by_id(catalog: Catalog) -> None:
    info = catalog.lookup("anthropic", "claude-haiku-4-5")
    assert info.known
    assert info.display_name == "Claude Haiku 4.5"
    assert (info.context_window, info.max_output) == (200_000, 64_000)
    assert info.thinking == "budget"


def test_lookup_by_alias_returns_the_entry(catalog: Catalog) -> None:
    info = catalog.lookup("anthropic", "claude-sonnet-4-5-20250929")
    assert info.id == "claude-sonnet-4-5"
    assert "claude-sonnet-4-5-20250929" in info.aliases
    assert catalog.lookup("openai", "gpt-5-2025-08-07").id == "gpt-5"


def test_lookup_accepts_gemini_models_prefix(catalog: Catalog) -> None:
    assert catalog.lookup("gemini", "models/gemini-2.5-flash").id == "gemini-2.5-flash"


def test_ids_are_per_provider(catalog: Catalog) -> None:
    assert not catalog.lookup("anthropic", "gpt-5").known


@pytest.mark.parametrize(
    ("provider", "window", "output"),
    [
        ("anthropic", 200_000, 8_192),
        ("openai", 128_000, 16_384),
        ("gemini", 1_048_576, 8_192),
        ("openai-compat", 32_768, 4_096),
        ("somebody-else", 32_768, 4_096),
    ],
)
def test_unknown_id_falls_back_per_provider(
    catalog: Catalog, provider: str, window: int, output: int
) -> None:
    info = catalog.lookup(provider, "model-from-the-future")
    assert not info.known
    assert info.id == "model-from-the-future"
    assert (info.context_window, info.max_output) == (window, output)
    assert info.input_price is None
    assert info.output_price is None
    assert catalog.cost(info, Usage(input_tokens=10, output_tokens=10)) is None


def test_openai_compat_does_not_inherit_openai_entries(catalog: Catalog) -> None:
    info = catalog.lookup("openai-compat", "gpt-4o")
    assert not info.known
    assert info.context_window == 32_768


def test_cost_anthropic_with_cache_reads_and_writes(catalog: Catalog) -> None:
    # Claude Haiku 4.5: $1 in, $5 out, $0.10 cache read, $1.25 cache write per MTok.
    info = catalog.lookup("anthropic", "claude-haiku-4-5")
    usage = Usage(
        input_tokens=1_000_000,  # 300k uncached + 500k read + 200k written
        cache_read_tokens=500_000,
        cache_write_tokens=200_000,
        output_tokens=100_000,
    )
    expected = 0.3 * 1.0 + 0.5 * 0.10 + 0.2 * 1.25 + 0.1 * 5.0
    assert catalog.cost(info, usage) == pytest.approx(expected)
    assert expected == pytest.approx(1.1)


def test_cost_openai_cache_reads_and_null_write_price(catalog: Catalog) -> None:
    # GPT-5: $1.25 in, $0.125 cached, $10 out; no write price, so writes bill as input.
    info = catalog.lookup("openai", "gpt-5")
    assert info.cache_write_price is None
    usage = Usage(
        input_tokens=40_000,
        cache_read_tokens=30_000,
        cache_write_tokens=4_000,
        output_tokens=2_000,
        reasoning_tokens=1_500,  # already part of output_tokens
    )
    expected = (6_000 * 1.25 + 30_000 * 0.125 + 4_000 * 1.25 + 2_000 * 10.0) / 1_000_000
    assert catalog.cost(info, usage) == pytest.approx(expected)
    assert expected == pytest.approx(0.03625)


def test_every_shipped_entry_is_valid(catalog: Catalog) -> None:
    models = catalog.models()
    assert {m.provider for m in models} == {"anthropic", "openai", "gemini", "local"}
    for m in models:
        assert m.known
        assert m.id
        assert m.display_name
        assert m.context_window > 0
        assert m.max_output > 0
        assert m.max_output <= m.context_window, m.id
        prices = (m.input_price, m.output_price, m.cache_read_price, m.cache_write_price)
        assert all(p is None or p >= 0 for p in prices), m.id
        assert m.input_price is not None and m.output_price is not None, m.id
        assert m.thinking in (None, "budget", "level", "effort"), m.id
        assert (m.thinking is not None) <= m.reasoning, m.id
        assert catalog.lookup(m.provider, m.id) is m
        for alias in m.aliases:
            assert catalog.lookup(m.provider, alias) is m


def test_local_models_are_free_known_or_not(catalog: Catalog) -> None:
    known = catalog.lookup("local", "qwen2.5-coder-1.5b")
    own = catalog.lookup("local", "/models/mine.gguf")
    assert (known.known, known.context_window) == (True, 8192)
    assert (own.known, own.context_window, own.max_output) == (False, 8192, 2048)
    usage = Usage(input_tokens=1000, output_tokens=1000)
    assert catalog.cost(known, usage) == catalog.cost(own, usage) == 0.0


def test_models_filters_by_provider(catalog: Catalog) -> None:
    gemini = catalog.models("gemini")
    assert gemini
    assert all(m.provider == "gemini" for m in gemini)


def test_default_loads_lazily() -> None:
    calls: list[int] = []
    cat = Catalog(lambda: calls.append(1) or '{"models": []}', source="test")
    assert calls == []
    cat.models()
    cat.lookup("openai", "x")
    assert calls == [1]


def _write(tmp_path: Path, data: object) -> Path:
    path = tmp_path / "models.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _entry(**overrides: object) -> dict[str, object]:
    entry: dict[str, object] = {
        "id": "my-model",
        "provider": "openai-compat",
        "display_name": "My model",
        "context_window": 65_536,
        "max_output": 8_192,
        "prices": {"input": 0, "output": 0, "cache_read": None, "cache_write": None},
        "capabilities": {"tools": True, "vision": False, "reasoning": False},
        "thinking": None,
        "aliases": ["mine"],
    }
    return entry | overrides


def test_from_file_reads_a_users_catalog(tmp_path: Path) -> None:
    cat = Catalog.from_file(_write(tmp_path, {"models": [_entry()]}))
    info = cat.lookup("openai-compat", "mine")
    assert isinstance(info, ModelInfo)
    assert (info.id, info.context_window, info.known) == ("my-model", 65_536, True)
    assert cat.cost(info, Usage(input_tokens=5, output_tokens=5)) == 0.0


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([], 'expected an object with a "models" list'),
        ({"models": [_entry(context_window=0)]}, '"context_window" must be a positive integer'),
        ({"models": [_entry(max_output=100_000)]}, "max_output exceeds context_window"),
        ({"models": [_entry(prices={"input": -1})]}, 'price "input" must be a number >= 0'),
        ({"models": [_entry(thinking="lots")]}, '"thinking" must be one of'),
        ({"models": [_entry(id="")]}, '"id" must be a non-empty string'),
        ({"models": [_entry(), _entry(aliases=[])]}, "'my-model' is listed twice"),
    ],
)
def test_from_file_rejects_bad_content(tmp_path: Path, data: object, message: str) -> None:
    path = _write(tmp_path, data)
    with pytest.raises(ConfigurationError, match=r"models\.json") as info:
        Catalog.from_file(path).models()
    assert message in str(info.value)


def test_from_file_rejects_invalid_json_and_missing_files(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(ConfigurationError, match=r"broken\.json: not valid JSON"):
        Catalog.from_file(path).lookup("openai", "gpt-5")
    with pytest.raises(ConfigurationError, match="cannot read model catalog"):
        Catalog.from_file(tmp_path / "missing.json").models()
