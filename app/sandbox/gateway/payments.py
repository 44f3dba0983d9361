"""The gateway's payments: a card taken (or a saved one), 3-D Secure, approval or decline,
the registrations behind cof_trace_ids, a saved card charged, an unanswered 3DS page or an
uncaptured hold expiring."""

from __future__ import annotations

import dataclasses
import datetime as dt
import ipaddress
import secrets
import uuid
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from app.core.gateway.cards import ascii_digits, brand, luhn
from app.core.gateway.matrix import FOLLOW_UPS, Item, conflicts
from app.core.ids import unmasked
from app.sandbox.errors import Refusal, not_allowed, not_found
from app.sandbox.gateway.checks import integer_of
from app.sandbox.gateway.orders import OrderBook
from app.sandbox.gateway.records import (
    DEFAULT_CARD,
    MAX_CARDS,
    TEST_CARDS,
    THREE_DS_WAIT,
    Card,
    Customer,
    Merchant,
    Order,
    Payment,
    Registration,
    SavedCard,
    avs_result,
)
from app.sandbox.pending import Pending, iso_seconds


class Payments(OrderBook):
    def pay(
        self, merchant: Merchant, order: Order, body: dict[str, Any], *, from_checkout: bool
    ) -> Pending[Order]:
        """The payment request at api_do_url (the merchant's, or the hosted checkout's)."""
        if order.status != "new":
            raise not_allowed(f"The order is {order.status}: it takes no payment")
        now = self.now()
        card = self._card(order, body, now)
        by_merchant = body.get("saved_by_merchant") is True
        scenario = body.get("scenario")
        trace = body.get("cof_trace_id")
        registration: Registration | None = None
        items = {order.scenario, *order.items}
        # a merchant-side follow-up: an order made for it (use_scenario) paid with the full
        # number, or any plain order paid with saved_by_merchant and a cof_trace_id
        merchant_follow_up = (order.follow_up and card.saved is None) or (
            not order.saving and not order.follow_up and by_merchant and trace is not None
        )
        if order.saving:
            if trace is not None:
                raise Refusal("cof_trace_id: only a follow-up payment carries one")
            if scenario is not None and scenario != order.request.get("setup_future_use"):
                raise Refusal(
                    "scenario: must match the setup_future_use of the registration "
                    f"({order.request.get('setup_future_use') or 'none was given'})"
                )
            if order.customer_id is not None and (
                len(self.customers[order.customer_id].cards) >= MAX_CARDS
            ):
                raise not_allowed(f"The customer already has {MAX_CARDS} saved cards")
            if order.customer_id is None and not by_merchant:
                raise Refusal(
                    "saved_by_merchant: saving a method needs client.original_client (service "
                    "side) or saved_by_merchant true (merchant side)"
                )
        elif merchant_follow_up:
            registration = self._registration(order, card, by_merchant, scenario, trace)
            if registration.scenario is not None:
                items.add(FOLLOW_UPS[registration.scenario])
        elif order.follow_up:
            if scenario is not None and scenario != card.saved.scenario:  # type: ignore[union-attr]
                raise Refusal(
                    "scenario: must match the setup_future_use of the registration "
                    f"({card.saved.scenario or 'none was given'})"  # type: ignore[union-attr]
                )
        elif by_merchant:
            raise Refusal(
                "saved_by_merchant: this order does not save a method; a merchant-side "
                "follow-up payment sends cof_trace_id and scenario too"
            )
        elif scenario is not None:
            raise Refusal("scenario: this order neither saves a method nor uses a saved one")
        if body.get("avs") is True:
            items.add(Item.AVS)  # Custom AVS
        found = conflicts(items, saved_as=order.request.get("setup_future_use"))
        if found:
            raise Refusal(found[0][2], title="Incompatible combination")
        paid_items = frozenset(items - {Item.OS, Item.TS, Item.ZA})
        self._check_security_code(
            order,
            body,
            card,
            merchant_initiated=registration is not None and scenario in ("recurring", "automatic"),
            from_checkout=from_checkout,
        )
        if "ip_address" in body:
            try:
                ipaddress.ip_address(body["ip_address"])
            except ValueError:
                raise Refusal("ip_address: is not an IPv4 or IPv6 address") from None
        if (
            Item.AF in order.items
            and card.issuer_country in ("US", "CA")
            and not order.client.get("state")
        ):
            raise Refusal(
                "client.state: is required for Account Funding with a card issued in "
                f"{card.issuer_country}"
            )
        avs = avs_result(merchant, order, card, body.get("avs") is True)
        payment = Payment(card, avs, registration, paid_items)
        if card.outcome == "decline":
            after = order.then(
                now,
                "declined",
                "Declined by the issuer",
                status="declined",
                card=card,
                avs_status=avs,
                items=paid_items,
            )
        elif card.outcome == "three_ds" and Item.MO not in order.items and card.saved is None:
            return self._await_3ds(order, payment, paid_items, now)
        else:
            return self._approve(order, payment, now)
        return Pending(after, lambda: self.orders.__setitem__(after.id, after))

    def _await_3ds(
        self, order: Order, payment: Payment, paid_items: frozenset[Item], now: dt.datetime
    ) -> Pending[Order]:
        """The order waits for the cardholder's 3DS answer, at most THREE_DS_WAIT."""
        after = order.then(
            now,
            "three_ds_required",
            "The card needs 3DS authentication",
            status="pending_3ds",
            card=payment.card,
            pending=payment,
            items=paid_items,
            three_ds_token=secrets.token_urlsafe(18),
        )
        token = after.three_ds_token

        def commit() -> None:
            self.orders[after.id] = after
            self.scheduler.at(now + THREE_DS_WAIT, self._give_up_3ds(after.id, token), "3ds")

        return Pending(after, commit)

    def _give_up_3ds(self, order_id: str, token: str | None) -> Callable[[dt.datetime], None]:
        def job(moment: dt.datetime) -> None:
            order = self.orders.get(order_id)
            if order is None or order.status != "pending_3ds" or order.three_ds_token != token:
                return
            self.orders[order_id] = order.then(
                moment,
                "three_ds_failed",
                "3DS authentication was not completed in time; the payment is declined",
                status="declined",
                pending=None,
                three_ds_token=None,
            )

        return job

    def _registration(
        self,
        order: Order,
        card: Card,
        by_merchant: bool,
        scenario: str | None,
        trace: str | None,
    ) -> Registration:
        """The registration a merchant-side follow-up payment names, checked."""
        if not by_merchant and order.chosen_card is not None:
            raise Refusal(
                f"card_number: this order uses the customer's saved card (registered for "
                f"{order.saved_as}): pay with its masked number, or charge it when Recurring; "
                "to pay with another card, create the order without client.original_client"
            )
        if not by_merchant:
            raise Refusal(
                "saved_by_merchant: a follow-up payment with a full card number is "
                "merchant-side: send saved_by_merchant true with scenario and cof_trace_id"
            )
        if trace is None:
            raise Refusal("cof_trace_id: is required for a merchant-side follow-up payment")
        registration = self.registrations.get(trace)
        if registration is None or registration.merchant != order.merchant:
            raise not_found(f"cof_trace_id: registration {trace}")
        if (registration.brand, registration.last4) != (card.brand, card.last4):
            raise Refusal("card_number: is not the card registered under cof_trace_id")
        if scenario is None:
            raise Refusal("scenario: is required for a merchant-side follow-up payment")
        if scenario != registration.scenario:
            raise Refusal(
                "scenario: must match the setup_future_use of the registration "
                f"({registration.scenario or 'none was given'})"
            )
        wanted = order.request.get("use_scenario")
        if wanted is not None and wanted != registration.scenario:
            raise Refusal(
                f"use_scenario: the registration is for {registration.scenario}, not {wanted}"
            )
        return registration

    def _card(self, order: Order, body: dict[str, Any], now: dt.datetime) -> Card:
        number: str = body["card_number"]
        month, year = body["exp_month"], body["exp_year"]
        if any(mark in number for mark in "*•xX"):
            last4 = number[-4:]
            if not ascii_digits(last4):
                raise Refusal("card_number: a masked number ends with the card's last four digits")
            if not order.follow_up:
                raise Refusal(
                    "card_number: a masked number pays only an order that uses a saved card "
                    "(use_scenario, or client.original_client with a saved card); saving needs "
                    "the card itself"
                )
            saved = self._saved_card(order, last4)
            for name, value, kept in (
                ("exp_month", month, (saved.exp_month,)),
                ("exp_year", year, (saved.exp_year, saved.exp_year % 100)),
            ):
                masked = isinstance(value, str) and value.strip("*") == ""
                if not masked and integer_of(value) not in kept:
                    raise Refusal(f"{name}: is not the saved card's")
            if (saved.exp_year, saved.exp_month) < (now.year, now.month):
                raise Refusal(
                    f"card_number: the saved card expired in {saved.exp_month:02d}/{saved.exp_year}"
                )
            return saved.card()
        plain = number.replace(" ", "").replace("-", "")
        if not ascii_digits(plain) or not 13 <= len(plain) <= 19:
            raise Refusal("card_number: must be 13 to 19 digits 0-9 (spaces allowed)")
        if not luhn(plain):
            raise Refusal("card_number: is not a valid card number (it fails the Luhn check)")
        for name, value in (("exp_month", month), ("exp_year", year)):
            if isinstance(value, str) and not ascii_digits(value):
                raise Refusal(
                    f"{name}: a masked expiry goes only with a saved card's masked number"
                )
        exp_month, exp_year = integer_of(month), integer_of(year)
        if not 1 <= exp_month <= 12:
            raise Refusal("exp_month: must be from 1 to 12")
        if exp_year < 100:
            exp_year += 2000
        if not 2000 <= exp_year <= 2999:
            raise Refusal("exp_year: must be a year such as 2030 (or 30)")
        if (exp_year, exp_month) < (now.year, now.month):
            raise Refusal(f"exp_year: the card expired in {exp_month:02d}/{exp_year}")
        test = TEST_CARDS.get(plain, DEFAULT_CARD)
        return Card(
            brand(plain), plain[-4:], exp_month, exp_year, test.issuer_country, test.outcome
        )

    def _saved_card(self, order: Order, last4: str) -> SavedCard:
        cards: tuple[SavedCard, ...] = ()
        if order.customer_id is not None:
            cards = self.customers[order.customer_id].cards
        if order.chosen_card is not None:
            cards = tuple(card for card in cards if card.token == order.chosen_card)
        if not cards:
            raise Refusal(
                "card_number: a masked number pays with a saved card, and this order names no "
                "customer with one (client.original_client or recurring_card)"
            )
        matching = [card for card in cards if card.last4 == last4]
        if not matching:
            raise Refusal(f"card_number: no saved card ends in {last4}")
        return matching[-1]

    @staticmethod
    def _check_security_code(
        order: Order,
        body: dict[str, Any],
        card: Card,
        *,
        merchant_initiated: bool,
        from_checkout: bool,
    ) -> None:
        """cvv (or csc) is required except for MOTO, merchant-initiated Recurring and saved
        cards — but a One-Click payment through the merchant's API has the cardholder type it:
        only the hosted checkout's click stands for the cardholder there."""
        cvv, csc = body.get("cvv"), body.get("csc")
        if cvv is not None and csc is not None and cvv != csc:
            raise Refusal("cvv: differs from csc; send one of them")
        code = cvv if cvv is not None else csc
        if code is None:
            one_click_by_api = Item.OC in order.items and not from_checkout
            if Item.MO in order.items or merchant_initiated:
                return
            if card.saved is not None and not one_click_by_api:
                return
            if card.saved is not None:
                raise Refusal(
                    "cvv: is required for a One-Click payment through the API (the cardholder "
                    "types it; the hosted checkout needs none)"
                )
            raise Refusal("cvv: is required (only MOTO orders and saved cards pay without it)")
        wanted = 4 if card.brand == "amex" else 3
        if len(code) != wanted:
            name = "cvv" if cvv is not None else "csc"
            raise Refusal(f"{name}: this card's security code has {wanted} digits")

    def _approve(self, order: Order, payment: Payment, now: dt.datetime) -> Pending[Order]:
        """The payment goes through: money moves (or the method is verified), the card is
        registered when the order saves it."""
        card = payment.card
        changes: dict[str, Any] = {
            "card": card,
            "items": payment.items,
            "avs_status": payment.avs_status,
            "pending": None,
            "three_ds_token": None,
            "paid_at": now,
        }
        if card.outcome == "chargeback":
            changes["chargeback_rdr"] = f"RDR-{secrets.token_hex(4).upper()}"
        if order.scenario == Item.TS:
            until = now + self.reservation
            after = order.then(
                now,
                "authorized",
                f"Funds reserved until {iso_seconds(until)}",
                status="hold",
                reserved=order.amount,
                reserved_until=until,
                event_amount=order.amount,
                **changes,
            )
        elif order.scenario == Item.ZA:
            after = order.then(
                now, "verified", "Payment method verified", status="verified", **changes
            )
        else:
            after = order.then(
                now,
                "charged",
                "Charged",
                status="charged",
                captured=order.amount,
                event_amount=order.amount,
                **changes,
            )
        registration: Registration | None = None
        customer: Customer | None = None
        if order.saving:
            scenario = order.request.get("setup_future_use")
            registration = Registration(
                unmasked(lambda: f"COF{secrets.token_hex(8).upper()}"),
                order.merchant,
                card.brand,
                card.last4,
                scenario,
            )
            saved_on = ""
            if order.customer_id is not None:
                owner = self.customers[order.customer_id]
                saved = SavedCard(
                    str(uuid.uuid4()),
                    card.brand,
                    card.last4,
                    card.exp_month,
                    card.exp_year,
                    scenario,
                    now,
                    registration.cof_trace_id,
                    card.issuer_country,
                    card.outcome,
                )
                customer = dataclasses.replace(owner, cards=(*owner.cards, saved))
                saved_on = " on the customer"
            after = after.then(
                now,
                "card_saved",
                f"Card •••• {card.last4} saved{saved_on} for {scenario or 'later use'}",
                cof_trace_id=registration.cof_trace_id,
            )
        elif payment.registration is not None:
            after = dataclasses.replace(after, cof_trace_id=payment.registration.cof_trace_id)
        elif card.saved is not None:
            after = dataclasses.replace(after, cof_trace_id=card.saved.cof_trace_id)

        def commit() -> None:
            self.orders[after.id] = after
            if registration is not None:
                self.registrations[registration.cof_trace_id] = registration
            if customer is not None:
                self.customers[customer.id] = customer
            if after.status == "hold" and after.reserved_until is not None:
                self.scheduler.at(after.reserved_until, self._expire(after.id), "expire")

        return Pending(after, commit)

    def _expire(self, order_id: str) -> Callable[[dt.datetime], None]:
        def job(moment: dt.datetime) -> None:
            order = self.orders.get(order_id)
            if order is None or order.status != "hold":
                return
            self.orders[order_id] = order.then(
                moment,
                "expired",
                "The reservation ended without a capture; the funds are released",
                status="expired",
                reserved=Decimal(0),
                event_amount=order.reserved,
            )

        return job

    def three_ds(self, order: Order, authenticated: bool) -> Pending[Order]:
        if order.status != "pending_3ds" or order.pending is None:
            raise not_allowed(f"The order is {order.status}: no 3DS authentication is pending")
        now = self.now()
        if authenticated:
            passed = order.then(now, "three_ds_authenticated", "3DS authentication passed")
            return self._approve(passed, order.pending, now)
        after = order.then(
            now,
            "three_ds_failed",
            "3DS authentication failed; the payment is declined",
            status="declined",
            pending=None,
            three_ds_token=None,
        )
        return Pending(after, lambda: self.orders.__setitem__(after.id, after))

    def charge(self, merchant: Merchant, order: Order) -> Pending[Order]:
        """Service-side Recurring: the order's saved card, charged without the cardholder."""
        if order.status != "new":
            raise not_allowed(f"The order is {order.status}: it cannot be charged")
        if not order.items & {Item.RC, Item.RA}:
            if Item.OC in order.items:
                raise not_allowed(
                    "A One-Click order needs the cardholder: present the hosted checkout"
                )
            raise not_allowed(
                "Only a Recurring order with a saved card (client.original_client or "
                "recurring_card) is charged"
            )
        if order.chosen_card is None or order.customer_id is None:
            raise not_allowed(
                "The order names no saved card: a merchant-side Recurring order is paid at "
                "api_do_url with cof_trace_id"
            )
        saved = next(
            card
            for card in self.customers[order.customer_id].cards
            if card.token == order.chosen_card
        )
        now = self.now()
        if (saved.exp_year, saved.exp_month) < (now.year, now.month):
            raise not_allowed(f"The saved card expired in {saved.exp_month:02d}/{saved.exp_year}")
        card = saved.card()
        avs = avs_result(merchant, order, card, False)
        return self._approve(order, Payment(card, avs, None, order.items), now)
