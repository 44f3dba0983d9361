"""The Transfers area: an account's SEPA, world and internal transfers — filtered by
processing date, looked up by id, paged as the user scrolls, exported as CSV, opened in
detail — and the New transfer form."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from PySide6.QtCore import QModelIndex, QSignalBlocker
from PySide6.QtWidgets import QFileDialog

from app.api.errors import ApiError, InvalidInput
from app.core import limits
from app.forms.transfer import KIND_TITLES, KINDS, Kind
from app.ui.common.account_chooser import AccountChooser
from app.ui.common.csv_file import choose_csv_file, choose_file, file_name, write_csv
from app.ui.common.paged_model import ItemRole
from app.ui.shell.areas import AreaContext
from app.ui.transfers.details import TransferDetails
from app.ui.transfers.form import TransferDialog
from app.ui.transfers.model import COLUMNS, WIDTHS, TransfersModel
from app.ui.transfers.view import TransfersView

if TYPE_CHECKING:
    import asyncio

    from app.api.banking.transfers import Transfer
    from app.ui.transfers.import_dialog import PaymentImportDialog


class TransfersArea:
    NAME: ClassVar[str] = "Transfers"

    def __init__(self, context: AreaContext) -> None:
        self.view = view = TransfersView()
        self._context = context
        self._presenter = context.presenter
        self._tasks = context.tasks
        self.dialogs: list[TransferDialog] = []
        self.details: TransferDetails | None = None
        self.exporting: asyncio.Task[None] | None = None
        self.import_dialog: PaymentImportDialog | None = None
        self._shown_for: tuple[str, Kind] | None = None  # the account and kind listed
        self.chooser = AccountChooser(view.chooser, context, "transfers/client_id")
        self.chooser.status.connect(view.status.setText)
        self.chooser.changed.connect(self._chosen_changed)
        self.model = TransfersModel(self._page, context.tasks, view)
        view.table.setModel(self.model)
        header = view.table.horizontalHeader()
        for column, width in WIDTHS.items():
            header.resizeSection(column, width)
        header.setStretchLastSection(True)
        self.model.page_loaded.connect(self._loaded)
        self.model.failed.connect(self._failed)
        view.show_button.clicked.connect(self.show_transfers)
        view.kinds.currentChanged.connect(lambda _index: self.show_transfers())
        view.filter.applied.connect(lambda _text: self.show_transfers())
        view.lookup_button.clicked.connect(self.show_transfers)
        view.transfer_id.returnPressed.connect(self.show_transfers)
        view.new_button.clicked.connect(self.new_transfer_here)
        view.import_button.clicked.connect(self.import_payment_file)
        view.export_button.clicked.connect(self.choose_export_file)
        view.table.doubleClicked.connect(self.open_details)
        context.events.transfer_changed.connect(self._transfer_changed)

    @property
    def kind(self) -> Kind:
        return KINDS[max(self.view.kinds.currentIndex(), 0)]

    def signed_in(self) -> None:
        self.chooser.signed_in()
        if self._shown_for is not None:
            self.refresh()

    def refresh(self) -> None:
        self.show_transfers()

    # -- the list

    def show_transfers(self) -> None:
        account_id = self.chooser.account_id()
        if not self.chooser.client_id() or not account_id:
            self._presenter.show(InvalidInput("Account", "enter the client ID and the account"))
            return
        transfer_id = self.view.transfer_id.text().strip() or None
        if transfer_id is not None:
            problem = limits.TRANSFER_ID.length_problem(transfer_id)
            if problem:
                self._presenter.show(InvalidInput("Transfer ID", problem))
                return
        self._shown_for = (account_id, self.kind)
        self.view.status.setText("Loading…")
        self.view.export_button.setEnabled(False)
        self.model.reload((account_id, self.kind, self.view.filter.current(), transfer_id))

    async def _page(self, offset: int, limit: int, query: Any) -> list[Transfer]:
        from app.api.banking import TransferQuery

        account_id, kind, filter_text, transfer_id = query
        transfers_query = TransferQuery(
            id=transfer_id, offset=offset, limit=limit, filter=filter_text
        )
        return await self._context.banking.list_transfers(kind, account_id, transfers_query)

    def _loaded(self, count: int) -> None:
        more = " (scroll for more)" if self.model.canFetchMore(QModelIndex()) else ""
        text = f"{count:,} transfer{'s' if count != 1 else ''}{more}"
        looked_for = self.view.transfer_id.text().strip()
        if looked_for:  # a list of one, or none: say why the others are not there
            kind = KIND_TITLES[self.kind]
            text = (
                f"{kind} transfer {looked_for}" if count else f"No {kind} transfer {looked_for}"
            ) + " (clear the Transfer ID to list them all)"
        self.view.status.setText(text)
        self.view.export_button.setEnabled(count > 0)

    def _failed(self, error: ApiError) -> None:
        self.view.status.setText("Loading failed")
        self.view.export_button.setEnabled(False)
        self._presenter.show(error, self.refresh)

    def _chosen_changed(self) -> None:
        """Another account: its transfers are not the ones shown any more."""
        if self._shown_for is not None and self._shown_for[0] != self.chooser.account_id():
            self._shown_for = None
            self.model.reload(None)
            self.view.status.setText("Show transfers to list this account's.")
            self.view.export_button.setEnabled(False)

    def _transfer_changed(self, account_id: str) -> None:
        if self._shown_for is not None and self._shown_for[0] == account_id:
            self.refresh()

    def show_transfer(self, client_id: str, account_id: str, kind: Kind, transfer: Any) -> None:
        """That account's transfer listed alone and opened (the go-to box found it)."""
        self.chooser.choose(client_id, account_id)
        # one listing, not one more for the tab and one for the filter
        with QSignalBlocker(self.view.kinds), QSignalBlocker(self.view.filter):
            self.view.kinds.setCurrentIndex(KINDS.index(kind))
            self.view.filter.clear()
        self.view.transfer_id.setText(transfer.id)
        self.show_transfers()
        self.details = TransferDetails(transfer, self.view)
        self.details.open()

    def open_details(self, index: QModelIndex) -> None:
        transfer = self.model.data(index, ItemRole)
        if transfer is None:
            return
        self.details = TransferDetails(transfer, self.view)
        self.details.open()

    # -- the form

    def new_transfer_here(self) -> None:
        client_id, account_id = self.chooser.client_id(), self.chooser.account_id()
        if not client_id or not account_id:
            self._presenter.show(InvalidInput("Account", "choose the account to send from"))
            return
        self.new_transfer(client_id, account_id)

    def new_transfer(self, client_id: str, account_id: str) -> TransferDialog:
        """A New transfer form from that account (the Accounts area comes here)."""
        if (self.chooser.client_id(), self.chooser.account_id()) != (client_id, account_id):
            self.chooser.choose(client_id, account_id)
        dialog = TransferDialog(
            self._context, client_id, account_id, kind=self.kind, parent=self.view
        )
        dialog.finished.connect(lambda _result: self._closed(dialog))
        self.dialogs.append(dialog)
        dialog.show()  # not modal: the lists stay usable while it follows its transfer
        return dialog

    def _closed(self, dialog: TransferDialog) -> None:
        if dialog in self.dialogs:
            self.dialogs.remove(dialog)
        dialog.deleteLater()

    # -- export

    def import_payment_file(self) -> QFileDialog:
        """Import payment file…: the file chosen, then the import's window over it."""
        return choose_file(
            self.view,
            self._context.settings,
            "Import payment file (pain.001)",
            "",
            "ISO 20022 payment files (*.xml);;All files (*)",
            self.open_import,
            save=False,
        )

    def open_import(self, path: Path) -> PaymentImportDialog:
        from app.ui.transfers.import_dialog import PaymentImportDialog

        dialog = self.import_dialog = PaymentImportDialog(self._context, self.view)
        dialog.finished.connect(lambda _result: dialog.deleteLater())
        dialog.show()
        dialog.load(path)
        return dialog

    def choose_export_file(self) -> QFileDialog:
        suggested = file_name(
            "transfers", self.kind, self.chooser.client_id(), self.chooser.account_id()
        )
        return choose_csv_file(
            self.view, self._context.settings, "Export transfers as CSV", suggested, self.export_to
        )

    def export_to(self, path: Path) -> asyncio.Task[None]:
        self.exporting = self._tasks.spawn(self._export(path))
        return self.exporting

    async def _export(self, path: Path) -> None:
        view = self.view
        total = self.model.rowCount()
        try:
            written = await write_csv(
                path,
                COLUMNS,
                self.model.export_rows(),
                lambda done: view.status.setText(f"Exporting… {done:,} of {total:,} rows"),
            )
        except OSError as exc:
            view.status.setText("Export failed.")
            self._presenter.show(InvalidInput("File", f"cannot write {path}: {exc.strerror}"))
            return
        view.status.setText(f"Exported {written:,} rows to {path}")
