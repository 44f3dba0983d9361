"""A server's listening socket, made before anything of the server is imported: a child
announces its address at once and the connections wait in the backlog while it comes up."""

from __future__ import annotations

import socket


def bind(host: str, port: int) -> socket.socket:
    """A listening socket for a server on this loop: no Nagle delay, non-blocking. The port
    is the server's alone: one another program listens on is refused."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # no Nagle delay: an answer written in pieces would wait for the client's delayed ACK,
    # about 40 ms a request (accepted sockets inherit the option on Linux)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind((host, port))
    sock.listen(512)
    sock.setblocking(False)
    return sock
