"""The Statements area: load with progress and Cancel, search, sort, export, chart."""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from PySide6.QtCore import QSignalBlocker, Qt
from PySide6.QtWidgets import QFileDialog

from app.api.errors import ApiError, InvalidInput
from app.ui.common import forked
from app.ui.common.account_chooser import AccountChooser
from app.ui.common.csv_file import (
    choose_csv_file,
    choose_file,
    file_name,
    write_csv,
    write_csv_in_copies,
)
from app.ui.common.formatting import chosen_currency
from app.ui.common.slice_budget import current_budget
from app.ui.shell.areas import AreaContext
from app.ui.statements.table_columns import COLUMNS
from app.ui.statements.view import StatementView

if TYPE_CHECKING:
    import asyncio


EXPORT_IN_COPIES_AT = 100_000  # rows from which forked copies write the export, side by side


def _export_copies() -> int:
    """As many copies as cores, two to four: the parts are written side by side."""
    return max(2, min(4, len(os.sched_getaffinity(0))))


class StatementsArea:
    NAME: ClassVar[str] = "Statements"

    def __init__(self, context: AreaContext) -> None:
        self.view = view = StatementView()
        self._context = context
        self._presenter = context.presenter
        self._tasks = context.tasks
        self._settings = settings = context.settings
        self.loading: asyncio.Task[None] | None = None
        self._shown_for: tuple[str, str] | None = None  # the client and account of the rows
        self._period: tuple[dt.date, dt.date] | None = None  # and the dates they are of
        self._currency: str | None = None  # and the one currency asked for, if any
        self._shown_from: tuple[str, str] | None = None  # the server and user they came from
        self._complete = False  # the rows are the whole statement of the period
        self.exporting: asyncio.Task[None] | None = None
        self.last_load_seconds: float | None = None
        self._summary = ""  # what the status says of the last whole load
        view.load_button.clicked.connect(self.load)
        self.chooser = AccountChooser(view.chooser, context, "statement/client_id")
        self.chooser.changed.connect(self._chosen_changed)
        self.chooser.status.connect(view.status.setText)
        view.cancel_button.clicked.connect(self.cancel)
        view.search.textChanged.connect(self._search)
        view.model.working.connect(self._working)
        view.model.settled.connect(self._settled)
        view.model.failed.connect(self._failed)
        view.export_button.clicked.connect(self.choose_export_file)
        view.camt_button.clicked.connect(self.choose_camt053_file)
        header = view.table.horizontalHeader()
        state = settings.value("statement/columns")
        if state is not None:
            header.restoreState(state)
        header.sectionResized.connect(self._remember_columns)

    def signed_in(self) -> None:
        """Nothing loads by itself: a statement is loaded when asked for. Rows loaded from
        another server, or as another user, go: never shown as this one's."""
        if self._shown_for is not None and self._server() != self._shown_from:
            self._forget_rows("Signed in anew: choose a period, then Load.")
        self.chooser.signed_in()

    def _server(self) -> tuple[str, str] | None:
        from app.api.address import api_root

        session = self._context.session
        return None if session is None else (api_root(session.base_url), session.profile.user)

    def refresh(self) -> None:
        self.load()

    def show_account(self, client_id: str, account_id: str) -> None:
        """Come from the Accounts area: that client and account, ready to Load."""
        self.chooser.choose(client_id, account_id)
        self._chosen_changed()

    def _chosen_changed(self) -> None:
        """Another client or account than the rows are of: the rows go, never shown under
        another account's name."""
        chosen = (self.chooser.client_id(), self.chooser.account_id())
        if self._shown_for is not None and chosen != self._shown_for:
            self._forget_rows("Choose a period, then Load.")

    def _forget_rows(self, status: str) -> None:
        self.cancel()
        self._shown_for = None
        self._complete = False
        self._summary = ""
        self.view.model.clear()
        self.view.chart.set_series([], "")
        self._busy(False)
        self.view.status.setText(status)

    # -- loading

    def load(self) -> None:
        view = self.view
        client_id = self.chooser.client_id()
        account_id = self.chooser.account_id()
        date_from = view.date_from.date()
        date_to = view.date_to.date()
        problem = None
        currency = None
        if not client_id:
            problem = InvalidInput("Client", "enter the client ID")
        elif not account_id:
            problem = InvalidInput("Account", "choose or enter the account")
        elif (account_problem := self.chooser.account_problem()) is not None:
            problem = InvalidInput("Account", account_problem)
        elif date_from is None or date_to is None:
            which = "From" if date_from is None else "To"
            field = view.date_from if date_from is None else view.date_to
            problem = InvalidInput(which, field.problem() or "")
        elif date_from > date_to:
            problem = InvalidInput("Period", f"From ({date_from}) is after To ({date_to})")
        else:
            try:
                currency = chosen_currency(view.currency.currentText())
            except InvalidInput as exc:
                problem = exc
        if problem is not None:
            self._presenter.show(problem)
            return
        assert date_from is not None and date_to is not None
        self.cancel()
        # show the load at once, before the task gets its first turn
        view.model.clear()
        view.table.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        view.chart.set_series([], "")
        self._shown_for = (client_id, account_id)
        self._period = (date_from, date_to)
        self._currency = currency
        self._shown_from = self._server()
        self._complete = False
        self._summary = ""
        self._busy(True)
        view.status.setText("Loading…")
        self.loading = self._tasks.spawn(
            self._load(client_id, account_id, date_from, date_to, currency)
        )

    async def _load(
        self,
        client_id: str,
        account_id: str,
        date_from: dt.date,
        date_to: dt.date,
        currency: str | None,
    ) -> None:
        import asyncio  # here, not at the top: the window shows before asyncio loads

        view = self.view
        model = view.model
        started = time.perf_counter()
        batches = self._context.banking.iter_statement(
            client_id, account_id, date_from, date_to, currency=currency, into=model.storage
        )
        try:
            # aclosing: a cancel between batches still closes the download, in this task
            async with contextlib.aclosing(batches):
                # the view hears of the first rows at once, then of new rows a few times a
                # second, not for every piece
                pacer, shown_any = current_budget().reveal_pacer(), False
                async for _added in batches:
                    reveal = not shown_any or pacer.spent()
                    model.rows_arrived(reveal=reveal)
                    if reveal:
                        shown_any = True
                        pacer.renew()
                        view.status.setText(f"Loading… {model.loaded:,} records")
                    # no sleep(0) here: the window has its turn whenever the answer's read-ahead
                    # runs dry, at least once a MiB (app.api.http.network)
            model.reveal()
        except asyncio.CancelledError:
            model.reveal()  # every record received is shown, as the status counts them
            if self._shown_for == (client_id, account_id):  # not when another account came
                view.status.setText(
                    f"Cancelled after {model.loaded:,} records: Load again for the whole period."
                )
                self._chart(currency)  # the balance over the days loaded
            raise
        except ApiError as exc:
            model.reveal()
            view.status.setText(
                f"Loading failed after {model.loaded:,} records: these are not the whole period."
            )
            self._chart(currency)
            self._presenter.show(exc, self.load)
            return
        finally:
            self._busy(False)
        self._complete = True  # only a whole statement can be exported
        self._busy(False)
        self.last_load_seconds = time.perf_counter() - started
        self._summary = (
            f"{model.loaded:,} records, {date_from} to {date_to} "
            f"(loaded in {self.last_load_seconds:.1f} s)"
        )
        self._show_status()
        self._chart(currency)

    def cancel(self) -> None:
        for task in (self.loading, self.exporting):
            if task is not None and not task.done():
                task.cancel()

    def _busy(self, busy: bool) -> None:
        view = self.view
        view.progress.setVisible(busy)
        view.cancel_button.setEnabled(busy)
        view.load_button.setEnabled(not busy)
        view.export_button.setEnabled(not busy and self._complete and view.model.loaded > 0)
        view.export_button.setToolTip(
            "" if self._complete else "Export needs the whole statement: Load it first"
        )
        view.camt_button.setEnabled(not busy and self._complete)

    def _chart(self, currency: str | None) -> None:
        storage = self.view.model.storage
        chosen = currency or storage.main_currency()
        if chosen is None:
            self.view.chart.set_series([], currency or "")
            return
        self.view.chart.set_series(storage.daily_balances(chosen), chosen)

    # -- search and sort

    def _search(self, text: str) -> None:
        self.view.model.set_search(text)
        if not self.view.model.busy:
            self._settled()

    def _working(self, what: str) -> None:
        """A search or sort of many rows: said while it is worked out (loading says its own)."""
        if not self._loading():
            self.view.status.setText(what)
            self.view.progress.setVisible(True)

    def _settled(self) -> None:
        if self._loading():
            return
        self.view.progress.setVisible(False)
        self._show_status()

    def _failed(self) -> None:
        """The model shows every row in booking order: the search box and the sort indicator
        say so too (quietly: they would ask for the search and sort again)."""
        view = self.view
        with QSignalBlocker(view.search), QSignalBlocker(view.table.horizontalHeader()):
            view.search.clear()
            view.table.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.AscendingOrder)

    def _show_status(self) -> None:
        """What the rows are: those a search found, or the whole load's summary."""
        model = self.view.model
        if model.busy:
            return  # a sort or search is being worked out: it says so
        if model.failure:
            self.view.status.setText(model.failure)
        elif model.searching and model.loaded:
            self.view.status.setText(f"{model.rowCount():,} of {model.loaded:,} records shown")
        elif self._summary:
            self.view.status.setText(self._summary)

    def _loading(self) -> bool:
        return self.loading is not None and not self.loading.done()

    # -- export

    def choose_export_file(self) -> QFileDialog:
        parts: list[object] = ["statement", *(self._shown_for or ())]
        if self._period is not None:
            parts += [self._period[0].isoformat(), "to", self._period[1].isoformat()]
        if self.view.model.searching:
            parts.append("found")  # only the rows the search shows
        return choose_csv_file(
            self.view, self._settings, "Export statement as CSV", file_name(*parts), self.export_to
        )

    def export_to(self, path: Path) -> asyncio.Task[None]:
        self.exporting = self._tasks.spawn(self._export(path))
        return self.exporting

    async def _export(self, path: Path) -> None:
        import asyncio  # here, not at the top: the window shows before asyncio loads

        view = self.view
        total = view.model.rowCount()
        self._busy(True)
        try:
            this_slice = current_budget().slice()
            for _ in view.model.find_exported_texts():
                if this_slice.spent():
                    await asyncio.sleep(0)
                    this_slice.renew()
            if forked.AVAILABLE and total >= EXPORT_IN_COPIES_AT:
                written = await write_csv_in_copies(
                    path,
                    COLUMNS,
                    view.model.export_parts(_export_copies()),
                    lambda done: self._exported(done, total),
                )
            else:
                written = await write_csv(
                    path,
                    COLUMNS,
                    view.model.export_rows(),
                    lambda done: self._exported(done, total),
                    neutralised=True,  # by export_rows, a column at a time
                )
        except asyncio.CancelledError:
            view.status.setText("Export cancelled.")
            raise
        except OSError as exc:
            view.status.setText("Export failed.")
            self._presenter.show(InvalidInput("File", f"cannot write {path}: {exc.strerror}"))
            return
        finally:
            view.progress.setRange(0, 0)  # busy again, as loading and sorting show it
            view.progress.resetFormat()
            self._busy(False)
        view.status.setText(f"Exported {written:,} rows to {path}")

    def _exported(self, done: int, total: int, what: str = "rows") -> None:
        """The counts so far, in the status and in the bar, which fills as they grow."""
        view = self.view
        counts = f"{done:,} of {total:,} {what}"
        view.status.setText(f"Exporting… {counts}")
        view.progress.setRange(0, max(total, 1))
        view.progress.setFormat(counts)
        view.progress.setValue(done)

    def choose_camt053_file(self) -> QFileDialog:
        parts: list[object] = ["camt053", *(self._shown_for or ())]
        if self._period is not None:
            parts += [self._period[0].isoformat(), "to", self._period[1].isoformat()]
        name = file_name(*parts).removesuffix(".csv") + ".xml"
        title = "Export statement as camt.053"
        settings = self._settings
        return choose_file(self.view, settings, title, name, "XML (*.xml)", self.export_camt053_to)

    def export_camt053_to(self, path: Path) -> asyncio.Task[None]:
        """The loaded statement's account and period, asked again and written as camt.053
        as it comes (its booked balances with it): the rows shown may be searched or sorted,
        a bank statement is not."""
        self.exporting = self._tasks.spawn(self._export_camt053(path))
        return self.exporting

    async def _export_camt053(self, path: Path) -> None:
        import asyncio

        from app.forms.statement_export import export_camt053

        assert self._shown_for is not None and self._period is not None
        view = self.view
        total = view.model.loaded
        self._busy(True)
        self._exported(0, total, "entries")  # said at once: the account and balances come first
        try:
            written = await export_camt053(
                self._context.banking,
                *self._shown_for,
                *self._period,
                path,
                currency=self._currency,
                progress=lambda done: self._exported(done, total, "entries"),
            )
        except asyncio.CancelledError:
            view.status.setText("Export cancelled: no file was written.")
            raise
        except OSError as exc:
            view.status.setText("Export failed.")
            self._presenter.show(InvalidInput("File", f"cannot write {path}: {exc.strerror}"))
            return
        except ApiError as exc:
            view.status.setText("Export failed: no file was written.")
            self._presenter.show(exc, lambda: self.export_camt053_to(path))
            return
        finally:
            view.progress.setRange(0, 0)
            view.progress.resetFormat()
            self._busy(False)
        view.status.setText(f"Exported {written:,} entries as camt.053 to {path}")

    def _remember_columns(self) -> None:
        header = self.view.table.horizontalHeader()
        self._settings.setValue("statement/columns", header.saveState())
