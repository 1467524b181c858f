"""Type-checked readers of FHIR JSON values: strings, numbers, dateTimes, codes, references, value[x].

Each reader raises :class:`FieldError` naming the field when a value has the wrong type or form.
"""

from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from clinbridge.errors import FieldError

__all__ = [
    "Coded",
    "Context",
    "FieldError",
    "Period",
    "Quantity",
    "Row",
    "Rows",
    "Value",
    "clean_display",
    "parse_datetime",
]

Row = tuple[Any, ...]
"""One table row, in the column order of :data:`.schema.TABLES` (built by name in :mod:`.flatten`)."""
Rows = list[tuple[str, Row]]


class Coded(NamedTuple):
    """A Coding, or the chosen coding of a CodeableConcept (display falls back to its text)."""

    code_system: str | None
    code: str | None
    display: str | None


class Quantity(NamedTuple):
    """A FHIR Quantity (or Duration, Age...): ``unit`` is the human unit, ``code`` UCUM's."""

    value: float | None
    comparator: str | None
    unit: str | None
    code: str | None
    system: str | None


class Period(NamedTuple):
    """A FHIR Period: each end as local wall-clock time and as the verbatim text."""

    start: str | None
    start_text: str | None
    end: str | None
    end_text: str | None


class Value(NamedTuple):
    """value[x] of any kind as the value columns of ``fhir_observation`` (same names)."""

    value_type: str | None = None
    value_num: float | None = None
    value_comparator: str | None = None
    unit: str | None = None
    unit_code: str | None = None
    unit_system: str | None = None
    value_code_system: str | None = None
    value_code: str | None = None
    value_text: str | None = None
    value_high: float | None = None


@dataclass
class Context:
    """What flattening needs besides the resource: reference map and the code dictionary."""

    refmap: dict[str, str] = field(default_factory=dict)
    """fullUrl (urn:uuid:..., absolute URL) → 'Type/id' for the current bundle."""
    codes: dict[tuple[str, str], str | None] = field(default_factory=dict)
    """(system, code) → cleaned display, every code seen."""


_ZW = re.compile("[\u200b\u200c\u200d\u2060\ufeff\u00ad]")
_WS = re.compile(r"\s+")


_CLEAN: dict[str, str] = {}


def clean_display(text: str | None) -> str | None:
    """Remove zero-width characters (Synthea has some) and collapse whitespace."""
    if text is None:
        return None
    done = _CLEAN.get(text)
    if done is not None:
        return done
    out = text
    if _ZW.search(out):
        out = _ZW.sub("", out)
    if "  " in out or "\n" in out or "\t" in out:
        out = _WS.sub(" ", out)
    out = out.strip()
    if len(_CLEAN) < 200_000 and len(text) < 300:
        _CLEAN[text] = out
    return out


_DT_RE = re.compile(
    r"(\d{4})(?:-(\d{2})(?:-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?)?)?)?$"
)


_DT_DONE: dict[str, str] = {}
"""Valid dateTime text → its local wall-clock form (Synthea repeats an encounter's time often)."""


def parse_datetime(value: Any, fld: str) -> tuple[str | None, str | None]:
    """FHIR date/dateTime/instant → (local wall-clock 'YYYY-MM-DD HH:MM:SS', verbatim text).

    Partial dates ('1987', '1987-11') map to their first day; the text keeps the precision
    and the offset, so nothing is lost.
    """
    if value is None:
        return None, None
    if type(value) is str:
        done = _DT_DONE.get(value)
        if done is not None:
            return done, value
    if not isinstance(value, str):
        raise FieldError(
            fld, f"expected a FHIR dateTime string, got {type(value).__name__} {value!r}"
        )
    if _DT_RE.match(value) is None:
        raise FieldError(fld, f"not a FHIR dateTime: {value!r}")
    n = len(value)
    if n >= 19 and value[16] == ":":
        local = f"{value[:10]} {value[11:19]}"
    elif n == 10:
        local = value + " 00:00:00"
    elif n == 7:
        local = value + "-01 00:00:00"
    elif n == 4:
        local = value + "-01-01 00:00:00"
    else:  # hh:mm without seconds
        local = f"{value[:10]} {value[11:16]}:00"
    try:
        _dt.datetime.fromisoformat(local)
    except ValueError:
        raise FieldError(fld, f"date/time out of range: {value!r}") from None
    if type(value) is str:
        if len(_DT_DONE) >= 20_000:
            _DT_DONE.clear()
        _DT_DONE[value] = local
    return local, value


def _date(value: Any, fld: str) -> tuple[str | None, str | None]:
    ts, text = parse_datetime(value, fld)
    return (ts[:10] if ts else None), text


def _s(obj: Any, fld: str) -> str | None:
    if obj is None or isinstance(obj, str):
        return obj
    raise FieldError(fld, f"expected a string, got {type(obj).__name__} {obj!r}")


def _num(obj: Any, fld: str) -> float | None:
    if obj is None:
        return None
    if isinstance(obj, bool) or not isinstance(obj, int | float):
        raise FieldError(fld, f"expected a number, got {type(obj).__name__} {obj!r}")
    return float(obj)


