"""The main window: connection status, service health and the IBAN lookup."""

from __future__ import annotations

import datetime as dt
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QMainWindow,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from app.api.credentials import Credentials
from app.api.errors import ApiConnectionError, ApiError
from app.ui.errors import ErrorPresenter
from app.ui.request_log import RequestLogDock
from app.ui.sign_in import (
    SANDBOX,
    SANDBOX_PASSWORD,
    SANDBOX_PROFILE,
    ProfileStore,
    ServerProfile,
    SignInDialog,
)
from app.ui.tasks import TaskGroup

if TYPE_CHECKING:
    from app.api.banking import BankingClient
    from app.api.models import (
        Account,
        Balance,
        ClientV2,
        IbanBankData,
        NaceCodeEntry,
        ResultString,
        StatementRecord,
    )
    from app.api.transport import Exchange
    from app.ui.accounts import AccountsController, AccountsView
    from app.ui.clients import ClientsController, ClientsView
    from app.ui.iban_lookup import IbanLookupController, IbanLookupView
    from app.ui.statement import StatementController
    from app.ui.statement_view import StatementView

# The embedded sandbox's documented demo credentials.


@dataclass(frozen=True)
class Backend:
    """How to reach the service: a name for the status bar and how to get its URL."""

    name: str
    start: Callable[[], str]  # blocking; run off the GUI thread


