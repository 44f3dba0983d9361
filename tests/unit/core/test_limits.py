"""The one source of the contract's limits and the OpenAPI documents the sandbox validates
with can never drift apart: every bound of every schema and shared parameter is compared."""

from typing import Any

import pytest
import yaml

from app.core import limits
from app.core.gateway import limits as gateway_limits
from app.core.limits import Bound
from app.core.resources import OPENAPI_GATEWAY, OPENAPI_V1, OPENAPI_V2

_KEYS = (("minLength", "maxLength"), ("minimum", "maximum"), ("minItems", "maxItems"))


def _bound(schema: dict[str, Any]) -> Bound | None:
    for low_key, high_key in _KEYS:
        if low_key in schema or high_key in schema:
            if "maxLength" in (low_key, high_key) or "maxItems" in (low_key, high_key):
                return Bound(schema.get(low_key, 0), schema[high_key])
            return Bound(schema[low_key], schema[high_key])
    return None


def _walk(schema: dict[str, Any], prefix: str = "") -> dict[str, Bound]:
    """Property -> bound of a schema, inline objects' properties dotted."""
    found: dict[str, Bound] = {}
    own = _bound(schema)
    if own is not None:
        found[prefix] = own
    for name, child in schema.get("properties", {}).items():
        found.update(_walk(child, f"{prefix}.{name}" if prefix else name))
    return found


def _documents() -> list[dict[str, Any]]:
    return [yaml.safe_load(path.read_text(encoding="utf-8")) for path in (OPENAPI_V1, OPENAPI_V2)]


def test_every_schema_bound_of_the_documents_is_the_one_in_core():
    seen: set[tuple[str, str]] = set()
    for document in _documents():
        for name, schema in document["components"]["schemas"].items():
            for prop, bound in _walk(schema).items():
                assert limits.SCHEMA_BOUNDS.get(name, {}).get(prop) == bound, (name, prop)
                seen.add((name, prop))
    in_core = {(name, prop) for name, props in limits.SCHEMA_BOUNDS.items() for prop in props}
    assert in_core == seen, "bounds in core that no document has"


def test_every_schema_bound_of_the_gateway_document_is_the_one_in_core():
    document = yaml.safe_load(OPENAPI_GATEWAY.read_text(encoding="utf-8"))
    seen: set[tuple[str, str]] = set()
    for name, schema in document["components"]["schemas"].items():
        for prop, bound in _walk(schema).items():
            assert gateway_limits.SCHEMA_BOUNDS.get(name, {}).get(prop) == bound, (name, prop)
            seen.add((name, prop))
    in_core = {
        (name, prop) for name, props in gateway_limits.SCHEMA_BOUNDS.items() for prop in props
    }
    assert in_core == seen, "bounds in core that the gateway's document does not have"


def test_every_parameter_bound_of_the_documents_is_the_one_in_core():
    seen = set()
    for document in _documents():
        for parameter in document["components"]["parameters"].values():
            bound = _bound(parameter["schema"])
            if bound is not None:
                assert limits.PARAMETER_BOUNDS[parameter["name"]] == bound, parameter["name"]
                seen.add(parameter["name"])
    assert seen == set(limits.PARAMETER_BOUNDS)


@pytest.mark.parametrize(
    ("text", "bound", "problem"),
    [
        ("", Bound(1, 64), "required"),
        ("x" * 65, Bound(1, 64), "at most 64 characters (65 now)"),
        ("AB", Bound(3, 3), "exactly 3 characters"),
        ("ABC", Bound(3, 3), None),
        ("", Bound(0, 140), None),
    ],
)
def test_length_problems_say_the_limit(text, bound, problem):
    assert bound.length_problem(text) == problem
