"""A pain.001 payment file imported as SEPA transfers, without Qt: the window and the command
line both go through here.

1. `plan_import` checks each payment against the contract (the debtor account is one of the
   partner's — looked up among the accounts of the first ACCOUNTS_LOOKED_THROUGH clients, the
   contract having no account-by-IBAN look-up —, amount, currency, creditor, limits) and asks
   the fee of each one that can be sent: the preview.
2. `run_import` sends each payment once. The transfer's id and x-request-id are derived from
   the file's MsgId and the payment's EndToEndId, and every step is on disk before its call
   goes out (app/forms/import_journal.py): importing the same file again, or resuming after a
   crash or a lost connection, skips what was accepted, and a payment whose outcome is unknown
   is looked up by its id and, when absent, asked for again with the same key.

Decided where the two formats do not meet (README, "Payment files"): a payment with no postal
address is sent with its country's name as the address the API requires; the country is the
postal address's, else the creditor IBAN's."""

from __future__ import annotations

import asyncio
import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any

from app.api.errors import ApiConnectionError, ApiError
from app.core import limits
from app.core.countries import country_name, is_country
from app.core.iban import IbanError, validate
from app.core.money import decimal_text, exponent, format_minor, is_currency
from app.files.report import Outcome, PaymentOutcome

if TYPE_CHECKING:
    from app.api.banking import BankingClient
    from app.files.pain001 import Payment, PaymentFile
    from app.forms.import_journal import ImportJournal

ACCOUNTS_LOOKED_THROUGH = 1_000  # clients whose accounts are looked through for the debtors
FEES_AT_ONCE = 4  # fee calls in flight in the preview
SEPA_CURRENCY = "EUR"
_KEYS = uuid.UUID("7f1c2b0e-4d35-4d6a-9b8e-2f60a1c7e5d3")  # the desk's own uuid5 namespace

Progress = Callable[[int, int, str], None]  # done, of, what is being done
EARLIER = "accepted by an earlier import of this file"
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")


def transfer_id_of(message_id: str, debtor_iban: str, key: str) -> str:
    """The transfer's id and x-request-id for a payment of a file: the same for the same file
    and payment wherever and however often it is imported (32 characters). The debtor's IBAN
    is part of it: two customers' files may carry the same MsgId."""
    return uuid.uuid5(_KEYS, f"{message_id}\n{debtor_iban}\n{key}").hex


@dataclass(frozen=True)
class DebtorAccount:
    client_id: str
    account_id: str
    iban: str
    status: str
    currencies: tuple[str, ...]  # of its balances


@dataclass
class PlannedPayment:
    payment: Payment
    transfer_id: str
    account: DebtorAccount | None = None
    amount: int | None = None  # minor units
    request: dict[str, Any] | None = None  # the SEPA transfer's body
    problem: str = ""  # why it is refused before anything is sent
    fee: int | None = None
    outcome: Outcome = "not sent"
    status: str = ""  # the transfer's, once accepted
    reason: str = ""  # the refusal's or the unknown outcome's words
    earlier: bool = False  # accepted by an earlier import of the file: not sent again

    @property
    def sendable(self) -> bool:
        return not self.problem and self.request is not None and self.account is not None


@dataclass(frozen=True)
class AccountTotal:
    iban: str
    payments: int
    amount: int
    fees: int
    currency: str


@dataclass
class Counts:
    sent: int = 0  # by this import
    accepted: int = 0  # by this import
    refused: int = 0
    unknown: int = 0
    earlier: int = 0  # accepted by an earlier import of the file
    checked_out: int = 0  # refused before sending: the checks or the fee found why
    stopped: str = ""  # why the import ended before its last payment, "" when it did not


