"""A server's listening socket, made before anything of the server is imported: a child
announces its address at once and the connections wait in the backlog while it comes up."""

from __future__ import annotations

import socket


def bind(host: str, port: int, *, shared: bool = False, joining: bool = False) -> socket.socket:
    """A listening socket for a server on this loop: no Nagle delay, non-blocking. A
    ``shared`` one lets other processes listen on the same port (SO_REUSEPORT), the kernel
    spreading the connections among them; unless it is ``joining`` such a group, the port is
    first taken alone a moment, so that a port another program listens on is refused as it
    would be without sharing, not silently shared with it."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    if shared and port and not joining:
        with socket.socket(family, socket.SOCK_STREAM) as alone:
            alone.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            alone.bind((host, port))  # OSError (address in use) when anyone listens there
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if shared:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    # no Nagle delay: an answer written in pieces would wait for the client's delayed ACK,
    # about 40 ms a request (accepted sockets inherit the option on Linux)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind((host, port))
    sock.listen(512)
    sock.setblocking(False)
    return sock
