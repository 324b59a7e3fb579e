"""Shared fixtures, the network guard (a test that connects anywhere but loopback fails), and
Hypothesis without per-example deadlines."""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import settings

from taor.testing import FakeProviderServer

# No deadline per example: on a shared, busy machine (or two test workers on two cores) one
# example can take ten times another, and a property test is about the property, not the time.
settings.register_profile("taor", deadline=None)
settings.load_profile("taor")

_LOCAL_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost"}


def _is_local(host: Any) -> bool:
    if not isinstance(host, str):
        return False
    if host in _LOCAL_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.split("%")[0]).is_loopback
    except ValueError:
        return False


class NetworkAccessError(AssertionError):
    pass


@pytest.fixture(autouse=True)
def _network_guard(request: pytest.FixtureRequest) -> Iterator[None]:
    if request.node.get_closest_marker("live"):  # live tests talk to the real providers
        yield
        return
    real_connect, real_connect_ex = socket.socket.connect, socket.socket.connect_ex
    real_getaddrinfo = socket.getaddrinfo

    def check(sock: socket.socket, address: Any) -> None:
        if sock.family in (socket.AF_INET, socket.AF_INET6) and not _is_local(address[0]):
            raise NetworkAccessError(f"test tried to reach {address!r}: only loopback is allowed")

    def connect(self: socket.socket, address: Any) -> None:
        check(self, address)
        return real_connect(self, address)

    def connect_ex(self: socket.socket, address: Any) -> int:
        check(self, address)
        return real_connect_ex(self, address)

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        name = host.decode() if isinstance(host, bytes) else host
        if name is not None and not _is_local(name):
            raise NetworkAccessError(f"test tried to resolve {name!r}: only loopback is allowed")
        return real_getaddrinfo(host, *args, **kwargs)

    socket.socket.connect = connect  # type: ignore[method-assign]
    socket.socket.connect_ex = connect_ex  # type: ignore[method-assign]
    socket.getaddrinfo = getaddrinfo
    try:
        yield
    finally:
        socket.socket.connect = real_connect  # type: ignore[method-assign]
        socket.socket.connect_ex = real_connect_ex  # type: ignore[method-assign]
        socket.getaddrinfo = real_getaddrinfo


@pytest.fixture
def fake_server() -> Iterator[FakeProviderServer]:
    with FakeProviderServer() as server:
        yield server


@pytest.fixture
def no_sleep() -> Any:
    """A sleep for retry policies that records the delays instead of waiting."""
    delays: list[float] = []

    async def sleep(seconds: float) -> None:
        delays.append(seconds)

    sleep.delays = delays  # type: ignore[attr-defined]
    return sleep
