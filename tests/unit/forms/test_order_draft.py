"""The New order draft without a window: what the matrix offers, every problem at once named
with its part, the request of each scenario, the total with taxes, the confirmation's text."""

from __future__ import annotations

import pytest

from app.api.gateway import Tax
from app.core.gateway.matrix import Item
from app.forms.order import CAPABILITIES, SCENARIO_NAMES, OrderDraft, Product


def basic(**values: str) -> OrderDraft:
    draft = OrderDraft()
    draft.values["client.email"] = "phone@ex.lt"
    draft.products = [Product("Concert ticket", "25.50", "2")]
    draft.values.update(values)
    return draft


def test_a_plain_one_step_order_is_ready_and_its_request_is_minimal():
    draft = basic()
    assert draft.problems() == ({}, "")
    assert draft.reason({}, "") == ""
    assert draft.request() == {
        "client": {"email": "phone@ex.lt"},
        "currency": "EUR",
        "products": [{"title": "Concert ticket", "price": "25.50", "quantity": 2}],
    }
    assert draft.total() == "Total: 51.00 EUR"
    assert draft.shown() == {"customer", "order", "products"}


@pytest.mark.parametrize(
    ("scenario", "expected"),
    [
        ("Two-Step", {"skip_capture": True}),
        ("Recurring", {"use_scenario": "recurring"}),
        ("Recurring (Automatic)", {"use_scenario": "automatic"}),
        ("One-Click", {"use_scenario": "one-click"}),
    ],
)
def test_each_scenario_says_itself_in_the_request(scenario, expected):
    draft = basic(scenario=scenario)
    request = draft.request()
    assert {k: request[k] for k in expected} == expected


def test_a_zero_amount_order_sends_no_products_and_needs_saving():
    draft = basic(scenario="Zero-Amount")
    _problems, general = draft.problems()
    assert general == "A Zero-Amount order saves or verifies a card: tick Payment Method Saving"
    assert "products" not in draft.request() and draft.request()["payment_system"] == "AUTH"
    assert "products" not in draft.shown() and draft.total() == ""
    draft.capabilities.add(Item.PMS)
    assert draft.problems() == ({}, "")
    assert draft.request()["setup_future_use"] == "one-click"
    assert draft.summary().endswith("No money moves (Zero-Amount).")


def test_what_the_matrix_does_not_offer_says_why():
    draft = basic(scenario="Zero-Amount")
    offered = draft.availability()
    assert set(offered.capabilities) == set(CAPABILITIES)
    assert offered.capabilities[Item.PMS] == ""
    assert all(offered.capabilities[item] for item in (Item.AF, Item.QC, Item.TX))
    assert offered.scenarios[SCENARIO_NAMES.index("Zero-Amount")] == ""  # the one chosen
    assert offered.capabilities[Item.AF].startswith("Zero-Amount and Account Funding cannot")
    draft.capabilities.add(Item.TX)  # ticked before the scenario changed
    offered = draft.availability()
    assert offered.capabilities[Item.TX] == ""  # ticked: stays offered, to be unticked
    assert draft.problems()[1].startswith("Zero-Amount and Taxes cannot")


def test_account_funding_names_every_missing_field_at_once_with_its_part():
    draft = basic()
    draft.capabilities.add(Item.AF)
    draft.values["recipient_client.birth_date"] = "31.01.1990"
    draft.values["recipient_client.country"] = "L"
    problems, _general = draft.problems()
    for name in ("first_name", "last_name", "address", "city", "country"):
        assert problems[f"client.{name}"] == "Required for Account Funding"
    assert "client.state" not in problems
    assert draft.notes() == {"client.state": "Needed when the card is issued in Canada or the USA"}
    assert problems["recipient_client.birth_date"] == "A date yyyy-mm-dd"
    assert problems["recipient_client.country"] == "Enter a two-letter country code such as LT"
    reason = draft.reason(*draft.problems())
    assert reason.startswith("13 things to correct first: Cardholder: First name; ")
    assert "Recipient: Birth date" in reason and "State" not in reason
    assert {"funding", "cardholder"} <= draft.shown()


def test_avs_needs_the_address_and_zip_code():
    draft = basic()
    draft.capabilities.add(Item.AVS)
    problems, _general = draft.problems()
    assert problems == {"client.address": "Required for AVS", "client.zip_code": "Required for AVS"}
    draft.values.update({"client.address": "Gedimino pr. 1", "client.zip_code": "01103"})
    assert draft.problems() == ({}, "")
    assert draft.request()["client"] == {
        "email": "phone@ex.lt",
        "address": "Gedimino pr. 1",
        "zip_code": "01103",
    }


def test_a_price_is_checked_in_the_currency_and_taxes_add_to_the_total():
    draft = basic()
    draft.products = [Product("Ticket", "10.505", "1")]
    problems = draft.problems()[0]
    assert "EUR amounts have 2 decimal places" in problems["products.0.price"]
    assert draft.product_problems(problems, 0).startswith("price: EUR amounts have 2 decimal")
    assert draft.product_problems(problems, 1) == ""
    draft.products = [Product("Ticket", "10,50", "2", "tax-1")]
    draft.taxes = [Tax(id="tax-1", name="VAT", percent="21")]
    assert draft.total() == "Total: 21.00 EUR"  # taxes count only with the Taxes capability
    draft.capabilities.add(Item.TX)
    assert draft.total() == "Total: 25.41 EUR"
    assert draft.request()["products"] == [
        {"title": "Ticket", "price": "10.50", "quantity": 2, "tax": {"id": "tax-1"}}
    ]
    draft.products = [Product("Ticket", "10.50", "1")]
    assert draft.problems()[1] == "Taxes: choose a tax for at least one product"


def test_a_field_over_its_limit_is_named_with_its_part():
    draft = basic()
    draft.capabilities.add(Item.DD)
    draft.values["dynamic_descriptor"] = "X" * 26
    problems, general = draft.problems()
    assert problems == {"dynamic_descriptor": "At most 25 characters (26 now)"}
    assert draft.reason(problems, general) == (
        "1 thing to correct first: Dynamic descriptor: Descriptor"
    )


def test_travel_data_sends_the_chosen_member_with_its_legs():
    draft = basic()
    draft.capabilities.add(Item.TD)
    draft.legs = [{"departure_airport": "VNO", "destination_airport": " RIX ", "trip_number": ""}]
    draft.legs.append({"departure_airport": "vno"})
    legs = draft.leg_problems(draft.problems()[0])
    assert "legs.1.departure_airport: Three capital letters, such as VNO" in legs
    assert "ticket_number" not in legs  # a field of the ticket, not of a leg
    draft.legs.pop()
    travel = draft.request()["travel_data"]
    assert travel["airline_addendum"]["legs"] == [
        {"departure_airport": "VNO", "destination_airport": "RIX"}
    ]
    assert travel["airline_addendum"]["n_legs"] == 1
    draft.travel_member = "lodging"
    draft.values["travel_data.lodging.booking_number"] = "B-1"
    assert draft.request()["travel_data"] == {"lodging": {"booking_number": "B-1"}}
    assert {"travel", "lodging"} <= draft.shown() and "airline_addendum" not in draft.shown()
