"""The days between two events of one patient, with an aside on how the days are counted."""

from __future__ import annotations

from typing import Any


def test_calendar_dates_aside_names_no_event(s27_conn: Any) -> None:
    plain = s27_conn.ask("How many days went by from patient 24's first visit to her latest visit?")
    aside = s27_conn.ask(
        "How many days went by from patient 24's first visit to her latest visit (calendar dates)?"
    )
    assert plain.accepted and aside.accepted, (plain.reason, aside.reason)
    assert aside.value == plain.value and aside.value > 0
