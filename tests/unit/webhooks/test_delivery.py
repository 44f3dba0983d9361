"""A delivery checked before anything is stored: signature first, then body and headers."""

import datetime as dt
import json

import pytest

from app.core import webhooks as wh
from app.webhooks.delivery import Rejected, check
from app.webhooks.signature import load_public_key, verify
from tests.webhook_helpers import PRIVATE, PUBLIC_PEM, delivery, event_body

KEY = load_public_key(PUBLIC_PEM)
NOW = dt.datetime(2026, 11, 23, 9, 0, tzinfo=dt.UTC)


def lower(headers):
    return {k.lower(): v for k, v in headers.items()}


def test_a_good_signed_delivery_is_an_event():
    headers, raw = delivery(event_body())
    event = check(lower(headers), raw, KEY, NOW)
    assert event.signature_verified and event.known_type
    assert (event.status, event.data_id) == ("done", "EXT-1")
    assert event.body == raw.decode()


def test_one_changed_byte_of_body_or_signature_is_refused():
    body = event_body()
    headers, raw = delivery(body)
    changed = raw.replace(b'"done"', b'"dome"')
    with pytest.raises(Rejected) as body_changed:
        check(lower(headers), changed, KEY, NOW)
    assert body_changed.value.status == 401
    signature = headers["X-Webhook-Signature"]
    flipped = ("A" if signature[0] != "A" else "B") + signature[1:]
    assert not verify(KEY, raw, flipped)
    with pytest.raises(Rejected) as unsigned:
        check(lower(delivery(body, signed=False)[0]), raw, KEY, NOW)
    assert unsigned.value.status == 401
    with pytest.raises(Rejected) as bad_signature:
        check(lower({**headers, "X-Webhook-Signature": flipped}), raw, KEY, NOW)
    assert bad_signature.value.status == 401
    # no key configured: an unsigned delivery is taken, not marked verified
    event = check(lower(delivery(body, signed=False)[0]), raw, None, NOW)
    assert not event.signature_verified


def test_the_signature_is_over_the_raw_bytes_not_the_parsed_json():
    headers, raw = delivery(event_body())
    spaced = json.dumps(json.loads(raw), indent=2).encode()
    with pytest.raises(Rejected):
        check(lower(headers), spaced, KEY, NOW)
    assert PRIVATE.public_key().public_numbers() == KEY.public_numbers()


@pytest.mark.parametrize(
    ("body", "headers", "reason"),
    [
        (b"not json", {}, "not UTF-8 JSON"),
        (b"\xff\xfe", {}, "not UTF-8 JSON"),
        (b"[]", {}, "must be a JSON object"),
        (event_body(event_id="not-a-uuid"), {}, "event_id:"),
        (event_body(event_type="x" * 101), {}, "event_type:"),
        (event_body(resource="corp_reg"), {}, "event_type: must be resource.action"),
        (event_body(occurred_at="2026-11-23T09:00:00Z"), {}, "occurred_at:"),
        (event_body(occurred_at="2026-13-23T09:00:00.000Z"), {}, "occurred_at:"),
        (event_body(data={"status": "done", "id": "x" * 65}), {}, "data.id:"),
        (event_body(data={"status": "weird"}), {}, "data.status:"),
        (event_body(data="done"), {}, "data:"),
        (
            {k: v for k, v in event_body().items() if k != "occurred_at"},
            {},
            "occurred_at: is required",
        ),
        (event_body(occurred_at=None), {}, "occurred_at: must be a string"),
        (event_body(data={"status": "done", "id": None}), {}, "data.id: must be a string"),
        (
            event_body(event_type="card.captured", data={"status": None}),
            {},
            "data.status: must be a string",
        ),
        (event_body(), {"X_Webhook_Event_Type": "corp_reg.status_changed"}, "Event-Type"),
        (event_body(), {"X_Webhook_Message_Id": "0" * 36}, "Message-Id"),
        (event_body(), {"X_Webhook_Event_Version": "2"}, "Event-Version"),
        (event_body(), {"X_Webhook_Timestamp": "2026-11-23T09:00:00.123Z"}, "Timestamp"),
        (event_body(), {"Nonce": str(2**63)}, "Nonce"),
        (event_body(), {"Content_Type": "text/plain"}, "Content-Type"),
        (b"{" + b" " * wh.BODY_MAX + b"}", {}, "larger than"),
    ],
)
def test_malformed_deliveries_are_refused_with_a_reason(body, headers, reason):
    head, raw = delivery(body, signed=False, **headers)
    with pytest.raises(Rejected) as error:
        check(lower(head), raw, None, NOW)
    assert error.value.status == 400
    assert reason in error.value.reason


