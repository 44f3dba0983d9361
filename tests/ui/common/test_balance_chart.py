"""The balance chart's words where there is no line to draw."""

import datetime as dt

from app.ui.common.balance_chart import BalanceChart


def test_one_day_of_movements_is_said_with_the_currency_once(qapp):
    chart = BalanceChart()
    chart.set_series([(dt.date(2024, 11, 26), 1_000_000)], "EUR")
    assert chart.placeholder() == (
        "One day with EUR movements: the balance was 10,000.00 EUR at the end of 2024-11-26."
    )
    chart.set_series([(dt.date(2024, 11, 26), 250)], "XTS")  # a code the desk does not know
    assert chart.placeholder() == (
        "One day with XTS movements: the balance was 250 XTS at the end of 2024-11-26."
    )


def test_the_placeholders_before_any_line(qapp):
    chart = BalanceChart()
    assert chart.placeholder() == (
        "The balance chart appears when a statement with movements is loaded."
    )
    chart.set_series([], "USD")
    assert chart.placeholder() == "No USD movements in this period."
