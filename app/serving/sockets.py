"""A server's listening socket, made before anything of the server is imported: a child
announces its address at once and the connections wait in the backlog while it comes up."""

from __future__ import annotations

import socket

# connections the kernel holds until the server accepts them: past these, a burst's further
# connections are dropped, and their clients try again a second later (the kernel caps it at
# net.core.somaxconn)
LISTEN_BACKLOG = 1024


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
    sock.listen(LISTEN_BACKLOG)
    sock.setblocking(False)
    return sock