@dataclass
class ImportPlan:
    file: PaymentFile
    payments: list[PlannedPayment] = field(default_factory=list)

    def sendable(self) -> list[PlannedPayment]:
        return [each for each in self.payments if each.sendable]

    def refused_before(self) -> list[PlannedPayment]:
        return [each for each in self.payments if not each.sendable and not each.earlier]

    def totals(self) -> list[AccountTotal]:
        """Per debtor account: the payments that can be sent, their amounts and fees."""
        found: dict[str, AccountTotal] = {}
        for each in self.sendable():
            if each.earlier:
                continue  # accepted before: nothing of it goes now
            assert each.account is not None and each.amount is not None
            held = found.get(each.account.iban, AccountTotal(each.account.iban, 0, 0, 0, "EUR"))
            found[each.account.iban] = AccountTotal(
                held.iban,
                held.payments + 1,
                held.amount + each.amount,
                held.fees + (each.fee or 0),
                SEPA_CURRENCY,
            )
        return list(found.values())

    def fee_total(self) -> int:
        return sum(each.fee or 0 for each in self.sendable() if not each.earlier)

    def counts(self) -> Counts:
        counts = Counts()
        for each in self.payments:
            if each.earlier:
                counts.earlier += 1
                continue
            if not each.sendable:
                counts.checked_out += 1
                continue
            if each.outcome == "accepted":
                counts.accepted += 1
            elif each.outcome == "refused":
                counts.refused += 1
            elif each.outcome == "unknown":
                counts.unknown += 1
            if each.outcome != "not sent":
                counts.sent += 1
        return counts

    def outcomes(self) -> list[PaymentOutcome]:
        """What became of each payment (for the report): refused before sending included."""
        rows = []
        for each in self.payments:
            payment = each.payment
            outcome: Outcome = each.outcome
            if not each.sendable and not each.earlier:
                outcome = "refused"
            rows.append(
                PaymentOutcome(
                    number=payment.number,
                    line=payment.line,
                    end_to_end_id=payment.end_to_end_id,
                    payment_info_id=payment.payment_info_id,
                    debtor_iban=payment.debtor_iban,
                    creditor_name=payment.creditor_name,
                    creditor_iban=payment.creditor_iban,
                    amount=payment.amount,
                    currency=payment.currency,
                    fee="" if each.fee is None else decimal_text(each.fee, 2),
                    transfer_id=each.transfer_id if each.sendable or each.earlier else "",
                    outcome=outcome,
                    status=each.status,
                    reason=each.problem or each.reason,
                )
            )
        return rows


# ---------------------------------------------------------------- checks, without the network


def minor_amount(text: str, currency: str, schema_problem: str = "") -> int | str:
    """The amount in minor units, or what is wrong with it."""
    if not _DECIMAL.fullmatch(text.strip()):  # no exponent, no NaN: as the schema writes it
        return f"the amount {text[:40]!r} is not a decimal number like 1234.50"
    try:
        value = Decimal(text.strip())
    except InvalidOperation:
        return f"the amount {text[:40]!r} is not a decimal number like 1234.50"
    if value < 0:
        return f"the amount {text} is negative"
    places = exponent(currency) if is_currency(currency) else 2
    scaled = value.scaleb(places)
    if scaled != scaled.to_integral_value():
        return f"the amount {text} has more than {places} decimals ({currency} has {places})"
    minor = int(scaled)
    if minor < limits.AMOUNT.low:
        return f"the amount {text} is zero: at least {decimal_text(1, places)}"
    if minor > limits.AMOUNT.high:
        most = format_minor(limits.AMOUNT.high, currency) if is_currency(currency) else ""
        return f"the amount {text} is over the most a transfer can be ({most})"
    if schema_problem:
        return schema_problem
    return minor


def check_payment(
    payment: Payment, transfer_id: str, accounts: dict[str, DebtorAccount]
) -> PlannedPayment:
    """The payment as it will be sent, or every reason it cannot be, at once."""
    planned = PlannedPayment(payment, transfer_id)
    problems: list[str] = []
    account = accounts.get(payment.debtor_iban)
    if not payment.debtor_iban:
        problems.append("the debtor account (DbtrAcct) is no IBAN")
    elif account is None:
        problems.append(
            f"the debtor account {payment.debtor_iban} is not one of the partner's accounts "
            f"(those of the first {ACCOUNTS_LOOKED_THROUGH:,} clients were looked through)"
        )
    elif account.status != "active":
        problems.append(f"the debtor account {account.iban} is {account.status}")
    currency = payment.currency
    if currency != SEPA_CURRENCY:
        problems.append(f"a SEPA transfer is in EUR; this payment is in {currency or 'nothing'}")
    elif account is not None and account.currencies and currency not in account.currencies:
        held = ", ".join(account.currencies)
        problems.append(f"the currency {currency} is not the debtor account's ({held})")
    amount = minor_amount(payment.amount, currency, payment.schema_problem)
    if isinstance(amount, str):
        problems.append(amount)
    else:
        planned.amount = amount
    problems += _creditor_problems(payment)
    country = payment.creditor_country or payment.creditor_iban[:2].upper()
    address = payment.creditor_address or (country_name(country) if is_country(country) else "")
    fields = {
        "recipient_name": ("the creditor's name (Cdtr/Nm)", payment.creditor_name),
        "recipient_address": ("the creditor's address (Cdtr/PstlAdr)", address),
        "description": ("the remittance information (RmtInf/Ustrd)", payment.description),
    }
    bounds = {
        "recipient_name": limits.RECIPIENT_NAME,
        "recipient_address": limits.RECIPIENT_ADDRESS,
        "description": limits.DESCRIPTION,
    }
    for name, (what, text) in fields.items():
        problem = bounds[name].length_problem(text)
        if problem:
            problems.append(f"{what}, the transfer's {name}: {problem}")
    if not is_country(country):
        problems.append(f"the creditor's country {country!r} is no ISO 3166 country code")
    planned.account = account
    if problems:
        planned.problem = "; ".join(problems)
        return planned
    planned.request = {
        "id": transfer_id,
        "amount": amount,
        "recipient_name": payment.creditor_name,
        "recipient_iban": payment.creditor_iban,
        "recipient_country": country,
        "recipient_address": address,
    }
    if payment.description:
        planned.request["description"] = payment.description
    return planned


