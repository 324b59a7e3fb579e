"""``TlsContext``: the TLS context of an adapter's HTTP clients (httpx2's default: certifi's CA
bundle, or ``SSL_CERT_FILE`` / ``SSL_CERT_DIR``), built in a thread of its own from the moment
the adapter is made. Loading the CA bundle is tens of milliseconds of OpenSSL work that runs
without the GIL, so it overlaps the session's set-up instead of delaying the first request;
and every client the adapter makes (its ``RawClient``, proxy transports) shares the one
context instead of loading the bundle again."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

import httpx2

if TYPE_CHECKING:
    import ssl


class TlsContext:
    def __init__(self) -> None:
        self._context: ssl.SSLContext | None = None
        self._error: Exception | None = None
        self._thread = threading.Thread(target=self._build, name="taor-tls", daemon=True)
        self._thread.start()

    def _build(self) -> None:
        try:
            self._context = httpx2.create_ssl_context()
        except Exception as exc:  # a bad SSL_CERT_FILE: raised where the context is used
            self._error = exc

    def get(self) -> ssl.SSLContext:
        """The context, once built (at once, unless the first request comes very early)."""
        self._thread.join()
        if self._context is None and self._error is None:
            self._build()  # a child forked before the thread ran: the thread is not in it
        if self._error is not None:
            raise self._error
        assert self._context is not None
        return self._context
