"""The Clients area: one table for v1 persons and v2 persons and companies, a filter builder,
paging as the user scrolls, create and edit dialogs."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QMessageBox

from app.api.errors import ApiError
from app.ui.clients.model import CLIENT_WIDTHS, ClientRole, ClientsModel
from app.ui.clients.view import ClientsView
from app.ui.common.names import name_box
from app.ui.common.widgets import choose_row
from app.ui.shell.areas import AreaContext

if TYPE_CHECKING:
    import asyncio

    from app.api.banking import ClientV2, NaceCodeEntry
    from app.ui.clients.attachment import AttachmentDialog
    from app.ui.clients.dialog import ClientDialog


SELECT_PAGES = 10  # pages read at most to find a client just created in the list
REFERENCE_CLIENTS = 2_000  # clients read at most for a client's reference


class ClientsArea:
    NAME: ClassVar[str] = "Clients"

    def __init__(self, context: AreaContext) -> None:
        self.view = view = ClientsView()
        self._context = context
        self._nace: list[NaceCodeEntry] | None = None
        self._presenter = context.presenter
        self._tasks = context.tasks
        self._settings = settings = context.settings
        self.dialog: ClientDialog | None = None
        self._done = ""  # what the last action did, said beside the count until the next
        self._to_select: str | None = None  # a client just created, selected once listed
        self._pages_looked = 0
        self.upload_dialog: AttachmentDialog | None = None
        self.notice: QMessageBox | None = None
        self.model = ClientsModel(self._page, context.tasks, view)
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
        self.model.failed.connect(self._failed)
        self.model.modelReset.connect(self._selection_changed)
        self.model.page_loaded.connect(self._loaded)
        context.events.registration_changed.connect(self._registration_changed)
        view.new_person.clicked.connect(lambda: self.open_create("person"))
        view.new_company.clicked.connect(lambda: self.open_create("company"))
        view.edit.clicked.connect(self.open_edit)
        view.table.doubleClicked.connect(lambda _index: self.open_edit())
        view.table.selectionModel().selectionChanged.connect(self._selection_changed)
        view.accounts.clicked.connect(self._show_accounts)
        view.upload.clicked.connect(self.open_upload)
        # Ctrl+F in the area shown only (a hidden page's shortcut does not fire), wherever the
        # focus is in the window: the list of areas too (Ctrl+N is the File menu's: New person…)
        find = QShortcut(QKeySequence(QKeySequence.StandardKey.Find), view)
        find.setContext(Qt.ShortcutContext.WindowShortcut)
        find.activated.connect(self.focus_filter)

    # -- list

    async def _page(self, offset: int, limit: int, filter_text: str | None) -> list[ClientV2]:
        return await self._context.banking.list_clients_v2(
            offset=offset, limit=limit, filter=filter_text
        )

    def signed_in(self) -> asyncio.Task[None] | None:
        """Load the first page with the remembered filter; the task fetching it, if any."""
        self.view.filter.apply()
        return self.model.pending

    def refresh(self) -> None:
        self._done, self._to_select = "", None
        self.view.status.setText("Loading…")
        self.model.reload(self.model.filter)

    def apply_filter(self, text: str | None) -> None:
        self._done, self._to_select = "", None
        self._settings.setValue("clients/filter", text or "")
        self.view.status.setText("Loading…")
        self.model.reload(text)

    def focus_filter(self) -> None:
        self.view.filter.text.setFocus()
        self.view.filter.text.selectAll()

    def _failed(self, error: ApiError) -> None:
        loaded = self.model.rowCount()
        self.view.status.setText(
            f"Loading failed after {loaded:,} clients" if loaded else "Loading failed"
        )
        self._selection_changed()
        self._presenter.show(error, self.refresh)

    def _loaded(self, count: int) -> None:
        more = "" if not self.model.canFetchMore(QModelIndex()) else " (scroll for more)"
        counted = f"{count:,} client{'s' if count != 1 else ''}{more}"
        self.view.status.setText(f"{self._done}; {counted}" if self._done else counted)
        if self._to_select is not None:
            self._select_created(self._to_select)

    def _select_created(self, client_id: str) -> None:
        """Select the client just created once the list holds it, reading further pages
        for it (a few at most: a filter may leave it out, then the status says so)."""
        ids = [client.id for client in self.model.items()]
        if client_id in ids:
            self._to_select = None
            row = ids.index(client_id)
            choose_row(self.view.table, row)
            return
        self._pages_looked += 1
        if self.model.canFetchMore(QModelIndex()) and self._pages_looked < SELECT_PAGES:
            self.model.fetchMore(QModelIndex())
            return
        self._to_select, self._done = None, ""
        self.view.status.setText(f"Created client {client_id}; not in the list as filtered")

    def filter_by(self, text: str) -> None:
        """The list filtered by that text, written in the filter field (the go-to box)."""
        self.view.filter.text.setText(text)
        self.view.filter.apply()

    def show_client(self, client_id: str) -> None:
        """The whole list (no filter), that client selected once it is read (the go-to box
        found it)."""
        self.view.filter.text.clear()
        self.apply_filter(None)
        self._to_select, self._pages_looked = client_id, 0

    def _registration_changed(self, reference: str) -> None:
        """A listed client's registration event came: its row shows the status it has now
        (read back by its reference; the rest of the list, and the selection, stay)."""
        if any(client.external_reference == reference for client in self.model.items()):
            self._tasks.spawn(self._read_again(reference))

    async def _read_again(self, reference: str) -> None:
        try:
            async for client in self._context.banking.each_client_v2(at_most=REFERENCE_CLIENTS):
                if client.external_reference == reference:
                    self.model.replace_client(client)
                    self._selection_changed()
                    return
        except ApiError:
            return  # the row stays as it was; F5 reads the list again

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
        self.view.upload.setEnabled(chosen)

    def _show_accounts(self) -> None:
        from app.ui.accounts import AccountsArea  # built on first use

        client = self.selected()
        if client is not None:
            self._context.open(AccountsArea).show_client(client.id)

    # -- dialogs

    def open_upload(self) -> AttachmentDialog | None:
        client = self.selected()
        if client is None:
            return None
        from app.ui.clients.attachment import AttachmentDialog  # when first used: a faster start

        dialog = AttachmentDialog(self._context, client, self.view)
        dialog.finished.connect(lambda _result: self._uploaded(dialog))
        self.upload_dialog = dialog
        dialog.open()  # never exec(): the loop keeps running
        return dialog

    def _uploaded(self, dialog: AttachmentDialog) -> None:
        if dialog.added_to_documents:
            self.model.replace_client(dialog.client)
            self.view.status.setText(f"Documents of {dialog.client.id} updated")

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
                self._nace = await self._context.banking.nace_codes()
            except ApiError as exc:
                self._presenter.show(exc, lambda: self._tasks.spawn(self._open(kind, client)))
                return
        original = None
        if client is not None:
            details = client.company if kind == "company" else client.person
            assert details is not None
            original = details.model_dump(mode="json", exclude_none=True)

        from app.ui.clients.dialog import ClientDialog  # when first used: a faster start

        dialog = ClientDialog(
            kind,
            self._context,
            client_id=client.id if client is not None else None,
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
            self._done = f"Created client {saved.id}"
            self.view.status.setText(self._done)
            self._to_select, self._pages_looked = saved.id, 0
            self.model.reload(self.model.filter)
        else:
            self.model.replace_client(saved)
            count = self.model.rowCount()
            self._done = f"Saved client {saved.id}"
            self.view.status.setText(f"{self._done}; {count:,} client{'s' if count != 1 else ''}")
        if dialog.notice:
            # what happened to an earlier Save whose outcome was unknown
            box = QMessageBox(
                QMessageBox.Icon.Information, "Client saved", dialog.notice, parent=self.view
            )
            box.setTextFormat(Qt.TextFormat.PlainText)
            self.notice = box
            name_box(box, "noticeBox")
            box.open()
