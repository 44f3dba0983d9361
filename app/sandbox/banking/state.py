"""The sandbox's in-memory bank: clients, accounts, transfers and attachments.

Every change is prepared first — checked, its answer built — and returned as a ``Pending``
whose ``commit`` applies it in one step that cannot fail halfway (see app.sandbox.http).
Time-driven changes (a transfer settling, a client's review ending) are jobs of the sandbox's
scheduler, each one atomic too: settling books the amount and the fee and releases the hold at
once. Everything runs on the sandbox's own loop thread, so no locking is needed.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import uuid
from collections.abc import Callable
from typing import Any

from schwifty import IBAN

from app.core import filter as flt
from app.core.countries import country_name
from app.core.iban import IbanError
from app.core.iban import validate as validate_iban
from app.core.ids import unmasked
from app.core.money import format_minor
from app.sandbox.banking.ledger import Movement
from app.sandbox.banking.nace import ALLOWED
from app.sandbox.banking.records import BANK_CODE, BANK_COUNTRY, Account, Client, Transfer
from app.sandbox.banking.tariff import WORLD_CURRENCIES, internal_fee, sepa_fee, world_fee
from app.sandbox.clock import Scheduler
from app.sandbox.errors import Refusal, not_allowed, not_found, room
from app.sandbox.pending import Pending, iso_seconds

#: Balances a new account opens with, in minor units, so transfers can be tried at once.
STARTING_BALANCES: dict[str, int] = {
    "EUR": 1_000_000,  # 10,000.00
    "USD": 1_000_000,
    "GBP": 1_000_000,
    "CHF": 1_000_000,
    "JPY": 1_000_000,  # ¥1,000,000 (exponent 0)
}

#: The most the sandbox stores of each, so that its memory is bounded (a store full refuses
#: one more with a 400 asking for a reset): each is a few kilobytes at most, by its schema.
MAX_CLIENTS = 10_000
MAX_ACCOUNTS = 20_000
MAX_TRANSFERS = 50_000
MAX_ATTACHMENTS = 50_000

#: A transfer whose recipient_name starts with this ends in status "error" (funds released).
REJECTED_RECIPIENT_PREFIX = "REJECT"

#: Account operations: (operation, status now) -> status after.
TRANSITIONS = {
    ("enable", "disabled"): "active",
    ("disable", "active"): "disabled",
    ("close", "active"): "closed",
    ("close", "disabled"): "closed",
}


# ---------------------------------------------------------------- entities


# ---------------------------------------------------------------- the bank


class Bank:
    """The banking service's whole state, moved by the sandbox's scheduler."""

    def __init__(
        self,
        scheduler: Scheduler,
        *,
        settle_seconds: float = 2.0,
        review_seconds: float = 5.0,
    ) -> None:
        self.scheduler = scheduler
        self.settle_delay = dt.timedelta(seconds=settle_seconds)
        self.review_delay = dt.timedelta(seconds=review_seconds)
        self.clients: dict[str, Client] = {}
        self.accounts: dict[str, Account] = {}
        self.transfers: list[Transfer] = []
        self.transfer_ids: dict[tuple[str, str], Transfer] = {}  # (account, id)
        self.attachments: dict[str, dict[str, Any]] = {}
        self._client_number = 1
        self._account_number = 1
        # told of every genuine change of a client's registration status (the webhooks)
        self.status_listeners: list[Callable[[Client, dt.datetime], None]] = []

    def set_client_status(self, client: Client, status: str, moment: dt.datetime) -> bool:
        """Move a client's registration status; listeners hear only a genuine change."""
        if client.status == status:
            return False
        client.status = status
        for listener in self.status_listeners:
            listener(client, moment)
        return True

    def now(self) -> dt.datetime:
        return self.scheduler.clock.now()

    # -- clients

    def new_client(
        self,
        client_type: str,
        details: dict[str, Any],
        external_reference: str | None,
        *,
        created: dt.date | None = None,
        reviewed: bool = False,
    ) -> Pending[Client]:
        room(len(self.clients), MAX_CLIENTS, "clients")
        if client_type == "COMPANY":
            check_nace(details.get("nace_code"))
        stored = {**details, "create_date": (created or self.now().date()).isoformat()}
        client = Client(
            id=f"C{self._client_number:07d}",
            client_type=client_type,
            details=stored,
            external_reference=external_reference,
            status="done" if reviewed else "inprogress",
        )

        def commit() -> None:
            self._client_number += 1
            self.clients[client.id] = client
            if not reviewed:
                self.scheduler.at(self.now() + self.review_delay, self._review(client), "review")

        return Pending(client, commit)

    def _review(self, client: Client) -> Callable[[dt.datetime], None]:
        """The job ending a new client's review: its registration becomes done."""

        def done(moment: dt.datetime) -> None:
            if client.status == "inprogress":
                self.set_client_status(client, "done", moment)

        return done

    def client(self, client_id: str) -> Client:
        client = self.clients.get(client_id)
        if client is None:
            raise not_found(f"Client {client_id}")
        return client

    def update_client(
        self, client: Client, client_type: str, changes: dict[str, Any]
    ) -> Pending[Client]:
        if client_type != client.client_type:
            raise not_allowed(
                f"client_type: client {client.id} is a {client.client_type}, not a {client_type}"
            )
        if client_type == "COMPANY" and "nace_code" in changes:
            check_nace(changes["nace_code"])
        merged = dict(client.details)
        for key, value in changes.items():
            if value is None:
                merged.pop(key, None)
            else:
                merged[key] = value
        updated = dataclasses.replace(client, details=merged)

        def commit() -> None:
            client.details = merged

        return Pending(updated, commit)

    def list_clients(
        self, *, persons_only: bool, node: flt.Node | None, offset: int, limit: int
    ) -> list[Client]:
        chosen = []
        for client in self.clients.values():
            if persons_only and client.client_type != "PERSON":
                continue
            if node is not None and not flt.matches(node, client.filter_record()):
                continue
            chosen.append(client)
            if len(chosen) >= offset + limit:
                break
        return chosen[offset : offset + limit]

    # -- accounts

    def open_account(self, client: Client, *, opened: dt.date | None = None) -> Pending[Account]:
        room(len(self.accounts), MAX_ACCOUNTS, "accounts")
        number = f"{self._account_number:011d}"
        iban = str(IBAN.generate(BANK_COUNTRY, bank_code=BANK_CODE, account_code=number))
        day = opened or self.now().date()
        account = Account(id=iban, client_id=client.id, opened_at=day)
        booking = account.ledger.prepare(
            *(
                Movement(day, "opening", "credit", amount, currency, "Sandbox starting balance")
                for currency, amount in STARTING_BALANCES.items()
            )
        )

        def commit() -> None:
            self._account_number += 1
            booking.apply()
            self.accounts[iban] = account

        return Pending(account, commit)

    def account(self, account_id: str, client_id: str | None = None) -> Account:
        account = self.accounts.get(account_id)
        if account is None or (client_id is not None and account.client_id != client_id):
            owner = f" of client {client_id}" if client_id is not None else ""
            raise not_found(f"Account {account_id}{owner}")
        return account

    def operate(self, account: Account, operation: str) -> Pending[str]:
        target = TRANSITIONS.get((operation, account.status))
        if target is None:
            raise not_allowed(f"Account {account.id} is {account.status}: cannot {operation} it")
        if operation == "close":
            left = {c: b for c, b in account.ledger.balances.items() if b}
            if left or any(account.holds.values()):
                money = (
                    ", ".join(format_minor(b, c) for c, b in sorted(left.items()))
                    or "transfers in progress"
                )
                raise not_allowed(
                    f"Account {account.id} still holds money ({money}): move it out before closing"
                )

        def commit() -> None:
            account.status = target

        return Pending(target, commit)

    def balances(
        self, account: Account, day: dt.date | None, currency: str | None
    ) -> list[dict[str, Any]]:
        today = self.now().date()
        at = day if day is not None and day < today else today
        currencies = [currency] if currency else sorted(account.ledger.currencies())
        records = []
        for code in currencies:
            balance = account.ledger.balance_at(at, code)
            # money in progress only lowers what is available now, not a past day's balance
            available = balance - account.holds.get(code, 0) if at == today else balance
            records.append(
                {
                    "currency": code,
                    "balance": balance,
                    "available": available,
                    "date": at.isoformat(),
                }
            )
        return records

    # -- transfers

    def _check_source(self, account: Account, transfer_id: str) -> None:
        """Whether a transfer of this id may be sent from the account (and stored)."""
        room(len(self.transfers), MAX_TRANSFERS, "transfers")
        if account.status != "active":
            raise not_allowed(f"Account {account.id} is {account.status}: it cannot send transfers")
        if (account.id, transfer_id) in self.transfer_ids:
            raise not_allowed(f"id: a transfer {transfer_id} already exists on this account")

    @staticmethod
    def _check_funds(account: Account, currency: str, amount: int, fee: int) -> None:
        if account.available(currency) < amount + fee:
            raise not_allowed(
                f"Insufficient funds: available {account.available(currency)} {currency} "
                f"minor units, needed {amount + fee} (amount {amount} + fee {fee})"
            )

    def _record(self, transfer: Transfer) -> None:
        self.transfers.append(transfer)
        self.transfer_ids[(transfer.account_id, transfer.id)] = transfer

    @staticmethod
    def sepa_bank(recipient_iban: str) -> dict[str, Any]:
        try:
            info = validate_iban(recipient_iban)
        except IbanError as exc:
            raise Refusal(f"recipient_iban: {exc}") from None
        if not info.sepa:
            raise Refusal(f"recipient_iban: {info.iban} is outside the SEPA area")
        return {
            "bic": info.bic or "",
            "bank": info.bank or "",
            "address": info.address or country_name(info.country),
            "country": info.country,
            "sepa": True,
        }

    def _held_transfer(
        self, kind: str, account: Account, answer: dict[str, Any], currency: str, fee: int
    ) -> Pending[Transfer]:
        """A SEPA or world transfer: its amount and fee held now, booked when it settles."""
        amount = int(answer["amount"])
        self._check_funds(account, currency, amount, fee)
        transfer = Transfer(kind, account.id, answer, currency, amount, fee, rejected(answer))

        def commit() -> None:
            account.holds[currency] = account.holds.get(currency, 0) + amount + fee
            self._record(transfer)
            due = self.now() + self.settle_delay
            self.scheduler.at(due, lambda moment: self.settle(transfer, moment), "settle")

        return Pending(transfer, commit)

    def create_sepa(self, account: Account, body: dict[str, Any]) -> Pending[Transfer]:
        self._check_source(account, body["id"])
        bank = self.sepa_bank(body["recipient_iban"])
        fee = sepa_fee(body["amount"])
        answer = {
            **body,
            "recipient_iban": validate_iban(body["recipient_iban"]).iban,
            "fee": {"amount": fee, "currency": "EUR"},
            "beneficiary_bank": bank,
            "status": "inprogress",
            "processing_date": iso_seconds(self.now()),
        }
        return self._held_transfer("sepa", account, answer, "EUR", fee)

    def create_world(self, account: Account, body: dict[str, Any]) -> Pending[Transfer]:
        self._check_source(account, body["id"])
        currency = body["currency"]
        if currency not in WORLD_CURRENCIES:
            raise Refusal(
                f"currency: world transfers are made in {', '.join(WORLD_CURRENCIES)}, "
                f"not {currency}"
            )
        priority = body.get("priority", "standard")
        fee = world_fee(body["amount"], currency, body["charges_type"], priority)
        answer = {
            **body,
            "priority": priority,
            "fee": {"amount": fee, "currency": currency},
            "status": "inprogress",
            "processing_date": iso_seconds(self.now()),
        }
        return self._held_transfer("world", account, answer, currency, fee)

    def create_internal(self, account: Account, body: dict[str, Any]) -> Pending[Transfer]:
        """Internal transfers are done at once: both accounts booked in one step."""
        self._check_source(account, body["id"])
        target_id = "".join(body["recipient_iban"].split()).upper()
        target = self.accounts.get(target_id)
        if target is None:
            raise Refusal(
                f"recipient_iban: {target_id} is not an account of this bank", title="Not found"
            )
        if target.id == account.id:
            raise not_allowed("recipient_iban: cannot transfer to the same account")
        if target.status != "active":
            raise not_allowed(f"Account {target.id} is {target.status}: it cannot receive")
        currency = body["currency"]
        amount = body["amount"]
        fee = internal_fee(amount, currency)
        self._check_funds(account, currency, amount, fee)
        now = self.now()
        answer = {**body, "recipient_iban": target.id}
        if target.client_id == account.client_id:
            answer.pop("description", None)  # ignored between own accounts (the contract)
        answer.update(
            fee={"amount": fee, "currency": currency},
            status="done",
            processing_date=iso_seconds(now),
        )
        transfer = Transfer("internal", account.id, answer, currency, amount, fee, False)
        debit = account.ledger.prepare(*self._debits(transfer, now.date()))
        credit = target.ledger.prepare(
            Movement(
                now.date(),
                "internal",
                "credit",
                amount,
                currency,
                answer.get("description") or "Internal transfer",
                self.clients[account.client_id].display_name,
                account.id,
                body["id"],
            )
        )

        def commit() -> None:
            debit.apply()
            credit.apply()
            self._record(transfer)

        return Pending(transfer, commit)

    def settle(self, transfer: Transfer, moment: dt.datetime) -> None:
        """A held transfer becomes done (amount and fee booked) or error (nothing booked); in
        both cases its hold is released. One step: the booking is prepared before any change."""
        account = self.accounts[transfer.account_id]
        booking = (
            None
            if transfer.rejected
            else account.ledger.prepare(*self._debits(transfer, moment.date()))
        )
        account.holds[transfer.currency] -= transfer.amount + transfer.fee
        if booking is not None:
            booking.apply()
        transfer.body["processing_date"] = iso_seconds(moment)
        transfer.body["status"] = "error" if transfer.rejected else "done"

    @staticmethod
    def _debits(transfer: Transfer, day: dt.date) -> list[Movement]:
        body = transfer.body
        counterparty = body.get("recipient_iban") or body.get("recipient_account")
        movements = [
            Movement(
                day,
                transfer.kind,
                "debit",
                transfer.amount,
                transfer.currency,
                body.get("description") or f"{transfer.kind.upper()} transfer",
                body.get("recipient_name"),
                counterparty,
                transfer.id,
            )
        ]
        if transfer.fee:
            movements.append(
                Movement(
                    day,
                    "fee",
                    "debit",
                    transfer.fee,
                    transfer.currency,
                    f"Fee for {transfer.kind} transfer {transfer.id}",
                    reference=transfer.id,
                )
            )
        return movements

    def list_transfers(
        self,
        account: Account,
        kind: str,
        *,
        transfer_id: str | None,
        node: flt.Node | None,
        offset: int,
        limit: int,
    ) -> list[dict[str, Any]]:
        chosen = [
            t.body
            for t in self.transfers
            if t.account_id == account.id
            and t.kind == kind
            and (transfer_id is None or t.id == transfer_id)
            and (node is None or flt.matches(node, {"processing_date": t.processing_day}))
        ]
        return chosen[offset : offset + limit]

    # -- attachments

    def add_attachment(self, metadata: dict[str, Any], content: bytes) -> Pending[dict[str, Any]]:
        room(len(self.attachments), MAX_ATTACHMENTS, "attachments")
        attachment_id = unmasked(lambda: f"AT{uuid.uuid4().hex[:16].upper()}")
        expires = self.now() + dt.timedelta(days=30)
        record = {"id": attachment_id, "expired_at": iso_seconds(expires), "metadata": metadata}
        stored = {**record, "size": len(content), "sha256": hashlib.sha256(content).hexdigest()}

        def commit() -> None:
            self.attachments[attachment_id] = stored

        return Pending(record, commit)


def check_nace(code: object) -> None:
    if code is not None and code not in ALLOWED:
        raise Refusal(f"company.nace_code: {code} is not an allowed NACE code")


def rejected(body: dict[str, Any]) -> bool:
    return str(body.get("recipient_name", "")).upper().startswith(REJECTED_RECIPIENT_PREFIX)
