"""The statement page against the sandbox: 100,000 rows, cancel, search, CSV export, chart."""

import csv
import datetime as dt
import re

import pytest
from PySide6.QtCore import QDate, Qt, QTimer
from PySide6.QtWidgets import QFileDialog, QMessageBox

from app.api import banking as m
from app.sandbox.banking.demo import DEMO_PERSON_ID
from app.ui.common import forked
from app.ui.statements import StatementsArea
from app.ui.statements import controller as statements_controller
from app.ui.statements import model as statement_model
from tests.conftest import advance, make_client, person_body
from tests.ui.conftest import Record, run_on, settle, until


def open_statement(open_window, sandbox):
    window = open_window(sandbox.url)
    window.show_area("Statements")
    return window, window.area(StatementsArea).view


def choose(qloop, window, view, client_id, start, end):
    view.client_id.setText(client_id)
    view.client_id.editingFinished.emit()
    settle(qloop, window)
    assert view.account.count() > 0
    view.account.setCurrentIndex(0)
    view.date_from.set_date(QDate(start.year, start.month, start.day))
    view.date_to.set_date(QDate(end.year, end.month, end.day))


def test_100000_rows_load_with_progress_then_search_and_sort(
    qloop, sandbox, open_window, one_step_slices
):
    window, view = open_statement(open_window, sandbox)
    choose(qloop, window, view, DEMO_PERSON_ID, dt.date(2000, 1, 1), dt.date(2100, 1, 1))
    assert view.account.currentText().startswith("LT59 4010 0000 0000 0001".replace(" ", ""))
    shown = Record(view.status.shown)
    view.load_button.click()
    assert view.progress.isVisible() and view.cancel_button.isEnabled()
    settle(qloop, window)
    assert not view.progress.isVisible()
    assert shown.values[0] == "Loading…"
    assert any(re.fullmatch(r"Loading… [\d,]+ records", text) for text in shown.values)
    assert view.model.rowCount() >= 100_000
    assert re.fullmatch(
        r"1\d\d,\d{3} records, 2000-01-01 to 2100-01-01 \(loaded in [\d.]+ s\)", view.status.text()
    )
    assert view.export_button.isEnabled()
    assert len(view.chart.points) > 300  # a point per day over two years
    assert view.chart.toolTip() == "EUR balance at the end of each day with movements"
    summary = view.status.text()
    # 100,000 rows sort in several slices: the window says so, and keeps painting meanwhile
    view.table.sortByColumn(2, Qt.SortOrder.DescendingOrder)
    assert view.model.busy and view.status.text() == "Sorting…" and view.progress.isVisible()
    run_on(qloop, until(lambda: not view.model.busy, timeout=30))
    assert view.status.text() == summary and not view.progress.isVisible()
    top = view.model.data(view.model.index(0, 2))
    assert float(top.replace(",", "")) > 0
    view.search.setText("Salary")
    run_on(qloop, until(lambda: not view.model.busy, timeout=30))
    shown = view.model.rowCount()
    assert 0 < shown < view.model.loaded
    assert view.status.text() == f"{shown:,} of {view.model.loaded:,} records shown"
    amounts = [view.model.data(view.model.index(r, 2)) for r in range(shown)]
    as_numbers = [float(a.replace(",", "")) for a in amounts]
    assert as_numbers == sorted(as_numbers, reverse=True)  # still sorted, salaries only
    view.search.clear()
    run_on(qloop, until(lambda: not view.model.busy, timeout=30))
    assert view.model.rowCount() == view.model.loaded and view.status.text() == summary


def test_cancel_stops_the_load(qloop, sandbox, open_window):
    window, view = open_statement(open_window, sandbox)
    choose(qloop, window, view, DEMO_PERSON_ID, dt.date(2000, 1, 1), dt.date(2100, 1, 1))
    # Cancel clicked as soon as the first rows show, whatever the machine's speed
    view.model.rowsInserted.connect(lambda *_: QTimer.singleShot(0, view.cancel_button.click))
    view.load_button.click()
    settle(qloop, window)
    assert window.area(StatementsArea).loading.cancelled()
    assert view.status.text().startswith(f"Cancelled after {view.model.loaded:,} records")
    assert view.model.loaded < 100_000
    assert view.model.rowCount() == view.model.loaded  # every record received is shown
    assert view.load_button.isEnabled() and not view.cancel_button.isEnabled()
    assert view.chart.points  # the balance over the days loaded


