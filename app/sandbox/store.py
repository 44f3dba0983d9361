"""The sandbox's in-memory bank: clients, accounts, ledgers, transfers, idempotency.

Everything here runs on the sandbox's own event loop thread; no locking is needed because
handlers never await between reading and writing state. Time moves on every request
(``advance``): transfers and client reviews whose delay has passed are settled then, so the
behaviour is deterministic and needs no background task.
"""

from __future__ import annotations

import bisect
import datetime as dt
import hashlib
import json
import random
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from schwifty import IBAN

from app.core import filter as flt
from app.core.countries import country_name
from app.core.iban import IbanError
from app.core.iban import validate as validate_iban
from app.core.money import exponent
from app.sandbox.errors import Refusal, not_allowed, not_found

# The sandbox's own bank: account IBANs are generated under this Lithuanian bank code.
BANK_COUNTRY = "LT"
BANK_CODE = "40100"
BANK_BIC = "AGBLLT2XXXX"

#: Balances a new account opens with, in minor units, so transfers can be tried at once.
STARTING_BALANCES: dict[str, int] = {
    "EUR": 1_000_000,  # 10,000.00
    "USD": 1_000_000,
    "GBP": 1_000_000,
    "CHF": 1_000_000,
    "JPY": 1_000_000,  # ¥1,000,000 (exponent 0)
}
WORLD_CURRENCIES = ("EUR", "USD", "GBP", "CHF", "JPY")

#: A transfer whose recipient_name starts with this ends in status "error" (funds released).
REJECTED_RECIPIENT_PREFIX = "REJECT"


def utc_now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def iso_seconds(moment: dt.datetime) -> str:
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


# ---------------------------------------------------------------- tariff


def sepa_fee(amount: int) -> int:
    """SEPA: EUR 0.50 flat, plus 0.1% of the part above EUR 10,000.00."""
    return 50 + max(0, amount - 1_000_000) // 1000


