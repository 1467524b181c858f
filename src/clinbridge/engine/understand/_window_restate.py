"""Two time windows on the same events that state one window twice.

'in the six months before today (after 10 April 2022, up to 10 October 2022)' says the window
twice: once relative to today, once by its days. The two are one window when they agree — the
stated days within a few days of the relative window's own (a month counted as 30 days drifts
from the calendar; 'the two years before today (since 2021-03-22)' may count today's day-of-
the-year in or out) — and the stated days then win, being exact. Two one-sided calendar
windows ('after D1', 'up to D2') are one span when they bound different sides, or agree on a
side. Any other pair stays two windows, which the reader refuses, never picking one.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from typing import Any

from clinbridge.engine.understand._pieces import Slot
from clinbridge.engine.understand._time import TimeSpec, resolve_relative_year

__all__ = ["restated_windows"]

_Span = tuple[dt.date | None, dt.date | None]


def _tolerance(days: int) -> int:
    """How far a stated day may sit from a relative window's computed one, in days."""
    return max(3, round(0.02 * abs(days)))


def _relative(spec: TimeSpec, today: dt.date) -> _Span | None:
    """A window back from now ('the last 6 months', 'the past 30 days') as days."""
    if spec.kind == "now" and spec.start_days is not None and spec.end_days == 0:
        return today + dt.timedelta(days=spec.start_days), today
    if spec.kind == "calendar" and spec.through_now:
        done = resolve_relative_year(spec, today)
        return done.start, done.end
    return None


def _stated(spec: TimeSpec) -> _Span | None:
    """A window stated by its days (either side open)."""
    if spec.kind != "calendar" or spec.relative_year is not None or spec.start_at is not None:
        return None
    return spec.start, spec.end


def _side(a: dt.date | None, b: dt.date | None) -> tuple[bool, dt.date | None]:
    if a is None or b is None or a == b:
        return True, a or b
    return False, None


def _one(first: TimeSpec, second: TimeSpec, today: dt.date) -> TimeSpec | None:
    """The one window the two statements make, or None."""
    a, b = _stated(first), _stated(second)
    if a is not None and b is not None:  # 'after D1', 'up to D2'
        (ok_s, start), (ok_e, end) = _side(a[0], b[0]), _side(a[1], b[1])
        if ok_s and ok_e and not (start and end and end < start):
            return TimeSpec("calendar", start=start, end=end)
        return None
    rel, days = (_relative(first, today), b) if b is not None else (_relative(second, today), a)
    if rel is None or days is None or days[0] is None or days[1] not in (None, today):
        return None
    assert rel[0] is not None
    if abs((days[0] - rel[0]).days) > _tolerance((today - rel[0]).days):
        return None
    return TimeSpec("calendar", start=days[0], end=today)


def restated_windows(
    windows: list[tuple[int, Slot]], items: list[Any], now: dt.date | dt.datetime
) -> list[tuple[int, Slot]]:
    """``windows`` (position in ``items``, window slot) with each window said twice, side by
    side, made one (at the first statement's position); others are left as they are."""
    today = now.date() if isinstance(now, dt.datetime) else now
    out: list[tuple[int, Slot]] = []
    for k, slot in windows:
        if out and not items[out[-1][0] + 1 : k]:  # side by side: '<window> (<its days>)'
            k0, prev = out[-1]
            one = _one(prev.data["spec"], slot.data["spec"], today)
            if one is not None:
                text = f"{prev.text} ({slot.text})"
                out[-1] = (
                    k0,
                    dataclasses.replace(prev, data={**prev.data, "spec": one}, text=text),
                )
                continue
        out.append((k, slot))
    return out
