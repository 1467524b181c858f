"""Server-rendered SVG charts: a time series with shaded intervals, bars, box plots.

Pure functions from numbers to an SVG string; every text is escaped. No JavaScript, no CDN.
"""

from __future__ import annotations

import datetime as dt
import html
import math
import statistics
from collections.abc import Mapping, Sequence

__all__ = ["bar_chart", "box_chart", "line_chart", "nice_ticks"]

W, H = 720, 320
ML, MR, MT, MB = 64, 20, 36, 56
PALETTE = ("#2563eb", "#16a34a", "#dc2626", "#9333ea", "#ea580c", "#0891b2", "#4d7c0f", "#be185d")
_FONT = "font-family='system-ui, sans-serif'"


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _fmt(x: float) -> str:
    if x == 0:
        return "0"
    if abs(x) >= 1000 or x == int(x):
        return f"{x:,.0f}"
    return f"{x:.3g}"


def nice_ticks(lo: float, hi: float, n: int = 5) -> list[float]:
    """Round tick values covering [lo, hi]."""
    if not math.isfinite(lo) or not math.isfinite(hi):
        return [0.0]
    if hi <= lo:
        hi = lo + (abs(lo) or 1.0)
    raw = (hi - lo) / max(1, n)
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    start = math.floor(lo / step) * step
    ticks = [round(start, 10)]
    while ticks[-1] < hi - step * 1e-9 or len(ticks) < 2:
        ticks.append(round(ticks[-1] + step, 10))
    return ticks


def _frame(title: str, body: list[str], *, label: str) -> str:
    return (
        f"<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 {W} {H}' role='img' "
        f"aria-label='{_e(label)}' class='chart' {_FONT}>"
        f"<title>{_e(label)}</title>"
        f"<rect x='0' y='0' width='{W}' height='{H}' fill='#ffffff'/>"
        f"<text x='{ML}' y='22' font-size='15' font-weight='600' fill='#111827'>{_e(title)}</text>"
        + "".join(body)
        + "</svg>"
    )


def _y_axis(ticks: list[float], y: object, y_label: str) -> list[str]:
    out = []
    for t in ticks:
        py = y(t)  # type: ignore[operator]
        out.append(
            f"<line x1='{ML}' x2='{W - MR}' y1='{py:.1f}' y2='{py:.1f}' stroke='#e5e7eb'/>"
            f"<text x='{ML - 6}' y='{py + 4:.1f}' font-size='11' text-anchor='end' "
            f"fill='#374151'>{_e(_fmt(t))}</text>"
        )
    if y_label:
        out.append(
            f"<text transform='translate(14 {MT + (H - MT - MB) / 2}) rotate(-90)' font-size='12' "
            f"text-anchor='middle' fill='#374151'>{_e(y_label)}</text>"
        )
    return out


def _empty(title: str, message: str) -> str:
    return _frame(
        title,
        [
            f"<text x='{W / 2}' y='{H / 2}' font-size='14' text-anchor='middle' fill='#6b7280'>"
            f"{_e(message)}</text>"
        ],
        label=f"{title}: {message}",
    )


