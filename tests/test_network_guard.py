import socket

import pytest

from tests.conftest import NetworkAccessError


def test_connect_to_public_address_fails() -> None:
    with socket.socket() as sock, pytest.raises(NetworkAccessError):
        sock.connect(("93.184.216.34", 80))


def test_resolving_public_name_fails() -> None:
    with pytest.raises(NetworkAccessError):
        socket.getaddrinfo("example.com", 443)


def test_loopback_is_allowed() -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        with socket.socket() as client:
            client.connect(server.getsockname())