def test_bad_period_is_refused_with_a_clear_box(qloop, sandbox, open_window):
    window, view = open_statement(open_window, sandbox)
    view.client_id.setText(DEMO_PERSON_ID)
    view.account.setEditText("LT594010000000000001")
    view.date_from.set_date(QDate(2024, 5, 2))
    view.date_to.set_date(QDate(2024, 5, 1))
    view.load_button.click()
    box = window.presenter.open_boxes[-1]
    assert box.windowTitle() == "Invalid input"
    assert box.text() == "Period: From (2024-05-02) is after To (2024-05-01)"
    box.button(QMessageBox.StandardButton.Ok).click()
    view.date_to.set_date(QDate(2024, 5, 3))
    view.account.setEditText("LT00NOTANACCOUNT")
    view.load_button.click()
    settle(qloop, window)
    box = window.presenter.open_boxes[-1]
    assert box.windowTitle() == "Not found"
    assert re.fullmatch(
        r"Account LT00NOTANACCOUNT of client C0000001 not found\nError: [0-9a-f-]{36}", box.text()
    )
    box.button(QMessageBox.StandardButton.Ok).click()


def test_csv_export_neutralises_formulas(qloop, sandbox, settings, tmp_path, open_window):
    async def account_with_a_formula():
        client = make_client(sandbox.url)
        person = await client.create_client(m.build(m.ClientCreate, {"client": person_body()}))
        account = await client.create_account(person.id)
        transfer = {
            "id": "F1",
            "amount": 123_456,
            "description": '=HYPERLINK("http://evil")',
            "recipient_name": "@SUM(A1:A9)",
            "recipient_iban": "DE89370400440532013000",
            "recipient_country": "DE",
            "recipient_address": "+49 Berlin",
        }
        await client.create_sepa(account.id, m.build(m.SepaTransferCreate, transfer))
        await client.aclose()
        advance(sandbox.url, 2)  # settled: the debit and its fee are booked
        return person.id

    client_id = run_on(qloop, account_with_a_formula())
    window, view = open_statement(open_window, sandbox)
    settings.setValue("export/folder", str(tmp_path))
    today = dt.date.today()
    choose(qloop, window, view, client_id, today, today)
    view.load_button.click()
    settle(qloop, window)
    assert view.export_button.isEnabled()
    area = window.area(StatementsArea)
    dialog = area.choose_export_file()
    assert isinstance(dialog, QFileDialog) and dialog.isVisible()
    assert dialog.directory().absolutePath() == str(tmp_path)  # the last folder used
    account_id = area.chooser.account_id()
    assert dialog.selectedFiles()[0].endswith(  # the name says what the file holds
        f"/statement-{client_id}-{account_id}-{today}-to-{today}.csv"
    )
    target = tmp_path / "chosen" / "statement.csv"
    target.parent.mkdir()
    counted: list[tuple[str, int, int]] = []  # the bar's text, value and end as it fills
    view.progress.valueChanged.connect(
        lambda value: counted.append((view.progress.text(), value, view.progress.maximum()))
    )
    dialog.fileSelected.emit(str(target))
    dialog.close()
    settle(qloop, window)
    total = view.model.rowCount()
    assert counted and counted[-1] == (f"{total:,} of {total:,} rows", total, total)
    assert view.progress.maximum() == 0  # busy again, as loading shows it
    assert settings.value("export/folder") == str(target.parent)
    with target.open(encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.reader(handle))
    assert rows[0] == [
        "Date",
        "Type",
        "Amount",
        "Currency",
        "Description",
        "Counterparty",
        "Counterparty account",
        "Reference",
        "Balance after",
    ]
    assert len(rows) == 1 + view.model.rowCount()
    debit = next(r for r in rows if r[1] == "sepa")
    # the formula reached the exported rows, neutralised; numbers are plain decimals
    assert debit[4] == '\'=HYPERLINK("http://evil")'
    assert debit[5] == "'@SUM(A1:A9)"
    assert debit[2] == "-1234.56"
    assert debit[8] == "8765.44"  # 10,000.00 - 1,234.56, no thousands separator
    fee = next(r for r in rows if r[1] == "fee")
    assert fee[2] == "-0.50" and fee[8] == "8764.94"
    opening = next(r for r in rows if r[1] == "opening" and r[3] == "JPY")
    assert opening[2] == "1000000" and opening[8] == "1000000"  # JPY has no decimals
    assert view.status.text() == f"Exported {len(rows) - 1:,} rows to {target}"


