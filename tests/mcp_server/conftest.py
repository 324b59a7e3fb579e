from collections.abc import Iterator

import pytest

from taor.testing import FakeProviderServer, Reply


@pytest.fixture
def server() -> Iterator[FakeProviderServer]:
    with FakeProviderServer(default=Reply(text="(the script is over)")) as fake:
        yield fake
