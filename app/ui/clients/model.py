"""The clients table: v1 persons and v2 persons and companies, loaded page by page as the
user scrolls (canFetchMore/fetchMore)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from app.ui.common.paged_model import PAGE_SIZE, ItemRole, PagedTableModel, PageSource
from app.ui.shell.tasks import TaskGroup

if TYPE_CHECKING:
    from app.api.banking import ClientV2

COLUMNS = (
    "ID",
    "Type",
    "Name",
    "E-mail",
    "Mobile",
    "External ID",
    "External reference",
    "Status",
    "Created",
)
ID, TYPE, NAME, EMAIL, MOBILE, EXTERNAL_ID, REFERENCE, STATUS, CREATED = range(len(COLUMNS))
ClientRole = ItemRole
CLIENT_WIDTHS = {
    ID: 90,
    TYPE: 75,
    NAME: 200,
    EMAIL: 220,
    MOBILE: 130,
    EXTERNAL_ID: 100,
    REFERENCE: 130,
    STATUS: 95,
    CREATED: 95,
}
__all__ = ["CLIENT_WIDTHS", "COLUMNS", "PAGE_SIZE", "ClientRole", "ClientsModel", "client_cells"]


def client_cells(client: ClientV2) -> tuple[str, ...]:
    if client.company is not None:
        details: Any = client.company
        name = details.name
        kind = "Company"
    else:
        details = client.person
        name = " ".join(
            part for part in (details.first_name, details.middle_name, details.last_name) if part
        )
        kind = "Person"
    return (
        client.id,
        kind,
        name,
        details.email,
        details.contact_mobile_number,
        details.external_id or "",
        client.external_reference or "",
        client.status,
        details.create_date.isoformat() if details.create_date else "",
    )


class ClientsModel(PagedTableModel["ClientV2"]):
    """The clients, paged; the query is the filter text."""

    def __init__(
        self, fetch_page: PageSource[ClientV2], tasks: TaskGroup, parent: Any = None
    ) -> None:
        # cells through the module, so a test can stand in for the formatting
        super().__init__(COLUMNS, fetch_page, lambda c: client_cells(c), tasks, parent)

    @property
    def filter(self) -> str | None:
        query: str | None = self.query
        return query

    def replace_client(self, client: ClientV2) -> None:
        self.replace(client, lambda known: known.id == client.id)
