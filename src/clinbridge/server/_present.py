"""Turn engine results into what the page shows: predicates, alternatives, a chart, cited notes.

Reads answers defensively (``getattr``/``dict.get``) so that fields added by other parts of the
engine (``alternatives``, note citations) appear when present and are skipped when not.
"""

from __future__ import annotations

from typing import Any

from clinbridge.server import _svg

__all__ = ["alternatives", "answer_plot", "citations", "plan_predicates", "plan_sentence"]

_NOUN = {
    "condition": "diagnosis",
    "drug": "drug",
    "measurement": "measurement",
    "procedure": "procedure",
    "observation": "observation",
    "note": "note",
    "vital": "vital sign",
    "device": "device",
}
_OPS = {">": "above", ">=": "at least", "<": "below", "<=": "at most", "=": "equal to"}


def plan_sentence(plan: dict[str, Any] | None, label: Any = None) -> str | None:
    """The engine's own English reading of a plan (``describe_plan``), or None."""
    if not plan:
        return None
    from clinbridge.engine.examples import describe_plan
    from clinbridge.engine.plan import QueryPlan

    try:
        return describe_plan(QueryPlan.model_validate(plan), label=label)
    except Exception:  # an unusual plan still shows its predicates
        return None


def _concepts(cs: Any) -> str:
    if not isinstance(cs, dict):
        return str(cs)
    names = [
        str(c.get("name") or c.get("concept_id") or c.get("code") or c)
        for c in cs.get("concepts") or ()
        if isinstance(c, dict)
    ]
    label = cs.get("label")
    text = label or ", ".join(names[:5]) or "any concept"
    if label and names:
        text += f" ({', '.join(names[:5])}{' …' if len(names) > 5 else ''})"
    if cs.get("include_descendants"):
        text += " and its descendants"
    return str(text)


def _value(v: Any) -> str:
    if not isinstance(v, dict):
        return ""
    op = _OPS.get(str(v.get("op")), str(v.get("op", "")))
    unit = f" {v['unit']}" if v.get("unit") else ""
    return f" with a value {op} {v.get('value')}{unit}"


def _window(w: Any) -> str:
    if not isinstance(w, dict):
        return ""
    kind = w.get("kind")
    if kind == "calendar":
        return f"between {w.get('start') or 'the start'} and {w.get('end') or 'now'}"
    if kind == "relative":
        days = w.get("days") or w.get("length_days")
        return f"within {days} days" + (f" of {w['anchor']}" if w.get("anchor") else "")
    return ", ".join(f"{k} {v}" for k, v in w.items() if v not in (None, [], {}, ()))


def _filter(f: dict[str, Any]) -> str:
    kind = f.get("kind")
    neg = "no " if f.get("negate") else ""
    if kind == "event":
        noun = _NOUN.get(str(f.get("stream")), str(f.get("stream")))
        text = f"had {neg}{noun} of {_concepts(f.get('concepts'))}{_value(f.get('value'))}"
        if (f.get("min_count") or 1) > 1:
            text += f", at least {f['min_count']} times"
        if f.get("window"):
            text += f", {_window(f['window'])}"
        return text
    if kind == "sex":
        return f"sex is {f.get('sex')}"
    if kind == "age":
        parts = [
            f"{_OPS.get(k, k)} {f[k]}"
            for k in ("min", "max", "op", "value")
            if f.get(k) is not None and k != "op"
        ]
        return "age " + (" and ".join(parts) if parts else str(f))
    if kind == "encounter":
        return f"had {neg}{f.get('encounter_type') or 'a'} visit" + (
            f", {_window(f['window'])}" if f.get("window") else ""
        )
    rest = ", ".join(f"{k} {v}" for k, v in f.items() if k != "kind" and v not in (None, [], {}))
    return f"{kind}: {rest}"


def plan_predicates(plan: dict[str, Any] | None) -> list[str]:
    """The plan as a list of plain-language statements (who, what is measured, how, when)."""
    if not plan:
        return []
    out: list[str] = []
    if plan.get("patient_id"):
        out.append(f"patient is {plan['patient_id']}")
    out += [_filter(f) for f in plan.get("filters") or () if isinstance(f, dict)]
    m = plan.get("measure") or {}
    agg = plan.get("aggregate") or {}
    what = str(m.get("of") or "patients")
    if m.get("stream"):
        what += f" of {_NOUN.get(str(m['stream']), m['stream'])}"
    if m.get("concepts"):
        what += f" {_concepts(m['concepts'])}"
    out.append(f"answer: {agg.get('op', 'count')} of {what}")
    if plan.get("scope"):
        out.append(f"within encounters: {_window(plan['scope'])}")
    if plan.get("window"):
        out.append(f"time window: {_window(plan['window'])}")
    if plan.get("group_by"):
        keys = [str(g.get("key")) for g in plan["group_by"] if isinstance(g, dict)]
        out.append("grouped by " + " and ".join(keys))
    if plan.get("now"):
        out.append(f"'now' is {plan['now']}")
    return out


def alternatives(answer: Any) -> list[dict[str, Any]]:
    """The other readings of an ambiguous question, as {description, plan, value}."""
    raw = getattr(answer, "alternatives", None)
    if raw is None and isinstance(answer, dict):
        raw = answer.get("alternatives")
    out = []
    for alt in raw or ():
        get = alt.get if isinstance(alt, dict) else (lambda k, a=alt: getattr(a, k, None))
        plan = get("plan")
        if plan is not None and hasattr(plan, "model_dump"):
            plan = plan.model_dump(mode="json")
        out.append(
            {
                "description": str(get("description") or plan_sentence(plan) or "another reading"),
                "plan": plan,
                "value": get("value"),
                "decision": get("decision") or "accept",
                "reason": get("reason"),
            }
        )
    return out


def citations(details: dict[str, Any]) -> list[dict[str, Any]]:
    """Note chunks an answer cites (whatever key the notes path uses), as dicts with 'text'."""
    for key in ("citations", "cited_chunks", "note_chunks", "chunks", "notes"):
        items = details.get(key)
        if isinstance(items, list) and items:
            out = []
            for it in items:
                if isinstance(it, dict):
                    out.append(it)
                elif isinstance(it, str):
                    out.append({"text": it})
            return out
    return []


def _num(v: Any) -> float | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, int | float):
        return float(v)
    return None


_TIME_COLS = {"year", "month", "period", "quarter", "date", "day", "week"}


def answer_plot(columns: list[str], rows: list[list[Any]], *, title: str) -> str | None:
    """A bar chart of a grouped answer (groups, or counts over calendar time), else None."""
    if not columns or not rows or len(rows) > 400 or len(columns) < 2:
        return None
    value_idx = next(
        (
            i
            for i in range(len(columns) - 1, -1, -1)
            if all(_num(r[i]) is not None or r[i] is None for r in rows)
        ),
        None,
    )
    if value_idx is None:
        return None
    key_idx = [i for i in range(len(columns)) if i != value_idx]
    labels = [" / ".join("—" if r[i] is None else str(r[i]) for i in key_idx) for r in rows]
    values = [_num(r[value_idx]) or 0.0 for r in rows]
    timed = any(columns[i].lower() in _TIME_COLS for i in key_idx)
    if timed:
        pairs = sorted(zip(labels, values, strict=True))
        labels, values = [p[0] for p in pairs], [p[1] for p in pairs]
        title = f"{title} — over calendar time"
    return _svg.bar_chart(labels[:120], values[:120], title=title, y_label=columns[value_idx])
