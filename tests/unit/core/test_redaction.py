"""Redaction: card numbers, security codes and credentials never reach a log record."""

import json
import logging

import pytest

from app.core import redaction
from app.core.redaction import RedactingFilter, redact

GROUPS = ["4111", "1111", "1111", "1111"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("card 4111111111111111 ok", "card ************1111 ok"),
        ("card 4111 1111 1111 1111.", "card ************1111."),
        ("amex 3782-822463-10005", "amex ***********0005"),
        ("4111  1111  1111  1111", "************1111"),
        # letters around a card number do not protect it
        ("abc4111111111111111xyz", "abc************1111xyz"),
        ("id=x4111-1111-1111-1111y", "id=x************1111y"),
        ("XX4111111111111111", "XX************1111"),  # shaped like an IBAN, but none
        # a card number followed by more digits in groups: the card is still masked
        ("4111111111111111 12/29", "************1111 12/29"),
        (
            "4111111111111111-1234-1234-1234-123456789012",
            "************1111-1234-1234-1234-123456789012",
        ),
        ("q=4111+1111+1111+1111&x", "q=************1111&x"),
        ("4111%201111%201111%201111", "************1111"),
        ('{"cvv": "123", "csc":"4321"}', '{"cvv": "***", "csc":"***"}'),
        ("cvv=123&cvc=999", "cvv=***&cvc=***"),
        ("Authorization: Basic ZGVtbzpkZW1v", "Authorization: Basic ***"),
        ("('authorization', 'Basic ZGVtbzpkZW1v')", "('authorization', 'Basic ***')"),
        # groups apart by a no-break, thin, ideographic or zero-width space, a slash, an
        # underscore or a dash; digits of another script (full-width)
        ("card 4111\u00a01111\u00a01111\u00a01111", "card ************1111"),
        ("4111\u202f1111\u20091111\u30001111", "************1111"),
        ("4111\u200b1111\u200b1111\u200b1111", "************1111"),
        ("4111\u200b\u200c\u200d1111\u00ad1111\ufeff1111", "************1111"),
        ("4111/1111/1111/1111 and 4111_1111_1111_1111", "************1111 and ************1111"),
        ("4111\u20131111\u20141111\u22121111", "************1111"),
        ("\uff14" + "\uff11" * 15, "*" * 12 + "\uff11" * 4),
        ("\u3000".join(["\uff14\uff11\uff11\uff11", *["\uff11" * 4] * 3]), "*" * 12 + "\uff11" * 4),
        ("/cards/4111%2F1111%2F1111%2F1111/", "/cards/************1111/"),
        # a security code in JSON inside JSON
        ('{\\"cvv\\": \\"123\\"}', '{\\"cvv\\": \\"***\\"}'),
        # any scheme: its word is kept, never taken for the credentials
        ("Authorization: Token abcdef123", "Authorization: Token ***"),
        ("authorization: abcdef123", "authorization: ***"),
        (
            '{\\"Authorization\\": \\"Bearer x.y.z\\", \\"a\\": 1}',
            '{\\"Authorization\\": \\"Bearer ***\\", \\"a\\": 1}',
        ),
        (
            'Authorization: Digest username="u", realm="r", response="6629fae4" next',
            "Authorization: Digest *** next",
        ),
        (
            "{'authorization': 'Digest username=\"u\", response=\"abc\"', 'x-request-id': 'r1'}",
            "{'authorization': 'Digest ***', 'x-request-id': 'r1'}",
        ),
        (
            "Authorization: Bearer abc, x-request-id: r1",
            "Authorization: Bearer ***, x-request-id: r1",
        ),
        # as programs write them: JSON's and Python's escapes, a URL's, HTML's
        (json.dumps({"card": "\u00a0".join(GROUPS)}), '{"card": "************1111"}'),
        (repr({"card": "\u00a0".join(GROUPS)}), "{'card': '************1111'}"),
        (repr({"card": "\u200b".join(GROUPS)}), "{'card': '************1111'}"),
        ("%C2%A0".join(GROUPS), "************1111"),
        ("&nbsp;".join(GROUPS), "************1111"),
        ("\\/".join(GROUPS), "************1111"),
        # invisible characters, any number of them; more dots, pluses, underscores, dashes
        ("\u200e".join(GROUPS), "************1111"),
        ("\u2063".join(GROUPS), "************1111"),
        ("\u200b\u200b\u200b\u200b".join(GROUPS), "************1111"),
        (
            "\u30fb".join(GROUPS) + " and " + "\uff0b".join(GROUPS),
            "************1111 and ************1111",
        ),
        (
            "\uff3f".join(GROUPS) + " and " + "\u2215".join(GROUPS),
            "************1111 and ************1111",
        ),
        # numbers just before a card: a window from them passing the check ended inside it
        ("10:21:06 4111 1111 1111 1111", "10:21:**************1111"),
        ("exp 05/27 5387 7893 2879 2171", "exp 05/**************2171"),
        # a date inside a card is no reason to leave it; nor hex letters after it (no UUID)
        ("4000 2024-01-15 1232", "************1232"),
        (
            "token 4111111111111111deadbeefcafe0042 end",
            "token ************1111deadbeefcafe0042 end",
        ),
        # a raw request as http.client's debug output or repr() writes it
        (
            "b'GET / HTTP/1.1\\r\\nAuthorization: Bearer eyJ.x.y\\r\\n'",
            "b'GET / HTTP/1.1\\r\\nAuthorization: Bearer ***'",
        ),
        # security codes as other fields and formats name them
        ('"cvc2": "987", "cardCvv": "987"', '"cvc2": "***", "cardCvv": "***"'),
        ('"cvv_code": "987" security_code=987', '"cvv_code": "***" security_code=***'),
        ("<cvv>987</cvv> [cvv] => 987", "<cvv>***</cvv> [cvv] => ***"),
        ("cvv: \uff19\uff18\uff17 %22cvv%22%3A%22987%22", "cvv: *** %22cvv%22%3A%22***%22"),
        # as name and value pairs: parse_qsl's tuples, HAR entries, HTML inputs
        ("[('number', 'x'), ('cvv', '123')]", "[('number', 'x'), ('cvv', '***')]"),
        ('{"name": "cvv", "value": "123"}', '{"name": "cvv", "value": "***"}'),
        ('<input name="cvv" value="123">', '<input name="cvv" value="***">'),
        # credentials: a bare token followed by words (no scheme), a scheme apart by a
        # no-break space, and headers as lists, bytes, WSGI environs, HAR entries, XML, URLs
        ("Authorization: s3cr3tTOKEN rejected", "Authorization: *** rejected"),
        # a secret that begins with a scheme's word, and a scheme followed by a colon
        ("Authorization: tokenA1b2c3", "Authorization: ***"),
        ("Authorization: Bearer: eyJ.x.y", "Authorization: Bearer: ***"),
        ("Authorization: Bearer\u00a0s3cr3t", "Authorization: Bearer\u00a0***"),
        ("[(b'authorization', b'Bearer s3cr3t')]", "[(b'authorization', b'Bearer ***')]"),
        ("{'HTTP_AUTHORIZATION': 'Bearer s3cr3t'}", "{'HTTP_AUTHORIZATION': 'Bearer ***'}"),
        ("{'authorization': ['Bearer s3cr3t']}", "{'authorization': ['Bearer ***']}"),
        (
            '{"name": "Authorization", "value": "Bearer s3cr3t"}',
            '{"name": "Authorization", "value": "Bearer ***"}',
        ),
        ('Authorization: Bearer "s3cr3t"', "Authorization: Bearer ***"),
        (
            "<Authorization>Bearer s3cr3t</Authorization>",
            "<Authorization>Bearer ***</Authorization>",
        ),
        ("authorization%3A%20Bearer%20s3cr3t", "authorization%3A%20Bearer%20***"),
    ],
)
def test_sensitive_values_are_masked(text, expected):
    assert redact(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "LT121000011101001000",  # an IBAN's digits follow its letters
        "GB82 WEST 1234 5698 7654 32",
        "x-request-id 0192f3c4-5b6a-7c8d-9e0f-123456789abc",
        "2026-11-23T09:10:11Z 12.5 ms amount 100000",
        "order 123456789012",  # 12 digits: not card-shaped
        "LT12 1000 0111 0100 1000 and DE89370400440532013000",
        "4111111111111112",  # 16 digits failing the Luhn check: no card number
        "41111111111111110000",  # part of a longer run of digits
        "a UUID of digits only 12345678-1234-1234-1234-123456789012",
        "99 12345678-1234-5678-1234-567812345678 and 41111111111111115555",
        # an x-request-id as the desk makes them: 14 of its digits pass the Luhn check
        "x-request-id c04103515305488cb326848a4a76fce9",
        "4111\n1111\n1111\n1111",  # lines apart: a log's lines are not one number
        # an IBAN grouped by no-break spaces
        "IBAN DE40\u00a02007\u00a08588\u00a01356\u00a09563\u00a017",
        "Authorization failed, retrying",
    ],
)
def test_other_numbers_are_left_alone(text):
    assert redact(text) == text


