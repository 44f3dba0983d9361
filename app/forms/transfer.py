"""The New transfer form without its widgets: SEPA, world or internal, from one account.

One set of values serves the three kinds (a kind uses the fields it needs), so what was typed
stays when the kind changes. The draft answers every question the window asks: each field's
problem in the user's words (all at once), the notes beside the right ones (an IBAN's bank),
what it fills in itself from an IBAN or a BIC, the fee's parameters and the answer for the
newest input only, the totals, the request it sends, the confirmation's text. It owns the
action key: automatic retries, Submit again after any error and the re-run after signing in
send the same request with the same x-request-id, so one draft never creates two transfers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from app.api.action import ActionKey
from app.api.banking.transfers import CREATE_MODELS, FEE_MODELS, TransferKind, TransferQuery
from app.api.errors import ApiError, InvalidInput
from app.api.models import build
from app.core import checks, limits
from app.core.countries import country_name
from app.core.iban import IbanError, bic_info, validate
from app.core.ids import uuid7
from app.core.limits import Bound
from app.core.money import MoneyError, format_minor, is_currency, to_minor

if TYPE_CHECKING:
    from app.api.banking import BankingClient, FeeQuote
    from app.api.banking.transfers import Transfer

Kind = TransferKind
KINDS: tuple[Kind, ...] = ("sepa", "world", "internal")
KIND_TITLES: dict[Kind, str] = {"sepa": "SEPA", "world": "World", "internal": "Internal"}
#: a transfer's status in words
STATUS_TEXT = {"inprogress": "In progress", "done": "Done", "error": "Error"}
COMMON_CURRENCIES = ("EUR", "USD", "GBP", "CHF", "JPY")
ALL: tuple[Kind, ...] = KINDS


@dataclass(frozen=True)
class Field:
    key: str
    label: str
    kinds: tuple[Kind, ...]
    required: tuple[Kind, ...]  # the kinds that need it
    bound: Bound
    placeholder: str = ""


FIELDS: tuple[Field, ...] = (
    Field("id", "Transfer ID", ALL, ALL, limits.TRANSFER_ID),
    Field("amount", "Amount", ALL, ALL, Bound(1, 40), "e.g. 1234.50"),
    Field("currency", "Currency", ALL, ALL, limits.CURRENCY),
    Field("recipient_name", "Recipient name", ALL, ("sepa", "world"), limits.RECIPIENT_NAME),
    Field(
        "recipient_iban",
        "Recipient IBAN",
        ("sepa", "internal"),
        ("sepa", "internal"),
        limits.RECIPIENT_IBAN,
        "e.g. DE89 3704 0044 0532 0130 00",
    ),
    Field(
        "recipient_account",
        "Recipient account",
        ("world",),
        ("world",),
        limits.RECIPIENT_ACCOUNT,
        "its number, or an IBAN",
    ),
    Field(
        "recipient_country",
        "Recipient country",
        ("sepa", "world"),
        ("sepa", "world"),
        limits.COUNTRY,
        "e.g. DE",
    ),
    Field(
        "recipient_address",
        "Recipient address",
        ("sepa", "world"),
        ("sepa", "world"),
        limits.RECIPIENT_ADDRESS,
    ),
    Field(
        "description",
        "Description",
        ALL,
        ("world",),
        limits.DESCRIPTION,
        "reference the recipient sees",
    ),
    Field("priority", "Priority", ("world",), ("world",), Bound(0, 10)),
    Field("charges_type", "Charges", ("world",), ("world",), Bound(0, 10)),
    Field("bic", "Beneficiary bank: BIC", ("world",), ("world",), Bound(0, 11), "e.g. COBADEFFXXX"),
    Field("bank", "Beneficiary bank: name", ("world",), (), limits.BANK_NAME),
    Field("bank_address", "Beneficiary bank: address", ("world",), (), limits.BANK_ADDRESS),
    Field(
        "bank_country",
        "Beneficiary bank: country",
        ("world",),
        ("world",),
        limits.COUNTRY,
        "e.g. US",
    ),
    Field("ip", "Client IP address", ALL, (), limits.IP, "e.g. 192.0.2.10"),
)
FIELD_KEYS = tuple(field.key for field in FIELDS)
#: what the fee depends on: a change of one of them makes the fee shown stale
FEE_INPUTS = frozenset(
    {
        "amount",
        "currency",
        "recipient_iban",
        "recipient_account",
        "priority",
        "charges_type",
        "bank_country",
    }
)
PRIORITIES = (("standard", "standard"), ("urgent", "urgent (20 more in fee)"))
CHARGES = (
    ("sha", "sha — shared"),
    ("our", "our — the sender pays all"),
    ("ben", "ben — the recipient pays"),
)
CHARGE_TEXT = dict(CHARGES)
#: the fields typed grouped by spaces that count without them
_COMPACT = ("recipient_iban", "bic")


@dataclass(frozen=True)
class Totals:
    """What the form says under the fee: the total debited, the balance, and a warning."""

    total: str
    available: str = ""
    warning: str = ""


class TransferDraft:
    def __init__(self, client_id: str, account_id: str, kind: Kind = "sepa") -> None:
        self.client_id = client_id
        self.account_id = account_id
        self.kind: Kind = kind
        self.values: dict[str, str] = {}
        self.world_currencies: list[str] = []  # as the service lists them for the account
        self.start_new()

    def start_new(self) -> None:
        """A fresh draft with a fresh id and key: the source account and the kind stay."""
        self.values = dict.fromkeys(FIELD_KEYS, "")
        self.values.update(
            id=str(uuid7()),
            currency="EUR",
            priority=PRIORITIES[0][0],
            charges_type=CHARGES[0][0],
        )
        self.action = ActionKey()
        self.created: Transfer | None = None
        self.notice = ""  # what the confirmation of a replayed Submit says
        self.quote: FeeQuote | None = None
        self.fee_generation = 0  # one more at each change of the fee's inputs
        self.auto: dict[str, str] = {}  # what the draft filled in itself (from IBAN or BIC)
        self.available: dict[str, int] = {}  # the balance per currency, once asked

    # -- values

    def value(self, key: str) -> str:
        return self.values.get(key, "").strip()

    def compact(self, key: str) -> str:
        """An IBAN or BIC as sent: the spaces typed to group it left out, in capitals."""
        return "".join(self.value(key).split()).upper()

    def currency(self) -> str:
        return "EUR" if self.kind == "sepa" else self.value("currency").upper()

    def amount(self) -> int | None:
        """The amount in minor units, when the typed text is a valid one."""
        try:
            minor = to_minor(self.value("amount"), self.currency())
        except MoneyError:
            return None
        return minor if limits.AMOUNT.low <= minor <= limits.AMOUNT.high else None

    def set(self, key: str, text: str) -> dict[str, str]:
        """Take what the user typed; the values the draft fills in itself from it (the country
        of an IBAN, the bank of a BIC), for the window to show."""
        self.values[key] = text
        return self.fills(key)

    def fills(self, key: str) -> dict[str, str]:
        """What an IBAN or BIC just typed tells of the fields the user left empty (or that the
        draft filled before): filled in the draft, and returned."""
        found: dict[str, str | None] = {}
        try:
            if key == "recipient_iban" and self.kind == "sepa":
                found["recipient_country"] = validate(self.value(key)).country
            elif key == "recipient_account":
                found["bic"] = validate(self.value(key)).bic
            elif key == "bic":
                bic = bic_info(self.value("bic"))
                found.update(bank=bic.bank, bank_country=bic.country)
        except IbanError:
            return {}  # its problem is marked beside it
        filled: dict[str, str] = {}
        for name, text in found.items():
            current = self.value(name)
            if text and (not current or current == self.auto.get(name)):
                self.auto[name] = self.values[name] = filled[name] = text
        return filled

    def fields(self) -> tuple[Field, ...]:
        """The fields the draft's kind uses, in the form's order."""
        return tuple(field for field in FIELDS if self.kind in field.kinds)

    # -- problems, as typed

    def problems(self) -> tuple[dict[str, str], dict[str, str]]:
        """Every field's problem in the user's words, and the notes (the bank of an IBAN or a
        BIC) shown beside the fields that are right."""
        kind = self.kind
        found: dict[str, str] = {}
        notes: dict[str, str] = {}
        for field in self.fields():
            key = field.key
            text = self.compact(key) if key in _COMPACT else self.value(key)
            shape = self._format_problem(key, text) if text else None
            problem = checks.length(text, _bound(field, kind), required=kind in field.required)
            if shape:  # its shape says more than a count of characters
                problem = shape
            if problem is None and text and key in _COMPACT:
                problem, note = self._bank_of(key, text)
                if note:
                    notes[key] = note
            if problem:
                found[key] = problem
        return found, notes

    def _bank_of(self, key: str, text: str) -> tuple[str | None, str]:
        """An IBAN's or BIC's problem, or the note of its bank."""
        try:
            if key == "bic":
                return None, bic_info(text).bank or "not in the offline registry"
            info = validate(text)
        except IbanError as exc:
            return str(exc), ""
        if self.kind == "sepa" and not info.sepa:
            name = f"{country_name(info.country)} ({info.country})"
            return f"An IBAN of {name}, outside the SEPA area: send it as a World transfer", ""
        bank = ", ".join(part for part in (info.bank, info.bic) if part)
        return None, bank or "bank not in the offline registry"

    def _format_problem(self, key: str, text: str) -> str | None:
        if key == "amount":
            return self._amount_problem(text)
        if key == "currency":
            code = text.upper()
            if not is_currency(code):
                return "Enter an ISO 4217 code such as EUR"
            offered = self.world_currencies
            if self.kind == "world" and offered and code not in offered:
                return f"World transfers are made in {', '.join(offered)}"
            return None
        if key in ("recipient_country", "bank_country"):
            return checks.country(text)
        if key == "ip":
            return checks.ipv4(text)
        return None

    def _amount_problem(self, text: str) -> str | None:
        currency = self.currency()
        if not is_currency(currency):
            return "Choose the currency first"
        try:
            minor = to_minor(text, currency)
        except MoneyError as exc:
            return str(exc)
        if not limits.AMOUNT.low <= minor <= limits.AMOUNT.high:
            top = format_minor(limits.AMOUNT.high, currency)
            return f"From {format_minor(1, currency)} to {top}"
        return None

    def reason(self) -> str | None:
        """Why the draft cannot be sent beyond its fields' problems, or None."""
        if self.created is not None:
            return "This transfer was sent: New transfer starts another"
        return None

    # -- the fee, live

    def fee_inputs_changed(self) -> None:
        """Anything the fee depends on changed: the fee known is no longer right, and an
        answer still on its way is for older input."""
        self.fee_generation += 1
        self.quote = None

    def fee_parameters(self) -> dict[str, Any] | None:
        """What the fee of the draft's transfer is asked with; None while that is not valid."""
        amount = self.amount()
        found, _notes = self.problems()
        needed = {"amount", "currency", "recipient_iban", "recipient_account"} & set(found)
        if amount is None or needed:
            return None
        parameters: dict[str, Any] = {"amount": amount}
        if self.kind == "sepa":
            parameters["recipient_iban"] = self.compact("recipient_iban")
        elif self.kind == "world":
            parameters.update(
                currency=self.currency(),
                charges_type=self.value("charges_type"),
                priority=self.value("priority"),
                recipient_account=self.value("recipient_account"),
            )
            if "bank_country" not in found and self.value("bank_country"):
                parameters["bank_country"] = self.value("bank_country").upper()
        else:
            parameters["currency"] = self.currency()
        try:
            build(FEE_MODELS[self.kind], parameters)
        except InvalidInput:
            return None
        return parameters

    async def ask_fee(self, banking: BankingClient, parameters: dict[str, Any]) -> FeeQuote | None:
        """The fee of ``parameters`` (and the available balance, once per currency); None when
        the input changed meanwhile: an answer for older input is never taken. An ApiError for
        the newest input is raised."""
        generation, kind, currency = self.fee_generation, self.kind, self.currency()
        try:
            quote = await banking.fee_of(kind, self.account_id, parameters)
            if currency not in self.available:
                balances = await banking.get_balance(
                    self.client_id, self.account_id, currency=currency
                )
                self.available[currency] = balances[0].available if balances else 0
        except ApiError:
            if generation != self.fee_generation:
                return None
            raise
        if generation != self.fee_generation:
            return None
        self.quote = quote
        return quote

    def totals(self) -> Totals | None:
        """The total to be debited and the balance it is taken from, once both are known."""
        amount, currency, quote = self.amount(), self.currency(), self.quote
        if amount is None or quote is None or quote.fee.currency != currency:
            return None
        fee = quote.fee.amount
        total = amount + fee
        text = (
            f"Total to be debited: {format_minor(total, currency)} "
            f"(amount {format_minor(amount, currency, with_code=False)} "
            f"+ fee {format_minor(fee, currency, with_code=False)})"
        )
        available = self.available.get(currency)
        if available is None:
            return Totals(text)
        warning = (
            "The total is more than the available balance: the transfer would be refused"
            if total > available
            else ""
        )
        return Totals(text, f"Available: {format_minor(available, currency)}", warning)

    # -- sending

    def request(self) -> dict[str, Any]:
        """The transfer as the service takes it, from what the draft holds."""
        kind = self.kind
        body: dict[str, Any] = {"id": self.value("id"), "amount": self.amount()}
        optional = {"description": self.value("description"), "ip": self.value("ip")}
        if kind == "sepa":
            body.update(
                recipient_name=self.value("recipient_name"),
                recipient_iban=self.compact("recipient_iban"),
                recipient_country=self.value("recipient_country").upper(),
                recipient_address=self.value("recipient_address"),
            )
        elif kind == "world":
            bank = {
                "bic": self.compact("bic"),
                "bank": self.value("bank"),
                "address": self.value("bank_address"),
                "country": self.value("bank_country").upper(),
            }
            body.update(
                currency=self.currency(),
                priority=self.value("priority"),
                charges_type=self.value("charges_type"),
                recipient_name=self.value("recipient_name"),
                recipient_account=self.value("recipient_account"),
                recipient_country=self.value("recipient_country").upper(),
                recipient_address=self.value("recipient_address"),
                beneficiary_bank={k: v for k, v in bank.items() if v},
            )
        else:
            body.update(currency=self.currency(), recipient_iban=self.compact("recipient_iban"))
            optional["recipient_name"] = self.value("recipient_name")
        body.update({k: v for k, v in optional.items() if v})
        return body

    def check(self, request: dict[str, Any]) -> None:
        """The service layer's own check of the request (InvalidInput), before anything is
        asked of the user."""
        build(CREATE_MODELS[self.kind], request)

    def summary(self) -> str:
        """The confirmation's text: what will be sent, with the fee when it is known."""
        kind, currency, amount = self.kind, self.currency(), self.amount() or 0
        lines = [f"Send this {KIND_TITLES[kind]} transfer?", ""]
        lines.append(f"Recipient: {self.value('recipient_name') or '(not given)'}")
        if kind == "world":
            bank = self.value("bank") or self.compact("bic")
            lines.append(f"Account: {self.value('recipient_account')} ({bank})")
        else:
            found, notes = self.problems()
            note = found.get("recipient_iban") or notes.get("recipient_iban", "")
            try:
                iban = validate(self.value("recipient_iban")).formatted
            except IbanError:
                iban = self.compact("recipient_iban")
            lines.append(f"IBAN: {iban} ({note})")
        lines.append(f"Amount: {format_minor(amount, currency)}")
        if self.quote is not None and self.quote.fee.currency == currency:
            fee = self.quote.fee.amount
            lines.append(f"Fee: {format_minor(fee, currency)}")
            lines.append(f"Total: {format_minor(amount + fee, currency)}")
        else:
            lines.append("Fee: not known yet (the service applies its tariff)")
        lines.append(f"Priority: {self.value('priority') if kind == 'world' else 'standard'}")
        if kind == "world":
            lines.append(f"Charges: {CHARGE_TEXT.get(self.value('charges_type'), '(not given)')}")
        lines.append(f"Description: {self.value('description') or '(none)'}")
        lines.append(f"Transfer ID: {self.value('id')}")
        return "\n".join(lines)

    async def send(self, banking: BankingClient, kind: Kind, request: dict[str, Any]) -> Transfer:
        """Send the transfer with the draft's key. When a first Submit's outcome is unknown and
        the draft changed since, that first Submit goes again instead, with its key, and its
        outcome is what is returned; the changes are not sent (a transfer cannot be edited):
        ``notice`` says so."""
        account_id = self.account_id
        created = await self.action.send(
            (kind, request),
            lambda sent, key: banking.create_transfer(sent[0], account_id, sent[1], request_id=key),
        )
        if self.action.replayed:
            self.notice = (
                "The first Submit's outcome was unknown, so it was sent again with its request "
                f"ID: transfer {created.id} was created with what you first entered. Your later "
                "changes were not sent: start a New transfer for them."
            )
        self.created = created
        return created

    # -- after it was created

    def status_text(self) -> str:
        """Where the created transfer stands, in words ("" before it was created)."""
        transfer = self.created
        if transfer is None:
            return ""
        when = (transfer.processing_date or "").replace("T", " ").removesuffix("Z")
        text = f"Transfer {transfer.id}: {STATUS_TEXT.get(transfer.status, transfer.status)}"
        if when:
            text += f" (processing date {when} UTC)"
        if transfer.status == "inprogress":
            text += "; following it until it is done…"
        if self.notice:
            text += f"\n{self.notice}"
        return text

    async def follow(self, banking: BankingClient) -> bool:
        """Ask where the created transfer stands; True once it is done or in error."""
        transfer = self.created
        if transfer is None:
            return False
        query = TransferQuery(id=transfer.id, limit=1)
        found = await banking.list_transfers(self.kind, self.account_id, query)
        if not found or found[0].status == "inprogress" or self.created is None:
            return False
        self.created = found[0]
        return True


def _bound(field: Field, kind: Kind) -> Bound:
    """A field's bound for a kind: a world transfer's description is required, an internal
    transfer's recipient name is not."""
    if field.key == "description" and kind == "world":
        return limits.WORLD_DESCRIPTION
    if field.key == "recipient_name" and kind == "internal":
        return limits.INTERNAL_RECIPIENT_NAME
    return field.bound
