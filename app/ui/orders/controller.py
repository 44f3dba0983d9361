"""The Orders area: the card gateway's orders — listed with filter and paging, looked up by
id, shown in detail with the actions legal for their state — the New order form, card entry
for MOTO and merchant-side payments, taxes and customers.

Each action (capture, refund, reverse, charge) asks for confirmation with its amounts and owns
an action key until its outcome is known: a retry, Save again after a failure or the re-run
after signing in never acts twice. On a gateway without the order list extension, the list
shows the orders made or looked up from this desk (a local journal of ids)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from PySide6.QtCore import QItemSelectionModel, QModelIndex
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication, QMessageBox

from app.api.action import ActionKey
from app.api.errors import ApiError, InvalidInput, UnexpectedStatus
from app.core import limits
from app.ui.common.browser import open_secret_address
from app.ui.common.paged_model import ItemRole
from app.ui.orders.amount_dialog import AmountDialog
from app.ui.orders.card_entry import CardEntryDialog
from app.ui.orders.journal import OrderJournal
from app.ui.orders.model import ID, WIDTHS, OrdersModel, money
from app.ui.orders.order_form import OrderDialog
from app.ui.orders.rules import ACTIONS, Action, offers
from app.ui.orders.taxes_customers import CustomersDialog, TaxesDialog
from app.ui.orders.view import OrdersView
from app.ui.shell.areas import AreaContext
from app.ui.shell.dialogs import confirmed, opened

if TYPE_CHECKING:
    from app.api.gateway import Order

KNOWN_CUSTOMERS_KEY = "orders/known_customers"
MAX_KNOWN_CUSTOMERS = 500

#: what an action sends: (the request, its x-request-id) -> the order after it


class OrdersArea:
    NAME: ClassVar[str] = "Orders"

    def __init__(self, context: AreaContext) -> None:
        self.view = view = OrdersView()
        self._context = context
        self._presenter = context.presenter
        self._tasks = context.tasks
        self.journal = OrderJournal(context.data_dir / "order-journal.json")
        self.list_extension = True  # until the gateway says it has no order list
        self.current: Order | None = None
        self.action_keys: dict[tuple[str, Action], ActionKey] = {}
        self.order_dialog: OrderDialog | None = None
        self.card_dialog: CardEntryDialog | None = None
        self.amount_dialog: AmountDialog | None = None
        self.confirmation: QMessageBox | None = None
        self.no_browser: QMessageBox | None = None  # the address shown when none opened
        self.taxes_dialog: TaxesDialog | None = None
        self.customers_dialog: CustomersDialog | None = None
        self._shown = False
        # every question about an order gets a ticket; an answer older than the one shown
        # for that order (a smaller ticket) is dropped
        self._tickets = 0
        self._shown_ticket: dict[str, int] = {}
        self.model = OrdersModel(self._page, context.tasks, view)
        view.table.setModel(self.model)
        header = view.table.horizontalHeader()
        for column, width in WIDTHS.items():
            header.resizeSection(column, width)
        # an order ID (a UUID) read whole in this window's font
        whole_id = view.table.fontMetrics().horizontalAdvance("0" * 36) + 16
        header.resizeSection(ID, max(WIDTHS[ID], whole_id))
        header.setStretchLastSection(True)
        self.model.page_loaded.connect(self._loaded)
        self.model.failed.connect(self._failed)
        view.table.selectionModel().currentRowChanged.connect(self._chosen)
        view.show_button.clicked.connect(self.show_orders)
        view.filter.applied.connect(lambda _text: self.show_orders())
        view.lookup_button.clicked.connect(self.look_up)
        view.order_id.returnPressed.connect(self.look_up)
        view.new_button.clicked.connect(self.new_order)
        view.taxes_button.clicked.connect(self.open_taxes)
        view.customers_button.clicked.connect(self.open_customers)
        detail = view.detail
        detail.checkout_button.clicked.connect(lambda: self._open_link("checkout"))
        detail.three_ds_button.clicked.connect(lambda: self._open_link("three_ds"))
        detail.copy_button.clicked.connect(self._copy_id)
        for action, button in detail.action_buttons.items():
            button.clicked.connect(lambda _checked=False, a=action: self.start(a))
        self._announcing: str | None = None  # the order this area is telling the others of
        context.events.order_changed.connect(self._order_changed)
        if context.session is not None:
            self.show_orders()

    def signed_in(self) -> None:
        self.list_extension = True  # another gateway, perhaps: asked again
        self.refresh()  # the list shows at once, as the other areas do

    def refresh(self) -> None:
        """F5: the list again, and the order shown as it is now."""
        self.show_orders()
        if self.current is not None:
            self._tasks.spawn(self.reload(self.current.id))

    # -- the list

    def show_orders(self) -> None:
        self._shown = True
        self.view.status.setText("Loading…")
        self.model.reload(self.view.filter.current())

    async def _page(self, offset: int, limit: int, query: Any) -> list[Order]:
        gateway = self._context.gateway
        if self.list_extension:
            try:
                return await gateway.list_orders(offset=offset, limit=limit, filter=query)
            except UnexpectedStatus as exc:
                if exc.status not in (404, 405):
                    raise
                self.list_extension = False  # a gateway without the list: the journal
        found = []
        for order_id in self.journal.ids()[offset : offset + limit]:
            try:
                found.append(await gateway.get_order(order_id))
            except ApiError as exc:
                if exc.status != 400:
                    raise
        return found

    def _loaded(self, count: int) -> None:
        more = " (scroll for more)" if self.model.canFetchMore(QModelIndex()) else ""
        source = "" if self.list_extension else " made or looked up from this desk"
        self.view.status.setText(f"{count:,} order{'s' if count != 1 else ''}{source}{more}")

    def _failed(self, error: ApiError) -> None:
        self.view.status.setText("Loading failed")
        self._presenter.show(error, self.refresh)

    def _chosen(self, current: QModelIndex, _previous: QModelIndex) -> None:
        order = self.model.data(current, ItemRole) if current.isValid() else None
        if order is not None:  # the list's copy: no newer than what was asked before
            self.show_order(order, ticket=self._shown_ticket.get(order.id, 0))

    def look_up(self) -> None:
        order_id = self.view.order_id.text().strip()
        problem = limits.Bound(1, 64).length_problem(order_id)
        if problem:
            self._presenter.show(InvalidInput("Order ID", problem))
            return
        self._tasks.spawn(self.reload(order_id, remember=True, select=True))

    def _ticket(self) -> int:
        self._tickets += 1
        return self._tickets

    async def reload(self, order_id: str, *, remember: bool = False, select: bool = False) -> None:
        ticket = self._ticket()
        try:
            order = await self._context.gateway.get_order(order_id)
        except ApiError as exc:
            self._presenter.show(exc, lambda: self._tasks.spawn(self.reload(order_id)))
            return
        if remember:
            self.journal.remember(order.id)
        if ticket < self._shown_ticket.get(order.id, 0):
            return  # a newer answer about this order is shown already
        if select or (self.current is not None and self.current.id == order.id):
            self.show_order(order, select=select, ticket=ticket)
        else:  # the user is looking at another order: only its row is updated
            self._shown_ticket[order.id] = ticket
            self.model.show_order(order)

    def show_order(self, order: Order, *, select: bool = False, ticket: int | None = None) -> None:
        """The order in the list (updated or added) and in the detail. ``ticket``: the question
        it answers (None: an answer just received, newer than any question asked before)."""
        self._shown_ticket[order.id] = ticket if ticket is not None else self._ticket()
        self.current = order
        before = self.model.rowCount()
        self.model.show_order(order)
        if self.model.rowCount() != before:
            self._loaded(self.model.rowCount())
        if select:
            for row, known in enumerate(self.model.items()):
                if known.id == order.id:
                    self.view.table.selectionModel().setCurrentIndex(
                        self.model.index(row, 0),
                        QItemSelectionModel.SelectionFlag.ClearAndSelect
                        | QItemSelectionModel.SelectionFlag.Rows,
                    )
                    break
        now = self._context.gateway.transport.server_now()
        if QApplication.focusWidget() in self.view.detail.action_buttons.values():
            # a focused button the new state disables would hand the focus to the next
            # field, and the detail would scroll to it: the buttons would not stay in place
            self.view.table.setFocus()
        self.view.detail.show_order(order, offers(order, now), now)

    def _announce(self, order_id: str) -> None:
        """Tell the other areas of an order this one has just been given whole: it is not
        asked for again here (opening a created order cost a second request)."""
        self._announcing = order_id
        try:
            self._context.events.order_changed.emit(order_id)
        finally:
            self._announcing = None

    def _order_changed(self, order_id: str) -> None:
        if order_id == self._announcing:
            return
        if self.current is not None and self.current.id == order_id:
            self._tasks.spawn(self.reload(order_id))

    # -- links

    def _open_link(self, which: str) -> None:
        order = self.current
        if order is None:
            return
        page: Literal["checkout", "3-D Secure"] = (
            "checkout" if which == "checkout" else "3-D Secure"
        )
        try:
            url = self._context.gateway.browser_address(order, page)
        except InvalidInput as refused:  # not a web page: never handed to the system
            self._presenter.show(refused)
            return
        self.no_browser = open_secret_address(url, f"{page} page", self.view)

    def _copy_id(self) -> None:
        if self.current is not None:
            QGuiApplication.clipboard().setText(self.current.id)
            self.view.status.setText(f"Copied the order ID {self.current.id}")

    # -- new order, taxes, customers

    def known_customers(self) -> dict[str, str]:
        try:
            known = json.loads(str(self._context.settings.value(KNOWN_CUSTOMERS_KEY, "{}")))
        except ValueError:
            return {}
        if not isinstance(known, dict):
            return {}
        return {str(k): str(v) for k, v in known.items()}

    def remember_customer(self, customer_id: str, email: str) -> None:
        known = {customer_id: email, **self.known_customers()}
        kept = dict(list(known.items())[:MAX_KNOWN_CUSTOMERS])
        self._context.settings.setValue(KNOWN_CUSTOMERS_KEY, json.dumps(kept))

    def new_order(self) -> None:
        if self.order_dialog is not None:
            self.order_dialog.raise_()
            return
        self._tasks.spawn(self._new_order())

    async def _new_order(self) -> None:
        dialog = OrderDialog(
            self._context, known_customers=self.known_customers(), parent=self.view
        )
        self.order_dialog = dialog
        try:
            await opened(dialog)
        finally:
            self.order_dialog = None
            dialog.deleteLater()
        for customer_id, email in dialog.known_customers.items():
            if customer_id not in self.known_customers():
                self.remember_customer(customer_id, email)
        if dialog.created is not None:
            self.journal.remember(dialog.created.id)
            self.show_order(dialog.created, select=True)
            self._announce(dialog.created.id)

    def open_taxes(self) -> None:
        dialog = TaxesDialog(self._context, parent=self.view)
        self.taxes_dialog = dialog
        dialog.finished.connect(lambda _r: setattr(self, "taxes_dialog", None))
        dialog.open()

    def open_customers(self) -> None:
        dialog = CustomersDialog(
            self._context, self.known_customers(), self.remember_customer, parent=self.view
        )
        self.customers_dialog = dialog
        dialog.finished.connect(lambda _r: setattr(self, "customers_dialog", None))
        dialog.open()

    # -- actions

    def start(self, action: Action) -> None:
        order = self.current
        if order is None:
            return
        # each action of the table (rules.ACTIONS) is started by the method of its name
        self._tasks.spawn(getattr(self, f"_{action}")(order))

    async def _confirm(self, action: Action, text: str) -> bool:
        return await confirmed(self, self.view, ACTIONS[action].title, text)

    async def _amount(self, dialog: AmountDialog) -> bool:
        self.amount_dialog = dialog
        try:
            return bool(await opened(dialog))
        finally:
            self.amount_dialog = None
            dialog.deleteLater()

    async def _pay(self, order: Order) -> None:
        cards = []
        if order.customer_id is not None:
            try:
                cards = (await self._context.gateway.get_customer(order.customer_id)).cards
            except ApiError as exc:
                self._presenter.show(exc)
                return
        dialog = CardEntryDialog(self._context, order, cards, parent=self.view)
        self.card_dialog = dialog
        try:
            await opened(dialog)
        finally:
            self.card_dialog = None
            dialog.deleteLater()
            self.view.table.setFocus()  # not the next field the scrolled detail would show
        if dialog.paid is not None:  # the payment's answer is the order as it is now
            self.show_order(dialog.paid)
            self._announce(dialog.paid.id)
        elif dialog.tried:  # refused or lost on its way: the order may have changed
            await self.reload(order.id)

    async def _capture(self, order: Order) -> None:
        currency = order.currency
        dialog = AmountDialog(
            "Capture",
            f"Capture order {order.id}: {money(order.amount_reserved, currency)} is reserved. "
            "An order is captured once; what is not captured is released.",
            order.amount_reserved,
            currency,
            "Released",
            parent=self.view,
        )
        if not await self._amount(dialog):
            return
        total = dialog.chosen_amount()
        rest = order.amount_reserved - total
        reserved = money(order.amount_reserved, currency)
        text = f"Capture {money(total, currency)} of the {reserved} reserved?"
        if rest:
            text += f"\n{money(rest, currency)} will be released to the cardholder."
        if await self._confirm("capture", text):
            await self._act(order, "capture", str(total))

    async def _refund(self, order: Order) -> None:
        currency = order.currency
        remaining = order.refundable
        dialog = AmountDialog(
            "Refund",
            f"Refund order {order.id}: {money(remaining, currency)} remains captured"
            f" (of {money(order.amount_captured, currency)}).",
            remaining,
            currency,
            "Remains after the refund",
            full_choice=f"All that remains: {money(remaining, currency)} (a full refund)",
            parent=self.view,
        )
        if not await self._amount(dialog):
            return
        amount = dialog.value()
        moved = dialog.chosen_amount()
        if amount == remaining:
            amount = None  # all that remains: a full refund
        what = "in full" if amount is None else "in part"
        text = f"Refund {money(moved, currency)} {what} to the cardholder?"
        if amount is not None:
            text += f"\n{money(remaining - moved, currency)} will remain captured."
        if await self._confirm("refund", text):
            await self._act(order, "refund", None if amount is None else str(amount))

    async def _reverse(self, order: Order) -> None:
        currency = order.currency
        moved = order.amount_captured or order.amount_reserved
        text = (
            f"Reverse the payment of order {order.id} in full: {money(moved, currency)} goes "
            "back to the cardholder. A reversal is possible only on the day of payment."
        )
        if await self._confirm("reverse", text):
            await self._act(order, "reverse", None)

    async def _charge(self, order: Order) -> None:
        text = (
            f"Charge {money(order.amount, order.currency)} to the saved card of customer "
            f"{order.client_email or order.customer_id} (order {order.id})?"
        )
        if await self._confirm("charge", text):
            await self._act(order, "charge", None)

    async def _act(self, order: Order, action: Action, amount: str | None) -> None:
        """Send an action's request (rules.ACTIONS) with its own key, kept until its outcome
        is known."""
        send = ACTIONS[action].send
        assert send is not None  # pay goes through the card entry
        action_key = self.action_keys.setdefault((order.id, action), ActionKey())
        try:
            # when the last try's outcome is unknown, that request goes again first
            updated = await action_key.send(
                (action, amount),
                lambda sent, key: send(self._context.gateway, order, sent[1], key),
            )
        except ApiError as exc:
            self._presenter.show(exc, lambda: self._tasks.spawn(self._act(order, action, amount)))
            await self.reload(order.id)
            return
        self.action_keys.pop((order.id, action), None)
        self.show_order(updated)
        self._announce(order.id)