def _bool(obj: Any, fld: str) -> bool | None:
    if obj is None or isinstance(obj, bool):
        return obj
    raise FieldError(fld, f"expected a boolean, got {type(obj).__name__} {obj!r}")


def _obj(obj: Any, fld: str) -> dict[str, Any]:
    if obj is None:
        return {}
    if isinstance(obj, dict):
        return obj
    raise FieldError(fld, f"expected an object, got {type(obj).__name__} {obj!r}")


def _list(obj: Any, fld: str) -> list[Any]:
    if obj is None:
        return []
    if isinstance(obj, list):
        return obj
    raise FieldError(fld, f"expected an array, got {type(obj).__name__}")


def _first(obj: Any, fld: str) -> dict[str, Any]:
    items = _list(obj, fld)
    return _obj(items[0], f"{fld}[0]") if items else {}


_NONE3 = Coded(None, None, None)


def _at(fld: str, i: int) -> str:
    return fld if i < 0 else f"{fld}.coding[{i}]"


def _coding(c: Any, fld: str, ctx: Context, i: int = -1) -> Coded:
    """Coding → its system, code and display; ``i`` >= 0: the i-th coding of the concept ``fld``.

    Field names are built only for an error: this runs for every code of every resource.
    """
    if type(c) is not dict:
        if c is None:
            return _NONE3
        c = _obj(c, _at(fld, i))
    system, code, display = c.get("system"), c.get("code"), c.get("display")
    if type(system) is not str and system is not None:
        _s(system, f"{_at(fld, i)}.system")
    if type(code) is not str and code is not None:
        _s(code, f"{_at(fld, i)}.code")
    if display is not None:
        if type(display) is not str:
            _s(display, f"{_at(fld, i)}.display")
        done = _CLEAN.get(display)
        display = done if done is not None else clean_display(display)
    if code is not None:
        key = (system or "", code)
        codes = ctx.codes
        if display or key not in codes:
            codes[key] = display
    return Coded(system, code, display)


def _cc(obj: Any, fld: str, ctx: Context, prefer: str | None = None) -> Coded:
    """CodeableConcept → system, code and display of its first coding (or the preferred system).

    Every coding is registered in the code dictionary; the display falls back to ``text``.
    """
    if obj is None:
        return _NONE3
    cc = obj if type(obj) is dict else _obj(obj, fld)
    if not cc:
        return _NONE3
    best = _NONE3
    coding = cc.get("coding")
    if coding is not None:
        if type(coding) is not list:
            coding = _list(coding, f"{fld}.coding")
        for i, c in enumerate(coding):
            got = _coding(c, fld, ctx, i)
            if best.code is None or (
                prefer is not None and got.code_system == prefer and best.code_system != prefer
            ):
                best = got
    text = cc.get("text")
    if text is not None:
        if type(text) is not str:
            _s(text, f"{fld}.text")
        done = _CLEAN.get(text)
        text = done if done is not None else clean_display(text)
    return Coded(best.code_system, best.code, best.display or text)


def _cc_code(obj: Any, fld: str, ctx: Context) -> str | None:
    return _cc(obj, fld, ctx).code


_REF_PARSED: dict[str, tuple[str, str]] = {}
"""'Type/id' reference text → (type, id): the same patient/encounter is referenced many times."""


def _ref(obj: Any, fld: str, ctx: Context, expected: str | None = None) -> str | None:
    """Reference → target id (``urn:uuid:`` through the bundle's fullUrls, or ``Type/id``)."""
    if obj is None:
        return None
    r = (obj if type(obj) is dict else _obj(obj, fld)).get("reference")
    if r is None:
        return None
    if type(r) is not str and not isinstance(r, str):
        raise FieldError(f"{fld}.reference", f"expected a string, got {type(r).__name__}")
    rtype: str | None
    parsed = _REF_PARSED.get(r)
    target = ctx.refmap.get(r) if ctx.refmap else None
    if parsed is not None and target is None:  # a plain 'Type/id' seen before
        rtype, rid = parsed
    elif target is not None:
        rtype, _, rid = target.partition("/")
    elif r.startswith("urn:uuid:"):
        rtype, rid = expected, r[9:]
    elif r.startswith("#"):
        return r
    elif "?" in r:
        if expected is None:
            return r
        raise FieldError(
            f"{fld}.reference", f"conditional reference {r!r} cannot be resolved to an id"
        )
    else:
        if parsed is None:
            parts = r.rstrip("/").split("/")
            if "_history" in parts:
                parts = parts[: parts.index("_history")]
            if len(parts) < 2:
                raise FieldError(f"{fld}.reference", f"not a FHIR reference: {r!r}")
            parsed = parts[-2], parts[-1]
            if len(_REF_PARSED) >= 50_000:
                _REF_PARSED.clear()
            _REF_PARSED[r] = parsed
        rtype, rid = parsed
    if expected is not None and rtype is not None and rtype != expected:
        raise FieldError(f"{fld}.reference", f"expected a reference to {expected}, got {r!r}")
    return rid


