"""A request's body as the sandbox reads it: bounded in size and time, JSON strictly (UTF-8,
no constant, no key twice, no deeper than JSON_DEPTH, at most JSON_VALUES values, every text
valid Unicode without control characters), an attachment's two multipart parts; and the
fingerprint that makes two submissions the same action."""

from __future__ import annotations

import hashlib
import re
from decimal import Decimal
from typing import Any

from starlette.requests import Request

from app.core import limits
from app.core.text import LONE_SURROGATE
from app.sandbox.errors import Refusal
from app.sandbox.idempotency import fingerprint
from app.serving import body as serving_body
from app.serving import strict_json

JSON_BODY_BYTES = 1024 * 1024  # decided; see the README


BODY_SECONDS = 30.0  # a request's body arrives within this after its head, or it is refused


MULTIPART_BODY_BYTES = limits.ATTACHMENT_BYTES.high + 256 * 1024

# held at once of bodies still arriving, past each one's first 64 KiB: six whole uploads
# (decided; past it a body is answered 503 with Retry-After: see the README)
ARRIVING_BYTES = 6 * MULTIPART_BODY_BYTES
BUSY_RETRY_SECONDS = 5


def arriving_budget() -> serving_body.BodyBudget:
    """A sandbox's own (its state's: one event loop counts it)."""
    return serving_body.BodyBudget(ARRIVING_BYTES)


JSON_DEPTH = 32  # objects and arrays nested deeper are refused (decided)


JSON_VALUES = 10_000  # values in one body (decided: a client with 20 documents has ~200)


# C0 and C1 controls but tab and line breaks, and the bidirectional overrides and isolates
# that make text read otherwise than it is stored
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def checked_text(value: str, where: str) -> str:
    """Refuse text that is not valid Unicode (a lone surrogate, as JSON "\\ud800" writes it) or
    that holds a control character (NUL and the like; tab and line breaks are text)."""
    if LONE_SURROGATE.search(value):
        raise Refusal(f"{where}: is not valid Unicode text (it holds a lone surrogate)")
    if _CONTROL.search(value):
        raise Refusal(f"{where}: holds a control character, which text cannot hold")
    return value


def checked_json(value: Any) -> None:
    """Walk a parsed body: every text valid Unicode without control characters, no deeper
    than JSON_DEPTH, at most JSON_VALUES values (so checking it against a schema is bounded
    work), no number JSON cannot carry exactly (those arrive as Decimal and fail any integer
    field). The walk stops at the first problem."""
    pending: list[tuple[Any, str, int]] = [(value, "", 0)]
    seen = 0
    while pending:
        item, where, depth = pending.pop()
        seen += 1
        if seen > JSON_VALUES:
            raise Refusal(f"The body holds more than {JSON_VALUES:,} values")
        if depth > JSON_DEPTH:
            raise Refusal(f"The body nests objects and arrays more than {JSON_DEPTH} deep")
        if isinstance(item, str):
            checked_text(item, where or "body")
        elif isinstance(item, dict):
            for key, child in item.items():
                checked_text(key, f"{where}.{key}" if where else "a property name")
                pending.append((child, f"{where}.{key}" if where else key, depth + 1))
        elif isinstance(item, list):
            for index, child in enumerate(item):
                pending.append((child, f"{where}.{index}" if where else str(index), depth + 1))


def parse_json(raw: bytes) -> Any:
    """A JSON body, checked: numbers with a fraction or exponent become Decimal (never float,
    so 100.0 is not an integer), NaN and Infinity are refused, depth and text are checked."""
    try:
        text = raw.decode("utf-8")  # strictly: UTF-16 and broken UTF-8 are refused
    except UnicodeDecodeError as exc:
        raise Refusal(f"The body is not UTF-8 text: {exc.reason} at byte {exc.start}") from None
    try:
        parsed = strict_json.loads(text, parse_float=Decimal)
    except RecursionError:
        raise Refusal(f"The body nests objects and arrays more than {JSON_DEPTH} deep") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise Refusal(f"The body is not valid JSON: {str(exc)[:200]}") from None
    checked_json(parsed)
    return parsed


async def read_capped(request: Request, cap: int) -> bytes:
    """The request's body, refused past ``cap`` bytes without reading the rest, or when it
    does not arrive within BODY_SECONDS of its head."""
    try:
        budget = request.app.state.sandbox.arriving
        return await serving_body.read_capped(request, cap, BODY_SECONDS, budget)
    except serving_body.BodiesTooMany as busy:
        raise Refusal(
            str(busy), "Service unavailable", 503, retry_after=BUSY_RETRY_SECONDS
        ) from None
    except serving_body.BodyRefused as refused:
        raise Refusal(str(refused)) from None


def _is_json(content_type: str) -> bool:
    media = content_type.split(";", 1)[0].strip().lower()
    return media == "application/json" or (
        media.startswith("application/") and media.endswith("+json")
    )


