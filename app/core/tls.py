"""The TLS context of a connection, verification always on. Loading the system's trusted CAs
costs about 18 ms, so a context is made once per CA bundle and shared; a plain ``http://``
address speaks no TLS at all (redirects are not followed), so it gets a context that trusts
nothing and costs nothing to make: one used by mistake refuses every certificate."""

from __future__ import annotations

import functools
import os
import ssl


def tls_context(url: str, ca_bundle: str | None = None) -> ssl.SSLContext:
    """The context for connections to ``url``: the system's trusted CAs, plus those of
    ``ca_bundle`` when given. Raises OSError or ssl.SSLError when the bundle cannot be used."""
    if url[:7].lower() == "http://":
        return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)  # verifies hostnames, trusts none
    # the bundle's time of change is part of the key: a bundle edited is read again
    changed = os.stat(ca_bundle).st_mtime_ns if ca_bundle is not None else 0
    return _trusting(ca_bundle, changed)


@functools.lru_cache(maxsize=8)
def _trusting(ca_bundle: str | None, _changed: int) -> ssl.SSLContext:
    context = ssl.create_default_context()
    if ca_bundle is not None:
        context.load_verify_locations(cafile=ca_bundle)
    return context
