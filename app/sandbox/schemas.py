"""Request validation against the project's own OpenAPI documents.

Validating against the documents (not against the client's models) keeps the sandbox an
independent implementation: a client that drifts from the contract is refused here.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.core.countries import is_country
from app.core.money import is_currency
from app.sandbox.errors import Refusal

if TYPE_CHECKING:
    from jsonschema import ValidationError

# Properties that exist on a resource but may not be sent: named as read-only, not unknown.
READ_ONLY = frozenset(
    {
        "id",
        "status",
        "kind",
        "external_reference",
        "create_date",
        "site_info",
        "fee",
        "beneficiary_bank",
        "processing_date",
    }
)


def _read_only(
    validator: Any, value: bool, instance: object, schema: dict[str, Any]
) -> Iterator[ValidationError]:
    from jsonschema import ValidationError

    if value:
        yield ValidationError("is read-only", validator="readOnly")


@cache
def _anchored(pattern: str) -> re.Pattern[str]:
    """A pattern whose final ``$`` means the end of the text: Python's ``$`` also matches
    before a final line break, so "en\\n" would pass ``^[a-z]{2}$``."""
    if pattern.endswith("$") and not pattern.endswith("\\$"):
        pattern = pattern[:-1] + r"\Z"
    return re.compile(pattern)


def _pattern(
    validator: Any, pattern: str, instance: object, schema: dict[str, Any]
) -> Iterator[ValidationError]:
    from jsonschema import ValidationError

    if isinstance(instance, str) and not _anchored(pattern).search(instance):
        yield ValidationError(f"{instance[:40]!r} does not match {pattern!r}")


@cache
def _request_validator() -> Any:
    # jsonschema and yaml are imported for the first body validated, not at the start: the
    # sandbox answers its first calls (the window's sign-in) 30 ms sooner
    from jsonschema import Draft202012Validator, validators

    return validators.extend(  # type: ignore[no-untyped-call]
        Draft202012Validator, {"readOnly": _read_only, "pattern": _pattern}
    )


@cache
def _document(path: Path) -> dict[str, Any]:
    import yaml

    with path.open(encoding="utf-8") as handle:
        loaded: dict[str, Any] = yaml.load(handle, Loader=yaml.CSafeLoader)
    return loaded


@cache
def _validator(document_path: Path, schema_name: str) -> Any:
    from jsonschema import FormatChecker
    from referencing import Registry, Resource
    from referencing.jsonschema import DRAFT202012

    document = _document(document_path)
    registry: Registry[Any] = Registry().with_resource(
        "urn:document", Resource.from_contents(document, default_specification=DRAFT202012)
    )
    schema = {"$ref": f"urn:document#/components/schemas/{schema_name}"}
    return _request_validator()(schema, registry=registry, format_checker=FormatChecker())


def _field(error: ValidationError) -> str:
    return ".".join(str(part) for part in error.absolute_path)


def _describe(error: ValidationError) -> str:
    field = _field(error)
    where = f"{field}: " if field else ""
    kind = error.validator
    value: Any = error.validator_value
    if kind == "required":
        missing = error.message.split("'")[1] if "'" in error.message else error.message
        return f"{field + '.' if field else ''}{missing}: is required"
    if kind == "additionalProperties":
        schema: Any = error.schema
        instance: Any = error.instance
        extras = [name for name in instance if name not in schema.get("properties", {})]
        name = extras[0] if extras else "?"
        full = f"{field + '.' if field else ''}{name}"
        if name in READ_ONLY:
            return f"{full}: is read-only and cannot be sent"
        return f"{full}: is not a known property"
    if kind == "readOnly":
        return f"{where}is read-only and cannot be sent"
    if kind == "maxLength":
        return f"{where}at most {value} characters"
    if kind == "minLength":
        return f"{where}must not be empty" if value == 1 else f"{where}at least {value} characters"
    if kind == "minimum":
        return f"{where}must be at least {value}"
    if kind == "maximum":
        return f"{where}must be at most {value}"
    if kind == "enum":
        return f"{where}must be one of {', '.join(map(str, value))}"
    if kind == "pattern":
        hint = {
            "contact_mobile_number": "an international number such as +37060012345",
            "country": "an ISO 3166 alpha-2 code such as LT",
            "currency": "an ISO 4217 code such as EUR",
            "email": "an e-mail address",
        }
        last = str(error.absolute_path[-1]) if error.absolute_path else ""
        expected = hint.get(last) or hint.get(last.rsplit("_", 1)[-1]) or f"the pattern {value}"
        return f"{where}must be {expected}"
    if kind == "format":
        return f"{where}must be a valid {value}"
    if kind == "type" and error.instance is None:
        return f"{where}is required and cannot be cleared with null"
    if kind == "type":
        wanted = value if isinstance(value, str) else " or ".join(value)
        if wanted == "integer":
            return f"{where}must be a whole number written without a decimal point or exponent"
        return f"{where}must be of type {wanted}"
    if kind == "maxItems":
        return f"{where}at most {value} items"
    return f"{where}{error.message}"


_COUNTRY_KEYS = frozenset({"country", "nationality", "recipient_country", "bank_country"})
# prefer the error that says what a value should look like over a bare length error
_PREFERENCE = {"pattern": 0, "format": 1, "enum": 2}


def _check_codes(instance: object, path: str = "") -> None:
    """Shape alone admits "XX" and "ABC": the codes must also exist in ISO 3166 / ISO 4217."""
    if isinstance(instance, dict):
        for key, value in instance.items():
            where = f"{path}.{key}" if path else str(key)
            if isinstance(value, str) and key in _COUNTRY_KEYS and not is_country(value):
                raise Refusal(f"{where}: {value!r} is not an ISO 3166 alpha-2 country code")
            if isinstance(value, str) and key == "currency" and not is_currency(value):
                raise Refusal(f"{where}: {value!r} is not an ISO 4217 currency code")
            _check_codes(value, where)
    elif isinstance(instance, list):
        for index, item in enumerate(instance):
            _check_codes(item, f"{path}.{index}")


def validate(document: Path, schema_name: str, instance: object) -> None:
    """Refuse (400) an instance that does not fit the named schema of the OpenAPI document,
    naming the field."""
    errors = sorted(
        _validator(document, schema_name).iter_errors(instance),
        key=lambda e: (
            len(list(e.absolute_path)),
            _field(e),
            _PREFERENCE.get(str(e.validator), 9),
        ),
    )
    if not errors:
        _check_codes(instance)
        return
    # oneOf/anyOf wrap the useful error; take its deepest context
    error = errors[0]
    while error.context:
        error = max(error.context, key=lambda e: len(list(e.absolute_path)))
    raise Refusal(_describe(error))
