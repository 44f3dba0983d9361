"""The one source of the card gateway contract's limits, for the client's models, the New
order form and the sandbox. ``tests/unit/core/test_limits.py`` checks every bound here against
the gateway's OpenAPI document (which the sandbox validates with)."""

from __future__ import annotations

from app.core.limits import COUNTRY, CURRENCY, EMAIL, Bound

NAME = Bound(1, 100)  # names, cities, a tax's name
TEXT = Bound(1, 255)  # titles, addresses
REFERENCE = Bound(1, 64)  # booking and account numbers, recurring references, cof_trace_id
ZIP_CODE = Bound(1, 16)
SUBDIVISION = Bound(1, 3)  # a state or region code
UUID = Bound(0, 36)
QUANTITY = Bound(1, 10_000)
PRODUCT_DESCRIPTION = Bound(0, 1024)
PRODUCTS = Bound(0, 100)  # items of an order
ACCOUNT_TYPE = Bound(1, 32)
SERVICE_CLASS = Bound(1, 32)
TRIP_NUMBER = Bound(1, 16)
TICKET_NUMBER = Bound(1, 32)
LEGS = Bound(1, 16)  # items, and n_legs
DYNAMIC_DESCRIPTOR = Bound(1, 25)
CARD_NUMBER = Bound(4, 32)  # as sent: digits with spaces, or a saved card's masked number
PAYER_IP = Bound(2, 45)
EXP_MONTH = Bound(1, 12)
SAVED_EXP_YEAR = Bound(2000, 2999)
EXP_YEAR = Bound(0, 9999)  # as typed: two digits or four (decided; the document has none)

#: Every bound of every schema of the gateway's document: schema, then property.
SCHEMA_BOUNDS: dict[str, dict[str, Bound]] = {
    "countryType": {"": COUNTRY},
    "currencyType": {"": CURRENCY},
    "emailType": {"": EMAIL},
    "uuidType": {"": UUID},
    "textType": {"": TEXT},
    "SavedCard": {"exp_month": EXP_MONTH, "exp_year": SAVED_EXP_YEAR},
    "TaxRequest": {"name": NAME},
    "OrderClient": {
        "first_name": NAME,
        "last_name": NAME,
        "address": TEXT,
        "city": NAME,
        "state": SUBDIVISION,
        "zip_code": ZIP_CODE,
    },
    "ProductTax": {"name": NAME},
    "Product": {"title": TEXT, "quantity": QUANTITY, "description": PRODUCT_DESCRIPTION},
    "RecipientClient": {
        "first_name": NAME,
        "last_name": NAME,
        "city": NAME,
        "account_type": ACCOUNT_TYPE,
        "account_number": REFERENCE,
        "recipient_address": TEXT,
    },
    "ServiceLocation": {"city": NAME, "region": SUBDIVISION, "zip_code": ZIP_CODE},
    "Leg": {"service_class": SERVICE_CLASS, "trip_number": TRIP_NUMBER},
    "AirlineAddendum": {
        "ticket_number": TICKET_NUMBER,
        "passenger_name": NAME,
        "customer_ref": REFERENCE,
        "n_legs": LEGS,
        "carrier_name": NAME,
        "legs": LEGS,
    },
    "Stay": {"booking_number": REFERENCE},
    "CarRental": {"booking_number": REFERENCE},
    "Journey": {"booking_number": REFERENCE},
    "OrderRequest": {
        "products": PRODUCTS,
        "recurring_number": REFERENCE,
        "recurring_number_expected": REFERENCE,
        "recurring_period": REFERENCE,
        "recurring_reference": REFERENCE,
        "dynamic_descriptor": DYNAMIC_DESCRIPTOR,
        "sdwo_merchant_id": REFERENCE,
    },
    "PaymentRequest": {
        "cardholder_name": NAME,
        "card_number": CARD_NUMBER,
        "ip_address": PAYER_IP,
        "cof_trace_id": REFERENCE,
    },
}
