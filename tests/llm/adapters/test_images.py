"""Every adapter refuses an oversized inline image with a message that names the limit, before
anything is sent."""

import pytest

from taor.errors import InvalidRequestError
from taor.llm import ImagePart, Message, Request, complete, connect
from taor.testing import FakeProviderServer

LIMITS = {"anthropic": 5, "openai": 20, "openai-compat": 20, "gemini": 20}


@pytest.mark.parametrize("provider", list(LIMITS))
async def test_oversized_inline_image_is_refused(
    provider: str, fake_server: FakeProviderServer
) -> None:
    model = connect(f"{provider}:some-model", api_key="k", base_url=fake_server.base_url(provider))
    image = ImagePart(data=b"\x89PNG" + b"\0" * (LIMITS[provider] * 2**20), media_type="image/png")
    request = Request(messages=(Message.user("what is this?", image),))
    try:
        with pytest.raises(
            InvalidRequestError, match=f"at most {LIMITS[provider]} MB per image: resize"
        ):
            await complete(model, request)
    finally:
        await model.aclose()
    assert fake_server.requests == []
