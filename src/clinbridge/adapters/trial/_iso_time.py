"""Time points written as ISO 8601 durations since randomisation: ``PT24H``, ``PT30M``, ``P3D``,
``P18M``, ``P2Y``, ``P1Y6M``, ``P1DT12H``, ``P2W``.

A duration reads on the scales the catalog uses: months for years and months (``P2Y`` is
24 months), hours for weeks, days and hours (``P3D`` is 72 h), minutes for a duration in whole
minutes that is no whole number of hours (``PT90M``). ``P18M`` is 18 months, ``PT18M`` 18 minutes.
A duration that mixes months with days, or a text that starts like one and is none (``P24H``:
hours need the ``T``), is no time point; :func:`looks_iso` tells the loader to say so.
"""

from __future__ import annotations

import re

from clinbridge.timepoint import TimePoint, canonical, parse_time_point, time_in_name

__all__ = ["iso_duration", "looks_iso", "time_point_in_name", "time_point_of", "time_point_text"]

_NUM = r"(\d+(?:[.,]\d+)?)"
_ISO = re.compile(
    rf"^P(?!$)(?:{_NUM}Y)?(?:{_NUM}M)?(?:{_NUM}W)?(?:{_NUM}D)?"
    rf"(?:T(?=\d)(?:{_NUM}H)?(?:{_NUM}M)?(?:{_NUM}S)?)?$",
    re.I,
)
_LOOKS = re.compile(r"^P(?:T?\d[\d.,]*[A-Z])+$", re.I)
_PART = re.compile(r"(?:^|(?<=[_.@\-+ ]))(P(?:T?\d[\d.,]*[YMWDHS])+)(?=$|[_.@\-+ ])", re.I)


def _f(x: str | None) -> float:
    return float(x.replace(",", ".")) if x else 0.0


def iso_duration(text: str | None) -> TimePoint | None:
    """The time point an ISO 8601 duration names, or None."""
    if not text:
        return None
    m = _ISO.match(text.strip())
    if not m:
        return None
    y, mo, w, d, h, mi, s = (_f(g) for g in m.groups())
    months = 12 * y + mo
    hours = 168 * w + 24 * d + h
    minutes = 60 * hours + mi + s / 60
    if months and minutes:
        return None  # 'P1M2D': no one scale holds it
    if months:
        return TimePoint("mo", months)
    if minutes % 60 == 0:
        return TimePoint("h", minutes / 60)
    return TimePoint("min", minutes)


def looks_iso(text: str | None) -> bool:
    """Whether a text is written like an ISO 8601 duration (``P24H``, ``PT24H``)."""
    return bool(text) and bool(_LOOKS.match(str(text).strip()))


def time_point_of(text: str | None) -> TimePoint | None:
    """The time point a short text names, an ISO 8601 duration included."""
    return iso_duration(text) or parse_time_point(text)


def time_point_text(text: str | None) -> str | None:
    """The canonical words of the time point in ``text`` (``PT24H`` → ``24 h``)."""
    tp = iso_duration(text)
    return tp.text() if tp else canonical(text)


def time_point_in_name(name: str) -> TimePoint | None:
    """A time point written into a column name, an ISO 8601 duration included (``temp_PT24H``)."""
    found = [tp for m in _PART.finditer(name) if (tp := iso_duration(m.group(1)))]
    return found[0] if len(found) == 1 else time_in_name(name)
