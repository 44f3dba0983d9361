"""What every model of the service layer shares: the base classes, validation into
``InvalidInput`` naming the fields, and the contract's error body."""

from __future__ import annotations

import re
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from app.api.errors import InvalidInput

M = TypeVar("M", bound=BaseModel)

_FIELD_FIRST = re.compile(r"(?P<field>[a-z_][a-z0-9_]*(?:\.[a-z0-9_]+)*): (?P<problem>.+)", re.S)


class Model(BaseModel):
    """An answer of the service: unknown keys are ignored, so a server that adds a field does
    not break the desk."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    def body(self) -> dict[str, Any]:
        """The JSON body of a create request: unset optional properties are left out."""
        return self.model_dump(mode="json", exclude_none=True)


class RequestModel(Model):
    """Sent by the desk: unknown properties are a programming error, refused at once."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)


def build(model: type[M], data: Any) -> M:
    """Validate input into a model; every problem is named in the InvalidInput raised (the first
    one as its field), so a form can mark all of them at once."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        problems: dict[str, str] = {}
        for error in exc.errors():
            field = ".".join(str(part) for part in error["loc"])
            problem = str(error["msg"]).removeprefix("Value error, ")
            named = _FIELD_FIRST.match(problem)
            if named:  # a rule over several fields names the one it blames: "field: problem"
                field = ".".join(part for part in (field, named["field"]) if part)
                problem = named["problem"]
            problems.setdefault(field, problem)
        field, problem = next(iter(problems.items()))
        raise InvalidInput(field, problem, problems) from None


class ErrorDetail(Model):
    error_id: str
    title: str


class ErrorBody(Model):
    """The contract's error body: ``failure_message`` and ``detail.error_id`` / ``title``."""

    failure_message: str
    detail: ErrorDetail
