"""The banking API, v1 and v2: one client over one transport, its operations and models split
by resource (clients, accounts, statements, transfers, attachments, the open service calls).
This package's names are its public surface."""

from __future__ import annotations

from app.api.banking.accounts import (
    ACCOUNT_OPERATIONS,
    Account,
    AccountOperation,
    AccountOperations,
    Balance,
)
from app.api.banking.attachments import (
    AttachmentCreated,
    AttachmentMetadata,
    AttachmentOperations,
    DocumentType,
)
from app.api.banking.clients import (
    COMPANY_NULLABLE,
    PERSON_NULLABLE,
    AdditionalData,
    Address,
    Client,
    ClientCreate,
    ClientOperations,
    ClientUpdate,
    ClientV2,
    ClientV2Create,
    ClientV2Update,
    Company,
    CompanyDocument,
    CompanyUpdate,
    IdentityVerification,
    NaceCodeEntry,
    Occupation,
    Person,
    PersonUpdate,
    SiteInfo,
    TaxId,
)
from app.api.banking.columns import StatementColumns
from app.api.banking.service import IbanBankData, ResultString, ServiceOperations
from app.api.banking.statement_records import StatementRecord
from app.api.banking.statements import StatementOperations
from app.api.banking.transfers import (
    BicBankData,
    CurrencyList,
    Fee,
    FeeQuote,
    InternalFeeParameters,
    InternalTransfer,
    InternalTransferCreate,
    SepaFeeParameters,
    SepaTransfer,
    SepaTransferCreate,
    TransferOperations,
    TransferQuery,
    WorldFeeParameters,
    WorldTransfer,
    WorldTransferCreate,
)
from app.api.models import build


class BankingClient(
    ServiceOperations,
    ClientOperations,
    AccountOperations,
    StatementOperations,
    TransferOperations,
    AttachmentOperations,
):
    """Every operation of the banking API over one transport (one profile). v1 paths are under
    /v1, v2 under /v2."""


__all__ = [
    "ACCOUNT_OPERATIONS",
    "COMPANY_NULLABLE",
    "PERSON_NULLABLE",
    "Account",
    "AccountOperation",
    "AdditionalData",
    "Address",
    "AttachmentCreated",
    "AttachmentMetadata",
    "Balance",
    "BankingClient",
    "BicBankData",
    "Client",
    "ClientCreate",
    "ClientUpdate",
    "ClientV2",
    "ClientV2Create",
    "ClientV2Update",
    "Company",
    "CompanyDocument",
    "CompanyUpdate",
    "CurrencyList",
    "DocumentType",
    "Fee",
    "FeeQuote",
    "IbanBankData",
    "IdentityVerification",
    "InternalFeeParameters",
    "InternalTransfer",
    "InternalTransferCreate",
    "NaceCodeEntry",
    "Occupation",
    "Person",
    "PersonUpdate",
    "ResultString",
    "SepaFeeParameters",
    "SepaTransfer",
    "SepaTransferCreate",
    "SiteInfo",
    "StatementColumns",
    "StatementRecord",
    "TaxId",
    "TransferQuery",
    "WorldFeeParameters",
    "WorldTransfer",
    "WorldTransferCreate",
    "build",
]