class MainWindow(QMainWindow):
    def __init__(self, backend: Backend, *, settings: QSettings | None = None) -> None:
        super().__init__()
        self.setWindowTitle("Partner Desk")
        self.setObjectName("mainWindow")
        self.backend = backend
        self.tasks = TaskGroup()
        self.presenter = ErrorPresenter(self)
        self.client: BankingClient | None = None
        self._settings = settings or QSettings("PartnerDesk", "PartnerDesk")
        self.profiles = ProfileStore(self._settings)
        self.credentials = Credentials()
        self.profile: ServerProfile | None = None
        self.sign_in_dialog: SignInDialog | None = None
        self._sandbox_url: str | None = None
        self.presenter.on_unauthorized = self._unauthorized

        self.connection_label = QLabel(f"{backend.name}: starting…")
        self.connection_label.setObjectName("connectionLabel")
        self.health_label = QLabel("Health: unknown")
        self.health_label.setObjectName("healthLabel")
        self.signed_in_label = QLabel("Not signed in")
        self.signed_in_label.setObjectName("signedInLabel")
        self.request_id_label = QLabel("x-request-id: —")
        self.request_id_label.setObjectName("requestIdLabel")
        self.request_id_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        for widget in (self.connection_label, self.signed_in_label, self.health_label):
            widget.setContentsMargins(6, 0, 12, 0)
            self.statusBar().addWidget(widget)
        self.statusBar().addPermanentWidget(self.request_id_label)

        # navigation between the areas; each area is one page of the stack, built the first
        # time it is shown or used (a faster start)
        self.navigation = QListWidget()
        self.navigation.setObjectName("navigation")
        self.navigation.setFixedWidth(170)
        self.pages = QStackedWidget()
        self._containers: dict[str, QWidget] = {}
        self._builders: dict[str, str] = {}
        self._built: list[QWidget] = []
        for name, area in (
            ("Clients", "_clients_area"),
            ("Accounts", "_accounts_area"),
            ("Statements", "_statement_area"),
            ("IBAN lookup", "_iban_area"),
        ):
            self.add_area(name, area)
        self.navigation.currentRowChanged.connect(self._area_chosen)
        self.navigation.setCurrentRow(0)

        central = QWidget()
        layout = QHBoxLayout(central)
        layout.addWidget(self.navigation)
        layout.addWidget(self.pages, 1)
        self.setCentralWidget(central)

        self.request_log = RequestLogDock(self)
        self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.request_log)
        view_menu = self.menuBar().addMenu("&View")
        view_menu.addAction(self.request_log.toggleViewAction())

        refresh = QAction("Refresh", self)
        view_menu.addAction(refresh)
        health = QAction("Check health", self)
        health.triggered.connect(lambda: self.tasks.spawn(self.check_health()))
        view_menu.addAction(health)
        connection_menu = self.menuBar().addMenu("&Connection")
        sign_in = QAction("Sign in…", self)
        sign_in.triggered.connect(lambda: self.open_sign_in())
        connection_menu.addAction(sign_in)
        refresh.setShortcut(QKeySequence(Qt.Key.Key_F5))
        refresh.triggered.connect(self.refresh_current)
        self.addAction(refresh)

        geometry = self._settings.value("main/geometry")
        if geometry is not None:
            self.restoreGeometry(geometry)
        else:
            self.resize(1200, 760)
        state = self._settings.value("main/state")
        if state is not None:
            self.restoreState(state)
        else:
            # the work area gets the room; the log is there to glance at
            self.resizeDocks([self.request_log], [140], Qt.Orientation.Vertical)

    # -- start-up

    async def connect_backend(self) -> None:
        """Sign in with the last profile: the embedded sandbox at once, a server through the
        sign-in dialog (its password from the keyring)."""
        if self.profiles.last != SANDBOX:
            self.open_sign_in()
            return
        try:
            await self.use_profile(SANDBOX_PROFILE, SANDBOX_PASSWORD)
        except ApiError as exc:
            self.signed_in_label.setText("Not signed in")
            self.presenter.show(exc, retry=lambda: self.tasks.spawn(self.connect_backend()))

    async def _url_of(self, profile: ServerProfile) -> str:
        if not profile.is_sandbox:
            return profile.base_url
        if self._sandbox_url is None:
            import asyncio  # here, not at the top: the window shows before asyncio loads

            self.statusBar().showMessage(f"Starting {self.backend.name}…")
            try:
                # off the GUI thread: the sandbox builds its demo data
                self._sandbox_url = await asyncio.get_running_loop().run_in_executor(
                    None, self.backend.start
                )
            except Exception as exc:  # a failed start is shown, never lost
                self.connection_label.setText(f"{self.backend.name}: failed to start")
                self.statusBar().showMessage(f"{self.backend.name} failed to start: {exc}")
                raise ApiConnectionError(f"{self.backend.name} failed to start: {exc}") from exc
        return self._sandbox_url

    async def use_profile(self, profile: ServerProfile, password: str) -> None:
        """Connect with this profile and check the credentials; raises ApiError (then the
        current connection stays as it was)."""
        # the service layer is imported once the window shows: a faster start
        from app.api.banking import BankingClient
        from app.api.transport import Profile, Transport

        url = await self._url_of(profile)
        transport = Transport(
            Profile(
                base_url=url,
                user=profile.user,
                password=password,
                partner_code=profile.partner_code,
                verify=profile.ca_bundle or True,
            )
        )
        transport.add_listener(self._on_exchange)  # failed sign-ins are logged too
        candidate = BankingClient(transport)
        try:
            await candidate.list_clients(limit=1)
        except BaseException:
            await candidate.aclose()
            raise
        previous, self.client = self.client, candidate
        if previous is not None:
            await previous.aclose()
        self.profile = profile
        self.connection_label.setText(f"{profile.name} ({url})")
        self.signed_in_label.setText(f"Signed in as {profile.user}")
        for view in self._built:
            view.setEnabled(True)
        await self.check_health()
        first_page = self.clients.start()
        if first_page is not None:
            await first_page
        self.statusBar().showMessage("Ready", 5000)

    def open_sign_in(self, reason: str = "", retry: Callable[[], object] | None = None) -> None:
        """The sign-in dialog; after a successful sign-in the interrupted action runs again."""
        if self.sign_in_dialog is not None and self.sign_in_dialog.isVisible():
            return
        dialog = SignInDialog(
            self.profiles,
            self.credentials,
            self.use_profile,
            self.tasks,
            current=self.profile.name if self.profile else None,
            reason=reason,
            parent=self,
        )
        if retry is not None:
            dialog.accepted.connect(retry)
        self.sign_in_dialog = dialog
        dialog.open()  # never exec(): the loop keeps running

    def _unauthorized(self, retry: Callable[[], object] | None) -> None:
        self.signed_in_label.setText("Sign-in refused")
        self.open_sign_in("The service refused the credentials (401): sign in again.", retry)

    async def check_health(self) -> None:
        if self.client is None:
            return
        self.health_label.setText("Health: checking…")
        try:
            result = await self.client.healthcheck()
        except ApiError as exc:
            self.health_label.setText(f"Health: unavailable ({exc})")
            self.health_label.setStyleSheet("color: #b3261e;")
            return
        self.health_label.setText(f"Health: {result.result}")
        self.health_label.setStyleSheet("color: #1b7f3b;")

    async def _iban_check(self, iban: str) -> IbanBankData:
        assert self.client is not None
        return await self.client.iban_check(iban)

    def _statement_batches(
        self,
        client_id: str,
        account_id: str,
        date_from: dt.date,
        date_to: dt.date,
        currency: str | None,
    ) -> AsyncGenerator[list[StatementRecord], None]:
        assert self.client is not None
        return self.client.iter_statement(
            client_id, account_id, date_from, date_to, currency=currency
        )

    async def _client_page(
        self, offset: int, limit: int, filter_text: str | None
    ) -> list[ClientV2]:
        assert self.client is not None
        return await self.client.list_clients_v2(offset=offset, limit=limit, filter=filter_text)

    async def _create_client(self, body: dict[str, Any], request_id: str) -> ClientV2:
        from app.api.models import ClientV2Create, build

        assert self.client is not None
        return await self.client.create_client_v2(
            build(ClientV2Create, body), request_id=request_id
        )

    async def _update_client(
        self, client_id: str, body: dict[str, Any], request_id: str
    ) -> ClientV2:
        from app.api.models import ClientV2Update, build

        assert self.client is not None
        update = build(ClientV2Update, body)
        return await self.client.update_client_v2(client_id, update, request_id=request_id)

    async def _nace_codes(self) -> list[NaceCodeEntry]:
        assert self.client is not None
        return await self.client.nace_codes()

    def _new_request_id(self) -> str:
        from app.api.transport import new_request_id

        return new_request_id()

    def _show_accounts_of(self, client_id: str) -> None:
        self.show_area("Accounts")
        self.accounts.show_client(client_id)

    def _show_statement_of(self, client_id: str, account_id: str) -> None:
        self.show_area("Statements")
        self.statement.show_account(client_id, account_id)

    async def _open_account(self, client_id: str) -> Account:
        assert self.client is not None
        return await self.client.create_account(client_id)

    async def _operate_account(
        self, client_id: str, account_id: str, operation: str
    ) -> ResultString:
        assert self.client is not None
        return await self.client.account_operation(client_id, account_id, operation)

    async def _balances(
        self, client_id: str, account_id: str, day: dt.date | None, currency: str | None
    ) -> list[Balance]:
        assert self.client is not None
        return await self.client.get_balance(client_id, account_id, date=day, currency=currency)

    async def _accounts(self, client_id: str) -> list[Account]:
        assert self.client is not None
        return await self.client.list_accounts(client_id)

    # -- areas, built on first use

    @cached_property
    def _clients_area(self) -> tuple[ClientsView, ClientsController]:
        from app.ui.clients import ClientsController, ClientsView

        view = ClientsView()
        controller = ClientsController(
            view,
            fetch_page=self._client_page,
            create=self._create_client,
            update=self._update_client,
            nace_codes=self._nace_codes,
            new_request_id=self._new_request_id,
            show_accounts=self._show_accounts_of,
            presenter=self.presenter,
            tasks=self.tasks,
            settings=self._settings,
        )
        self._mount("Clients", view)
        return view, controller

    @cached_property
    def _accounts_area(self) -> tuple[AccountsView, AccountsController]:
        from app.ui.accounts import AccountsController, AccountsView

        view = AccountsView()
        controller = AccountsController(
            view,
            accounts=self._accounts,
            open_account=self._open_account,
            operate=self._operate_account,
            balances=self._balances,
            show_statement=self._show_statement_of,
            presenter=self.presenter,
            tasks=self.tasks,
            settings=self._settings,
        )
        self._mount("Accounts", view)
        return view, controller

    @cached_property
    def _statement_area(self) -> tuple[StatementView, StatementController]:
        from app.ui.statement import StatementController
        from app.ui.statement_view import StatementView

        view = StatementView()
        controller = StatementController(
            view,
            statement=self._statement_batches,
            accounts=self._accounts,
            presenter=self.presenter,
            tasks=self.tasks,
            settings=self._settings,
        )
        self._mount("Statements", view)
        return view, controller

    @cached_property
    def _iban_area(self) -> tuple[IbanLookupView, IbanLookupController]:
        from app.ui.iban_lookup import IbanLookupController, IbanLookupView

        view = IbanLookupView()
        controller = IbanLookupController(view, self._iban_check, self.presenter, self.tasks)
        self._mount("IBAN lookup", view)
        view.input.setFocus()
        return view, controller

    @property
    def clients_view(self) -> ClientsView:
        return self._clients_area[0]

    @property
    def clients(self) -> ClientsController:
        return self._clients_area[1]

    @property
    def accounts_view(self) -> AccountsView:
        return self._accounts_area[0]

    @property
    def accounts(self) -> AccountsController:
        return self._accounts_area[1]

    @property
    def statement_view(self) -> StatementView:
        return self._statement_area[0]

    @property
    def statement(self) -> StatementController:
        return self._statement_area[1]

    @property
    def iban_view(self) -> IbanLookupView:
        return self._iban_area[0]

    @property
    def iban(self) -> IbanLookupController:
        return self._iban_area[1]

    def _mount(self, name: str, view: QWidget) -> None:
        container = self._containers[name]
        layout = container.layout()
        assert layout is not None
        layout.addWidget(view)
        view.setEnabled(self.client is not None)  # usable once signed in
        self._built.append(view)

    def _area_chosen(self, row: int) -> None:
        item = self.navigation.item(row)
        if item is not None:
            getattr(self, self._builders[item.text()])  # builds the area on first use
        self.pages.setCurrentIndex(row)

    def current_area(self) -> str:
        item = self.navigation.currentItem()
        return item.text() if item is not None else ""

    def refresh_current(self) -> None:
        """F5: reload what the current area shows."""
        if self.client is None:
            return
        area = self.current_area()
        if area == "Clients":
            self.clients.refresh()
        elif area == "Accounts":
            self.accounts.refresh()
        elif area == "Statements":
            self.statement.load()
        else:
            self.tasks.spawn(self.check_health())

    def add_area(self, name: str, builder: str) -> None:
        """An entry in the navigation; ``builder`` names the property that builds its page."""
        container = QWidget()
        layout = QVBoxLayout(container)
        layout.setContentsMargins(0, 0, 0, 0)
        self._containers[name] = container
        self._builders[name] = builder
        self.navigation.addItem(name)
        self.pages.addWidget(container)

    def show_area(self, name: str) -> None:
        matches = self.navigation.findItems(name, Qt.MatchFlag.MatchExactly)
        if matches:
            self.navigation.setCurrentItem(matches[0])

    def _on_exchange(self, exchange: Exchange) -> None:
        self.request_id_label.setText(f"x-request-id: {exchange.request_id}")
        self.request_log.model.append(exchange)

    # -- shutdown

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 - Qt's name
        self._settings.setValue("main/geometry", self.saveGeometry())
        self._settings.setValue("main/state", self.saveState())
        self.tasks.cancel_all()
        super().closeEvent(event)

    async def aclose(self) -> None:
        """Stop what still runs, then close the connection."""
        await self.tasks.aclose()
        if self.client is not None:
            await self.client.aclose()
