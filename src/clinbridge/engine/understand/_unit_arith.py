"""A conversion written as arithmetic on the stored unit: 'g/dL x 10', 'kg x 2.20462', '(g/dL)
* 10 < 38', '(mg/dL) ..., divided by 38.67', 'mg/dL / 4.008 -> mmol/L'.

A data manager says the unit wanted by the sum that turns the stored one into it. The engine
converts by its own factors (``engine/_units``, an analyte's from ``engine/_analytes``), so the
sum is read as the unit it leads to — only when the question names exactly one unit the engine
converts and one unit of that unit's family is that many times it (within 1 %); the unit named
after an arrow ('-> mmol/L') must be that unit. A threshold right after the sum ('times 10 below
130') is then in the new unit ('below 130 g/L'); with none, the value is asked in it ('in g/L').
A factor that leads to no unit, or to another than the one named, is left for the readers (who
name it), or abstains naming both.
"""

from __future__ import annotations

import re

from clinbridge.engine._analytes import analyte_in
from clinbridge.engine._units import unit_factor, unit_spellings

__all__ = ["unit_arithmetic"]

_OP = (
    r"(?P<op>x|\*|×|times|multiplied\s+by|divided\s+by|/)\s*(?P<f>\d+(?:\.\d+)?)(?![\d.])"
    r"(?:\s*(?:->|→|to|into)\s*(?P<to>[a-zµ][a-zµ0-9/^\[\]_]*))?"
)
_SUM = re.compile(
    r"(?P<pre>,?\s*(?:then\s+)?(?:\(\s*(?P<u>[a-zµ][a-zµ0-9/^\[\]_]*)\s*\)\s*|(?P<u2>[a-zµ][a-zµ0-9/^\[\]_]*)\s+)?"
    r"(?:value(?:_as_number|_num)?\s+|values\s+)?)" + _OP + r"(?=\s|$|[,;?)])",
    re.I,
)
_UNIT_TOKEN = re.compile(r"(?<![\w/])([a-zµ][a-zµ0-9/^\[\]_]*)(?![\w/])", re.I)
_COMPARE = re.compile(
    r"^\s*(?P<cmp>(?:is\s+)?(?:below|under|above|over|less\s+than|more\s+than|greater\s+than|"
    r"at\s+least|at\s+most|exceeds|exceeding|[<>]=?|[≤≥])\s*)(?P<n>\d+(?:\.\d+)?)(?!\s*[a-zµ%])",
    re.I,
)


def _units_named(question: str, spellings: dict[str, str]) -> set[str]:
    """The engine-converted units the question writes (as the table's key of each)."""
    out = set()
    for m in _UNIT_TOKEN.finditer(question):
        tok = m[1].lower()
        if "/" in tok or tok in {"kg", "g", "lb", "lbs", "cm", "mm", "cel", "mg", "oz", "ft"}:
            key = spellings.get(tok)
            if key:
                out.add(key)
    return out


def unit_arithmetic(question: str) -> tuple[str, str | None]:
    """(the question with a conversion sum read as its unit, an abstention or None)."""
    m = _SUM.search(question)
    if m is None:
        return question, None
    analyte = analyte_in(question)
    spellings = unit_spellings(analyte)
    named = _units_named(question[: m.start("op")], spellings)
    if len(named) != 1:
        return question, None
    stored = named.pop()
    factor = float(m["f"])
    divide = m["op"].lower() in {"/", "divided by"} or m["op"].lower().startswith("divided")
    want = 1 / factor if divide else factor
    leads = sorted(
        {
            spellings[k]
            for k in spellings
            if spellings[k] != stored
            and (f := unit_factor(stored, spellings[k], analyte)) is not None
            and abs(f / want - 1) <= 0.01
        }
    )
    if m["to"]:
        to = spellings.get(m["to"].lower())
        if to is None:
            return question, None
        if to not in leads:
            known = unit_factor(stored, to, analyte)
            said = f"{stored} {m['op']} {m['f']}"
            return question, (
                f"{said} is not {m['to']}"
                + (f" (1 {stored} = {known:.4g} {m['to']})" if known else "")
                + "; say which to use"
            )
        leads = [to]
    if len(leads) != 1:
        return question, None
    target = leads[0]
    said = (m["u"] or m["u2"] or "").lower()
    head = (
        question[: m.start()]
        if not said or spellings.get(said) == stored
        else question[: m.start("op")]
    )
    rest = question[m.end() :]
    head = _UNIT_ALONE.sub(
        lambda u: "" if spellings.get((u["u"] or u["v"]).lower()) == stored else u[0], head
    )
    if c := _COMPARE.match(rest):
        rest = f" {c['cmp']}{c['n']} {target}{rest[c.end() :]}"
        return head + rest, None
    return f"{head} in {target}{rest}", None


# the stored unit written alone in parentheses ('(kg)', '(LOINC 718-7, g/dL)'): the sum after
# it replaces it
_UNIT_ALONE = re.compile(
    r"\s*\((?P<u>[a-zµ][a-zµ0-9/^\[\]_]*)\)|,\s*(?P<v>[a-zµ][a-zµ0-9/^_]*)(?=\s*\))", re.I
)