def test_the_filter_redacts_message_arguments_and_exception_text():
    record = logging.LogRecord(
        "t", logging.ERROR, __file__, 1, "paid with %s", ("4111111111111111",), None
    )
    try:
        raise ValueError("card 5555555555554444 refused")
    except ValueError:
        import sys

        record.exc_info = sys.exc_info()
    RedactingFilter().filter(record)
    assert record.getMessage() == "paid with ************1111"
    assert "5555555555554444" not in (record.exc_text or "")
    assert "************4444" in (record.exc_text or "")


def test_installed_every_record_of_the_process_is_redacted(caplog):
    redaction.install()
    redaction.install()  # idempotent
    caplog.set_level(logging.INFO)
    logging.getLogger("anything.at.all").info("number %s cvv=%s", "4111 1111 1111 1111", "123")
    try:
        raise RuntimeError("4111111111111111")
    except RuntimeError:
        logging.getLogger("anything.else").exception("failed", stack_info=False)
    text = caplog.text
    assert "4111" not in text.replace("************1111", "")
    assert "cvv=***" in text


def test_url_parts_are_decoded_before_they_are_redacted():
    from app.core.redaction import redact_url_part

    assert redact_url_part("filter=id%5Beq%5D%224111%2B1111+1111+1111%22") == (
        'filter=id[eq]"************1111"'
    )
