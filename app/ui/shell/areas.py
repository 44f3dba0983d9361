"""The table of areas the shell is built from, and the narrow interface an area gets.

Adding an area is one entry in ``AREAS`` plus its package, whose ``build(context)`` makes it;
the package is imported the first time the area is shown or used (a faster start). An area
talks to the services through its context's session, shows failures through the one
presenter, runs work on the task group, and reaches another area through ``open`` — never
through the main window.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Protocol, TypeVar

from PySide6.QtCore import QObject, QSettings, Signal
from PySide6.QtWidgets import QWidget

from app.ui.shell.errors import ErrorPresenter, NotSignedIn
from app.ui.shell.tasks import TaskGroup

if TYPE_CHECKING:
    from app.api.banking import BankingClient
    from app.api.gateway import GatewayClient
    from app.ui.shell.session import Session


class Area(Protocol):
    NAME: ClassVar[str]

    @property
    def view(self) -> QWidget:
        """The area's page."""

    def signed_in(self) -> Awaitable[None] | None:
        """A session started: load what the area shows (the awaitable, if any, is the load)."""

    def refresh(self) -> None:
        """F5: reload what the area shows."""


A = TypeVar("A", bound=Area)


@dataclass(frozen=True)
class Creates:
    """A New … action of the File menu: what it says, its name, and the area's method that
    opens the form (with its one argument, if any)."""

    label: str
    key: str
    method: str
    argument: str = ""


@dataclass(frozen=True)
class AreaSpec:
    name: str
    shortcut: str
    package: str  # its build(context) makes the area
    creates: tuple[Creates, ...] = ()  # the first one is the area's Ctrl+N


AREAS: tuple[AreaSpec, ...] = (
    AreaSpec(
        "Clients",
        "Ctrl+1",
        "app.ui.clients",
        (
            Creates("New person…", "person", "open_create", "person"),
            Creates("New company…", "company", "open_create", "company"),
        ),
    ),
    AreaSpec("Accounts", "Ctrl+2", "app.ui.accounts"),
    AreaSpec(
        "Transfers",
        "Ctrl+3",
        "app.ui.transfers",
        (
            Creates("New transfer…", "transfer", "new_transfer_here"),
            Creates("Import payment file…", "paymentImport", "import_payment_file"),
        ),
    ),
    AreaSpec("Statements", "Ctrl+4", "app.ui.statements"),
    AreaSpec("IBAN lookup", "Ctrl+5", "app.ui.iban"),
    AreaSpec("Orders", "Ctrl+6", "app.ui.orders", (Creates("New order…", "order", "new_order"),)),
    AreaSpec("Events", "Ctrl+7", "app.ui.events"),
)


class AreaEvents(QObject):
    """What one area tells the others without knowing them."""

    transfer_changed = Signal(str)  # an account whose transfer was created or settled
    order_changed = Signal(str)  # a card order created, paid or acted on
    registration_changed = Signal(str)  # a client's registration event came: its reference


class AreaContext:
    """What an area may use: the session's services, the presenter, the task group, the
    settings, and the other areas."""

    def __init__(
        self,
        presenter: ErrorPresenter,
        tasks: TaskGroup,
        settings: QSettings,
        open_area: Callable[[str], Area],
    ) -> None:
        self.presenter = presenter
        self.tasks = tasks
        self.settings = settings
        self._open_area = open_area
        self.session: Session | None = None
        self.events = AreaEvents()

    @property
    def banking(self) -> BankingClient:
        if self.session is None:
            raise NotSignedIn("Not signed in: choose Connection → Sign in… first")
        return self.session.banking

    @property
    def data_dir(self) -> Path:
        """Where the desk keeps its own files (the order journal): beside the settings when
        they are a file (tests), else the user's data folder."""
        if self.settings.format() == QSettings.Format.IniFormat and self.settings.fileName():
            return Path(self.settings.fileName()).parent
        from app.core.data_folder import data_folder

        return data_folder()

    @property
    def gateway(self) -> GatewayClient:
        if self.session is None:
            raise NotSignedIn("Not signed in: choose Connection → Sign in… first")
        return self.session.gateway

    def open(self, kind: type[A]) -> A:
        """Show another area and return it, to hand it what to show."""
        area = self._open_area(kind.NAME)
        assert isinstance(area, kind)
        return area