def world_fee(amount: int, currency: str, charges_type: str, priority: str) -> int:
    """World: 0.2% of the amount, at least 10 and at most 100 major units of the currency;
    urgent adds 20 major units; ``our`` (sender pays all) adds 15; ``ben`` costs the sender 0."""
    if charges_type == "ben":
        return 0
    unit = int(10 ** exponent(currency))
    fee = min(max(amount * 2 // 1000, 10 * unit), 100 * unit)
    if priority == "urgent":
        fee += 20 * unit
    if charges_type == "our":
        fee += 15 * unit
    return fee


def internal_fee(amount: int, currency: str) -> int:
    """Internal transfers are free."""
    return 0


# ---------------------------------------------------------------- ledger


@dataclass
class Ledger:
    """An account's booked movements, oldest first, each encoded to JSON once."""

    records: list[dict[str, Any]] = field(default_factory=list)
    dates: list[str] = field(default_factory=list)
    currencies: list[str] = field(default_factory=list)
    encoded: list[bytes] = field(default_factory=list)
    balances: dict[str, int] = field(default_factory=dict)

    def book(
        self,
        *,
        day: dt.date,
        kind: str,
        direction: Literal["credit", "debit"],
        amount: int,
        currency: str,
        description: str,
        counterparty_name: str | None = None,
        counterparty_account: str | None = None,
        reference: str | None = None,
    ) -> dict[str, Any]:
        balance = self.balances.get(currency, 0) + (amount if direction == "credit" else -amount)
        self.balances[currency] = balance
        record = {
            "id": f"ST{len(self.records) + 1:09d}",
            "booking_date": day.isoformat(),
            "type": kind,
            "direction": direction,
            "amount": amount,
            "currency": currency,
            "description": description,
            "counterparty_name": counterparty_name,
            "counterparty_account": counterparty_account,
            "reference": reference,
            "balance_after": balance,
        }
        self.records.append(record)
        self.dates.append(day.isoformat())
        self.currencies.append(currency)
        self.encoded.append(json.dumps(record, ensure_ascii=False).encode())
        return record

    def statement_json(self, date_from: dt.date, date_to: dt.date, currency: str | None) -> bytes:
        low = bisect.bisect_left(self.dates, date_from.isoformat())
        high = bisect.bisect_right(self.dates, date_to.isoformat())
        if currency is None:
            chosen = self.encoded[low:high]
        else:
            chosen = [self.encoded[i] for i in range(low, high) if self.currencies[i] == currency]
        return b"[" + b",".join(chosen) + b"]"

    def balance_at(self, day: dt.date, currency: str) -> int:
        end = bisect.bisect_right(self.dates, day.isoformat())
        # walk back to the last record of that currency on or before the day
        for index in range(end - 1, -1, -1):
            if self.currencies[index] == currency:
                return int(self.records[index]["balance_after"])
        return 0


# ---------------------------------------------------------------- entities


@dataclass
class Client:
    id: str
    client_type: str  # PERSON or COMPANY
    details: dict[str, Any]  # person or company object, create_date included
    external_reference: str | None
    status: str = "inprogress"
    review_due: dt.datetime | None = None

    @property
    def kind(self) -> str:
        return "private" if self.client_type == "PERSON" else "corporate"

    def v1(self) -> dict[str, Any]:
        return {"id": self.id, "client_type": "PERSON", "client": self.details}

    def v2(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "status": self.status,
            "kind": self.kind,
            "external_reference": self.external_reference,
            "client_type": self.client_type,
            ("person" if self.client_type == "PERSON" else "company"): self.details,
        }

    def filter_record(self) -> dict[str, flt.Scalar | None]:
        created = self.details.get("create_date")
        return {
            "email": self.details.get("email"),
            "contact_mobile_number": self.details.get("contact_mobile_number"),
            "external_id": self.details.get("external_id"),
            "create_date": dt.date.fromisoformat(created) if created else None,
        }


@dataclass
class Account:
    id: str
    client_id: str
    opened_at: dt.date
    status: str = "active"
    ledger: Ledger = field(default_factory=Ledger)
    holds: dict[str, int] = field(default_factory=dict)  # currency -> minor units in progress

    def model(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "type": "payment",
            "iban": self.id,
            "bic": BANK_BIC,
            "status": self.status,
            "client_id": self.client_id,
            "opened_at": self.opened_at.isoformat(),
        }

    def available(self, currency: str) -> int:
        return self.ledger.balances.get(currency, 0) - self.holds.get(currency, 0)


@dataclass
class Transfer:
    kind: str  # sepa, world, internal
    account_id: str
    body: dict[str, Any]  # the response model
    currency: str
    amount: int
    fee: int
    settle_due: dt.datetime | None  # None once settled
    rejected: bool

    @property
    def processing_day(self) -> dt.date:
        return dt.date.fromisoformat(self.body["processing_date"][:10])


@dataclass
class StoredResponse:
    fingerprint: str
    status: int
    body: bytes


@dataclass
class Fault:
    status: int
    remaining: int
    mode: str  # "before": answer without acting; "after": act, then answer the fault
    path_contains: str | None


# ---------------------------------------------------------------- the bank


class Bank:
    """The sandbox's whole state. ``clock`` is injectable for tests."""

    def __init__(
        self,
        *,
        settle_seconds: float = 2.0,
        review_seconds: float = 5.0,
        clock: Callable[[], dt.datetime] = utc_now,
        demo_statement_records: int = 100_000,
    ) -> None:
        self.settle = dt.timedelta(seconds=settle_seconds)
        self.review = dt.timedelta(seconds=review_seconds)
        self.clock = clock
        self.clients: dict[str, Client] = {}
        self.accounts: dict[str, Account] = {}
        self.transfers: list[Transfer] = []
        self.transfer_ids: dict[tuple[str, str], Transfer] = {}  # (account, id)
        self.attachments: dict[str, dict[str, Any]] = {}
        self.idempotency: dict[tuple[str, str], StoredResponse] = {}
        self.faults: list[Fault] = []
        self.journal: list[dict[str, Any]] = []
        self._next_client = 1
        self._next_account = 1
        from app.sandbox.demo import seed  # the demo data needs the bank's own methods

        seed(self, demo_statement_records)

    # -- time

    def advance(self) -> None:
        now = self.clock()
        for transfer in self.transfers:
            if transfer.settle_due is not None and transfer.settle_due <= now:
                self._settle(transfer, now)
        for client in self.clients.values():
            if client.review_due is not None and client.review_due <= now:
                client.status = "done"
                client.review_due = None

    def _settle(self, transfer: Transfer, now: dt.datetime) -> None:
        account = self.accounts[transfer.account_id]
        account.holds[transfer.currency] -= transfer.amount + transfer.fee
        transfer.settle_due = None
        transfer.body["processing_date"] = iso_seconds(now)
        if transfer.rejected:
            transfer.body["status"] = "error"
            return
        self._book_debit(account, transfer, now.date())
        transfer.body["status"] = "done"

    def _book_debit(self, account: Account, transfer: Transfer, day: dt.date) -> None:
        body = transfer.body
        counterparty = body.get("recipient_iban") or body.get("recipient_account")
        account.ledger.book(
            day=day,
            kind=transfer.kind,
            direction="debit",
            amount=transfer.amount,
            currency=transfer.currency,
            description=body.get("description") or f"{transfer.kind.upper()} transfer",
            counterparty_name=body.get("recipient_name"),
            counterparty_account=counterparty,
            reference=body["id"],
        )
        if transfer.fee:
            account.ledger.book(
                day=day,
                kind="fee",
                direction="debit",
                amount=transfer.fee,
                currency=transfer.currency,
                description=f"Fee for {transfer.kind} transfer {body['id']}",
                reference=body["id"],
            )

    # -- clients

    def new_client_id(self) -> str:
        client_id = f"C{self._next_client:07d}"
        self._next_client += 1
        return client_id

    def add_client(
        self,
        client_type: str,
        details: dict[str, Any],
        external_reference: str | None,
        *,
        created: dt.date | None = None,
    ) -> Client:
        if client_type == "COMPANY":
            self.check_nace(details.get("nace_code"))
        stored = {**details, "create_date": (created or self.clock().date()).isoformat()}
        client = Client(
            id=self.new_client_id(),
            client_type=client_type,
            details=stored,
            external_reference=external_reference,
            review_due=self.clock() + self.review,
        )
        self.clients[client.id] = client
        return client

    @staticmethod
    def check_nace(code: object) -> None:
        from app.sandbox.nace import ALLOWED

        if code is not None and code not in ALLOWED:
            raise Refusal(f"company.nace_code: {code} is not an allowed NACE code")

    def client(self, client_id: str) -> Client:
        client = self.clients.get(client_id)
        if client is None:
            raise not_found(f"Client {client_id}")
        return client

    def update_client(self, client: Client, client_type: str, changes: dict[str, Any]) -> None:
        if client_type != client.client_type:
            raise not_allowed(
                f"client_type: client {client.id} is a {client.client_type}, not a {client_type}"
            )
        if client_type == "COMPANY" and "nace_code" in changes:
            self.check_nace(changes["nace_code"])
        merged = dict(client.details)
        for key, value in changes.items():
            if value is None:
                merged.pop(key, None)
            else:
                merged[key] = value
        client.details = merged

    def list_clients(
        self, *, persons_only: bool, node: flt.Node | None, offset: int, limit: int
    ) -> list[Client]:
        chosen = [
            c
            for c in self.clients.values()
            if (not persons_only or c.client_type == "PERSON")
            and (node is None or flt.matches(node, c.filter_record()))
        ]
        return chosen[offset : offset + limit]

    # -- accounts

    def open_account(self, client: Client, *, opened: dt.date | None = None) -> Account:
        number = f"{self._next_account:011d}"
        self._next_account += 1
        iban = str(IBAN.generate(BANK_COUNTRY, bank_code=BANK_CODE, account_code=number))
        day = opened or self.clock().date()
        account = Account(id=iban, client_id=client.id, opened_at=day)
        for currency, amount in STARTING_BALANCES.items():
            account.ledger.book(
                day=day,
                kind="opening",
                direction="credit",
                amount=amount,
                currency=currency,
                description="Sandbox starting balance",
            )
        self.accounts[iban] = account
        return account

    def account(self, account_id: str, client_id: str | None = None) -> Account:
        account = self.accounts.get(account_id)
        if account is None or (client_id is not None and account.client_id != client_id):
            owner = f" of client {client_id}" if client_id is not None else ""
            raise not_found(f"Account {account_id}{owner}")
        return account

    def operate(self, account: Account, operation: str) -> str:
        transitions = {
            ("enable", "disabled"): "active",
            ("disable", "active"): "disabled",
            ("close", "active"): "closed",
            ("close", "disabled"): "closed",
        }
        target = transitions.get((operation, account.status))
        if target is None:
            raise not_allowed(f"Account {account.id} is {account.status}: cannot {operation} it")
        if operation == "close":
            left = {c: b for c, b in account.ledger.balances.items() if b}
            if left or any(account.holds.values()):
                money = ", ".join(f"{c} {b}" for c, b in sorted(left.items())) or "in progress"
                raise not_allowed(
                    f"Account {account.id} still holds money ({money} minor units): "
                    "move it out before closing"
                )
        account.status = target
        return target

    def balances(
        self, account: Account, day: dt.date | None, currency: str | None
    ) -> list[dict[str, Any]]:
        today = self.clock().date()
        at = day if day is not None and day < today else today
        currencies = [currency] if currency else sorted(set(account.ledger.currencies))
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

    def _usable_source(self, account: Account) -> None:
        if account.status != "active":
            raise not_allowed(f"Account {account.id} is {account.status}: it cannot send transfers")

    def _reserve(self, account: Account, currency: str, amount: int, fee: int) -> None:
        if account.available(currency) < amount + fee:
            raise not_allowed(
                f"Insufficient funds: available {account.available(currency)} {currency} "
                f"minor units, needed {amount + fee} (amount {amount} + fee {fee})"
            )
        account.holds[currency] = account.holds.get(currency, 0) + amount + fee

    def _unique_id(self, account: Account, transfer_id: str) -> None:
        if (account.id, transfer_id) in self.transfer_ids:
            raise not_allowed(f"id: a transfer {transfer_id} already exists on this account")

    def _record(self, transfer: Transfer) -> Transfer:
        self.transfers.append(transfer)
        self.transfer_ids[(transfer.account_id, transfer.body["id"])] = transfer
        return transfer

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

    def create_sepa(self, account: Account, body: dict[str, Any]) -> Transfer:
        self._usable_source(account)
        self._unique_id(account, body["id"])
        bank = self.sepa_bank(body["recipient_iban"])
        amount = body["amount"]
        fee = sepa_fee(amount)
        self._reserve(account, "EUR", amount, fee)
        now = self.clock()
        response = {
            **body,
            "recipient_iban": validate_iban(body["recipient_iban"]).iban,
            "fee": {"amount": fee, "currency": "EUR"},
            "beneficiary_bank": bank,
            "status": "inprogress",
            "processing_date": iso_seconds(now),
        }
        return self._record(
            Transfer(
                "sepa",
                account.id,
                response,
                "EUR",
                amount,
                fee,
                now + self.settle,
                self._rejected(body),
            )
        )

    def create_world(self, account: Account, body: dict[str, Any]) -> Transfer:
        self._usable_source(account)
        self._unique_id(account, body["id"])
        currency = body["currency"]
        if currency not in WORLD_CURRENCIES:
            raise Refusal(
                f"currency: world transfers are made in {', '.join(WORLD_CURRENCIES)}, "
                f"not {currency}"
            )
        priority = body.get("priority", "standard")
        amount = body["amount"]
        fee = world_fee(amount, currency, body["charges_type"], priority)
        self._reserve(account, currency, amount, fee)
        now = self.clock()
        response = {
            **body,
            "priority": priority,
            "fee": {"amount": fee, "currency": currency},
            "status": "inprogress",
            "processing_date": iso_seconds(now),
        }
        return self._record(
            Transfer(
                "world",
                account.id,
                response,
                currency,
                amount,
                fee,
                now + self.settle,
                self._rejected(body),
            )
        )

    def create_internal(self, account: Account, body: dict[str, Any]) -> Transfer:
        self._usable_source(account)
        self._unique_id(account, body["id"])
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
        self._reserve(account, currency, amount, fee)
        now = self.clock()
        own = target.client_id == account.client_id
        response = {**body, "recipient_iban": target.id}
        if own:
            # ignored for transfers between own accounts (the contract)
            response.pop("description", None)
        response.update(
            fee={"amount": fee, "currency": currency},
            status="done",
            processing_date=iso_seconds(now),
        )
        transfer = Transfer("internal", account.id, response, currency, amount, fee, None, False)
        account.holds[currency] -= amount + fee
        self._book_debit(account, transfer, now.date())
        sender = self.clients[account.client_id]
        target.ledger.book(
            day=now.date(),
            kind="internal",
            direction="credit",
            amount=amount,
            currency=currency,
            description=response.get("description") or "Internal transfer",
            counterparty_name=_display_name(sender),
            counterparty_account=account.id,
            reference=body["id"],
        )
        return self._record(transfer)

    @staticmethod
    def _rejected(body: dict[str, Any]) -> bool:
        return str(body.get("recipient_name", "")).upper().startswith(REJECTED_RECIPIENT_PREFIX)

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
            and (transfer_id is None or t.body["id"] == transfer_id)
            and (node is None or flt.matches(node, {"processing_date": t.processing_day}))
        ]
        return chosen[offset : offset + limit]

    # -- attachments

    def add_attachment(self, metadata: dict[str, Any], content: bytes) -> dict[str, Any]:
        attachment_id = f"AT{uuid.uuid4().hex[:16].upper()}"
        expires = self.clock() + dt.timedelta(days=30)
        record = {"id": attachment_id, "expired_at": iso_seconds(expires), "metadata": metadata}
        self.attachments[attachment_id] = {
            **record,
            "size": len(content),
            "sha256": hashlib.sha256(content).hexdigest(),
        }
        return record

    # -- faults and journal

    def take_fault(self, path: str, *, mode: str) -> Fault | None:
        for fault in self.faults:
            if fault.mode == mode and (fault.path_contains is None or fault.path_contains in path):
                fault.remaining -= 1
                if fault.remaining <= 0:
                    self.faults.remove(fault)
                return fault
        return None

    def log(self, entry: dict[str, Any]) -> None:
        self.journal.append(entry)
        del self.journal[:-2000]


def _display_name(client: Client) -> str:
    details = client.details
    if client.client_type == "COMPANY":
        return str(details.get("name", client.id))
    return f"{details.get('first_name', '')} {details.get('last_name', '')}".strip()


def new_rng(seed: int) -> random.Random:
    return random.Random(seed)  # noqa: S311 - demo data, not security
