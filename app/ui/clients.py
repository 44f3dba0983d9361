"""The Clients area: one table for v1 persons and v2 persons and companies, a filter builder,
paging as the user scrolls, create and edit dialogs."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QModelIndex, QSettings, Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from app.api.errors import ApiError
from app.core.limits import CLIENT_FILTER_FIELDS
from app.ui.client_dialog import ClientDialog
from app.ui.clients_model import (
    CLIENT_WIDTHS,
    ClientRole,
    ClientsModel,
    PageSource,
)
from app.ui.errors import ErrorPresenter
from app.ui.filter_builder import FilterBuilder
from app.ui.tasks import TaskGroup

if TYPE_CHECKING:
    import asyncio

    from app.api.models import ClientV2, NaceCodeEntry


class ClientsView(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.filter = FilterBuilder(CLIENT_FILTER_FIELDS)
        self.new_person = QPushButton("New person…")
        self.new_person.setObjectName("newPerson")
        self.new_person.setToolTip("Ctrl+N")
        self.new_company = QPushButton("New company…")
        self.new_company.setObjectName("newCompany")
        self.edit = QPushButton("Edit…")
        self.edit.setObjectName("editClient")
        self.edit.setEnabled(False)
        self.accounts = QPushButton("Accounts…")
        self.accounts.setObjectName("clientAccounts")
        self.accounts.setEnabled(False)
        self.status = QLabel("")
        self.status.setObjectName("clientsStatus")
        self.table = QTableView()
        self.table.setObjectName("clientsTable")
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setAlternatingRowColors(True)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.table.verticalHeader().setDefaultSectionSize(22)

        buttons = QHBoxLayout()
        buttons.addWidget(self.new_person)
        buttons.addWidget(self.new_company)
        buttons.addWidget(self.edit)
        buttons.addWidget(self.accounts)
        buttons.addStretch(1)
        buttons.addWidget(self.status)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("<h2>Clients</h2>"))
        layout.addWidget(self.filter)
        layout.addLayout(buttons)
        layout.addWidget(self.table, 1)


class ClientsController:
    def __init__(
        self,
        view: ClientsView,
        *,
        fetch_page: PageSource,
        create: Callable[[dict[str, Any], str], Awaitable[ClientV2]],
        update: Callable[[str, dict[str, Any], str], Awaitable[ClientV2]],
        nace_codes: Callable[[], Awaitable[list[NaceCodeEntry]]],
        new_request_id: Callable[[], str],
        show_accounts: Callable[[str], None],
        presenter: ErrorPresenter,
        tasks: TaskGroup,
        settings: QSettings,
    ) -> None:
        self.view = view
        self._create = create
        self._update = update
        self._nace_codes = nace_codes
        self._nace: list[NaceCodeEntry] | None = None
        self._new_request_id = new_request_id
        self._show_accounts_of = show_accounts
        self._presenter = presenter
        self._tasks = tasks
        self._settings = settings
        self.dialog: ClientDialog | None = None
        self.model = ClientsModel(fetch_page, tasks, view)
        view.table.setModel(self.model)
        header = view.table.horizontalHeader()
        for column, width in CLIENT_WIDTHS.items():
            header.resizeSection(column, width)
        state = settings.value("clients/columns")
        if state is not None:
            header.restoreState(state)
        header.sectionResized.connect(
            lambda *_: settings.setValue("clients/columns", header.saveState())
        )
        view.filter.text.setText(str(settings.value("clients/filter", "")))
        view.filter.applied.connect(self.apply_filter)
        self.model.failed.connect(lambda exc: self._presenter.show(exc, retry=self.refresh))
        self.model.page_loaded.connect(self._loaded)
        view.new_person.clicked.connect(lambda: self.open_create("person"))
        view.new_company.clicked.connect(lambda: self.open_create("company"))
        view.edit.clicked.connect(self.open_edit)
        view.table.doubleClicked.connect(lambda _index: self.open_edit())
        view.table.selectionModel().selectionChanged.connect(self._selection_changed)
        view.accounts.clicked.connect(self._show_accounts)
        for keys, slot in (
            (QKeySequence.StandardKey.New, lambda: self.open_create("person")),
            (QKeySequence.StandardKey.Find, self.focus_filter),
        ):
            shortcut = QShortcut(QKeySequence(keys), view)
            shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            shortcut.activated.connect(slot)

    # -- list

    def start(self) -> asyncio.Task[None] | None:
        """Load the first page with the remembered filter; the task fetching it, if any."""
        self.view.filter.apply()
        return self.model.pending

    def refresh(self) -> None:
        self.model.reload(self.model.filter)

    def apply_filter(self, text: str | None) -> None:
        self._settings.setValue("clients/filter", text or "")
        self.view.status.setText("Loading…")
        self.model.reload(text)

    def focus_filter(self) -> None:
        self.view.filter.text.setFocus()
        self.view.filter.text.selectAll()

    def _loaded(self, count: int) -> None:
        more = "" if not self.model.canFetchMore(QModelIndex()) else " (scroll for more)"
        self.view.status.setText(f"{count:,} clients{more}")

    def selected(self) -> ClientV2 | None:
        rows = self.view.table.selectionModel().selectedRows()
        if not rows:
            return None
        client: ClientV2 = self.model.data(rows[0], ClientRole)
        return client

    def _selection_changed(self) -> None:
        chosen = self.selected() is not None
        self.view.edit.setEnabled(chosen)
        self.view.accounts.setEnabled(chosen)

    def _show_accounts(self) -> None:
        client = self.selected()
        if client is not None:
            self._show_accounts_of(client.id)

    # -- dialogs

    def open_create(self, kind: str) -> None:
        self._tasks.spawn(self._open(kind, None))

    def open_edit(self) -> None:
        client = self.selected()
        if client is not None:
            kind = "company" if client.client_type == "COMPANY" else "person"
            self._tasks.spawn(self._open(kind, client))

    async def _open(self, kind: str, client: ClientV2 | None) -> None:
        if kind == "company" and self._nace is None:
            try:
                self._nace = await self._nace_codes()
            except ApiError as exc:
                self._presenter.show(exc, retry=lambda: self._tasks.spawn(self._open(kind, client)))
                return
        original = None
        if client is not None:
            details = client.company if kind == "company" else client.person
            assert details is not None
            original = details.model_dump(mode="json", exclude_none=True)

        async def submit(body: dict[str, Any], request_id: str) -> ClientV2:
            if client is None:
                return await self._create(body, request_id)
            return await self._update(client.id, body, request_id)

        dialog = ClientDialog(
            kind,
            submit,
            self._presenter,
            self._tasks,
            self._new_request_id(),
            original=original,
            nace_codes=self._nace or (),
            parent=self.view,
        )
        dialog.accepted.connect(lambda: self._saved(dialog, client is None))
        self.dialog = dialog
        dialog.open()  # never exec(): the loop keeps running

    def _saved(self, dialog: ClientDialog, created: bool) -> None:
        saved = dialog.result_client
        if saved is None:
            return
        if created:
            self.view.status.setText(f"Created client {saved.id}")
            self.model.reload(self.model.filter)
        else:
            self.model.replace(saved)
            self.view.status.setText(f"Saved client {saved.id}")
