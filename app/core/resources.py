"""Where the project's resource files (OpenAPI documents, icons) live."""

from __future__ import annotations

from pathlib import Path

RESOURCES = Path(__file__).resolve().parents[2] / "resources"
OPENAPI_V1 = RESOURCES / "openapi" / "banking-v1.yaml"
OPENAPI_V2 = RESOURCES / "openapi" / "banking-v2.yaml"
OPENAPI_GATEWAY = RESOURCES / "openapi" / "gateway.yaml"