def _charset(content_type: str) -> str | None:
    """The charset parameter of a Content-Type, lower case, or None."""
    for parameter in content_type.split(";")[1:]:
        name, _, value = parameter.partition("=")
        if name.strip().lower() == "charset":
            return value.strip().strip('"').lower()
    return None


async def read_body(request: Request, kind: str) -> tuple[Any, str]:
    """The parsed body and its fingerprint (what makes two submissions the same action).
    ``kind``: json (required), optional, none (empty or ``{}``) or multipart."""
    content_type = request.headers.get("content-type", "")
    if kind == "multipart":
        if not content_type.lower().startswith("multipart/form-data"):
            raise Refusal("The body must be sent as multipart/form-data with metadata and file")
        await read_capped(request, MULTIPART_BODY_BYTES)
        return await _read_multipart(request)
    raw = await read_capped(request, JSON_BODY_BYTES)
    if not raw.strip():
        if kind == "json":
            raise Refusal("The body is required (a JSON object)")
        return None, "empty"
    if not _is_json(content_type):
        raise Refusal("The body must be sent as application/json")
    charset = _charset(content_type)
    if charset not in (None, "utf-8", "utf8"):  # JSON is UTF-8: another would be misread
        raise Refusal(f"Content-Type: charset {charset[:40]!r}: JSON is sent as utf-8")
    parsed = parse_json(raw)
    if kind == "none":
        if parsed != {}:
            raise Refusal("This operation takes no body")
        return None, "empty"  # {} is no body: the same request as an empty one
    return parsed, fingerprint(parsed)


async def _read_multipart(request: Request) -> tuple[Any, str]:
    """The attachment's two parts, read from the raw body (already bounded by read_capped)
    so that the metadata's bytes are checked as UTF-8 JSON exactly as sent."""
    content_type = request.headers.get("content-type", "")
    parts = _multipart_parts(request._body, content_type)
    for name in ("metadata", "file"):
        found = parts.get(name, [])
        if not found:
            raise Refusal(f"{name}: is required")
        if len(found) > 1:
            raise Refusal(f"{name}: is sent more than once")
    unknown = sorted(set(parts) - {"metadata", "file"})
    if unknown:
        raise Refusal(f"{unknown[0][:40]}: is not a part of an attachment (metadata, file)")
    (metadata_raw, _), (content, filename) = parts["metadata"][0], parts["file"][0]
    if filename is None:
        raise Refusal("file: must be a file part (with a filename)")
    if len(metadata_raw) > JSON_BODY_BYTES:
        raise Refusal("metadata: larger than 1,024 KiB")
    metadata = parse_json(metadata_raw)
    if len(content) > limits.ATTACHMENT_BYTES.high:
        raise Refusal("file: larger than the 10 MiB limit")
    if not content:
        raise Refusal("file: is empty")
    digest = hashlib.sha256(fingerprint(metadata).encode() + b"\0" + content).hexdigest()
    return {"metadata": metadata, "file": content}, digest


MultipartParts = dict[str, list[tuple[bytes, str | None]]]


def _multipart_parts(raw: bytes, content_type: str) -> MultipartParts:
    """Name -> [(bytes, filename)] of a multipart/form-data body, at most four parts, read by
    the framework's form parser (python-multipart) with every part kept in memory: the body
    was already bounded by read_capped."""
    from python_multipart.multipart import Field, File, FormParser, parse_options_header

    _media, options = parse_options_header(content_type)
    boundary = options.get(b"boundary")
    if not boundary:
        raise Refusal("The multipart body has no boundary")
    parts: MultipartParts = {}

    def add(name: bytes | None, value: bytes, filename: bytes | None) -> None:
        if name is None:
            raise Refusal("A multipart part has no name")
        if sum(len(found) for found in parts.values()) >= 4:
            raise Refusal("The multipart body has more than 4 parts")
        shown = filename.decode("utf-8", "replace") if filename is not None else None
        parts.setdefault(name.decode("utf-8", "replace"), []).append((value, shown))

    def on_field(field: Field) -> None:
        add(field.field_name, field.value or b"", None)

    def on_file(file: File) -> None:
        stream = file.file_object
        stream.seek(0)
        add(file.field_name, stream.read(), file.file_name)
        file.close()

    parser = FormParser(
        "multipart/form-data",
        on_field,
        on_file,
        boundary=boundary,
        config={"MAX_MEMORY_FILE_SIZE": MULTIPART_BODY_BYTES},
    )
    try:
        parser.write(raw)
        parser.finalize()
    except Refusal:
        raise
    except Exception as exc:  # python-multipart raises several kinds for a malformed body
        raise Refusal(f"The multipart body cannot be read: {str(exc)[:200]}") from None
    return parts
