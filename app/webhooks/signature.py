"""Signatures of webhook deliveries: RSASSA-PKCS1-v1_5 over SHA-256 of the raw body bytes,
base64 (standard alphabet) in X-Webhook-Signature."""

from __future__ import annotations

import base64
import binascii

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa

MIN_KEY_BITS = 2048  # a shorter RSA key can be factored: its signatures prove nothing


class UnusableKey(ValueError):
    """A public key that cannot be used; the message says why."""


def load_public_key(pem: bytes) -> rsa.RSAPublicKey:
    try:
        key = serialization.load_pem_public_key(pem)
    except (ValueError, TypeError) as exc:
        raise UnusableKey(f"not a PEM public key: {exc}") from None
    if not isinstance(key, rsa.RSAPublicKey):
        raise UnusableKey("not an RSA public key")
    if key.key_size < MIN_KEY_BITS:
        raise UnusableKey(
            f"an RSA key of {key.key_size} bits is too weak to trust: at least "
            f"{MIN_KEY_BITS} bits are needed"
        )
    return key


def verify(key: rsa.RSAPublicKey, body: bytes, header: str | None) -> bool:
    """Whether the header is a valid signature of exactly these bytes."""
    if not header:
        return False
    try:
        signature = base64.b64decode(header.strip(), validate=True)
    except (binascii.Error, ValueError):
        return False
    try:
        key.verify(signature, body, padding.PKCS1v15(), hashes.SHA256())
    except InvalidSignature:
        return False
    return True


def sign(key: rsa.RSAPrivateKey, body: bytes) -> str:
    """The header value for these bytes (tests and probes; the sandbox signs its own way)."""
    return base64.b64encode(key.sign(body, padding.PKCS1v15(), hashes.SHA256())).decode()
