"""The TLS context of a connection: verification always on, the system's CAs loaded once per
CA bundle, and none loaded for a plain http address (whose connections speak no TLS)."""

import os
import ssl

import pytest

from app.core.tls import tls_context
from tests.certificates import make_ca


def test_a_plain_http_address_gets_a_context_that_verifies_and_trusts_nothing():
    context = tls_context("http://127.0.0.1:8080")
    assert context.verify_mode == ssl.CERT_REQUIRED
    assert context.check_hostname
    assert context.get_ca_certs() == []
    assert tls_context("HTTP://example.test") is not context  # each its own, cheap to make


def test_an_https_address_shares_one_context_with_the_systems_cas():
    first = tls_context("https://bank.example")
    assert first.verify_mode == ssl.CERT_REQUIRED
    assert first.check_hostname
    assert tls_context("https://gateway.example/v1") is first


def test_a_ca_bundle_is_read_once_and_again_when_it_changes(tmp_path):
    bundle = tmp_path / "ca.pem"
    make_ca(bundle, "First CA")
    first = tls_context("https://bank.example", str(bundle))
    assert tls_context("https://bank.example", str(bundle)) is first
    assert "First CA" in _names(first)
    make_ca(bundle, "Second CA")
    stat = bundle.stat()  # a later time of change, however coarse the file system's clock
    os.utime(bundle, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    second = tls_context("https://bank.example", str(bundle))
    assert "Second CA" in _names(second)
    assert "First CA" not in _names(second)


def _names(context: ssl.SSLContext) -> set[str]:
    return {
        dict(part[0] for part in ca["subject"]).get("commonName", "")
        for ca in context.get_ca_certs()
    }


def test_a_ca_bundle_that_cannot_be_used_is_an_error_each_time(tmp_path):
    with pytest.raises(FileNotFoundError):
        tls_context("https://bank.example", str(tmp_path / "missing.pem"))
    (tmp_path / "bad.pem").write_text("not a certificate")
    with pytest.raises(ssl.SSLError):
        tls_context("https://bank.example", str(tmp_path / "bad.pem"))