def line_chart(
    points: Sequence[tuple[dt.datetime, float]],
    *,
    title: str,
    y_label: str = "",
    bands: Sequence[tuple[dt.datetime, dt.datetime, str]] = (),
) -> str:
    """Values over time, with shaded intervals (encounters) behind them.

    Args:
        points: (time, value), any order.
        title: chart title.
        y_label: axis label (name and unit).
        bands: (start, end, kind) intervals drawn as shaded columns, coloured by kind.
    """
    if not points:
        return _empty(title, "no values recorded")
    pts = sorted(points)
    times = [p[0] for p in pts] + [b[0] for b in bands] + [b[1] for b in bands]
    t0, t1 = min(times), max(times)
    span = (t1 - t0).total_seconds() or 86400.0
    t0 -= dt.timedelta(seconds=span * 0.02)
    t1 += dt.timedelta(seconds=span * 0.02)
    span = (t1 - t0).total_seconds()
    vals = [p[1] for p in pts]
    ticks = nice_ticks(min(vals), max(vals))
    lo, hi = ticks[0], ticks[-1]
    pw, ph = W - ML - MR, H - MT - MB

    def x(t: dt.datetime) -> float:
        return ML + pw * (t - t0).total_seconds() / span

    def y(v: float) -> float:
        return MT + ph * (1 - (v - lo) / ((hi - lo) or 1))

    body: list[str] = []
    kinds = sorted({b[2] for b in bands})
    band_colour = {
        k: ("#fde68a", "#bfdbfe", "#fecaca", "#d9f99d", "#e9d5ff")[i % 5]
        for i, k in enumerate(kinds)
    }
    for start, end, kind in bands:
        x0, x1 = x(start), x(max(end, start))
        body.append(
            f"<rect class='band' x='{x0:.1f}' y='{MT}' width='{max(2.0, x1 - x0):.1f}' height='{ph}' "
            f"fill='{band_colour[kind]}' opacity='0.55'><title>{_e(kind)} "
            f"{_e(start.date().isoformat())} – {_e(end.date().isoformat())}</title></rect>"
        )
    body += _y_axis(ticks, y, y_label)
    # x ticks: years or months
    years = range(t0.year, t1.year + 1)
    step = max(1, math.ceil(len(years) / 8))
    if len(years) > 1:
        for yr in list(years)[::step]:
            tx = dt.datetime(yr, 1, 1)
            if t0 <= tx <= t1:
                body.append(
                    f"<line x1='{x(tx):.1f}' x2='{x(tx):.1f}' y1='{H - MB}' y2='{H - MB + 5}' stroke='#6b7280'/>"
                    f"<text x='{x(tx):.1f}' y='{H - MB + 18}' font-size='11' text-anchor='middle' fill='#374151'>{yr}</text>"
                )
    else:
        for frac in (0.0, 0.5, 1.0):
            tx = t0 + dt.timedelta(seconds=span * frac)
            body.append(
                f"<text x='{x(tx):.1f}' y='{H - MB + 18}' font-size='11' text-anchor='middle' "
                f"fill='#374151'>{_e(tx.date().isoformat())}</text>"
            )
    body.append(f"<line x1='{ML}' x2='{W - MR}' y1='{H - MB}' y2='{H - MB}' stroke='#6b7280'/>")
    path = " ".join(
        f"{'M' if i == 0 else 'L'}{x(t):.1f},{y(v):.1f}" for i, (t, v) in enumerate(pts)
    )
    body.append(f"<path d='{path}' fill='none' stroke='{PALETTE[0]}' stroke-width='1.8'/>")
    for t, v in pts[:2000]:
        body.append(
            f"<circle class='point' cx='{x(t):.1f}' cy='{y(v):.1f}' r='2.8' fill='{PALETTE[0]}'>"
            f"<title>{_e(t.date().isoformat())}: {_e(_fmt(v))}</title></circle>"
        )
    lx = ML
    for k in kinds:
        body.append(
            f"<rect x='{lx}' y='{H - 22}' width='12' height='12' fill='{band_colour[k]}'/>"
            f"<text x='{lx + 16}' y='{H - 12}' font-size='11' fill='#374151'>{_e(k)} encounter</text>"
        )
        lx += 30 + 7 * len(k) + 70
    return _frame(title, body, label=f"{title}: {len(pts)} values")


