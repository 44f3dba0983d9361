"""``partner-desk payments import`` and ``partner-desk statement --camt053`` as operations staff
run them: a preview, an import that can be run again or killed and resumed without a second
transfer, a report, files refused whole; a statement written valid, bad input refused."""

from __future__ import annotations

import csv
import io
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from app.api import banking as m
from app.core.data_folder import data_folder
from app.files.pain001 import read_payment_file
from app.files.xml_input import schema
from app.forms.import_journal import ImportJournal, read_states
from tests.conftest import make_client, person_body, run
from tests.integration.test_payment_import import creates, transfers_of
from tests.pain_files import BILLION_LAUGHS, deeply_nested, payment, payment_file

EXE = str(Path(sys.executable).with_name("partner-desk"))


@pytest.fixture
def debtor(sandbox_url) -> str:
    """A fresh client's account (10,000.00 EUR): its IBAN."""

    async def create():
        client = make_client(sandbox_url)
        body = {"client": person_body(external_id=uuid.uuid4().hex[:8])}
        person = await client.create_client(m.build(m.ClientCreate, body))
        account = await client.create_account(person.id)
        await client.aclose()
        return account.iban

    return run(create())


def command(url: str, file: Path, *args: str) -> list[str]:
    return [EXE, "payments", "import", str(file), "--base-url", url, *args]


def import_cli(url: str, file: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command(url, file, *args),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "PARTNER_DESK_PASSWORD": "demo"},
    )


def test_a_dry_run_previews_and_sends_nothing_then_the_import_sends_each_once(
    sandbox_url, debtor, admin, tmp_path
):
    file = tmp_path / "payments.xml"
    file.write_bytes(payment_file(debtor, [payment(n) for n in range(1, 4)]))
    dry = import_cli(sandbox_url, file, "--dry-run")
    assert dry.returncode == 0, dry.stderr
    lines = dry.stdout.splitlines()
    assert lines[0].endswith(": 3 payments, 3 to send, 0 refused")
    assert "E2E-2" in lines[2] and "10.02 EUR  fee     0.50 EUR  to Hans Muster 2" in lines[2]
    assert f"Account {debtor}: 3 payments, 30.06 EUR + fees 1.50 EUR" in lines
    assert lines[-1] == "Fees in all: 1.50 EUR"
    # the preview's work is said as it goes, not minutes of silence on a slow server
    assert dry.stderr.startswith("  Looking for the debtor accounts: clients: 1 of 1,000…\n")
    assert transfers_of(sandbox_url, debtor) == []
    report = tmp_path / "status.xml"
    sent = import_cli(sandbox_url, file, "--report", str(report))
    assert sent.returncode == 0, sent.stderr
    assert "Sent 3: accepted 3, refused 0, outcome unknown 0" in sent.stdout
    again = import_cli(sandbox_url, file)
    assert again.returncode == 0
    assert "Sent 0: accepted 0, refused 0, outcome unknown 0; 3 accepted before" in again.stdout
    assert len(transfers_of(sandbox_url, debtor)) == 3 and len(creates(admin, debtor)) == 3
    from lxml import etree

    status = etree.parse(str(report))
    assert schema("pain.002.001.03").validate(status)
    ns = {"s": "urn:iso:std:iso:20022:tech:xsd:pain.002.001.03"}
    assert status.xpath("//s:GrpSts/text()", namespaces=ns) == ["ACCP"]
    assert status.xpath("//s:OrgnlEndToEndId/text()", namespaces=ns) == ["E2E-1", "E2E-2", "E2E-3"]


