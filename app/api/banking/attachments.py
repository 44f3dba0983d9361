"""Attachments: a file and its JSON metadata, uploaded as multipart."""

from __future__ import annotations

import datetime as dt
import json
from typing import Annotated, Any, Literal

from app.api.errors import InvalidInput
from app.api.fields import Country, text
from app.api.models import Model, RequestModel
from app.api.operations import Operations, one
from app.core import limits

DocumentType = Literal[
    "passport",
    "id_card",
    "driving_licence",
    "residence_permit",
    "proof_of_address",
    "license",
    "share_register",
    "director_register",
    "trade_register",
]


class AttachmentMetadata(RequestModel):
    document_type: DocumentType
    document_number: Annotated[str, text(limits.DOCUMENT_NUMBER)] | None = None
    country: Country | None = None
    issued_at: dt.date | None = None
    expired_at: dt.date | None = None
    additional: Annotated[str, text(limits.ADDITIONAL)] | None = None


class AttachmentCreated(Model):
    id: str
    expired_at: str
    metadata: dict[str, Any]


class AttachmentOperations(Operations):
    async def create_attachment(
        self,
        metadata: AttachmentMetadata,
        content: bytes,
        *,
        filename: str = "document",
        request_id: str | None = None,
    ) -> AttachmentCreated:
        if not content:
            raise InvalidInput("file", "is empty")
        if len(content) > limits.ATTACHMENT_BYTES.high:
            raise InvalidInput("file", "larger than the 10 MiB limit")
        files = {
            # no filename: metadata is a JSON field part, not a file
            "metadata": (None, json.dumps(metadata.body()).encode(), "application/json"),
            "file": (filename, content, "application/octet-stream"),
        }
        return await self._call(
            one(AttachmentCreated),
            "POST",
            "/v1/attachments",
            files=files,
            request_id=request_id,
        )
