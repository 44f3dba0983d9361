"""What every model of the service layer shares: the base classes, validation into
``InvalidInput`` naming the fields, and the contract's error body."""

from __future__ import annotations

import re
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic_core import ErrorDetails

from app.api.errors import InvalidInput

M = TypeVar("M", bound=BaseModel)

_FIELD_FIRST = re.compile(r"(?P<field>[a-z_][a-z0-9_]*(?:\.[a-z0-9_]+)*): (?P<problem>.+)", re.S)


class Model(BaseModel):
    """An answer of the service: unknown keys are ignored, so a server that adds a field does
    not break the desk."""

    model_config = ConfigDict(defer_build=True, extra="ignore", populate_by_name=True)

    def body(self) -> dict[str, Any]:
        """The JSON body of a create request: unset optional properties are left out."""
        return self.model_dump(mode="json", exclude_none=True)


class RequestModel(Model):
    """Sent by the desk: unknown properties are a programming error, refused at once."""

    model_config = ConfigDict(defer_build=True, extra="forbid", populate_by_name=True)


def build(model: type[M], data: Any) -> M:
    """Validate input into a model; every problem is named in the InvalidInput raised (the first
    one as its field), so a form can mark all of them at once, each in the user's words."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        problems: dict[str, str] = {}
        for error in exc.errors():
            field = ".".join(str(part) for part in error["loc"])
            problem = in_words(error)
            named = _FIELD_FIRST.match(problem)
            if named:  # a rule over several fields names the one it blames: "field: problem"
                field = ".".join(part for part in (field, named["field"]) if part)
                problem = named["problem"]
            problems.setdefault(field, problem)
        field, problem = next(iter(problems.items()))
        raise InvalidInput(field, problem, problems, label=field_words(field)) from None


# words a request's field names are read as
_WORDS = {
    "email": "e-mail",
    "iban": "IBAN",
    "bic": "BIC",
    "ip": "IP",
    "id": "ID",
    "url": "URL",
    "nace": "NACE",
    "vat": "VAT",
    "zip": "ZIP",
    "avs": "AVS",
    "cvv": "CVV",
    "csc": "CSC",
    "sdwo": "SDWO",
}


def field_words(path: str) -> str:
    """A request's field as a person reads it: "client.tax_id.country" → "Client: tax ID:
    country", "products.0.price" → "Product 1: price", "email" → "E-mail"."""
    words: list[str] = []
    for part in path.split("."):
        if part.isdigit() and words:
            words[-1] = f"{words[-1].removesuffix('s')} {int(part) + 1}"
        else:
            words.append(" ".join(_WORDS.get(piece, piece) for piece in part.split("_")))
    text = ": ".join(words)
    return text[:1].upper() + text[1:]


def in_words(error: ErrorDetails) -> str:
    """A validation problem as a person reads it: what is expected, never the library's
    phrasing ("String should have at least 2 characters", a regular expression). The rules
    of this desk's own say theirs (a ValueError's words, as they are)."""
    kind, context = error["type"], error.get("ctx") or {}
    given = error.get("input")
    if kind == "value_error":
        return str(error["msg"]).removeprefix("Value error, ")
    if kind == "missing" or (kind == "string_too_short" and context.get("min_length") == 1):
        return "Required"
    if kind == "string_too_short":
        return f"At least {context['min_length']} characters"
    if kind == "string_too_long":
        now = f" ({len(given)} now)" if isinstance(given, str) else ""
        return f"At most {context['max_length']} characters{now}"
    if kind == "string_pattern_mismatch":
        return "Not in the form expected here"
    if kind == "too_long":
        return f"At most {context['max_length']} items"
    if kind in ("int_type", "int_parsing", "int_from_float"):
        return "A whole number"
    if kind in ("greater_than_equal", "greater_than", "less_than_equal", "less_than"):
        words = {
            "greater_than_equal": "At least",
            "greater_than": "More than",
            "less_than_equal": "At most",
            "less_than": "Less than",
        }
        bound = next(iter(context.values()), "")
        return f"{words[kind]} {bound}"
    if kind in ("literal_error", "enum"):
        return f"One of {context.get('expected', 'the values offered')}"
    if kind in (
        "date_type",
        "date_parsing",
        "date_from_datetime_parsing",
        "date_from_datetime_inexact",
    ):
        return "A date yyyy-mm-dd"
    if kind in ("bool_type", "bool_parsing"):
        return "Yes or no (true or false)"
    if kind in ("decimal_type", "decimal_parsing", "finite_number"):
        return "A decimal number such as 10.50"
    if kind == "string_type":
        return "Text"
    if kind == "extra_forbidden":
        return "Not a field of this request"
    if kind in ("dict_type", "model_type", "model_attributes_type"):
        return "A group of fields"
    if kind == "list_type":
        return "A list"
    return str(error["msg"])


class ErrorDetail(Model):
    error_id: str
    title: str


class ErrorBody(Model):
    """The contract's error body: ``failure_message`` and ``detail.error_id`` / ``title``."""

    failure_message: str
    detail: ErrorDetail
