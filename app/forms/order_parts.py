"""The New order form's parts and their fields, in one table: the draft names and checks
fields by it, the window builds its groups from it."""

from __future__ import annotations

from dataclasses import dataclass

from app.core.gateway.matrix import Item

TRAVEL_MEMBERS = {
    "airline_addendum": "Airline (with legs)",
    "lodging": "Lodging",
    "car_rental": "Car rental",
    "cruise": "Cruise",
    "ground_transportation": "Ground transportation",
}


LEG_FIELDS = (
    ("departure_airport", "From", "VNO"),
    ("destination_airport", "To", "RIX"),
    ("carrier_code", "Carrier", "BT"),
    ("departure_date", "Date", "yyyymmdd"),
    ("service_class", "Class", "Y"),
    ("trip_number", "Flight", "BT342"),
)


#: the cardholder's fields each capability needs (the rest of the part is optional)
CARDHOLDER_NEEDS = {
    Item.AVS: ("address", "zip_code"),
    Item.AF: ("first_name", "last_name", "address", "city", "country"),
}


@dataclass(frozen=True)
class Part:
    """A part of the form: its title, the name its fields are known by in a summary
    ("Recipient: First name"), and its text fields (path, label, placeholder)."""

    key: str
    title: str
    section: str
    fields: tuple[tuple[str, str, str], ...]


def _stay(member: str, spans: tuple[tuple[str, str], ...]) -> Part:
    base = f"travel_data.{member}"
    return Part(
        member,
        TRAVEL_MEMBERS[member],
        "Travel data",
        (
            (f"{base}.booking_number", "Booking number", ""),
            *((f"{base}.{key}", label, "8 digits, yyyymmdd") for key, label in spans),
        ),
    )


_AIRLINE = "travel_data.airline_addendum"


#: every part of the form with text fields, in the form's order
PARTS: tuple[Part, ...] = (
    Part(
        "customer",
        "Customer",
        "Customer",
        (
            ("client.email", "E-mail", "the customer's e-mail address"),
            ("client.original_client", "Customer ID (optional)", "a gateway customer's id"),
        ),
    ),
    Part("order", "Order", "Order", (("language", "Language (optional)", "two letters, e.g. lt"),)),
    Part(
        "recurring",
        "Recurring",
        "Recurring",
        (
            ("recurring_card", "Saved card token (optional)", "instead of the customer"),
            ("recurring_number", "Recurring number (optional)", ""),
            ("recurring_number_expected", "Number expected (optional)", ""),
            ("recurring_period", "Recurring period (optional)", ""),
            ("recurring_reference", "Recurring reference (optional)", ""),
        ),
    ),
    Part(
        "airline_addendum",
        TRAVEL_MEMBERS["airline_addendum"],
        "Travel data",
        (
            (f"{_AIRLINE}.ticket_number", "Ticket number", ""),
            (f"{_AIRLINE}.passenger_name", "Passenger", ""),
            (f"{_AIRLINE}.customer_ref", "Customer reference (optional)", ""),
            (f"{_AIRLINE}.carrier_name", "Carrier", ""),
            (f"{_AIRLINE}.ticket_issue_date", "Ticket issued", "6 digits, yymmdd"),
        ),
    ),
    _stay("lodging", (("checkin_date", "Check-in"), ("checkout_date", "Check-out"))),
    _stay("car_rental", (("pickup_date", "Pick-up"), ("return_date", "Return"))),
    _stay("cruise", (("departure_date", "Departure"), ("return_date", "Return"))),
    _stay("ground_transportation", (("departure_date", "Departure"), ("return_date", "Return"))),
    Part(
        "funding",
        "Account funding: the recipient (every field required)",
        "Recipient",
        tuple(
            (f"recipient_client.{key}", label, placeholder)
            for key, label, placeholder in (
                ("first_name", "First name", ""),
                ("last_name", "Last name", ""),
                ("birth_date", "Birth date", "yyyy-mm-dd"),
                ("city", "City", ""),
                ("account_type", "Account type", "e.g. wallet"),
                ("account_number", "Account number", ""),
                ("country", "Country", "e.g. LT"),
                ("recipient_address", "Address", ""),
            )
        ),
    ),
    Part(
        "cardholder",
        "Cardholder's details and billing address",
        "Cardholder",
        (
            ("client.first_name", "First name", ""),
            ("client.last_name", "Last name", ""),
            ("client.address", "Address", ""),
            ("client.city", "City", ""),
            ("client.country", "Country", "e.g. LT"),
            ("client.state", "State (optional)", "for issuers in Canada and the USA"),
            ("client.zip_code", "ZIP code", ""),
        ),
    ),
    Part(
        "descriptor",
        "Dynamic descriptor",
        "Dynamic descriptor",
        (("dynamic_descriptor", "Descriptor", "at most 25 characters"),),
    ),
    Part(
        "location",
        "Service location",
        "Service location",
        (
            ("service_location.city", "City (optional)", ""),
            ("service_location.region", "Region (optional)", "subdivision code, e.g. VL"),
            ("service_location.country", "Country (optional)", "e.g. LT"),
            ("service_location.zip_code", "ZIP code (optional)", ""),
        ),
    ),
    Part(
        "sdwo",
        "SDWO purchase",
        "SDWO purchase",
        (("sdwo_merchant_id", "SDWO merchant ID", "the merchant's wallet"),),
    ),
)


PART = {part.key: part for part in PARTS}


#: the parts a capability shows (the cardholder and recurring parts follow from several)
PART_OF: dict[Item, str] = {Item.DD: "descriptor", Item.SL: "location", Item.SP: "sdwo"}


#: every field's name in a summary: with its part ("Recipient: First name")
LABELS: dict[str, str] = {
    path: f"{part.section}: {label.removesuffix(' (optional)')}"
    for part in PARTS
    for path, label, _placeholder in part.fields
}

LABELS.update(
    currency="Order: Currency",
    scenario="Order: Scenario",
    setup_future_use="Saving: Save for (setup_future_use)",
)