def _creditor_problems(payment: Payment) -> list[str]:
    iban = payment.creditor_iban
    if not iban:
        return ["the creditor account (CdtrAcct) is no IBAN: a SEPA transfer needs one"]
    problem = limits.RECIPIENT_IBAN.length_problem(iban)
    if problem:
        return [f"the creditor IBAN, the transfer's recipient_iban: {problem}"]
    try:
        info = validate(iban)
    except IbanError as exc:
        return [str(exc)]
    if not info.sepa:
        return [f"the creditor IBAN {iban} is of {country_name(info.country)}, outside SEPA"]
    return []


# ---------------------------------------------------------------- the preview


async def debtor_accounts(
    banking: BankingClient, ibans: set[str], progress: Progress | None = None
) -> dict[str, DebtorAccount]:
    """The partner's accounts with these IBANs (with their balances' currencies), looked for
    among the accounts of the first ACCOUNTS_LOOKED_THROUGH clients; stops once all are found."""
    found: dict[str, DebtorAccount] = {}
    wanted = {iban for iban in ibans if iban}
    if not wanted:
        return found
    looked = 0
    async for client in banking.each_client_v2(at_most=ACCOUNTS_LOOKED_THROUGH):
        looked += 1
        if progress is not None:
            progress(looked, ACCOUNTS_LOOKED_THROUGH, "Looking for the debtor accounts: clients")
        for account in await banking.list_accounts(client.id):
            iban = "".join(account.iban.split()).upper()
            if iban in wanted and iban not in found:
                balances = await banking.get_balance(client.id, account.id)
                currencies = tuple(dict.fromkeys(balance.currency for balance in balances))
                found[iban] = DebtorAccount(client.id, account.id, iban, account.status, currencies)
        if len(found) == len(wanted):
            break
    return found


async def plan_import(
    banking: BankingClient,
    payment_file: PaymentFile,
    progress: Progress | None = None,
    known: dict[str, dict[str, Any]] | None = None,
) -> ImportPlan:
    """Every payment checked, the fee of each that can be sent asked (FEES_AT_ONCE at a time);
    those ``known`` (an earlier import's journal) to be accepted are not asked again."""
    accounts = await debtor_accounts(
        banking, {payment.debtor_iban for payment in payment_file.payments}, progress
    )
    plan = ImportPlan(payment_file)
    for payment in payment_file.payments:
        transfer_id = transfer_id_of(payment_file.message_id, payment.debtor_iban, payment.key)
        planned = check_payment(payment, transfer_id, accounts)
        before = (known or {}).get(transfer_id, {})
        changed = changed_since(before, payment)
        if changed:
            planned.problem, planned.request = changed, None
        elif before.get("state") == "accepted":  # it went, whatever the checks say today
            planned.outcome, planned.status = "accepted", str(before.get("status", ""))
            planned.earlier, planned.reason = True, EARLIER
        plan.payments.append(planned)
    await _ask_fees(banking, [each for each in plan.sendable() if not each.earlier], progress)
    return plan


async def _ask_fees(
    banking: BankingClient, payments: list[PlannedPayment], progress: Progress | None
) -> None:
    from app.api.banking import SepaFeeParameters, build

    slots = asyncio.Semaphore(FEES_AT_ONCE)
    done = 0

    async def ask(each: PlannedPayment) -> None:
        nonlocal done
        assert each.request is not None and each.account is not None
        parameters = {"amount": each.amount, "recipient_iban": each.request["recipient_iban"]}
        async with slots:
            try:
                quote = await banking.sepa_fee(
                    each.account.account_id, build(SepaFeeParameters, parameters)
                )
            except ApiError as exc:
                if exc.outcome_unknown:
                    raise  # the service is not answering: no preview
                each.problem = f"the fee was refused: {_words(exc)}"
            else:
                each.fee = quote.fee.amount
        done += 1
        if progress is not None:
            progress(done, len(payments), "Asking the fees")

    await asyncio.gather(*(ask(each) for each in payments))