def test_rows_of_another_account_never_stay_under_a_new_one(qloop, sandbox, open_window):
    window, view = open_statement(open_window, sandbox)
    statements = window.area(StatementsArea)
    choose(qloop, window, view, DEMO_PERSON_ID, dt.date(2000, 1, 1), dt.date(2100, 1, 1))
    loading = []

    def another_account():
        # Statement… of another client's account, as soon as the first load shows rows
        if not loading:
            loading.append(statements.loading)
            statements.show_account("C0000002", "LT000000000000000000")

    view.model.rowsInserted.connect(lambda *_: QTimer.singleShot(0, another_account))
    view.load_button.click()
    settle(qloop, window)
    assert loading and loading[0].cancelled()
    assert view.model.rowCount() == 0 and not view.export_button.isEnabled()
    assert view.chart.points == []
    assert view.status.text() == "Choose a period, then Load."


def load_company_by_amount(qloop, window, view) -> None:
    """The company's last 800 days loaded, then sorted by amount, largest first."""
    today = dt.date.today()
    choose(qloop, window, view, "C0000002", today - dt.timedelta(days=800), today)
    view.load_button.click()
    settle(qloop, window)
    view.table.sortByColumn(2, Qt.SortOrder.DescendingOrder)


def test_a_new_load_resets_the_sort(qloop, sandbox, open_window):
    window, view = open_statement(open_window, sandbox)
    load_company_by_amount(qloop, window, view)
    assert view.table.horizontalHeader().sortIndicatorSection() == 2
    view.load_button.click()
    assert view.table.horizontalHeader().sortIndicatorSection() == -1
    settle(qloop, window)
    assert view.export_button.isEnabled()
    assert [view.model.data(view.model.index(r, 3)) for r in range(5)] == [
        "EUR",
        "USD",
        "GBP",
        "CHF",
        "JPY",
    ]  # booking order again


@pytest.mark.allow_warning_logs
def test_a_sort_that_fails_is_said_and_every_row_shown_unsorted(
    qloop, sandbox, open_window, monkeypatch
):
    def failing(*_args):
        yield
        raise MemoryError

    window, view = open_statement(open_window, sandbox)
    today = dt.date.today()
    choose(qloop, window, view, "C0000002", today - dt.timedelta(days=800), today)
    view.load_button.click()
    settle(qloop, window)
    loaded = view.model.loaded
    view.search.setText("EUR")
    run_on(qloop, until(lambda: not view.model.busy, timeout=30))
    assert 0 < view.model.rowCount() < loaded
    monkeypatch.setattr(statement_model, "rows_in_order", failing)
    view.table.sortByColumn(2, Qt.SortOrder.DescendingOrder)
    run_on(qloop, until(lambda: not view.model.busy, timeout=30))
    failure = "The rows could not be sorted (MemoryError): all of them are shown in booking order"
    assert view.status.text() == failure
    assert view.search.text() == ""  # the rows are no longer searched, and the box says so
    assert view.table.horizontalHeader().sortIndicatorSection() == -1
    assert view.model.rowCount() == loaded and not view.progress.isVisible()
    settle(qloop, window)
    assert view.status.text() == failure  # said until the user asks for something else
    monkeypatch.undo()
    view.search.setText("EUR")
    run_on(qloop, until(lambda: not view.model.busy, timeout=30))
    assert view.status.text() == f"{view.model.rowCount():,} of {loaded:,} records shown"


