"""The gateway state's pure parts: dates and the order's view."""

import datetime as dt

from app.sandbox.gateway.records import iso_seconds, two_years_after


def test_two_years_after_keeps_the_calendar_day():
    moment = dt.datetime(2024, 5, 17, 10, 0, tzinfo=dt.UTC)
    assert two_years_after(moment) == dt.datetime(2026, 5, 17, 10, 0, tzinfo=dt.UTC)
    leap = dt.datetime(2024, 2, 29, 23, 59, tzinfo=dt.UTC)
    assert two_years_after(leap) == dt.datetime(2026, 2, 28, 23, 59, tzinfo=dt.UTC)


def test_times_are_utc_seconds_with_z():
    moment = dt.datetime(2026, 11, 23, 11, 5, 6, 789, tzinfo=dt.timezone(dt.timedelta(hours=2)))
    assert iso_seconds(moment) == "2026-11-23T09:05:06Z"
