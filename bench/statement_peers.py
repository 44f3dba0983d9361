"""The peers of the million-row statement, each measured in the same run against the same
sandbox: curl writing the answer to /dev/null; a minimal reader (httpx streaming the answer,
msgspec decoding each part as it arrives, the values put into one list per field, no Qt);
Python's `sorted()` over the amount column's values; a plain scan of the columns the
window's search reads (each value lower-cased, the text looked for in it); and the standard
`csv` writer writing the same rows, as text in lists, to a file in the same folder as the
window's export. The reading is measured once the process starts; the sort, the scan and the
writer a round at a time, when the bench asks (a line "round" on its stdin), so that their
rounds alternate with the window's."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

# run in a process of its own, so that its memory and imports are not the window's
PEERS = r"""
import csv, json, operator, statistics, subprocess, sys, time
from pathlib import Path
import httpx, msgspec

url, user, password, partner, needle = sys.argv[1:6]
auth = (user, password)
headers = {"x-partner-code": partner}
client_id = "C0000001"
accounts = httpx.get(f"{url}/v1/clients/{client_id}/accounts", auth=auth, headers=headers).json()
items = accounts["items"] if isinstance(accounts, dict) else accounts
account_id = items[1]["id"]
statement = f"{url}/v1/clients/{client_id}/accounts/{account_id}/statement"
query = "?date_from=2000-01-01&date_to=2100-01-01"
figures = {}

started = time.perf_counter()
subprocess.run(
    ["curl", "--silent", "--fail", "--output", "/dev/null", "--user", f"{user}:{password}",
     "--header", f"x-partner-code: {partner}", statement + query],
    check=True,
)
figures["curl_s"] = time.perf_counter() - started


class Record(msgspec.Struct, gc=False):
    id: str
    booking_date: str
    type: str
    direction: str
    amount: int
    currency: str
    description: str
    balance_after: int
    counterparty_name: str | None = None
    counterparty_account: str | None = None
    reference: str | None = None


FIELDS = Record.__struct_fields__
decoder = msgspec.json.Decoder(list[Record])
getters = [operator.attrgetter(name) for name in FIELDS]
lists = [[] for _ in FIELDS]


def take(piece):
    records = decoder.decode(piece)
    for values, get in zip(lists, getters):
        values.extend(map(get, records))


# decoded as it arrives: the records up to the last "},{" of what came, the rest kept
started = time.perf_counter()
rest = b""
with httpx.stream("GET", statement + query, auth=auth, headers=headers, timeout=600) as answer:
    answer.raise_for_status()
    for chunk in answer.iter_bytes():
        rest += chunk
        cut = rest.rfind(b"},{")
        if cut < 0:
            continue
        piece, rest = rest[: cut + 1], rest[cut + 2 :]
        take(piece + b"]" if piece.startswith(b"[") else b"[" + piece + b"]")
take(rest if rest.lstrip().startswith(b"[") else b"[" + rest)
columns = dict(zip(FIELDS, lists))
figures["reader_s"] = time.perf_counter() - started
figures["rows"] = len(columns["id"])
if sys.argv[7:] == ["reading-only"]:
    print(json.dumps(figures), flush=True)
    sys.exit()

def timed(name, work):  # one round's time; the median of the rounds is the figure
    started = time.perf_counter()
    work()
    taken = figures.setdefault(name + "_rounds", [])
    taken.append(time.perf_counter() - started)
    figures[name + "_s"] = statistics.median(taken)

amounts = columns["amount"]

searched = [columns[name] for name in
            ("id", "description", "reference", "type", "currency", "counterparty_name",
             "counterparty_account", "booking_date")]
found = []
def scan():
    found[:] = [row for row in range(len(amounts))
                if any(needle in (column[row] or "").lower() for column in searched)]

def major(minor):
    sign = "-" if minor < 0 else ""
    units, cents = divmod(abs(minor), 100)
    return f"{sign}{units}.{cents:02d}"

rows = [
    (columns["booking_date"][row], columns["type"][row], major(amounts[row]),
     columns["currency"][row], columns["description"][row],
     columns["counterparty_name"][row] or "", columns["counterparty_account"][row] or "",
     columns["reference"][row] or "", major(columns["balance_after"][row]))
    for row in range(len(amounts))
]
target = Path(sys.argv[6]) / "peer.csv"
def write():
    with target.open("w", encoding="utf-8-sig", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["Date", "Type", "Amount", "Currency", "Description", "Counterparty",
                         "Counterparty account", "Reference", "Balance"])
        writer.writerows(rows)
    target.unlink()  # as the window's export is, between its rounds

# the reading's figures once all the rounds need is made (the rows above took seconds, which
# the window's load measured next would otherwise share the processor with)
print(json.dumps(figures), flush=True)
for command in sys.stdin:  # "round", until the bench closes our stdin
    timed("sorted", lambda: sorted(amounts))
    timed("scan", scan)
    figures["scan_rows"] = len(found)
    timed("csv", write)
    print(json.dumps({"round": len(figures["csv_rounds"])}), flush=True)
print(json.dumps(figures), flush=True)
"""


def command(url: str, needle: str, folder: str, *, reading_only: bool = False) -> list[str]:
    """The peers' process against the sandbox at ``url`` (the demo user's busy account): it
    reads the statement (curl, then the reader) and prints their figures; then, unless
    ``reading_only``, a round of the sort, the scan and the writer each time it is asked
    (`bench.rounds.Rounds`), and all their figures once its stdin closes."""
    from app.ui.connection.profiles import SANDBOX_PARTNER_CODE, SANDBOX_PASSWORD, SANDBOX_USER

    return [
        sys.executable,
        "-c",
        PEERS,
        url,
        SANDBOX_USER,
        SANDBOX_PASSWORD,
        SANDBOX_PARTNER_CODE,
        needle,
        folder,
        *(["reading-only"] if reading_only else []),
    ]


def reading(url: str, needle: str, folder: str) -> dict[str, Any]:
    """curl's and the reader's figures alone (``curl_s``, ``reader_s``)."""
    result = subprocess.run(
        command(url, needle, folder, reading_only=True),
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    figures: dict[str, Any] = json.loads(result.stdout.strip().splitlines()[-1])
    return figures