def test_an_unknown_type_is_accepted_as_unknown():
    body = event_body(event_type="card.captured", data={"amount_hint": 1})
    headers, raw = delivery(body)
    event = check(lower(headers), raw, KEY, NOW)
    assert not event.known_type and event.status is None


def test_timestamp_formats_and_filters():
    moment = dt.datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=dt.UTC)
    assert wh.header_timestamp(moment) == "2026-01-02T03:04:05.6789010"
    assert wh.occurred_at(moment) == "2026-01-02T03:04:05.678Z"
    assert wh.filter_matches("*", "corp_reg.status_changed")
    assert wh.filter_matches("corp_reg.*", "corp_reg.status_changed")
    assert not wh.filter_matches("corp_reg.*", "private_reg.status_changed")
    assert wh.filter_matches("*.status_changed", "private_reg.status_changed")
    assert wh.filter_matches("private_reg.status_changed", "private_reg.status_changed")
    assert not wh.filter_matches("private_reg.status_changed", "corp_reg.status_changed")
    for bad in ("", "**", "a.b.c", "Corp.*", "*.*x", "a b"):
        assert wh.check_filter(bad) is not None, bad


@pytest.mark.parametrize(
    ("raw_body", "reason"),
    [
        (b'{"a": NaN}', "NaN is not a JSON number"),
        (b'{"a": -Infinity}', "is not a JSON number"),
        (b'{"a": 1e999}', "too large a number"),
        (b'{"event_id": "x", "event_id": "y"}', "appears twice"),
        (b'{"data": {"id": "\\ud800"}}', "not valid Unicode"),
        (b'{"data": {"id": "\\uDBFF"}}', "not valid Unicode"),
        (b'{"data": {"\\udc00": "x"}}', "a property name is not valid Unicode"),
        (b"[" * 30_000 + b"]" * 30_000, "The body is nested too deeply to be read"),
        (b'{"a": ' + b"9" * 5_000 + b"}", "The body holds a number with too many digits"),
    ],
)
def test_what_json_does_not_allow_or_cannot_mean_one_thing_is_refused(raw_body, reason):
    head, raw = delivery(raw_body, signed=False)
    with pytest.raises(Rejected) as error:
        check(lower(head), raw, None, NOW)
    assert error.value.status == 400 and reason in error.value.reason


def test_a_pair_of_surrogate_escapes_is_one_character_and_accepted():
    body = event_body(data_id="smile")
    head, raw = delivery(json.dumps(body).replace("smile", "\\ud83d\\ude00").encode(), signed=False)
    assert check(lower(head), raw, None, NOW).data_id == "\U0001f600"


def test_event_id_must_be_a_version_7_uuid():
    body = event_body(event_id="00000000-0000-0000-0000-000000000000")
    head, raw = delivery(body, signed=False)
    with pytest.raises(Rejected) as error:
        check(lower(head), raw, None, NOW)
    assert "version 7" in error.value.reason


@pytest.mark.allow_warning_logs
def test_a_surrogate_in_a_batch_never_takes_the_others_down():
    import asyncio

    from app.webhooks.receiver import Writer

    class Picky:
        def __init__(self):
            self.stored = []

        def add(self, events):
            if any(e.data_id == "bad" for e in events):
                raise UnicodeEncodeError("utf-8", "x", 0, 1, "surrogates not allowed")
            self.stored.extend(e.event_id for e in events)
            return [True] * len(events)

    store = Picky()
    writer = Writer(store)

    def event(data_id):
        head, raw = delivery(event_body(data_id=data_id), signed=False)
        return check(lower(head), raw, None, NOW)

    events = [event("ok-1"), event("bad"), event("ok-2")]

    async def send_all():
        loop = asyncio.get_running_loop()
        told = [loop.create_future() for _ in events]
        for each, outcome in zip(events, told, strict=True):
            writer.put(each, outcome)
        return await asyncio.gather(*told, return_exceptions=True)

    results = asyncio.run(send_all())
    writer.close()
    assert results[0] is True and results[2] is True
    assert isinstance(results[1], UnicodeEncodeError)
    assert sorted(store.stored) == sorted([events[0].event_id, events[2].event_id])


@pytest.mark.parametrize("bits", [512, 1024, 2047])
def test_an_rsa_key_under_2048_bits_is_refused_saying_so(bits):
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    from app.webhooks.signature import UnusableKey

    # a public key is a modulus and an exponent: one of that many bits is all it takes
    weak = rsa.RSAPublicNumbers(65537, (1 << (bits - 1)) | 1).public_key()
    pem = weak.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    with pytest.raises(UnusableKey) as refused:
        load_public_key(pem)
    assert str(refused.value) == (
        f"an RSA key of {bits} bits is too weak to trust: at least 2048 bits are needed"
    )
    assert load_public_key(PUBLIC_PEM).key_size == 2048  # the one used elsewhere is taken
