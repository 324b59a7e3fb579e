"""``TlsContext``: the TLS context of an adapter's HTTPS connections (httpx2's default:
``SSL_CERT_FILE`` or ``SSL_CERT_DIR`` when set, else the system's CA certificates), built in a
thread of its own from the moment the adapter is made. Loading the CA bundle is tens of
milliseconds of OpenSSL work that runs without the GIL, so it overlaps the session's set-up
instead of delaying the first request; and every client the adapter makes shares the one
context instead of loading the bundle again. An ``http://`` base URL never asks for it."""

from __future__ import annotations

import os
import re
import ssl
import sys
import threading

# Where distributions keep their CA bundle, when OpenSSL's compiled-in paths have none.
CA_FILES = (
    "/etc/ssl/cert.pem",
    "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",
    "/etc/pki/tls/cert.pem",
    "/etc/ssl/certs/ca-certificates.crt",
    "/etc/ssl/ca-bundle.pem",
)

_HASHED = re.compile(r"[0-9a-fA-F]{8}\.\d")


def default_context() -> ssl.SSLContext:
    """What httpx2 (through httpcore2) verifies servers against, built the same way."""
    if cafile := os.environ.get("SSL_CERT_FILE"):
        return ssl.create_default_context(cafile=cafile)
    if capath := os.environ.get("SSL_CERT_DIR"):
        return ssl.create_default_context(capath=capath)
    if sys.platform in ("win32", "darwin"):  # pragma: no cover - the system's trust store
        import httpcore2

        return httpcore2.default_ssl_context()
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    paths = ssl.get_default_verify_paths()  # compiled in: not SSL_CERT_* again
    cafile = paths.openssl_cafile if os.path.isfile(paths.openssl_cafile) else None
    capath = paths.openssl_capath if os.path.isdir(paths.openssl_capath) else None
    if capath and not cafile and not any(_HASHED.fullmatch(f) for f in os.listdir(capath)):
        capath = None  # pragma: no cover - a directory of no hashed certificates is no use
    if not cafile and not capath:  # pragma: no cover - OpenSSL's own paths have none
        cafile = next(filter(os.path.isfile, CA_FILES), None)
    if cafile or capath:
        context.load_verify_locations(cafile, capath)
    return context


class TlsContext:
    """Built ahead in a thread when ``ahead`` (an https base URL), else when first asked for
    (an http base URL asks only when a proxy is used)."""

    def __init__(self, *, ahead: bool = True) -> None:
        self._context: ssl.SSLContext | None = None
        self._error: Exception | None = None
        self._thread: threading.Thread | None = None
        if ahead:
            self._thread = threading.Thread(target=self._build, name="taor-tls", daemon=True)
            self._thread.start()

    def _build(self) -> None:
        try:
            self._context = default_context()
        except Exception as exc:  # a bad SSL_CERT_FILE: raised where the context is used
            self._error = exc

    def get(self) -> ssl.SSLContext:
        """The context, once built (at once, unless the first request comes very early)."""
        if self._thread is not None:
            self._thread.join()
        if self._context is None and self._error is None:
            self._build()  # not built ahead, or in a child forked before the thread ran
        if self._error is not None:
            raise self._error
        assert self._context is not None
        return self._context
