import pytest

from taor.errors import ConfigurationError
from taor.llm import Message, Request, complete, connect, parse_model_string
from taor.testing import FakeProviderServer, Reply


def test_parse_model_string() -> None:
    assert parse_model_string("anthropic:claude-sonnet-4-5") == ("anthropic", "claude-sonnet-4-5")
    assert parse_model_string("openai-compat:qwen2.5-coder:7b") == (
        "openai-compat",
        "qwen2.5-coder:7b",
    )


def test_unknown_provider_lists_known_ones() -> None:
    with pytest.raises(
        ConfigurationError, match="known providers: anthropic, openai, openai-compat, gemini"
    ):
        parse_model_string("mistral:large")
    with pytest.raises(ConfigurationError, match="needs a provider prefix"):
        parse_model_string("claude-sonnet-4-5")


@pytest.mark.parametrize(
    ("model", "variable"),
    [
        ("anthropic:claude-sonnet-4-5", "ANTHROPIC_API_KEY"),
        ("openai:gpt-5.1", "OPENAI_API_KEY"),
        ("gemini:gemini-2.5-pro", "GEMINI_API_KEY or GOOGLE_API_KEY"),
    ],
)
def test_missing_key_names_the_variable(model: str, variable: str) -> None:
    with pytest.raises(ConfigurationError, match=f"set {variable} in the environment$"):
        connect(model, env={})


def test_openai_compat_needs_a_base_url_but_no_key() -> None:
    with pytest.raises(ConfigurationError, match="OPENAI_COMPAT_BASE_URL"):
        connect("openai-compat:qwen2.5-coder", env={})
    model = connect(
        "openai-compat:qwen2.5-coder", env={"OPENAI_COMPAT_BASE_URL": "http://127.0.0.1:1/v1"}
    )
    assert (model.provider, model.model_id) == ("openai-compat", "qwen2.5-coder")


def test_keys_and_urls_from_env() -> None:
    model = connect("gemini:gemini-2.5-pro", env={"GOOGLE_API_KEY": "k"})
    assert (model.provider, model.model_id) == ("gemini", "gemini-2.5-pro")
    model = connect(
        "anthropic:claude-sonnet-4-5",
        env={"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": "http://127.0.0.1:9"},
    )
    assert model.provider == "anthropic"


@pytest.mark.parametrize("variable", ["GEMINI_BASE_URL", "GOOGLE_GEMINI_BASE_URL"])
async def test_gemini_base_url_from_either_variable(variable: str) -> None:
    """``GOOGLE_GEMINI_BASE_URL`` is the variable google-genai reads: it still applies now
    that taor posts to Gemini itself."""
    with FakeProviderServer([Reply(text="here")]) as server:
        env = {"GEMINI_API_KEY": "k", variable: server.url + "/proxy"}
        model = connect("gemini:gemini-2.5-flash", env=env)
        try:
            response = await complete(model, Request(messages=(Message.user("hi"),)))
        finally:
            await model.aclose()
    assert response.message.text == "here"
    assert server.requests[-1].path.startswith("/proxy/v1beta/models/gemini-2.5-flash:")
