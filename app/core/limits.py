"""Limits and filterable fields of the banking contract, shared by the client and the sandbox."""

from __future__ import annotations

import datetime as dt

from app.core.filter import FieldType

MAX_REQUEST_ID = 64
MAX_PARTNER_CODE = 255
MAX_ID = 64  # clientId, accountId, transfer id, external_reference
MAX_OFFSET = 2_147_483_647
MAX_LIMIT = 100
DEFAULT_LIMIT = 20  # not shown in the contract: decided, see the README
MAX_AMOUNT = 2_147_483_647
MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024  # not shown in the contract: decided

CLIENT_FILTER_FIELDS: dict[str, FieldType] = {
    "email": str,
    "contact_mobile_number": str,
    "external_id": str,
    "create_date": dt.date,
}
TRANSFER_FILTER_FIELDS: dict[str, FieldType] = {"processing_date": dt.date}
