"""Structural reading of a question: the words that say *what* to compute and *how to filter*.

A question is turned into an ordered list of pieces: plain text (concept phrases, still to be
grounded) and :class:`Slot` objects for everything structural — the aggregate, the subject,
time windows, encounter scope, ages, sexes, values with units, counts, negation, grouping.
Order is kept, so a window or a value can be attached to the phrase next to it.

The rules are data: :data:`RULES_BEFORE_AGE` and :data:`RULES` are tables of (regex, maker)
applied in order, each to the text the earlier rules left (like ``_time.PATTERNS``).
"""

from __future__ import annotations

import functools
import re
from typing import Any

from clinbridge.engine.understand import _time
from clinbridge.engine.understand._age_anchor import age_anchor
from clinbridge.engine.understand._age_at import mark_age_at_event
from clinbridge.engine.understand._aggregate_arith import RANGE_RULE
from clinbridge.engine.understand._asides import rewrite_asides
from clinbridge.engine.understand._calendar_spans import calendar_spans
from clinbridge.engine.understand._nth_event import mark_nth_events
from clinbridge.engine.understand._phrasing import plain_phrasing
from clinbridge.engine.understand._piece_passes import (
    patient_dates,
    split_between,
    total_before_amount,
)
from clinbridge.engine.understand._pieces import Maker, Piece, Slot, split_pieces
from clinbridge.engine.understand._rank_marks import mark_rank
from clinbridge.engine.understand._span import mark_span
from clinbridge.engine.understand._text import NUMBER_WORDS
from clinbridge.engine.understand._unread import UNREAD_DAYS, mark_unread

__all__ = ["Piece", "Slot", "extract"]


ENC_TYPE = (
    r"(?P<etype>inpatient|in-patient|emergency(?:\s+(?:room|department))?|er|ed|a&e|icu|intensive\s+care(?:\s+unit)?"
    r"|critical\s+care|outpatient|out-patient|ambulatory|clinic|office|hospital|other-class)"
)
ENC_NOUN = (
    r"(?P<noun>visits?|stays?|admissions?|encounters?|hospitali[sz]ations?|episodes\s+of\s+care)"
)
PERSON = r"(?:patients?|people|persons?|individuals?|subjects?|adults?|women|men|females?|males?|children|kids|cases|ones|those)"
UNITS = (
    r"(?P<unit>%|percent|mg/dl|g/dl|g/l|mmol/l|mmol/mol|umol/l|µmol/l|mg/l|ng/ml|pg/ml|u/l|iu/l|meq/l|"
    r"mmhg|bpm|beats\s+(?:per|a|/)\s+min(?:ute)?|beats/min|/min|kg/m2|kg/m\^2|kg|lbs?|pounds|grams|g|mg|mcg|ml|l|cm|mm|m|°c|°f|degrees|celsius|"
    r"fahrenheit|x10\^9/l|10\^9/l|x10\^3/ul|x10\^6/ul|10\^6/ul|10\^3/ul|k/ul|cells/ul|/ul|"
    r"breaths\s+(?:per|a|/)\s+min(?:ute)?|breaths/min|fl|ms|seconds|sec|points|inches|inch|feet|ft|c|f)"
)
COUNT_NOUN = (
    r"(?:times?|episodes?|occasions?|diagnos[ie]s|prescriptions?|exposures?|fills?|dispensings?|"
    r"records?|occurrences?|events?|measurements?|tests?|procedures?|visits?|admissions?|encounters?|"
    r"stays?|hospitali[sz]ations?|doses?|administrations?|orders?|results?|readings?|different\s+\w+)"
)

_PLURAL_EVENT = (
    r"(?!(?:days|weeks|months|years|yrs|hours|hrs|minutes|mins|seconds|patients|pts|people|persons|"
    r"kids|children|adults|women|men|females|males|subjects|individuals|units|points|beats|breaths|"
    r"cells|grams|kilograms|pounds|lbs|inches|feet|meters|centimeters|milliliters|liters|others|"
    r"diabetes|times|doses)\b)[a-z]{3,}s\b"
)

_OPS = {
    ">=": ">=",
    "<=": "<=",
    ">": ">",
    "<": "<",
    "=": "=",
    "above": ">",
    "over": ">",
    "greater than": ">",
    "more than": ">",
    "higher than": ">",
    "exceeding": ">",
    "in excess of": ">",
    "at least": ">=",
    "no less than": ">=",
    "greater than or equal to": ">=",
    "of at least": ">=",
    "below": "<",
    "under": "<",
    "less than": "<",
    "lower than": "<",
    "at most": "<=",
    "no more than": "<=",
    "less than or equal to": "<=",
    "equal to": "=",
    "of": "=",
    "exactly": "=",
    "older than": ">",
    "younger than": "<",
}
_OP_RE = (
    r"(?P<op>>=|<=|>|<|=|greater than or equal to|less than or equal to|greater than|more than|higher than|"
    r"in excess of|exceeding|of at least|at least|no less than|above|over|below|under|less than|lower than|"
    r"at most|no more than|equal to|exactly)"
)

_UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
# Units a reader may name on their own, to say what the answer is in: "(g/dL)", "in kg".
_UNIT_ALONE = (
    r"(?P<unit>%|percent|mg/dl|g/dl|g/l|mmol/l|mmol/mol|umol/l|µmol/l|mg/l|ng/ml|pg/ml|u/l|iu/l|"
    r"meq/l|mmhg|bpm|beats/min|/min|kg/m2|kg|lbs?|pounds|grams|mg|mcg|ml|cm|mm|°c|°f|celsius|"
    r"fahrenheit|x10\^9/l|10\^9/l|k/ul|/ul|kilograms|centimet(?:er|re)s|inches|beats\s+(?:per|a)\s+minute|"
    r"degrees\s+(?:celsius|fahrenheit|c|f)|deg\s+[cf]|cel|c|f)"
)


def _num(s: str) -> float:
    return float(s)


def _replace_number_words(text: str) -> str:
    text = calendar_spans(text)  # days as ISO dates, spans as 'between <day> and <day>'
    text = re.sub(r"\bmore than once\b", "at least 2 times", text)
    text = re.sub(r"\bone\s+(?=\d)", "", text)  # "had one 130+": a pronoun before a value
    # "at least one LDL of 130+": one is the default (ever), not a threshold
    text = re.sub(
        r"\bat\s+least\s+(?:one|1)\s+(?=[a-z])(?!(?:times?|days?|weeks?|months?|years?|mg|g/|mmol|%)\b)",
        "a ",
        text,
    )
    text = re.sub(r"\btwice\b", "2 times", text)
    text = re.sub(r"\b(?:exactly|only|just)\s+once\b", "exactly 1 times", text)
    text = re.sub(r"\b(?:at\s+least\s+)?once\b", " ", text)  # 'ever', the default
    text = re.sub(r"\b(a|an|one)\s+(day|week|month|year)\b", r"1 \2", text)
    words = "|".join(sorted(NUMBER_WORDS, key=len, reverse=True))
    return re.sub(rf"\b({words})\b(?!\s+of\b)", lambda m: str(NUMBER_WORDS[m[1]]), text)


def _unit_word(unit: str) -> str:
    if unit.startswith("beats"):
        return "bpm"
    unit = " ".join(unit.split())
    return {
        "percent": "%",
        "kilograms": "kg",
        "centimeters": "cm",
        "centimetres": "cm",
        "pounds": "lb",
        "c": "Cel",
        "cel": "Cel",
        "celsius": "Cel",
        "degrees celsius": "Cel",
        "degrees c": "Cel",
        "deg c": "Cel",
        "f": "[degF]",
        "fahrenheit": "[degF]",
        "degrees fahrenheit": "[degF]",
        "degrees f": "[degF]",
        "deg f": "[degF]",
        "feet": "ft",
        "inch": "inches",
    }.get(unit, unit)


def _group(m: re.Match[str]) -> Slot:
    key = m["key"]
    if key in {"sex", "gender"}:
        k = "sex"
    elif key.startswith("year"):
        k = "year"
    elif "age" in key or key.startswith("decade"):
        k = "age_group"
    elif "type" in key:
        k = "encounter_type"
    else:
        k = "concept"
    data: dict[str, Any] = {"key": k}
    if k == "concept":
        data["noun"] = key
    return Slot("group", data)


def _etype(word: str | None, noun: str | None = None) -> str | None:
    w = " ".join((word or "").split())
    if w in {"inpatient", "in-patient", "hospital"}:
        return "inpatient"
    if w.startswith("emergency") or w in {"er", "ed", "a&e"}:
        return "emergency"
    if w in {"icu", "critical care"} or w.startswith("intensive"):
        return "icu"
    if w in {
        "outpatient",
        "out-patient",
        "ambulatory",
        "clinic",
        "office",
    }:
        return "outpatient"
    if w == "other-class":
        return "other"
    n = (noun or "").lower()
    if n.startswith(("hospitali", "admission")):
        return "inpatient"
    return None


def _scope(m: re.Match[str]) -> Slot | None:
    which = m["which"]
    noun = m["noun"]
    etype = _etype(m["etype"], noun)
    if (
        which is None
        and m["etype"] is None
        and not noun.startswith(("hospitali", "admission", "stay"))
    ):
        return None  # "in visits" alone says nothing
    data: dict[str, Any] = {"type": etype}
    if which is None:
        data["which"] = "all"
    elif m["nth"] or which in {"second", "third", "fourth", "fifth"}:
        data["which"] = "nth"
        data["n"] = (
            int(m["nth"]) if m["nth"] else {"second": 2, "third": 3, "fourth": 4, "fifth": 5}[which]
        )
    elif which in {"first", "index", "initial"}:
        data["which"] = "first"
    elif which in {"current", "present", "ongoing", "this"}:
        data["which"] = "current"  # the encounter still open now
    else:
        data["which"] = "last"
    return Slot("scope", data)


def _window(kind: str, m: re.Match[str]) -> list[Piece] | Slot | None:
    spec = _time.match_to_spec(kind, m)
    if spec is None:
        return None
    slot = Slot("window", {"spec": spec}, m[0])
    noun = m.groupdict().get("noun")
    return [noun, slot] if noun else slot  # "exposures starting <day>": the noun stays


def _encounter(m: re.Match[str]) -> Slot:
    return Slot(
        "encounter", {"type": _etype(m["etype"], m["noun"]), "plural": m["noun"].endswith("s")}
    )


