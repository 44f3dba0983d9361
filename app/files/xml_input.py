"""Untrusted XML read within bounds and checked against an ISO 20022 schema.

A file is refused, with a message that names what is wrong (and where, by line and element),
before anything in it is used: larger than the cap (read no further than the cap, so a file of
gigabytes or an endless device costs the cap), a DTD or an entity (no "billion laughs", no
external entity: the parser neither loads nor expands them, and a document declaring one is
refused), nesting deeper than the parser's bound, bytes that are not text in the declared
encoding, or a document the schema does not accept."""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import IO, TYPE_CHECKING

from app.core.resources import RESOURCES

if TYPE_CHECKING:
    from lxml import etree

XSD_FOLDER = RESOURCES / "xsd"
NAMESPACE_PREFIX = "urn:iso:std:iso:20022:tech:xsd:"


class FileRefused(Exception):
    """The file as a whole cannot be used; the message says why, in the user's words."""


@dataclass(frozen=True)
class SchemaError:
    line: int
    element: str  # its local name, "InstdAmt"
    message: str  # libxml2's, without the namespace noise
    path: str  # libxml2's path to the element, "/*/*[1]/*[2]"

    def __str__(self) -> str:
        return f"line {self.line}: {self.element}: {self.message}"


def read_capped(source: Path | IO[bytes], cap: int, what: str) -> bytes:
    """At most ``cap`` bytes of the file; a longer one is refused having read cap + 1. A path
    is opened without waiting (a pipe would wait for a writer) and refused unless what was
    opened is a regular file (a device never ends)."""
    if isinstance(source, Path):
        try:
            descriptor = os.open(source, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        except OSError as exc:
            raise FileRefused(f"The file cannot be read ({exc.strerror or exc})") from None
        try:
            if not stat.S_ISREG(os.fstat(descriptor).st_mode):
                raise FileRefused("This is not a file (a folder, a device or a pipe)")
            handle = os.fdopen(descriptor, "rb")
        except BaseException:
            os.close(descriptor)
            raise
        with handle:
            try:
                return read_capped(handle, cap, what)
            except OSError as exc:
                raise FileRefused(f"The file cannot be read ({exc.strerror or exc})") from None
    data = source.read(cap + 1)
    if len(data) > cap:
        raise FileRefused(f"The {what} is larger than {cap // (1024 * 1024)} MiB, the most read")
    if not data.strip():
        raise FileRefused(f"The {what} is empty")
    return data


@dataclass(frozen=True)
class Bounds:
    """How big a document may be, counted before it is built: its elements, and the children
    of any one element (libxml2 names an element by counting its siblings: a schema error
    under an element of millions of children costs their number, each)."""

    elements: int
    children: int


def parse(data: bytes, what: str, bounds: Bounds) -> etree._ElementTree:
    """The document, parsed without loading or expanding any DTD or entity, counted first
    within ``bounds`` in the memory of a few elements; one that declares a DTD, is larger, or
    is no well-formed XML, is refused with the line of the problem."""
    from lxml import etree

    if any(marker in data for marker in _DOCTYPE):
        raise FileRefused(_DTD_REFUSED.format(what=what))
    if data[:1].isspace():
        data = data.lstrip()  # blank lines before the declaration: a careless file, not a bad one
    _count(data, what, bounds)
    try:
        root = etree.fromstring(data, _parser())
    except etree.XMLSyntaxError as exc:
        raise FileRefused(_syntax(exc, what)) from None
    except ValueError as exc:  # an encoding lxml does not know
        raise FileRefused(f"The {what} cannot be read as XML: {exc}") from None
    tree = root.getroottree()
    if tree.docinfo.doctype or tree.docinfo.internalDTD is not None:
        raise FileRefused(_DTD_REFUSED.format(what=what))
    return tree


def _parser() -> etree.XMLParser:
    from lxml import etree

    return etree.XMLParser(
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        dtd_validation=False,
        huge_tree=False,  # libxml2's bounds: depth 256, text nodes 10 MB
        remove_comments=True,
        remove_pis=True,
    )


def _count(data: bytes, what: str, bounds: Bounds) -> None:
    """Refuse a document of more elements, or an element of more children, than ``bounds``
    allow, reading it as events and letting each element go once counted."""
    import io

    from lxml import etree

    elements = 0
    children = [0]
    events = etree.iterparse(
        io.BytesIO(data),
        events=("start", "end"),
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        huge_tree=False,
        remove_comments=True,
        remove_pis=True,
    )
    try:
        for event, element in events:
            if event == "start":
                elements += 1
                children[-1] += 1
                if elements > bounds.elements:
                    raise FileRefused(
                        f"The {what} holds more than {bounds.elements:,} elements: no payment "
                        "file of the most payments imported at once is that large"
                    )
                if children[-1] > bounds.children:
                    raise FileRefused(
                        f"The {what} has an element of more than {bounds.children:,} elements "
                        f"(line {element.sourceline}): no payment file needs that many"
                    )
                children.append(0)
            else:
                children.pop()
                element.clear()  # counted: its memory goes
                while element.getprevious() is not None:
                    del element.getparent()[0]
    except etree.XMLSyntaxError as exc:
        raise FileRefused(_syntax(exc, what)) from None
    except ValueError as exc:  # an encoding lxml does not know
        raise FileRefused(f"The {what} cannot be read as XML: {exc}") from None


# a DTD is refused before the parser sees it, in the encodings a file may declare
_DOCTYPE = tuple(
    "<!DOCTYPE".encode(codec)
    for codec in ("utf-8", "utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be")
)
_DTD_REFUSED = (
    "The {what} declares a DTD (<!DOCTYPE …>): ISO 20022 files have none, and its entities "
    "could expand or reach other files. Nothing in it was used."
)


def _syntax(exc: Exception, what: str) -> str:
    """libxml2's refusal in the user's words, on one line."""
    text = " ".join(str(exc).split())  # libxml2's message may hold a line break
    text = re.sub(r" \(<string>, line \d+\)$", "", text)
    if "amplification" in text:  # entities declared in a way no marker above caught
        return _DTD_REFUSED.format(what=what)
    if "Excessive depth" in text:
        text = f"elements nested deeper than 256 levels (line {getattr(exc, 'lineno', '?')})"
    elif "Invalid bytes in character encoding" in text or "not proper UTF-8" in text:
        text = f"bytes that are not text in the file's encoding ({text})"
    return f"The {what} is not well-formed XML: {text}"


def message_kind(tree: etree._ElementTree) -> str:
    """The message the document's namespace names ("pain.001.001.03"), or "" for none."""
    tag = str(tree.getroot().tag)
    namespace = tag[1:].partition("}")[0] if tag.startswith("{") else ""
    if not namespace.startswith(NAMESPACE_PREFIX):
        return ""
    return namespace.removeprefix(NAMESPACE_PREFIX)


@cache
def schema(kind: str) -> etree.XMLSchema:
    """The official schema of ``kind`` ("camt.053.001.08"), as bundled (resources/xsd)."""
    from lxml import etree

    path = XSD_FOLDER / f"{kind}.xsd"
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)
    return etree.XMLSchema(etree.parse(str(path), parser))


def schema_errors(tree: etree._ElementTree, kind: str) -> list[SchemaError]:
    """What the schema of ``kind`` finds wrong in the document, each with its line."""
    checker = schema(kind)
    if checker.validate(tree):
        return []
    found = []
    for error in checker.error_log:
        element = re.search(r"Element '(?:\{[^}]*\})?([^']+)'", error.message)
        message = re.sub(r"^Element '[^']*': ", "", error.message)
        message = re.sub(r"\{urn:iso:std:iso:20022:tech:xsd:[^}]*\}", "", message)
        name = element.group(1) if element else ""
        found.append(SchemaError(error.line, name, message, error.path or ""))
    return found


def element_at(tree: etree._ElementTree, path: str) -> etree._Element | None:
    """The element a schema error's path names, or None when it names none."""
    from lxml import etree

    namespaces = {key: value for key, value in tree.getroot().nsmap.items() if key}
    try:
        found = tree.xpath(path, namespaces=namespaces) if path else []
    except etree.XPathError:
        return None
    return found[0] if isinstance(found, list) and found else None