def test_some_refused_exits_1_with_a_csv_report_naming_each_reason(sandbox_url, debtor, tmp_path):
    file = tmp_path / "payments.xml"
    rows = [payment(1), payment(2, IBAN="BR1500000000000010932840814P2")]
    file.write_bytes(payment_file(debtor, rows, validate=False))
    report = tmp_path / "report.csv"
    result = import_cli(sandbox_url, file, "--report", str(report))
    assert result.returncode == 1, result.stderr
    assert "; 1 refused before sending" in result.stdout
    with report.open(encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [row["end_to_end_id"] for row in rows] == ["E2E-1", "E2E-2"]
    assert rows[0]["outcome"] == "accepted" and rows[0]["fee"] == "0.50"
    assert rows[0]["transfer_id"] in {each.id for each in transfers_of(sandbox_url, debtor)}
    assert (rows[1]["outcome"], rows[1]["transfer_id"]) == ("refused", "")
    assert rows[1]["reason"] == (
        "the creditor IBAN BR1500000000000010932840814P2 is of Brazil, outside SEPA"
    )


@pytest.mark.parametrize(
    ("data", "said"),
    [
        (BILLION_LAUGHS, "declares a DTD"),
        (deeply_nested(), "nested deeper than 256 levels"),
        (b"<Document>\xff</Document>", "not text"),
    ],
)
def test_a_hostile_file_exits_2_and_sends_nothing(sandbox_url, admin, tmp_path, data, said):
    file = tmp_path / "hostile.xml"
    file.write_bytes(data)
    result = import_cli(sandbox_url, file)
    assert result.returncode == 2 and said in result.stderr and result.stdout == ""
    assert admin.get("/_sandbox/requests").json() == []  # not even signed in


def test_a_count_that_does_not_match_exits_2_and_sends_nothing(
    sandbox_url, debtor, admin, tmp_path
):
    file = tmp_path / "payments.xml"
    data = payment_file(debtor, [payment(1), payment(2)])
    file.write_bytes(data.replace(b"<NbOfTxs>2</NbOfTxs>", b"<NbOfTxs>5</NbOfTxs>", 1))
    result = import_cli(sandbox_url, file)
    assert result.returncode == 2
    assert "counts 5 transactions (NbOfTxs) but the file holds 2" in result.stderr
    assert admin.get("/_sandbox/requests").json() == []


def test_an_import_killed_in_the_middle_resumes_and_sends_each_payment_once(
    sandbox_url, debtor, admin, tmp_path
):
    data = payment_file(debtor, [payment(n) for n in range(1, 9)])
    file = tmp_path / "payments.xml"
    file.write_bytes(data)
    message_id = read_payment_file(io.BytesIO(data)).message_id
    journal = ImportJournal(data_folder(), message_id).path
    path = f"/v1/accounts/{debtor}/transfers/sepa"
    admin.post(  # each create answered late: the kill finds the import in the middle
        "/_sandbox/faults",
        json={
            "status": 200,
            "count": 8,
            "mode": "delay",
            "delay_ms": 400,
            "method": "POST",
            "path": path,
        },
    )
    process = subprocess.Popen(
        command(sandbox_url, file),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "PARTNER_DESK_PASSWORD": "demo"},
    )
    try:
        deadline = time.monotonic() + 60
        while not any(e["state"] == "accepted" for e in read_states(journal).values()):
            assert process.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        process.send_signal(signal.SIGKILL)
    finally:
        process.wait(timeout=30)
    left = read_states(journal)
    assert 0 < sum(e["state"] == "accepted" for e in left.values()) < 8
    admin.delete("/_sandbox/faults")
    resumed = import_cli(sandbox_url, file)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    sent = transfers_of(sandbox_url, debtor)
    assert len(sent) == 8 and len({each.id for each in sent}) == 8
    assert len(creates(admin, debtor)) == 8


def statement_cli(url: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [EXE, "statement", *args, "--base-url", url],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "PARTNER_DESK_PASSWORD": "demo"},
    )


def test_the_statement_command_writes_a_valid_camt053(sandbox_url, tmp_path):
    from lxml import etree

    path = tmp_path / "statement.xml"
    result = statement_cli(
        sandbox_url,
        "C0000001",
        "LT594010000000000001",
        "--from",
        "2026-01-01",
        "--to",
        "2026-01-31",
        "--currency",
        "EUR",
        "--camt053",
        str(path),
    )
    assert result.returncode == 0, result.stderr
    tree = etree.parse(str(path))
    assert schema("camt.053.001.08").validate(tree)
    count = len(tree.xpath("//c:Ntry", namespaces={"c": tree.getroot().nsmap[None]}))
    assert result.stdout == (
        f"Wrote {count:,} entries (2026-01-01 to 2026-01-31) as camt.053.001.08 to {path}\n"
    )


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("--from", "2026-02-30", "--to", "2026-03-01"), "'2026-02-30' is not a date yyyy-mm-dd"),
        (("--from", "2026-03-02", "--to", "2026-03-01"), "--from 2026-03-02 is after --to"),
    ],
)
def test_the_statement_command_refuses_bad_dates(sandbox_url, tmp_path, args, said):
    path = tmp_path / "statement.xml"
    result = statement_cli(
        sandbox_url, "C0000001", "LT594010000000000001", *args, "--camt053", str(path)
    )
    assert result.returncode == 2 and said in result.stderr
    assert not path.exists()


def test_an_unknown_account_exits_2_and_writes_nothing(sandbox_url, tmp_path):
    path = tmp_path / "statement.xml"
    result = statement_cli(
        sandbox_url,
        "C0000001",
        "LT000000000000000000",
        "--from",
        "2026-01-01",
        "--to",
        "2026-01-31",
        "--camt053",
        str(path),
    )
    assert result.returncode == 2 and "not found" in result.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("where", ["folder", "the payment file", "pipe", "no folder"])
def test_a_report_that_cannot_be_written_is_refused_before_anything_is_sent(
    sandbox_url, debtor, admin, tmp_path, where
):
    file = tmp_path / "payments.xml"
    file.write_bytes(payment_file(debtor, [payment(1)]))
    report = {
        "folder": tmp_path,
        "the payment file": file,
        "pipe": tmp_path / "pipe.csv",
        "no folder": tmp_path / "missing" / "report.csv",
    }[where]
    if where == "pipe":
        os.mkfifo(report)
    result = import_cli(sandbox_url, file, "--report", str(report))
    assert result.returncode == 2 and result.stderr.startswith(
        f"partner-desk payments import: --report {report}: "
    )
    assert "Traceback" not in result.stderr
    assert admin.get("/_sandbox/requests").json() == []  # nothing asked, nothing sent
    assert file.read_bytes().startswith(b"<?xml")


def test_a_statement_from_the_first_day_of_the_calendar_is_written(sandbox_url, tmp_path):
    path = tmp_path / "statement.xml"
    result = statement_cli(
        sandbox_url,
        "C0000001",
        "LT594010000000000001",
        "--from",
        "0001-01-01",
        "--to",
        "2000-01-31",
        "--camt053",
        str(path),
    )
    assert result.returncode == 0, result.stderr
    from lxml import etree

    assert schema("camt.053.001.08").validate(etree.parse(str(path)))