def _age_prep(m: re.Match[str]) -> Slot:
    op_word = " ".join(m["op"].split())
    more = m["more"] or ""
    if op_word == "at":
        op = (
            ">="
            if any(w in more for w in ("older", "more", "above", "over", "later"))
            else ("<=" if more else "=")
        )
    elif op_word in {"before", "under", "below", "prior to", "younger than"}:
        op = "<"
    else:
        op = ">"
    at_event = op_word in {"before", "after", "at", "prior to"}
    return Slot("age", {"op": op, "value": int(m["n"]), "at_event": at_event})


def _between(m: re.Match[str]) -> Slot:
    """'days from the first X to the first Y': days between two events (in days only)."""
    if {m["u"], m["u2"]} & {"weeks", "months", "years"}:
        return Slot(
            "unsupported", {"what": "the time between two events in weeks, months or years"}
        )
    return Slot("measure", {"of": "days_between"})


def _count(m: re.Match[str]) -> Slot:
    op = " ".join(m["op"].split())
    n = int(m["n"])
    if op in {"more than", "over", "greater than", ">"}:
        n += 1
    return Slot("count", {"min": n, "exact": op == "exactly"})


def _value(m: re.Match[str]) -> Slot | None:
    op = _OPS.get(" ".join(m["op"].split()))
    if op is None:
        return None
    unit = m["unit"]
    if unit in {"percent"}:
        unit = "%"
    return Slot("value", {"op": op, "value": _num(m["n"]), "unit": unit})


RawRule = tuple[str | re.Pattern[str], Maker]
Rule = tuple[re.Pattern[str], Maker]


def _compile(raw: tuple[RawRule, ...]) -> tuple[Rule, ...]:
    return tuple((re.compile(rx), make) for rx, make in raw)


# -- the rule table: (regex, maker), applied in order ------------------------------

