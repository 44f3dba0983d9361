"""The Events area: registration webhooks as they arrive — occurred_at, type, status, data.id,
signature verified, duplicates seen, received — filtered by type and status; the raw body and
headers of the chosen one, and the client it refers to read back through the API (data.id is
the client's external reference). In sandbox mode the desk receives the events itself, and
Subscriptions… manages the sandbox's subscriptions."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, ClassVar

from PySide6.QtCore import QItemSelectionModel, QModelIndex, QTimer
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDialogButtonBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from app.api.errors import ApiError
from app.core import webhooks as wh
from app.ui.common.names import NamedDialog, named
from app.ui.common.notice import NoticeLabel
from app.ui.common.table_model import RowsModel
from app.ui.common.widgets import row_table
from app.ui.events.model import TYPE, WIDTHS, EventRole, EventsModel
from app.ui.shell.areas import AreaContext
from app.ui.shell.dialogs import confirmed
from app.webhooks.store import StoreUnavailable

if TYPE_CHECKING:
    from app.webhooks.delivery import Event
    from app.webhooks.source import EventsSource

ALL_TYPES = "All types"
ALL_STATUSES = "All statuses"
POLL_MS = 1000
HIDDEN_POLL_TICKS = 5  # while the area is not shown, its store is read every fifth tick
NO_EVENT = "Choose an event to read its client back."
CLIENTS_SEARCHED = 2_000  # clients searched for an external reference, at most


class EventsView(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.event_type = QComboBox()
        named(self.event_type, "eventTypeFilter", "Event type")
        self.event_type.setEditable(True)
        self.event_type.addItems([ALL_TYPES, *sorted(wh.KNOWN_TYPES)])
        self.status = QComboBox()
        named(self.status, "eventStatusFilter", "Status")
        self.status.addItems([ALL_STATUSES, *wh.STATUSES])
        self.refresh_button = named(QPushButton("Refresh"), "eventsRefresh", "Refresh the events")
        self.subscriptions_button = QPushButton("Subscriptions…")
        self.subscriptions_button.setObjectName("subscriptions")
        self.source = QLabel("")
        self.source.setObjectName("eventsSource")
        self.source.setWordWrap(True)
        self.table = row_table("eventsTable", "Events")
        self.client = QLabel(NO_EVENT)
        self.client.setObjectName("eventClient")
        self.client.setWordWrap(True)
        self.raw = QPlainTextEdit()
        named(self.raw, "eventRaw", "The event as received")
        self.raw.setReadOnly(True)
        self.raw.setPlaceholderText("The raw body and headers of the chosen event")
        detail = QWidget()
        detail_layout = QVBoxLayout(detail)
        detail_layout.setContentsMargins(0, 0, 0, 0)
        detail_layout.addWidget(QLabel("<b>Client</b>"))
        detail_layout.addWidget(self.client)
        detail_layout.addWidget(QLabel("<b>As received</b>"))
        detail_layout.addWidget(self.raw, 1)
        splitter = QSplitter()
        splitter.addWidget(self.table)
        splitter.addWidget(detail)
        # the list takes three parts of the width to the detail's one, as the window grows too
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([900, 300])
        top = QHBoxLayout()
        top.addWidget(QLabel("Type:"))
        top.addWidget(self.event_type, 1)
        top.addWidget(QLabel("Status:"))
        top.addWidget(self.status)
        top.addWidget(self.refresh_button)
        top.addStretch(1)
        top.addWidget(self.subscriptions_button)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("<h2>Registration events</h2>"))
        layout.addLayout(top)
        layout.addWidget(self.source)
        layout.addWidget(splitter, 1)


class EventsArea:
    NAME: ClassVar[str] = "Events"

    def __init__(self, context: AreaContext) -> None:
        self.view = view = EventsView()
        self._context = context
        self._tasks = context.tasks
        self.model = EventsModel(view)
        view.table.setModel(self.model)
        header = view.table.horizontalHeader()
        for column, width in WIDTHS.items():
            header.resizeSection(column, width)
        header.setStretchLastSection(False)
        header.setSectionResizeMode(TYPE, QHeaderView.ResizeMode.Stretch)
        header.setMinimumSectionSize(60)
        view.table.selectionModel().currentRowChanged.connect(self._chosen)
        view.refresh_button.clicked.connect(self.refresh)
        view.event_type.currentTextChanged.connect(lambda _text: self.refresh())
        view.status.currentTextChanged.connect(lambda _text: self.refresh())
        view.subscriptions_button.clicked.connect(self.open_subscriptions)
        self.subscriptions_dialog: SubscriptionsDialog | None = None
        self._loading = False
        self._client_generation = 0
        self._newest_received: str | None = None  # of the events read so far
        self._ticks = 0
        self.timer = QTimer(view)
        self.timer.setInterval(POLL_MS)
        self.timer.timeout.connect(self._poll)
        self.timer.start()

    @property
    def source(self) -> EventsSource | None:
        session = self._context.session
        return session.events if session is not None else None

    def signed_in(self) -> None:
        self.refresh()

    def refresh(self) -> None:
        self._tasks.spawn(self.load())

    def _poll(self) -> None:
        """Read the store again: each second while the area is shown, less often while it is
        not — the other areas still learn of the events as they come."""
        self._ticks += 1
        due = self.view.isVisible() or self._ticks % HIDDEN_POLL_TICKS == 0
        if due and not self._loading and self.source is not None:
            self.refresh()

    def filters(self) -> tuple[str | None, str | None]:
        event_type = self.view.event_type.currentText().strip()
        status = self.view.status.currentText()
        return (
            None if event_type in ("", ALL_TYPES) else event_type,
            None if status == ALL_STATUSES else status,
        )

    async def load(self) -> None:
        source = self.source
        if source is None or self._loading:
            return
        self.view.subscriptions_button.setVisible(source.sandbox)
        self._loading = True
        event_type, status = self.filters()
        try:
            events = await source.events(event_type=event_type, status=status)
        except StoreUnavailable as exc:  # away for now: read again at the next look
            self.view.source.setText(
                f"The event store is unavailable: {exc}. The events show again once it is back."
            )
            return
        except (
            Exception
        ) as exc:  # the store cannot be read: said in place, not in a box each second
            self.view.source.setText(f"The events cannot be read: {exc}")
            return
        finally:
            self._loading = False
        if source is not self.source:
            self.refresh()  # signed in elsewhere meanwhile: read the new source
            return
        self._tell_of_new(events)
        chosen = self.chosen()
        if self.model.show(events):
            still_listed = chosen is not None and self._select(chosen.event_id)
            if chosen is not None and not still_listed:  # the filter hides it: so does its detail
                self._show_detail(None)
        where = "received by Partner Desk from the embedded sandbox" if source.sandbox else ""
        store = source.store.where if source.store is not None else ""
        shown = f"{len(events):,} event{'s' if len(events) != 1 else ''}"
        note = f" — {source.problem}" if source.problem else ""
        self.view.source.setText(f"{shown}; {where + ', ' if where else ''}stored in {store}{note}")

    def _tell_of_new(self, events: list[Event]) -> None:
        """Each client whose registration event arrived since the last reading is named to
        the other areas (the Clients list shows its new status); none at the first reading."""
        newest = max((event.received_at for event in events), default="")
        if self._newest_received is not None:
            for event in events:
                if event.received_at > self._newest_received and event.data_id:
                    self._context.events.registration_changed.emit(event.data_id)
        self._newest_received = max(newest, self._newest_received or "")

    def chosen(self) -> Event | None:
        index = self.view.table.currentIndex()
        event = self.model.data(index, EventRole) if index.isValid() else None
        return event

    def _select(self, event_id: str) -> bool:
        """Choose the event again after the list changed; False when it is not listed."""
        for row, event in enumerate(self.model.events()):
            if event.event_id == event_id:
                self.view.table.selectionModel().setCurrentIndex(
                    self.model.index(row, 0),
                    QItemSelectionModel.SelectionFlag.ClearAndSelect
                    | QItemSelectionModel.SelectionFlag.Rows,
                )
                return True
        return False

    def _chosen(self, current: QModelIndex, _previous: QModelIndex) -> None:
        event = self.model.data(current, EventRole) if current.isValid() else None
        if event is not None:
            self._show_detail(event)

    def _show_detail(self, event: Event | None) -> None:
        """The chosen event as received, and its client read back; None: no event shown."""
        self._client_generation += 1
        if event is None:
            self.view.table.selectionModel().clearSelection()
            self.view.raw.clear()
            self.view.client.setText(NO_EVENT)
            return
        headers = "\n".join(f"{name}: {value}" for name, value in event.headers.items())
        try:
            pretty = json.dumps(json.loads(event.body), indent=2, ensure_ascii=False)
        except ValueError:
            pretty = event.body
        self.view.raw.setPlainText(
            f"{headers}\n\n{event.body}\n\n— the same body, laid out —\n{pretty}"
        )
        if event.data_id is None:
            self.view.client.setText("The event names no client (no external reference).")
            return
        self.view.client.setText(f"Reading back the client with reference {event.data_id}…")
        self._tasks.spawn(self._read_client(event.data_id, self._client_generation))

    async def _read_client(self, reference: str, generation: int) -> None:
        text = f"No client with the external reference {reference} was found."
        try:
            async for found in self._context.banking.each_client_v2(at_most=CLIENTS_SEARCHED):
                if found.external_reference == reference:
                    name = (
                        f"{found.person.first_name} {found.person.last_name}"
                        if found.person is not None
                        else (found.company.name if found.company is not None else "")
                    )
                    text = (
                        f"Client {found.id}: {name} ({found.kind}), registration {found.status} now"
                    )
                    break
        except ApiError as exc:
            text = f"The client could not be read: {exc}"
        if generation == self._client_generation:
            self.view.client.setText(text)

    def open_subscriptions(self) -> None:
        source = self.source
        if source is None or not source.sandbox:
            return
        dialog = SubscriptionsDialog(self._context, source, parent=self.view)
        self.subscriptions_dialog = dialog
        dialog.finished.connect(lambda _r: setattr(self, "subscriptions_dialog", None))
        dialog.open()


class SubscriptionsDialog(NamedDialog):
    """The embedded sandbox's webhook subscriptions: list, add, delete."""

    def __init__(
        self, context: AreaContext, source: EventsSource, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("subscriptionsDialog")
        self.setWindowTitle("Sandbox webhook subscriptions")
        self.setMinimumWidth(760)
        self._context = context
        self._source = source
        self.model = RowsModel(("URL", "Filter", "Signed", "ID"))
        self.table = named(QTableView(), "subscriptionsTable", "Subscriptions")
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setWordWrap(False)  # every row cut alike ("…"), none on two lines
        self.table.setColumnWidth(0, 300)
        self.url = QLineEdit()
        self.url.setObjectName("subscriptionUrl")
        self.url.setPlaceholderText("http://127.0.0.1:9000/webhooks")
        self.filter = named(QComboBox(), "subscriptionFilter", "Event types sent")
        self.filter.setEditable(True)
        self.filter.addItems(["*", "*.status_changed", *sorted(wh.KNOWN_TYPES), "corp_reg.*"])
        self.signed = named(QCheckBox("Signed with the sandbox's key"), "subscriptionSigned")
        self.signed.setChecked(True)
        self.add_button = QPushButton("Subscribe")
        self.add_button.setObjectName("subscribe")
        self.delete_button = named(
            QPushButton("Delete selected"), "deleteSubscription", "Delete the chosen subscription"
        )
        self.problem = NoticeLabel("")
        self.problem.setStyleSheet("color: #b3261e;")
        self.problem.setWordWrap(True)
        add = QHBoxLayout()
        add.addWidget(self.url, 2)
        add.addWidget(self.filter, 1)
        add.addWidget(self.signed)
        add.addWidget(self.add_button)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table)
        layout.addWidget(self.delete_button)
        layout.addLayout(add)
        layout.addWidget(self.problem)
        layout.addWidget(buttons)
        self.add_button.clicked.connect(lambda: context.tasks.spawn(self._add()))
        self.delete_button.clicked.connect(lambda: context.tasks.spawn(self._delete()))
        self.ids: list[str] = []
        self.confirmation: QMessageBox | None = None  # the question before a delete
        context.tasks.spawn(self.load())

    async def load(self) -> None:
        try:
            found = await self._source.subscriptions()
        except Exception as exc:
            self.problem.setText(str(exc))
            return
        self.ids = [str(each["id"]) for each in found]
        self.model.set_rows(
            [
                (str(s["url"]), str(s["filter"]), "yes" if s["signed"] else "no", str(s["id"]))
                for s in found
            ]
        )

    async def _add(self) -> None:
        self.problem.setText("")
        try:
            await self._source.subscribe(
                self.url.text().strip(),
                self.filter.currentText().strip(),
                signed=self.signed.isChecked(),
            )
        except Exception as exc:
            self.problem.setText(str(exc))
            return
        self.url.clear()
        await self.load()

    async def _delete(self) -> None:
        self.problem.setText("")
        row = self.table.currentIndex().row()
        if not 0 <= row < len(self.ids):
            self.problem.setText("Choose a subscription first.")
            return
        url, kinds = (self.model.data(self.model.index(row, column)) for column in (0, 1))
        question = (
            f"Delete the subscription of {url} to {kinds}?\n\nThe sandbox stops sending it events."
        )
        receiver = self._source.receiver
        if receiver is not None and url == receiver.url:
            question += " It is this desk's own receiver: the Events area gets no new events."
        if not await confirmed(self, self, "Delete subscription", question):
            return
        try:
            await self._source.unsubscribe(self.ids[row])
        except Exception as exc:
            self.problem.setText(str(exc))
            return
        await self.load()

    def rows(self) -> list[Any]:
        return [self.model.data(self.model.index(r, 0)) for r in range(self.model.rowCount())]
