"""The statement table's columns: their titles, and the index of each."""

COLUMNS = (
    "Date",
    "Type",
    "Amount",
    "Currency",
    "Description",
    "Counterparty",
    "Counterparty account",
    "Reference",
    "Balance after",
)
DATE, TYPE, AMOUNT, CURRENCY, DESCRIPTION, COUNTERPARTY, ACCOUNT, REFERENCE, BALANCE = range(
    len(COLUMNS)
)