_EARLY: tuple[RawRule, ...] = (
    # -- 'how long did they stay': a length of stay (before anything splits the sentence)
    (
        r"\bhow\s+(?:long|many\s+days)\s+(?:did|does|do|was|were|is|are|has|have)\b(?=.*\b(?:stay|stayed|stays|admitted|admission|admissions|hospitali[sz]ed|hospitali[sz]ation)\b)",
        lambda m: Slot("measure", {"of": "length_of_stay", "type": None, "how_long": True}),
    ),
    (
        r"\b(?:stay(?:ed)?|admitted)\s+(?:in|at)\s+(?:the\s+)?hospital\b",
        lambda m: Slot("encounter", {"type": "inpatient", "plural": False}),
    ),
    # -- subject: a patient named in the question
    (
        rf"\b(?:patient|person|subject|pt|mrn)(?:[\s_]*(?:id|identifier|number|no\.?|#))?\s*[#:=]?\s*(?P<id>{_UUID}|\d{{1,12}})\b",
        lambda m: Slot("patient_ref", {"id": m["id"]}),
    ),
    (  # an identifier on its own ("what is 5f1c...'s last creatinine")
        rf"\b(?P<id>{_UUID})\b",
        lambda m: Slot("patient_ref", {"id": m["id"]}),
    ),
    # -- a single calendar day: a one-day window; any other day (in a range, a two-digit
    # year) is not read yet: never dropped
    (_time.DAY_PATTERN, functools.partial(_window, "day")),
    # -- "(counting the exposure day as day 0)", "(day 0 = the exposure day)": the convention
    # the windows follow (days counted from the anchor's day), said aloud
    (
        r"\(\s*(?:counting\s+|taking\s+|with\s+)?(?:the\s+)?(?:[a-z]+\s+){0,2}day(?:\s+of(?:\s+[a-z]+){1,3}?)?\s+(?:counted\s+as|counts?\s+as|as|=|is|being)\s+"
        r"day\s+(?:0|zero)\s*\)|\(\s*day\s+(?:0|zero)\s*(?:=|is|being|as)\s+(?:the\s+)?(?:[a-z]+\s+){0,2}day\s*\)",
        lambda m: Slot("day0"),
    ),
    # -- "(discharge date minus admission date)": the length of stay as it is computed here
    (
        r"\(\s*(?:[a-z]+\s+){0,3}?(?:discharge|end)\b[^()]{0,30}?\bminus\b[^()]{0,20}?\b(?:admission|start)\b[^()]{0,40}\)",
        lambda m: Slot("los_definition"),
    ),
    # -- "the condition names", "the names of the drugs": a list of concepts is their names
    (
        r"\b(?P<noun>conditions?|diagnos[ie]s|drugs?|medications?|procedures?|measurements?|tests?|vaccines?|immunizations?|vaccinations?|allerg(?:y|ies))\s+names\b",
        lambda m: [m["noun"]],
    ),
    (r"\bthe\s+names\s+of\b", lambda m: [" "]),
    # -- "(any bone)", "(any type)", "(of any kind)": a clarification that widens, never a
    # filter — the concept before it is taken whole
    (
        r"\(\s*(?:of\s+|at\s+|in\s+)?any\s+(?!of\b)[a-z]+(?:\s+[a-z]+)?\s*\)",
        lambda m: [" "],
    ),
    # -- 'today', 'current', 'present-day' beside an age: the default (ages are taken now)
    (
        r"\b(?P<age>(?:aged?\s+)?\d{1,3}\s*(?:\+|(?:years?\s+)?(?:or|and)\s+(?:over|older|above|up|more|under|younger|below|less)))"
        r"\s+(?:today|now|currently|at\s+present)\b",
        lambda m: [m["age"]],
    ),
    (
        r"\b(?:current|present[- ]day|today\s*'?s?)\s+(?=(?:(?:mean|average|median|minimum|maximum)\s+)?ages?\b)",
        lambda m: [" "],
    ),
    # 'age today?', 'how old, in completed years, today, is the oldest person': the age now
    (r"\b(?P<age>ages?)\s*,?\s+(?:today|now|currently|at\s+present)\b", lambda m: [m["age"]]),
    (
        r"\b(?P<old>how\s+old\b(?:(?!\b(?:when|at|on|during|in\s+\d|since|after|before)\b)[^?]){0,60}?)"
        r"\s*,?\s+(?:today|now|at\s+present)\b",
        lambda m: [m["old"]],
    ),
    # -- age at an event (before anything splits the sentence)
    (
        r"\b(?:ages?|how\s+old\b[^?]{0,120}?)\s+(?:at|when)\s+(?:the\s+time\s+of\s+)?(?:(?:his|her|their|the\s+patient\s*'?s?)\s+)?(?:death|(?:he|she|they)\s+died)\b",
        lambda m: Slot("measure", {"of": "age", "at_death": True, "how_old": "old" in m[0]}),
    ),
    (
        r"\bages?\s+(?:on|at)\s+(?:the\s+)?(?:admission|discharge)\b",
        lambda m: Slot("unsupported", {"what": "age at an admission"}),
    ),
    (
        r"\bages?\s+(?:at|when|of\s+onset\s+of|of\s+onset|of\s+diagnosis\s+of|of\s+diagnosis)\b",
        lambda m: Slot("measure", {"of": "age", "at_event": True, "how_old": "old" in m[0]}),
    ),
    (
        r"\bat\s+(?:the\s+time\s+of\s+)?(?:(?:his|her|their)\s+)?death\b|\bwhen\s+(?:he|she|they)\s+died\b",
        lambda m: Slot("at_death"),
    ),
)
_RULES: tuple[RawRule, ...] = (
    # -- things the plan cannot express: death, cost, free text
    (
        r"\b(?:mortality|survival|survived|surviving|cause\s+of\s+death)\b",
        lambda m: Slot("unsupported", {"what": "death or survival"}),
    ),
    (  # 'living patients', 'who are still alive': no recorded death
        r"\b(?:still\s+)?alive\b|\b(?:still\s+)?living\s+(?=(?:patients?|pts?|people|persons?|"
        r"ones|women|men|females?|males?|adults?)\b)|\b(?:are|is|were|was|remain|still)\s+(?:still\s+)?living\b",
        lambda m: Slot("death", {"alive": True}),
    ),
    (
        r"\b(?:died|die|dies|dying|death|deaths|dead|deceased|pass(?:ed|es)?\s+away|expired)\b",
        lambda m: Slot("death"),
    ),
    (
        r"\b(?:(?:number|count)\s+of\s+)?(?P<u>time|days|weeks|months|years|interval|delay|gap|duration|lag)"
        r"(?:\s+in\s+(?P<u2>days|weeks|months|years))?\s+(?:between|from)\b(?=.*\b(?:and|to|until|till)\b)",
        _between,
    ),
    (  # 'currently on X', 'an active X', 'X that resolved': read in _status.py
        r"\b(?:currently|at\s+present|presently|right\s+now|still|active(?:ly)?|ongoing|"
        # 'unresolved', 'not marked resolved', 'not yet resolved': still active
        r"unresolved|not\s+(?:yet\s+|been\s+)?(?:marked\s+|recorded\s+)?(?:as\s+)?resolved)\b",
        lambda m: Slot("status", {"state": "active"}),
    ),
    (
        r"\b(?:(?:that|which)\s+(?:has\s+|have\s+)?(?:since\s+)?)?(?:resolved|inactive|"
        r"no\s+longer\s+(?:active|present))\b",
        lambda m: Slot("status", {"state": "ended"}),
    ),
    # -- grouping
    (
        r"\b(?:(?:broken\s+down|stratified|split|grouped|separated|categori[sz]ed|tabulated)\s+)?(?:by|per|for\s+each|across|according\s+to|in\s+each)\s+"
        r"(?:calendar\s+)?(?:(?:start|admission|visit|encounter|event)\s+)?(?P<key>sex|gender|year|age\s+groups?|age\s+bands?|age\s+brackets?|decades?\s+of\s+age|decades?|visit\s+types?|encounter\s+types?|types?\s+of\s+visits?|"
        r"drugs?|medications?|conditions?|diagnos[ie]s|procedures?|concepts?|ingredients?|"
        r"vaccines?|vaccinations?|immuni[sz]ations?|measurements?|labs?|observations?|allerg(?:y|ies))\b"
        r"(?:\s+of\s+(?:the\s+)?(?:(?:visit|encounter|admission|event)\s+)?(?:start|begin|admission)(?:\s+dates?)?)?",
        _group,
    ),
    (
        r"\b(?:for\s+|between\s+|comparing\s+)?(?:men|males|women|females)\s+(?:and|vs\.?|versus)\s+(?:women|females|men|males)(?:\s+separately)?\b|\bfor\s+each\s+sex\b",
        lambda m: Slot("group", {"key": "sex"}),
    ),
    (
        r"\b(?:of|for|by|per)\s+(?:each|every)\s+(?:sex|gender)\b|\b(?:each|every)\s+(?:sex|gender)\b",
        lambda m: Slot("group", {"key": "sex"}),
    ),
    (
        r"\b(?:each|every|per)\s+(?:calendar\s+)?year\b|\b(?:annually|yearly|year\s+by\s+year)\b",
        lambda m: Slot("group", {"key": "year"}),
    ),
    (
        r"\b(?:per|each|every|for\s+each|by)\s+(?:patient|person|subject|individual)\b",
        lambda m: Slot("per_patient"),
    ),
    # -- counts: "at least 3 times", "2 or more prescriptions"
    (
        rf"\b(?P<op>at\s+least|more\s+than|over|greater\s+than|>=|>|exactly|no\s+less\s+than)\s+(?P<n>\d+)\s+(?=(?:\w+\s+){{0,4}}?{COUNT_NOUN}\b)",
        _count,
    ),
    (
        rf"\b(?P<n>\d+)\s+or\s+more\s+(?=(?:\w+\s+){{0,4}}?{COUNT_NOUN}\b)",
        lambda m: Slot("count", {"min": int(m["n"])}),
    ),
    # "at least 3 sprains of ankle", "2 or more fractures": a number right before a plural
    # event word (not a unit, a span of time or people) counts those events
    (
        rf"\b(?P<op>at\s+least|more\s+than|greater\s+than|>=|>|exactly|no\s+less\s+than)\s+(?P<n>\d+)\s+(?={_PLURAL_EVENT})",
        _count,
    ),
    (
        rf"\b(?P<n>\d+)\s*(?:or\s+more|\+)\s+(?={_PLURAL_EVENT})",
        lambda m: Slot("count", {"min": int(m["n"])}),
    ),
    (
        r"\b(?:multiple|several|repeated|repeat)\s+(?=(?:\w+\s+){0,3}?(?:times|episodes|prescriptions|visits|admissions|diagnoses|fills|exposures|measurements)\b)",
        lambda m: Slot("count", {"min": 2}),
    ),
    # -- length of stay, days supply, quantity: numeric measures with their own words
    (  # "the length of an inpatient stay", "inpatient encounter duration"
        rf"\blength\s+of\s+(?:(?:an?|the|their|his|her|each|all)\s+)?{ENC_TYPE}\s+(?:hospital\s+)?(?:stays?|visits?|encounters?|admissions?)\b"
        rf"|\b{ENC_TYPE.replace('<etype>', '<etype2>')}\s+(?:stay|visit|encounter|admission)s?\s+(?:durations?|lengths?)\b",
        lambda m: Slot(
            "measure", {"of": "length_of_stay", "type": _etype(m["etype"] or m["etype2"])}
        ),
    ),
    (  # "longest inpatient stay", "shortest hospital stay": the extreme length of stay
        rf"\b(?P<ext>longest|shortest)\s+(?:{ENC_TYPE}\s+)?(?:hospital\s+)?(?:stays?|admissions?|hospitali[sz]ations?)\b",
        lambda m: [
            Slot("intent", {"op": "max" if m["ext"] == "longest" else "min"}),
            Slot(
                "measure",
                {
                    "of": "length_of_stay",
                    "type": _etype(m["etype"], m[0].split()[-1])
                    or ("inpatient" if "hospital" in m[0] else None),
                },
            ),
        ],
    ),
    (
        rf"\b(?:{ENC_TYPE}\s+)?(?:length\s+of\s+(?:the\s+)?(?:hospital\s+)?stays?|los|duration\s+of\s+(?:the\s+)?(?:hospital\s+)?(?:stays?|admissions?|hospitali[sz]ations?)|(?:hospital\s+)?stay\s+lengths?|days\s+(?:spent\s+)?in\s+(?:the\s+)?hospital)\b",
        lambda m: Slot("measure", {"of": "length_of_stay", "type": _etype(m["etype"])}),
    ),
    (
        r"\b(?:days?\s*'?\s*s?\s*supply|days\s+supplied|supply\s+days|supply)\b",
        lambda m: Slot("measure", {"of": "days_supply"}),
    ),
    (
        r"\b(?:(?:dispensed|prescribed)\s+)?quantit(?:y|ies)(?:\s+dispensed)?\b",
        lambda m: Slot("measure", {"of": "quantity"}),
    ),
    # -- encounter scope: "during their last emergency visit"
    (
        r"\b(?:during|in|at|on|within|throughout|over\s+the\s+course\s+of)\s+(?:(?:the|their|his|her|this(?=\s+patients?\b)|that|a|an|any|each)\s+)?(?:patient\s+'s\s+|patients\s+)?"
        r"(?:(?P<which>first|last|latest|most\s+recent|final|index|initial|second|third|fourth|fifth|current|present|ongoing|this|(?P<nth>\d+)(?:st|nd|rd|th))\s+)?"
        rf"(?:{ENC_TYPE}\s+)?{ENC_NOUN}\b",
        _scope,
    ),
    # -- time windows (anchored ones carry their anchor phrase)
    *((p, functools.partial(_window, kind)) for kind, p in _time.PATTERNS),
    # -- a calendar day or month no time expression read (in a range, a two-digit year):
    # never dropped
    (UNREAD_DAYS, lambda m: Slot("unsupported", {"what": "events on one calendar day or month"})),
    # -- encounters mentioned as things (counted or required)
    (
        rf"\b(?:(?:{ENC_TYPE})\s+)?{ENC_NOUN}\b",
        _encounter,
    ),
    (
        r"\b(?P<etype>icu|intensive\s+care|critical\s+care|er|ed|emergency(?:\s+department|\s+room)?|inpatient|outpatient)\s+(?=patients?\b|people\b|cases\b|users\b)",
        lambda m: Slot("encounter", {"type": _etype(m["etype"]), "plural": False}),
    ),
    (
        r"\b(?:admitted|hospitali[sz]ed|transferred)(?:\s+(?:to|into|in)\s+(?:the\s+|an?\s+)?(?:hospital|icu|intensive\s+care(?:\s+unit)?|critical\s+care))?\b",
        lambda m: Slot(
            "encounter",
            {
                "type": "icu"
                if any(w in m[0] for w in ("icu", "intensive", "critical"))
                else "inpatient",
                "verb": True,
            },
        ),
    ),
    (
        r"\b(?:visited|went\s+to|seen\s+(?:in|at)|presented\s+to|attended|came\s+to)\s+(?:the\s+|an?\s+)?(?P<etype>icu|intensive\s+care(?:\s+unit)?|er|ed|a&e|emergency\s+(?:room|department)|hospital|clinic)\b",
        lambda m: Slot("encounter", {"type": _etype(m["etype"]), "plural": False}),
    ),
    (
        r"\b(?P<prep>in|to|into|at|from|through)\s+(?:the\s+|an?\s+)?(?P<etype>icu|intensive\s+care(?:\s+unit)?|critical\s+care|er|ed|a&e|emergency\s+(?:room|department)|hospital)\b",
        lambda m: Slot(
            "encounter",
            {"type": _etype(m["etype"]), "plural": False, "located": m["prep"] in {"in", "at"}},
        ),
    ),
    # -- ages (before values: "over 65" after a person word is an age)
    (  # "diagnosed with X before 40": an age at the event (a number too small to be a year)
        r"\b(?P<op>before|prior\s+to)\s+(?P<n>\d{1,3})(?P<more>)(?:\s+years?\s+(?:old|of\s+age))?"
        r"(?!\s*(?:[\w/%]+\s+)?(?:days?|weeks?|months?|years?|hours?|%|mg|kg|g/|mmol|times)\b)(?![\w.%/])",
        _age_prep,
    ),
    (
        r"\b(?P<op>before|under|below|prior\s+to|younger\s+than|after|over|above|older\s+than|at)\s+(?:the\s+)?age\s+(?:of\s+)?(?P<n>\d+)(?:\s+(?P<more>or\s+(?:older|more|above|over|later|younger|less|below|under|earlier)))?",
        _age_prep,
    ),
    (
        r"\b(?:aged?|ages)\s+(?:between\s+)?(?P<a>\d+)\s*(?:-|to|and|through)\s*(?P<b>\d+)(?:\s+years?(?:\s+old|\s+of\s+age)?)?|\bbetween\s+(?:the\s+)?ages?\s+(?:of\s+)?(?P<a2>\d+)\s+and\s+(?P<b2>\d+)|\bbetween\s+(?P<a3>\d+)\s+and\s+(?P<b3>\d+)\s+years?\s+(?:old|of\s+age)",
        lambda m: Slot(
            "age",
            {
                "op": "between",
                "value": int(m["a"] or m["a2"] or m["a3"]),
                "value2": int(m["b"] or m["b2"] or m["b3"]),
            },
        ),
    ),
    (
        rf"(?<![\w.])(?<!aged\s)(?<!age\s)(?<!ages\s)(?P<n>-?\d+(?:\.\d+)?)\s*{UNITS}?\s*(?:\+|or\s+(?P<dir>more|higher|greater|above|over|up|lower|less|below|under|fewer))(?!\s*years?\b|\s*y/?o\b|\s*years?\s+old)",
        lambda m: Slot(
            "number",
            {
                "op": "<=" if m["dir"] in {"lower", "less", "below", "under", "fewer"} else ">=",
                "value": _num(m["n"]),
                "unit": "%" if m["unit"] == "percent" else m["unit"],
            },
        ),
    ),
    (
        r"\b(?:aged?\s+)?(?P<n>\d+)\s*(?:\+|(?:years?\s+(?:old\s+|of\s+age\s+)?)?(?:or|and)\s+(?P<dir>older|over|above|up|more|younger|under|below|less))(?:\s+years?(?:\s+old|\s+of\s+age)?)?",
        lambda m: Slot(
            "age",
            {
                "op": "<=" if m["dir"] in {"younger", "under", "below", "less"} else ">=",
                "value": int(m["n"]),
            },
        ),
    ),
    (
        rf"\b(?P<who>{PERSON})\s+(?:who\s+(?:are|were)\s+|aged\s+|of\s+age\s+)?(?P<op>older\s+than|over|above|younger\s+than|under|below|at\s+least)\s+(?P<n>\d+)(?:\s+years?(?:\s+old|\s+of\s+age)?)?\b(?!\s*(?:%|mg|g/|mmol|times|visits|days))",
        lambda m: [m["who"] + " ", Slot("age", {"op": _OPS[m["op"]], "value": int(m["n"])}, m[0])],
    ),
    (
        r"\b(?P<op>under|over|below|above|at\s+least|at\s+most)\s+(?P<n>\d+)\s+(?:years?\s+old|years?\s+of\s+age)\b",
        lambda m: Slot("age", {"op": _OPS[" ".join(m["op"].split())], "value": int(m["n"])}),
    ),
    (
        r"\b(?P<op>older\s+than|younger\s+than)\s+(?P<n>\d+)(?:\s+years?(?:\s+old|\s+of\s+age)?)?",
        lambda m: Slot("age", {"op": _OPS[" ".join(m["op"].split())], "value": int(m["n"])}),
    ),
    (
        r"\b(?P<at>at\s+)?(?:aged?|age\s+(?:of\s+)?)\s*(?P<op>>=|<=|>|<|=)?\s*(?P<n>\d+)(?:\s+years?(?:\s+old|\s+of\s+age)?)?\b|\b(?P<n2>\d+)[- ]years?[- ]old\b",
        lambda m: Slot(
            "age",
            {"op": m["op"] or "=", "value": int(m["n"] or m["n2"])}
            | ({"at_event": True} if m["at"] else {}),
        ),
    ),
    (
        r"\b(?:children|child|kids|pediatric|paediatric|minors)\b",
        lambda m: [" patients ", Slot("age", {"op": "<", "value": 18}, m[0])],
    ),
    (
        r"\b(?:elderly|seniors|geriatric|older\s+adults)\b",
        lambda m: [" patients ", Slot("age", {"op": ">=", "value": 65}, m[0])],
    ),
    (
        r"\badults\b",
        lambda m: [" patients ", Slot("age", {"op": ">=", "value": 18}, m[0])],
    ),
    (
        r"\bhow\s+old\b|\bages?\b(?!\s*(?:of\s+)?\d)",
        lambda m: Slot("measure", {"of": "age", "how_old": m[0].startswith("how")}),
    ),
    # -- sex
    (
        r"\b(?:women|woman|females?|girls?|ladies|lady)\b",
        lambda m: Slot("sex", {"sex": "female"}),
    ),
    (
        r"\b(?:men|man|males?|boys?|gentlemen)\b",
        lambda m: Slot("sex", {"sex": "male"}),
    ),
    # -- values with units: "hemoglobin below 10 g/dl", "between 7 and 9 %"
    (
        rf"\bbetween\s+(?P<a>-?\d+(?:\.\d+)?)\s*(?:{UNITS})?\s+and\s+(?P<b>-?\d+(?:\.\d+)?)\s*(?P<unit2>{UNITS[8:]}?",
        lambda m: Slot(
            "value",
            {
                "op": "between",
                "value": _num(m["a"]),
                "value2": _num(m["b"]),
                "unit": m["unit2"] or m["unit"],
            },
        ),
    ),
    (
        rf"(?:\b|(?<=\s)|^){_OP_RE}\s*(?P<n>-?\d+(?:\.\d+)?)\s*(?:{UNITS}(?![a-z0-9]))?(?!\s*(?:days?|weeks?|months?|years?|times|visits|patients)\b)",
        _value,
    ),
    (
        rf"\(\s*(?:in\s+|as\s+|units?:?\s+)?{_UNIT_ALONE}\s*\)|\b(?:(?:expressed|given|reported|converted)\s+)?(?:in|as|to|into)\s+{_UNIT_ALONE.replace('<unit>', '<unit2>')}(?=[\s,;.?)]|$)"
        # 'latest height cm': a unit word closing the question, after no number
        r"|(?<![\d.])(?<![\d.]\s)\b(?P<unit3>cm|mm|kg|lbs?|pounds|mmhg|mg/dl|mmol/l|bpm|kg/m2|celsius|fahrenheit|inches)\s*\??\s*$",
        lambda m: Slot("unit", {"unit": _unit_word(m["unit"] or m["unit2"] or m["unit3"])}),
    ),
    # -- the aggregate
    (  # "the patient ids", "ids of the patients": a list of patients
        r"\b(?:(?:patient|person|subject)\s+)?(?:ids|identifiers|id\s+numbers)\b(?:\s+of)?",
        lambda m: Slot("intent", {"op": "list", "target": "patients"}),
    ),
    (
        r"(?:^|\b)(?:what|which)?\s*(?:is|was|are|were)?\s*(?:the\s+)?(?:(?:percentage|percent|proportion|fraction|share|prevalence)\b|(?<![\d.])(?<!\d\s)%(?!\w))(?:\s+of)?|\b(?:what|which)\s+(?:is|was)\s+the\s+rate\s+of\b",
        lambda m: Slot("intent", {"op": "proportion"}),
    ),
    (
        r"\bhow\s+many\s+(?:different|distinct|unique|separate)\b|\b(?:number|count)\s+of\s+(?:different|distinct|unique|separate)\b",
        lambda m: Slot("intent", {"op": "count_distinct"}),
    ),
    (
        r"\bhow\s+many\s+times\b|\bhow\s+often\b|\b(?:count\s+(?:the\s+|of\s+the\s+)?)?(?:total\s+)?number\s+of\s+times\b",
        lambda m: Slot("intent", {"op": "count", "target": "events"}),
    ),
    (
        r"\bhow\s+many\b|\b(?:total\s+)?number\s+of\b|\bcount\s+(?:of\s+)?(?:the\s+|all\s+)?",
        lambda m: Slot("intent", {"op": "count"}),
    ),
    (  # 'how much X was given': an amount, never a count of events
        r"\bhow\s+much\b",
        lambda m: Slot("intent", {"op": "sum", "word": m[0]}),
    ),
    (
        r"\b(?:on\s+average|average|mean|avg)\b",
        lambda m: Slot("intent", {"op": "mean"}),
    ),
    (
        r"\bmedian\b",
        lambda m: Slot("intent", {"op": "median"}),
    ),
    (
        r"\bstandard\s+deviation\b|\bstd\b",
        lambda m: Slot("intent", {"op": "stddev"}),
    ),
    RANGE_RULE,  # 'maximum minus minimum', as ``_aggregate_arith.range_words`` writes a range
    (
        r"\b(?:minimum|min|lowest|smallest|shortest|least|youngest)\b",
        lambda m: Slot("intent", {"op": "min", "word": m[0]}),
    ),
    (
        r"\b(?:maximum|max|highest|largest|longest|greatest|peak|biggest|oldest)\b",
        lambda m: Slot("intent", {"op": "max", "word": m[0]}),
    ),
    (
        r"\b(?:sum\s+of|cumulative|combined|summed)\b|\btotal\b(?!\s+number)(?=\s+(?:days|quantity|supply|length|⟦))"
        r"|\b(?:(?:the|total)\s+)?(?:amount|volume|dose)\s+of\b",
        lambda m: Slot("intent", {"op": "sum"}),
    ),
    (
        r"\b(?:trend|over\s+time|time\s+series|all\s+(?:the\s+|of\s+the\s+)?(?:values|readings|results|measurements))\b|\b(?:all|every)\b(?=\s+(?:(?:the|of|his|her|their|this|patient|'s)\s+){0,3}(?:[a-z0-9]+\s+){1,3}(?:values|readings|results|measurements)\b)",
        lambda m: Slot("intent", {"op": "series"}),
    ),
    (
        r"^(?:when)\b|\b(?:what|which)\s+(?:was|is|were)\s+the\s+dates?\s+(?:of|when)\b|\bon\s+what\s+(?:date|day)\b|\bwhat\s+(?:date|day|year)\b|\b(?:the\s+)?dates?\s+of\b|\bwhen\b|\bdates?\b(?=\s+for\b|\s*[?.]?\s*$)",
        lambda m: Slot("intent", {"op": "date"}),
    ),
    (  # "last admission date", "first osteoarthritis diagnosis date", "visit start date"
        r"\b(?:(?:start|starting|begin|beginning|onset)\s+)?dates?\b",
        lambda m: Slot("intent", {"op": "date"}),
    ),
    (
        r"\b(?:first|earliest|initial|index)\b",
        lambda m: Slot("order", {"which": "first"}),
    ),
    (
        r"\b(?:last|latest|most\s+recent|final|recent|newest|current)\b",
        lambda m: Slot("order", {"which": "last"}),
    ),
    (
        r"^(?:please\s+)?(?:list|show|name|give|enumerate|display|report|tell\s+me)\b(?:\s+me)?(?:\s+all)?(?:\s+(?:of\s+)?the)?",
        lambda m: Slot("intent", {"op": "list"}),
    ),
    (
        r"^(?:what|which)\b",
        lambda m: Slot("wh", {"word": m[0]}),
    ),
    (
        r"^(?:has|have|had|did|does|do|is|was|were|are|can|could)\b|\bever\b|\bwhether\b|\bany\s+record\b"
        # '..., y/n', '(yes/no)': the answer asked is yes or no
        r"|\by\s*/\s*n\b|\(\s*yes\s*(?:/|or)\s*no\s*\)",
        lambda m: Slot("intent", {"op": "exists", "word": m[0]}),
    ),
    # -- negation
    (
        r"\b(?:without|never|not|no|none|didn't|did\s+not|don't|do\s+not|doesn't|does\s+not|haven't|have\s+not|hasn't|has\s+not|wasn't|weren't|isn't|aren't|hadn't|excluding|except(?:\s+for)?|free\s+of|other\s+than|lacking)\b",
        lambda m: Slot("neg"),
    ),
)


