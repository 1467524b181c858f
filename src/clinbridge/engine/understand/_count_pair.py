"""Two counts put together: one divided by the other (a ratio) or one minus the other.

'What is the ratio of women to men among patients with oesophagitis?', 'M:F ratio of pts',
'count distinct persons under X (1125315) divided by count distinct persons under Y',
'how many ER visits are there for every inpatient stay', 'how many more pts w PUD than w GI
bleed', 'by how many patients does the number with X exceed the number with Y'.

The frame — 'ratio of A to B', 'A:B ratio', 'A divided by B', 'how many A for every B', 'how
many more A than B', 'the number with A exceeds the number with B by how many' — is taken out
and each side is asked on its own as a count ('how many A' plus the words the two sides share:
'among patients with oesophagitis'). A side that names no head of its own ('the number ever
given ibuprofen', 'count with gender_concept_id 8532') takes the other side's ('patients',
'of person'). Each side must read, with the reader's own guards, as one plain count (no
grouping, no choice between readings), both of the same thing (patients, encounters, events)
and not the same plan; then the plan is the first count with ``over`` (a ratio) or ``minus``
(a difference) the second. Anything else leaves the question to the other readers (None).

'persons with X minus persons with Y' is not read: a set (those with X and not Y) or a
difference of two numbers, the words do not say which.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from clinbridge.engine.understand._reading import Grounding, Reading

__all__ = ["read_count_pair"]

_SEX = {
    "m": "male",
    "male": "male",
    "males": "male",
    "men": "male",
    "man": "male",
    "f": "female",
    "female": "female",
    "females": "female",
    "women": "female",
    "woman": "female",
}
_HEADS = (
    r"(?:patients?|pts?|persons?|people|individuals?|subjects?|visits?|encounters?|admissions?"
    r"|stays?|records?|rows?|diagnos[ie]s|prescriptions?|exposures?|[a-z]+_[a-z_]+)"
)
_LEAD = re.compile(
    r"^(?:the\s+)?(?:(?:total\s+)?(?:number|count|#|no\.?)(?:\s+of)?|how\s+many)\s+"
    r"(?:(?P<distinct>distinct|unique|different)\s+)?",
    re.I,
)
_HEADED = re.compile(rf"^(?:(?:distinct|unique)\s+)?(?:[a-z]+\s+){{0,2}}?{_HEADS}\b", re.I)
_LINK = re.compile(
    r"^(?:with|w/?|who|whose|that|ever|on|under|given|having|having\s+had|diagnosed|treated"
    r"|receiving|received|in|of|among|where)\b",
    re.I,
)
_VERBED = re.compile(
    r"^\s+(?:(?:ever|also)\s+)?(?:had|have|has|got|get|were|are|received|receive|was)\s+", re.I
)
_ASK = r"(?:what\s+(?:is|was|s)\s+|what\s+'s\s+|give\s+me\s+|tell\s+me\s+|show\s+|compute\s+|calculate\s+)?"
_RATIO_OF = re.compile(
    rf"^(?P<pre>.*?)\b{_ASK}(?:the\s+)?ratio\s+of\s+(?P<a>.+?)\s+(?:to|versus|vs\.?)\s+(?P<b>.+?)"
    r"(?P<post>(?:\s*,|\s+(?:among|in|within|for|across)\b).*)?$",
    re.I,
)
_COLON = re.compile(
    rf"^(?P<pre>.*?)\b{_ASK}(?:the\s+)?(?:(?P<a>[a-z]+)\s*:\s*(?P<b>[a-z]+)\s+ratio"
    r"|ratio\s+(?:of\s+)?(?P<a2>[a-z][a-z ]*?)\s*:\s*(?P<b2>[a-z][a-z ]*))(?P<post>\s.*)?$",
    re.I,
)
_DIVIDED = re.compile(
    r"^(?P<pre>(?:what\s+(?:is|was)\s+)?)(?P<a>.+?)\s*,?\s+divided\s+by\s+(?P<b>.+?)\s*$", re.I
)
_EVERY = re.compile(
    r"^how\s+many\s+(?P<a>.+?)\s+(?:are|were)\s+there\s+(?:for|per)\s+(?:every|each)\s+"
    r"(?:single\s+)?(?P<b>.+?)\s*$",
    re.I,
)
_MORE = re.compile(
    r"^(?:by\s+)?how\s+many\s+(?P<dir>more|fewer|less)\s+(?P<a>.+?)\s+than\s+(?P<b>.+?)\s*$", re.I
)
_EXCEED = re.compile(
    r"^by\s+how\s+many\s+(?P<head>[a-z]+)\s+(?:does|did|do)\s+(?P<a>.+?)\s+(?:exceed|outnumber)"
    r"\s+(?P<b>.+?)\s*$",
    re.I,
)
_ASIDE = re.compile(r"\(([^()]*\bdivided\s+by\b[^()]*)\)", re.I)
_FRAME_WORDS = frozenset(
    [
        "the",
        "data",
        "database",
        "db",
        "dataset",
        "in",
        "our",
        "this",
        "of",
        "all",
        "overall",
        "total",
    ]
)


def _clean(text: str) -> str:
    s = text.strip().replace("’", "'")
    s = re.sub(r"[?!]+", " ", s)
    s = re.sub(r"\s+-\s+#?\s*(?:pts|patients)?\s*$", " ", s, flags=re.I)
    return re.sub(r"\s+", " ", s).strip(" .,;")


def read_count_pair(question: str, ask: Callable[[str], list[Reading]]) -> Reading | None:
    """A reading of a ratio or difference of two counts; None when the question is not one.
    ``ask`` reads a sub-question whole (with the reader's guards)."""
    text = _clean(question)
    aside = _ASIDE.search(text)
    if aside is not None:  # '(number of men divided by number of women)': the definition
        defined = _pair(_clean(aside[1]))
        main = _pair(_clean(text[: aside.start()] + " " + text[aside.end() :]))
        if defined is None or main is None or main[2] != defined[2]:
            return None
        first = _read_pair(*main, ask)
        second = _read_pair(defined[0], defined[1], defined[2], defined[3] or main[3], ask)
        if first is None or second is None or _bare(first) != _bare(second):
            return None  # the definition must say what the question says
        return _reading(question, first, main[2], (main[0], main[1]))
    found = _pair(text)
    if found is None:
        return None
    combined = _read_pair(*found, ask)
    return None if combined is None else _reading(question, combined, found[2], found[:2])


def _pair(text: str) -> tuple[str, str, str, str] | None:
    """(side A, side B, 'over' | 'minus' | 'minus_rev', shared words) of the frame, or None."""
    m = _COLON.match(text)
    if m is not None:
        a, b = m["a"] or m["a2"], m["b"] or m["b2"]
        return a, b, "over", _shared(m["pre"], m["post"])
    m = _RATIO_OF.match(text)
    if m is not None:
        return m["a"], m["b"], "over", _shared(m["pre"], m["post"])
    m = _EVERY.match(text)
    if m is not None:
        return m["a"], m["b"], "over", ""
    m = _MORE.match(text)
    if m is not None:
        return m["a"], m["b"], "minus" if m["dir"].lower() == "more" else "minus_rev", ""
    m = _EXCEED.match(text)
    if m is not None:
        a, b = _headed(m["a"], m["head"]), _headed(m["b"], m["head"])
        return a, b, "minus", ""
    m = _DIVIDED.match(text)
    if m is not None and " divided by " not in m["b"].lower():
        return m["a"], m["b"], "over", ""
    return None


def _headed(side: str, head: str) -> str:
    """'the number with X' (by how many patients): 'patients with X'."""
    lead = _LEAD.match(side)
    rest = side[lead.end() :] if lead is not None else side
    if _LINK.match(rest):
        return f"{head} {rest}"
    return side


def _shared(pre: str | None, post: str | None) -> str:
    """The words outside the frame that both sides share ('among patients with X'), without the
    words that only frame the question ('in the data')."""
    pre = (pre or "").strip(" ,")
    post = (post or "").strip(" ,")
    words = f"{pre} {post}".split()
    if all(w.lower() in _FRAME_WORDS | {"pts", "patients", "persons", "people"} for w in words):
        return ""
    if pre and post:
        return ""  # words on both sides of the frame: not read here
    return pre or post


def _sub_questions(a: str, b: str, shared: str) -> tuple[str, str] | None:
    """The two sides as count questions, each with the shared words; a side with no head of
    its own takes the other's."""
    sex_b = re.match(
        r"^(\w+)(?:\s+(?:patients|pts|persons|people))?\s+((?:with|w|who|on)\b.*)$", b, re.I
    )
    if not shared and sex_b is not None and _sex_of(a) and _sex_of(sex_b[1]):
        b, shared = sex_b[1], sex_b[2]  # 'female to male patients with X': 'with X' is shared
    sa, sb = _sex_of(a), _sex_of(b)
    if (sa is None) != (sb is None):
        return None
    if sa is not None and sb is not None:  # 'M:F', 'women to men'
        if sa == sb:
            return None
        tail = re.sub(
            r"^(?:of\s+)?(?:all\s+)?(?:the\s+)?(?:pts|patients|persons|people)\b",
            "",
            shared,
            flags=re.I,
        )
        tail = tail.strip()
        if tail and not _LINK.match(tail):
            tail = f"with {tail}"
        return f"how many {sa} patients {tail}".strip(), f"how many {sb} patients {tail}".strip()
    a2 = re.sub(r"^(\w+)\s+(?:patients|pts|people)$", r"patients on \1", a.strip(), flags=re.I)
    b2 = re.sub(r"^(\w+)\s+(?:patients|pts|people)$", r"patients on \1", b.strip(), flags=re.I)
    la, lb = _LEAD.match(a2), _LEAD.match(b2)
    ra = a2[la.end() :] if la is not None else a2
    rb = b2[lb.end() :] if lb is not None else b2
    ha = None if _LINK.match(ra) else _HEADED.match(ra)
    hb = None if _LINK.match(rb) else _HEADED.match(rb)
    lead_a = a2[: la.end()] if la is not None else ""
    lead_b = b2[: lb.end()] if lb is not None else ""
    if ha is None and hb is None:
        return None
    if hb is None and _LINK.match(rb):
        rb = f"{ha[0]} {rb}" if ha is not None else rb
        lead_b = lead_a or lead_b
    elif ha is None and _LINK.match(ra):
        ra = f"{hb[0]} {ra}" if hb is not None else ra
        lead_a = lead_b or lead_a
    elif hb is None and ha is not None and (verb := _VERBED.match(ra[ha.end() :])):
        rb = f"{ha[0]}{verb[0]}{rb}"  # 'patients had X than Y': 'patients had Y'
        lead_b = lead_a or lead_b
    elif ha is None or hb is None:
        return None
    if not (_HEADED.match(ra) and _HEADED.match(rb)):
        return None  # each side counts things named by a head ('patients', 'visits'), not values
    qa = f"{_count_lead(lead_a)} {ra} {shared}".strip()
    qb = f"{_count_lead(lead_b)} {rb} {shared}".strip()
    return qa, qb


def _bare(reading: Reading) -> object:
    plan = reading.plan
    return None if plan is None else plan.model_copy(update={"question": None})


def _sex_of(side: str) -> str | None:
    """'men', 'the number of women', 'female patients', 'M': the sex the side names alone."""
    lead = _LEAD.match(side.strip())
    rest = side.strip()[lead.end() :] if lead is not None else side.strip()
    rest = re.sub(r"\s+(?:patients|pts|persons|people)$", "", rest, flags=re.I)
    return _SEX.get(rest.lower())


def _count_lead(lead: str) -> str:
    """The side's own count words ('count distinct'), else 'how many'."""
    lead = lead.strip()
    if not lead or re.match(r"^(?:the\s+)?(?:total\s+)?(?:number|#|no\.?)(?:\s+of)?$", lead, re.I):
        return "how many"
    return lead


def _read_pair(
    a: str, b: str, how: str, shared: str, ask: Callable[[str], list[Reading]]
) -> Reading | None:
    subs = _sub_questions(a, b, shared)
    if subs is None:
        return None
    plans = []
    for sub in subs:
        readings = ask(sub)
        if not readings or readings[0].plan is None or readings[0].choices:
            return None
        plan = readings[0].plan
        if (
            plan.aggregate.op != "count"
            or plan.group_by
            or plan.minus is not None
            or plan.over is not None
            or plan.aggregate.numerator
            or plan.patient_id is not None
            or plan.limit is not None
        ):
            return None
        plans.append((plan, readings[0]))
    (pa, ra), (pb, rb) = plans
    if pa.measure.of != pb.measure.of or pa.measure.model_copy(
        update={"concepts": None, "encounter_type": None, "stream": None}
    ) != pb.measure.model_copy(update={"concepts": None, "encounter_type": None, "stream": None}):
        return None
    if pa == pb:
        return None
    if how == "minus_rev":
        pa, pb = pb, pa
    key = "over" if how == "over" else "minus"
    plan = pa.model_copy(update={key: pb.model_copy(update={"question": None})})
    groundings = ra.groundings + rb.groundings
    return Reading(
        question=ra.question,
        plan=plan,
        confidence=round(min(ra.confidence, rb.confidence), 4),
        groundings=groundings,
        notes=(f"sides read as {subs[0]!r} and {subs[1]!r}",),
    )


def _reading(question: str, combined: Reading, how: str, sides: tuple[str, ...]) -> Reading:
    assert combined.plan is not None
    word = "divided by" if how == "over" else "minus"
    said = f"the count of {sides[0]!r} {word} the count of {sides[1]!r}"
    grounding = Grounding(phrase=f"{sides[0]} / {sides[1]}", kind="aggregate", target=said)
    plan = combined.plan.model_copy(update={"question": question})
    return combined.model_copy(
        update={
            "question": question,
            "plan": plan,
            "groundings": (*combined.groundings, grounding),
            "notes": (*combined.notes, "read as two counts put together"),
        }
    )