def changed_since(before: dict[str, Any], payment: Payment) -> str:
    """Why a payment may not go (or count as gone) under its key: an earlier import sent
    other values under it ("" when it did not). The key's transfer id and x-request-id are
    spent on those values: sending these would be refused, or taken for them."""
    if before.get("state") not in ("sending", "unknown", "accepted"):
        return ""  # never sent, or refused: what the file says now may go
    if before.get("digest") in (None, payment.digest):
        return ""
    return (
        f"an earlier import of this file sent other values under this EndToEndId "
        f"({before.get('what', 'not recorded')}): not sent — give this payment an EndToEndId "
        "of its own"
    )


def _words(exc: ApiError) -> str:
    return exc.failure_message or str(exc)


# ---------------------------------------------------------------- sending


async def run_import(
    banking: BankingClient,
    plan: ImportPlan,
    journal: ImportJournal,
    *,
    progress: Progress | None = None,
    stop: asyncio.Event | None = None,
) -> Counts:
    """Each payment that can be sent, sent once, in the file's order; ``stop`` set ends the
    import between two payments (never in the middle of one), and so does a lost connection
    (the payment on its way is then of unknown outcome: the next import settles it). The
    counts say why it stopped early."""
    sendable = plan.sendable()
    stopped = ""
    for done, each in enumerate(sendable):
        if stop is not None and stop.is_set():
            stopped = "stopped"
            break
        lost = await _send(banking, each, journal)
        if progress is not None:
            progress(done + 1, len(sendable), f"Payment {each.payment.number}")
        if lost and done + 1 < len(sendable):
            stopped = f"the connection was lost at payment {each.payment.number}"
            break
    counts = plan.counts()
    counts.stopped = stopped
    return counts


async def _send(banking: BankingClient, each: PlannedPayment, journal: ImportJournal) -> bool:
    """Send the payment unless it was accepted before; True when the connection was lost."""
    from app.api.banking import SepaTransferCreate, build

    assert each.request is not None and each.account is not None
    key = each.transfer_id
    before = journal.states.get(key, {})
    changed = changed_since(before, each.payment)
    if changed:  # another import came between the preview and now: refused, not sent
        each.problem, each.request = changed, None
        return False
    payment = each.payment
    said = {
        "digest": payment.digest,
        "what": f"{payment.amount} {payment.currency} to {payment.creditor_name[:40]} "
        f"{payment.creditor_iban}",
    }
    if before.get("state") == "accepted":
        each.outcome, each.status = "accepted", str(before.get("status", ""))
        each.earlier, each.reason = True, EARLIER
        return False
    # its outcome unknown: found by its id it was accepted; else asked again with the same key
    if before.get("state") in ("sending", "unknown") and await _found(banking, each):
        journal.record(key, "accepted", status=each.status, **said)
        return False
    journal.record(key, "sending", account=each.account.account_id, **said)
    try:
        transfer = await banking.create_sepa(
            each.account.account_id, build(SepaTransferCreate, each.request), request_id=key
        )
    except ApiError as exc:
        if exc.outcome_unknown:
            each.outcome, each.reason = "unknown", f"no answer that tells: {_words(exc)}"
            journal.record(key, "unknown", reason=each.reason, **said)
            return isinstance(exc, ApiConnectionError)
        each.outcome, each.reason = "refused", _words(exc)
        journal.record(key, "refused", reason=each.reason, **said)
        return False
    each.outcome, each.status, each.reason = "accepted", transfer.status or "", ""
    journal.record(key, "accepted", status=each.status, **said)
    return False


async def _found(banking: BankingClient, each: PlannedPayment) -> bool:
    """Whether the transfer of a payment whose outcome was unknown exists (then accepted)."""
    from app.api.banking import TransferQuery

    assert each.account is not None
    try:
        found = await banking.list_sepa(
            each.account.account_id, TransferQuery(id=each.transfer_id, limit=1)
        )
    except ApiError:
        return False  # not told: asked again with the same key, which cannot make two
    if found and found[0].id == each.transfer_id:
        each.outcome, each.status = "accepted", found[0].status or ""
        each.reason = "accepted before: found by its id"
        return True
    return False