def test_csv_cells_with_formulas_are_prefixed(qloop, sandbox, tmp_path, open_window):
    window, view = open_statement(open_window, sandbox)
    view.model.add_records(
        [
            m.StatementRecord(
                id="X1",
                booking_date=dt.date(2024, 1, 1),
                type="sepa",
                direction="debit",
                amount=100,
                currency="EUR",
                description="=1+2",
                counterparty_name="@SUM(A1)",
                counterparty_account="-3+3",
                reference="+7",
                balance_after=-100,
            )
        ]
    )
    target = tmp_path / "out.csv"
    run_on(qloop, window.area(StatementsArea).export_to(target))
    with target.open(encoding="utf-8-sig", newline="") as handle:
        row = list(csv.reader(handle))[1]
    assert row == [
        "2024-01-01",
        "sepa",
        "-1.00",
        "EUR",
        "'=1+2",
        "'@SUM(A1)",
        "'-3+3",
        "'+7",
        "-1.00",
    ]


def test_the_busy_demo_account_loads_a_period_and_finds_an_amount(qloop, sandbox, open_window):
    window, view = open_statement(open_window, sandbox)
    today = dt.date.today()
    choose(qloop, window, view, DEMO_PERSON_ID, today - dt.timedelta(days=9), today)
    assert view.account.count() == 2
    view.account.setCurrentIndex(1)  # the busy account: about 1,370 records a day
    view.load_button.click()
    settle(qloop, window)
    assert view.export_button.isEnabled()
    loaded = view.model.loaded
    assert 9 * 1300 < loaded < 10 * 1450  # the last movement is yesterday's
    first = view.model.data(view.model.index(0, 2))  # "-12.34": look for that amount
    view.search.setText(first.lstrip("-"))
    run_on(qloop, until(lambda: not view.model.busy))
    typed = first.lstrip("-")
    rows = [
        (view.model.data(view.model.index(r, 2)), view.model.data(view.model.index(r, 8)))
        for r in range(view.model.rowCount())
    ]
    assert any(amount == first for amount, _balance in rows)
    assert all(typed in (amount.lstrip("-"), balance.lstrip("-")) for amount, balance in rows)
    assert view.status.text() == f"{view.model.rowCount():,} of {loaded:,} records shown"


def test_a_search_typed_before_loading_filters_the_load_and_says_so(qloop, sandbox, open_window):
    window, view = open_statement(open_window, sandbox)
    choose(qloop, window, view, DEMO_PERSON_ID, dt.date(2000, 1, 1), dt.date(2100, 1, 1))
    view.search.setText("Salary")
    view.load_button.click()
    settle(qloop, window)
    run_on(qloop, until(lambda: not view.model.busy))  # the last rows searched in slices
    assert view.export_button.isEnabled()
    shown, loaded = view.model.rowCount(), view.model.loaded
    assert 0 < shown < loaded
    assert view.status.text() == f"{shown:,} of {loaded:,} records shown"


def test_the_accounts_are_listed_once_typing_pauses_quietly_for_a_half_typed_id(
    qtbot, qloop, sandbox, open_window
):
    window, view = open_statement(open_window, sandbox)
    view.client_id.clear()
    qtbot.keyClicks(view.client_id, DEMO_PERSON_ID)  # typed; the field is not left
    settle(qloop, window)  # the pause in typing, then the list
    assert view.account.count() == 2
    assert view.account.itemText(0).startswith("LT594010000000000001")
    view.client_id.selectAll()
    qtbot.keyClicks(view.client_id, "C99")  # half typed, or a client that does not exist
    settle(qloop, window)
    assert view.account.count() == 0
    assert window.context.presenter.open_boxes == []  # a pause in typing is no error
    view.client_id.editingFinished.emit()  # leaving the field says what is wrong
    settle(qloop, window)
    assert len(window.context.presenter.open_boxes) == 1
    window.context.presenter.open_boxes[0].close()