RULES_BEFORE_AGE = _compile(_EARLY)
"""Rules read before an age is tied to a death or an event (they must see the whole sentence)."""
RULES = _compile(_RULES)
"""The remaining rules, in the order they apply: each sees only the text earlier rules left."""


def _run(pieces: list[Piece], rules: tuple[Rule, ...]) -> list[Piece]:
    for pattern, make in rules:
        pieces = split_pieces(pieces, pattern, make)
    return pieces


def extract(text: str) -> list[Piece]:
    """Split a normalised question into text and structural slots, in order."""
    text = plain_phrasing(text)  # 'what was the first time X' → 'when was the first time X'
    pieces: list[Piece] = mark_rank(
        [_replace_number_words(rewrite_asides(text))]
    )  # 'the 5 most common'
    pieces = _run(pieces, RULES_BEFORE_AGE)
    pieces, death_age, event_age = age_anchor(pieces)
    pieces = patient_dates(pieces)
    pieces = mark_unread(pieces)  # shapes the plan cannot express: never dropped as filler
    pieces = _run(pieces, RULES)
    pieces = total_before_amount(pieces)
    pieces = mark_span(pieces)
    pieces = split_between(pieces)
    pieces = mark_nth_events(pieces)  # 'from the first dose to the second dose'
    pieces = mark_age_at_event(pieces)
    if death_age or event_age:
        for p in pieces:
            if isinstance(p, Slot) and p.kind == "measure" and p.data.get("of") == "age":
                p.data["at_death" if death_age else "at_event"] = True
    return pieces