def _ref_text(obj: Any, fld: str) -> str | None:
    o = _obj(obj, fld)
    return _s(o.get("reference"), f"{fld}.reference") or _s(o.get("display"), f"{fld}.display")


def _patient(r: dict[str, Any], ctx: Context, key: str = "subject") -> str:
    pid = _ref(r.get(key), key, ctx, "Patient")
    if pid is None:
        raise FieldError(key, "missing patient reference")
    return pid


def _encounter(r: dict[str, Any], ctx: Context, key: str = "encounter") -> str | None:
    return _ref(r.get(key), key, ctx, "Encounter")


def _period(obj: Any, fld: str) -> Period:
    p = _obj(obj, fld)
    return Period(
        *parse_datetime(p.get("start"), f"{fld}.start"),
        *parse_datetime(p.get("end"), f"{fld}.end"),
    )


def _ext(r: dict[str, Any], url_suffix: str) -> dict[str, Any] | None:
    for e in _list(r.get("extension"), "extension"):
        if isinstance(e, dict) and isinstance(e.get("url"), str) and e["url"].endswith(url_suffix):
            return e
    return None


_VALUE_KINDS = (
    "valueQuantity",
    "valueCodeableConcept",
    "valueString",
    "valueBoolean",
    "valueInteger",
    "valueRange",
    "valueRatio",
    "valueSampledData",
    "valueTime",
    "valueDateTime",
    "valuePeriod",
)

_NO_VALUE = Value()


def _quantity(q: Any, fld: str) -> Quantity:
    if type(q) is dict:
        value, comp, unit, code, system = (
            q.get("value"),
            q.get("comparator"),
            q.get("unit"),
            q.get("code"),
            q.get("system"),
        )
        if (
            (type(value) is float or type(value) is int)
            and (comp is None or type(comp) is str)
            and (unit is None or type(unit) is str)
            and (code is None or type(code) is str)
            and (system is None or type(system) is str)
        ):
            return Quantity(float(value), comp, unit, code, system)
    q = _obj(q, fld)
    return Quantity(
        _num(q.get("value"), f"{fld}.value"),
        _s(q.get("comparator"), f"{fld}.comparator"),
        _s(q.get("unit"), f"{fld}.unit"),
        _s(q.get("code"), f"{fld}.code"),
        _s(q.get("system"), f"{fld}.system"),
    )


def _numtext(v: float | None) -> str:
    if v is None:
        return ""
    text = repr(v)
    return text[:-2] if text.endswith(".0") else text


def _value(r: dict[str, Any], prefix: str, ctx: Context) -> Value:
    """value[x] of every kind → the value columns."""
    for kind in _VALUE_KINDS:
        if kind not in r:
            continue
        v = r[kind]
        fld = f"{prefix}{kind}"
        if kind == "valueQuantity":
            q = _quantity(v, fld)
            return Value(
                "Quantity",
                q.value,
                q.comparator,
                unit=q.unit or q.code,
                unit_code=q.code,
                unit_system=q.system,
            )
        if kind == "valueCodeableConcept":
            s, c, d = _cc(v, fld, ctx)
            return Value("CodeableConcept", value_code_system=s, value_code=c, value_text=d or c)
        if kind == "valueInteger":
            if isinstance(v, bool) or not isinstance(v, int):
                raise FieldError(fld, f"expected an integer, got {type(v).__name__} {v!r}")
            return Value("integer", float(v), value_text=str(v))
        if kind == "valueBoolean":
            return Value("boolean", value_text="true" if _bool(v, fld) else "false")
        if kind in ("valueString", "valueTime"):
            return Value(kind[5:].lower(), value_text=_s(v, fld))
        if kind == "valueDateTime":
            parse_datetime(v, fld)
            return Value("dateTime", value_text=v)
        if kind == "valuePeriod":
            p = _period(v, fld)
            return Value("Period", value_text=f"{p.start_text or ''}/{p.end_text or ''}")
        if kind == "valueRange":
            rng = _obj(v, fld)
            lo = _quantity(rng.get("low"), f"{fld}.low")
            hi = _quantity(rng.get("high"), f"{fld}.high")
            return Value(
                "Range",
                lo.value,
                unit=lo.unit or lo.code or hi.unit or hi.code,
                unit_code=lo.code or hi.code,
                unit_system=lo.system or hi.system,
                value_text=f"{_numtext(lo.value)}-{_numtext(hi.value)}",
                value_high=hi.value,
            )
        if kind == "valueRatio":
            rat = _obj(v, fld)
            nu = _quantity(rat.get("numerator"), f"{fld}.numerator").value
            de = _quantity(rat.get("denominator"), f"{fld}.denominator").value
            return Value(
                "Ratio",
                nu / de if nu is not None and de else None,
                value_text=f"{_numtext(nu)}/{_numtext(de)}",
            )
        sd = _obj(v, fld)
        return Value("SampledData", value_text=_s(sd.get("data"), f"{fld}.data"))
    return _NO_VALUE