def bar_chart(
    labels: Sequence[str], values: Sequence[float], *, title: str, y_label: str = ""
) -> str:
    """One bar per label (groups, or calendar periods in order)."""
    if not labels:
        return _empty(title, "no rows")
    ticks = nice_ticks(min(0.0, *values), max(0.0, *values))
    lo, hi = ticks[0], ticks[-1]
    pw, ph = W - ML - MR, H - MT - MB

    def y(v: float) -> float:
        return MT + ph * (1 - (v - lo) / ((hi - lo) or 1))

    body = _y_axis(ticks, y, y_label)
    n = len(labels)
    slot = pw / n
    bw = max(1.0, min(60.0, slot * 0.7))
    every = max(1, math.ceil(n / 16))
    for i, (lab, v) in enumerate(zip(labels, values, strict=True)):
        cx = ML + slot * (i + 0.5)
        top, base = y(max(v, 0.0)), y(min(v, 0.0))
        colour = PALETTE[0] if n > 8 else PALETTE[i % len(PALETTE)]
        body.append(
            f"<rect class='bar' x='{cx - bw / 2:.1f}' y='{top:.1f}' width='{bw:.1f}' "
            f"height='{max(0.5, base - top):.1f}' fill='{colour}'><title>{_e(lab)}: {_e(_fmt(v))}</title></rect>"
        )
        if n <= 12:
            body.append(
                f"<text x='{cx:.1f}' y='{top - 4:.1f}' font-size='11' text-anchor='middle' fill='#111827'>{_e(_fmt(v))}</text>"
            )
        if i % every == 0:
            body.append(
                f"<text x='{cx:.1f}' y='{H - MB + 16}' font-size='11' text-anchor='middle' "
                f"fill='#374151'>{_e(str(lab)[:18])}</text>"
            )
    body.append(f"<line x1='{ML}' x2='{W - MR}' y1='{y(0):.1f}' y2='{y(0):.1f}' stroke='#6b7280'/>")
    return _frame(title, body, label=f"{title}: {n} bars")


def box_chart(groups: Mapping[str, Sequence[float]], *, title: str, y_label: str = "") -> str:
    """Box plots (median, quartiles, 1.5 IQR whiskers, outliers) per group."""
    groups = {k: sorted(v) for k, v in groups.items() if v}
    if not groups:
        return _empty(title, "no values recorded")
    allv = [v for vs in groups.values() for v in vs]
    ticks = nice_ticks(min(allv), max(allv))
    lo, hi = ticks[0], ticks[-1]
    pw, ph = W - ML - MR, H - MT - MB

    def y(v: float) -> float:
        return MT + ph * (1 - (v - lo) / ((hi - lo) or 1))

    body = _y_axis(ticks, y, y_label)
    slot = pw / len(groups)
    bw = min(80.0, slot * 0.5)
    for i, (name, vs) in enumerate(groups.items()):
        cx = ML + slot * (i + 0.5)
        if len(vs) >= 2:
            q1, med, q3 = statistics.quantiles(vs, n=4, method="inclusive")
        else:
            q1 = med = q3 = vs[0]
        iqr = q3 - q1
        inside = [v for v in vs if q1 - 1.5 * iqr <= v <= q3 + 1.5 * iqr] or vs
        wlo, whi = inside[0], inside[-1]
        colour = PALETTE[i % len(PALETTE)]
        body.append(
            f"<g class='box'><title>{_e(name)}: n={len(vs)}, median {_e(_fmt(med))}, "
            f"IQR {_e(_fmt(q1))}–{_e(_fmt(q3))}</title>"
            f"<line x1='{cx:.1f}' x2='{cx:.1f}' y1='{y(whi):.1f}' y2='{y(wlo):.1f}' stroke='#374151'/>"
            f"<line x1='{cx - bw / 4:.1f}' x2='{cx + bw / 4:.1f}' y1='{y(whi):.1f}' y2='{y(whi):.1f}' stroke='#374151'/>"
            f"<line x1='{cx - bw / 4:.1f}' x2='{cx + bw / 4:.1f}' y1='{y(wlo):.1f}' y2='{y(wlo):.1f}' stroke='#374151'/>"
            f"<rect x='{cx - bw / 2:.1f}' y='{y(q3):.1f}' width='{bw:.1f}' height='{max(1.0, y(q1) - y(q3)):.1f}' "
            f"fill='{colour}' fill-opacity='0.35' stroke='{colour}'/>"
            f"<line x1='{cx - bw / 2:.1f}' x2='{cx + bw / 2:.1f}' y1='{y(med):.1f}' y2='{y(med):.1f}' stroke='{colour}' stroke-width='2.5'/>"
            "</g>"
        )
        for v in vs:
            if v < wlo or v > whi:
                body.append(f"<circle cx='{cx:.1f}' cy='{y(v):.1f}' r='2' fill='{colour}'/>")
        body.append(
            f"<text x='{cx:.1f}' y='{H - MB + 16}' font-size='11' text-anchor='middle' fill='#374151'>"
            f"{_e(name[:18])} (n={len(vs)})</text>"
        )
    return _frame(title, body, label=f"{title}: {len(groups)} groups")
