"""The registration webhooks of the banking contract ("Events"): the catalogue, the shapes of
their timestamps, the subscription filter, and the bounds — shared by the sandbox's emitter
and the desk's receiver."""

from __future__ import annotations

import datetime as dt
import re

KNOWN_TYPES = frozenset({"corp_reg.status_changed", "private_reg.status_changed"})
RESOURCES = {"COMPANY": "corp_reg", "PERSON": "private_reg"}  # client type -> resource
STATUSES = ("inprogress", "done", "active")
ACTION = "status_changed"
EVENT_VERSION = "1"
USER_AGENT = "Core-Webhooks/1.0"
CONTENT_TYPE = "application/json; charset=utf-8"

TYPE_MAX = 100  # event_type, resource
DATA_ID_MAX = 64
BODY_MAX = 64 * 1024  # a delivery's body, decided (README)

#: X-Webhook-Timestamp: the queueing time, seven fractional digits, no zone
HEADER_TIMESTAMP = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{7}")
#: occurred_at: UTC, exactly three fractional digits and a literal Z
OCCURRED_AT = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z")
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_NAME = r"[a-z0-9_]{1,100}"
FILTER = re.compile(rf"\*|\*\.{_NAME}|{_NAME}\.\*|{_NAME}\.{_NAME}")


def header_timestamp(moment: dt.datetime) -> str:
    """2026-11-23T09:05:06.1234560 (UTC, seven fractional digits, no zone)."""
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%f") + "0"


def occurred_at(moment: dt.datetime) -> str:
    """2026-11-23T09:05:06.123Z."""
    # isoformat: half strftime's time, and its year always four digits; "+00:00" made "Z"
    return moment.astimezone(dt.UTC).isoformat(timespec="milliseconds")[:-6] + "Z"


def check_filter(text: str) -> str | None:
    """Why a subscription filter is not one (None when it is): an exact type, `resource.*`,
    `*.action` or `*`."""
    if len(text) > 2 * TYPE_MAX + 1 or not FILTER.fullmatch(text):
        return "must be an event type, resource.*, *.action or * (lower case, digits, _)"
    return None


def filter_matches(text: str, event_type: str) -> bool:
    if text == "*":
        return True
    resource, _, action = event_type.partition(".")
    wanted_resource, _, wanted_action = text.partition(".")
    if wanted_resource == "*":
        return wanted_action == action
    if wanted_action == "*":
        return wanted_resource == resource
    return text == event_type