def test_after_a_restart_the_remembered_clients_accounts_are_listed_at_once(
    qloop, sandbox, settings, open_window
):
    settings.setValue("statement/client_id", DEMO_PERSON_ID)  # as the last session left it
    window, view = open_statement(open_window, sandbox)
    assert view.client_id.text() == DEMO_PERSON_ID
    settle(qloop, window)  # nothing typed, the field never left
    assert view.account.count() == 2
    assert window.context.presenter.open_boxes == []


def test_export_as_camt053_writes_the_loaded_period_with_counts_and_cancel(
    qloop, sandbox, open_window, settings, tmp_path
):
    from lxml import etree

    from app.files.xml_input import schema

    window, view = open_statement(open_window, sandbox)
    area = window.area(StatementsArea)
    assert not view.camt_button.isEnabled()  # a statement first
    choose(qloop, window, view, DEMO_PERSON_ID, dt.date(2026, 1, 1), dt.date(2026, 1, 31))
    view.load_button.click()
    settle(qloop, window)
    assert view.camt_button.isEnabled()
    settings.setValue("export/folder", str(tmp_path))
    chooser = area.choose_camt053_file()
    assert chooser.selectedFiles()[0] == str(
        tmp_path / f"camt053-{DEMO_PERSON_ID}-LT594010000000000001-2026-01-01-to-2026-01-31.xml"
    )
    chooser.close()
    shown = Record(view.status.shown)
    target = tmp_path / "january.xml"
    run_on(qloop, area.export_camt053_to(target))
    loaded = view.model.loaded
    assert view.status.text() == f"Exported {loaded:,} entries as camt.053 to {target}"
    assert any(re.fullmatch(rf"Exporting… [\d,]+ of {loaded:,} entries", t) for t in shown.values)
    tree = etree.parse(str(target))
    assert schema("camt.053.001.08").validate(tree)
    namespace = {"c": tree.getroot().nsmap[None]}
    assert len(tree.xpath("//c:Ntry", namespaces=namespace)) == loaded
    # cancelled as soon as the first entries are written: no file, the old one as it was
    target.write_text("kept", encoding="utf-8")

    def cancel_once_exporting(text: str) -> None:
        if text.startswith("Exporting…"):
            QTimer.singleShot(0, view.cancel_button.click)

    view.status.shown.connect(cancel_once_exporting)
    choose(qloop, window, view, DEMO_PERSON_ID, dt.date(2000, 1, 1), dt.date(2100, 1, 1))
    view.load_button.click()  # all of it: many pieces, the cancel comes between two
    settle(qloop, window)
    task = area.export_camt053_to(target)
    settle(qloop, window)
    assert task.cancelled()
    assert view.status.text() == "Export cancelled: no file was written."
    assert target.read_text(encoding="utf-8") == "kept"
    assert not list(tmp_path.glob(".*.partial"))  # nothing half written left
    assert view.load_button.isEnabled() and not view.cancel_button.isEnabled()


def test_an_export_by_forked_copies_is_the_file_one_writer_makes(
    qloop, sandbox, tmp_path, open_window, monkeypatch
):
    if not forked.AVAILABLE:
        pytest.skip("forked copies: Linux only")
    window, view = open_statement(open_window, sandbox)
    load_company_by_amount(qloop, window, view)
    settle(qloop, window)
    area = window.area(StatementsArea)
    alone = tmp_path / "alone.csv"
    run_on(qloop, area.export_to(alone))
    monkeypatch.setattr(statements_controller, "EXPORT_IN_COPIES_AT", 1)
    made: list[int] = []
    original = view.model.export_parts
    monkeypatch.setattr(view.model, "export_parts", lambda n: made.append(n) or original(n))
    by_copies = tmp_path / "by-copies.csv"
    run_on(qloop, area.export_to(by_copies))
    assert made and made[0] >= 2  # cut into parts, a copy each
    assert by_copies.read_bytes() == alone.read_bytes()
    rows = view.model.rowCount()
    assert view.status.text() == f"Exported {rows:,} rows to {by_copies}"
