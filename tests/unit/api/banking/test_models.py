import pytest

from app.api import banking as m
from app.api.errors import InvalidInput
from tests.conftest import company_body, person_body


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        # in the user's words, as the forms say them: never the library's phrasing
        (
            {"email": "not-an-email"},
            "Client: e-mail: Enter an e-mail address like name@example.com",
        ),
        (
            {"contact_mobile_number": "060012345"},
            "Client: contact mobile number: Enter + and the country code first: +37061234567",
        ),
        ({"first_name": "x" * 101}, "Client: first name: At most 100 characters (101 now)"),
        ({"ip": "300.1.1.1"}, "Client: IP: Enter an IPv4 address like 192.0.2.10"),
        (
            {"nationality": "XX"},
            "Client: nationality: XX is not a country code: use one such as LT",
        ),
        ({"nationality": "L"}, "Client: nationality: Enter a two-letter country code such as LT"),
        (
            {"nationality": "lt"},
            "Client: nationality: Enter the country code in capitals, such as LT",
        ),
        ({"birth_date": "1990-13-01"}, "Client: birth date: A date yyyy-mm-dd"),
    ],
)
def test_person_limits_are_refused_naming_the_field(changes, message):
    with pytest.raises(InvalidInput) as caught:
        m.build(m.ClientCreate, {"client": person_body(**changes)})
    assert str(caught.value).startswith(message)
    assert caught.value.field == f"client.{next(iter(changes))}"  # the path, for a form


def test_transfer_limits():
    base = {
        "id": "T1",
        "amount": 100,
        "recipient_name": "A",
        "recipient_iban": "LT1",
        "recipient_country": "LT",
        "recipient_address": "Street",
    }
    for changes, field in [
        ({"amount": 0}, "amount"),
        ({"amount": 2_147_483_648}, "amount"),
        ({"id": "x" * 65}, "id"),
        ({"description": "d" * 141}, "description"),
        ({"recipient_name": "n" * 71}, "recipient_name"),
        ({"recipient_iban": "I" * 33}, "recipient_iban"),
        ({"recipient_country": "LTU"}, "recipient_country"),
        ({"ip": "1.1.1"}, "ip"),
        ({"amount": 1.5}, "amount"),
    ]:
        with pytest.raises(InvalidInput) as caught:
            m.build(m.SepaTransferCreate, {**base, **changes})
        assert caught.value.field == field


def test_partial_update_sends_only_what_was_set_and_explicit_nulls():
    update = m.build(
        m.ClientV2Update,
        {"client_type": "PERSON", "person": {"last_name": "New", "middle_name": None}},
    )
    assert update.body() == {
        "client_type": "PERSON",
        "person": {"last_name": "New", "middle_name": None},
    }
    empty = m.build(m.ClientV2Update, {"client_type": "COMPANY", "company": {}})
    assert empty.body() == {"client_type": "COMPANY", "company": {}}


def test_partial_update_refuses_clearing_a_required_property_and_read_only_ones():
    with pytest.raises(InvalidInput, match="^Person: e-mail: is required and cannot be cleared"):
        m.build(m.ClientV2Update, {"client_type": "PERSON", "person": {"email": None}})
    with pytest.raises(InvalidInput, match="^Company: site info: Not a field of this request"):
        m.build(m.ClientV2Update, {"client_type": "COMPANY", "company": {"site_info": {}}})


def test_v2_create_needs_the_object_matching_client_type():
    with pytest.raises(InvalidInput, match="PERSON needs the person object"):
        m.build(
            m.ClientV2Create,
            {"external_reference": "R", "client_type": "PERSON", "company": company_body()},
        )
    ok = m.build(
        m.ClientV2Create,
        {"external_reference": "R", "client_type": "COMPANY", "company": company_body()},
    )
    assert "person" not in ok.body()
    with pytest.raises(InvalidInput, match="^External reference"):
        m.build(
            m.ClientV2Create,
            {"external_reference": "R" * 65, "client_type": "COMPANY", "company": company_body()},
        )
