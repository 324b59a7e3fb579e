"""When taor's own ``HttpClient`` does not post a request: a proxy from the environment applies
to the base URL (httpx2 reads ``HTTPS_PROXY``, ``HTTP_PROXY``, ``ALL_PROXY`` and ``NO_PROXY``,
in either case, and speaks to the proxy), or the caller gave an httpx2 transport (record and
replay). httpx2 is imported then only: it is a tenth of a second before a first request."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import ssl

    import httpx2

    from taor.llm.adapters._wire import HttpTimeouts


def proxy_applies(base_url: str, env: Mapping[str, str] | None = None) -> bool:
    """A proxy variable for the URL's scheme (or ``ALL_PROXY``) is set: httpx2 then decides,
    with ``NO_PROXY``, whether the request goes through it."""
    scheme = base_url.split(":", 1)[0].lower()
    names = {f"{scheme}_proxy", "all_proxy"}
    environ = os.environ if env is None else env
    return any(value and name.lower() in names for name, value in environ.items())


class HttpxClient:
    """httpx2's client, posting as taor's ``HttpClient`` posts (same headers, timeouts)."""

    def __init__(
        self,
        base_url: str,
        *,
        headers: Mapping[str, str],
        timeouts: HttpTimeouts,
        verify: ssl.SSLContext | bool,
        transport: httpx2.AsyncBaseTransport | None,
    ) -> None:
        import httpx2

        t = timeouts
        timeout = httpx2.Timeout(connect=t.connect, read=t.read, write=t.write, pool=t.connect)
        self._client = httpx2.AsyncClient(
            base_url=base_url, headers=headers, timeout=timeout, transport=transport, verify=verify
        )

    async def post(
        self, path: str, *, content: bytes, headers: Mapping[str, str]
    ) -> httpx2.Response:
        request = self._client.build_request(
            "POST", path.lstrip("/"), content=content, headers=headers
        )
        return await self._client.send(request, stream=True)

    async def aclose(self) -> None:
        await self._client.aclose()
