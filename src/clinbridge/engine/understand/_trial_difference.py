"""A difference of two groups' means: 'mean birth weight, NEOCOOL minus CONTROL', 'how much
higher was the mean score in the cooled arm than in the control arm', 'mean(hr_24h | ARM = 2) -
mean(hr_24h | ARM = 1)'.

The question is split into what is measured (read on its own: one mean or median, no grouping)
and its two sides (each read on its own as a cohort: exactly one code of one variable, the same
variable for both, different codes). Only then is the answer the first side's figure minus the
second's (``QueryPlan.minus``); anything less returns None and the question is read as usual.
Which side comes first is what the question says: 'A minus B', 'how much higher in A than in
B' (A minus B), 'how much lower in A than in B' (B minus A). A 'difference between A and B'
that says no order is not read here.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from clinbridge.engine.plan import QueryPlan, VariableFilter
from clinbridge.engine.understand._reading import Grounding, Reading
from clinbridge.engine.understand._trial_model import Abstain

__all__ = ["read_difference"]

ReadFn = Callable[[str], Reading]

_ONE = {"mean", "median"}
_FORMULA = re.compile(
    r"^\s*(?P<a>(?:mean|median|avg|average)\s*\([^()]*\))\s*[-−–]\s*"
    r"(?P<b>(?:mean|median|avg|average)\s*\([^()]*\))\s*\??\s*$",
    re.I,
)
_MINUS = re.compile(r"\bminus\b", re.I)
_THAN = re.compile(
    r"\bhow\s+much\s+(?P<dir>higher|greater|more|bigger|larger|lower|less|smaller)\b"
    r"(?P<mid>.*?)\bthan\b",
    re.I,
)
_LOWER = {"lower", "less", "smaller"}
_DASH = re.compile(r"\s[-–—]\s")
_CUT = re.compile(r"[(),;:?]")
_SIDE_WORDS = {"the", "in", "among", "for", "arm", "group", "infants", "babies", "trial", "of"}
_SIDE_WORDS |= {"difference", "diff"}  # 'A minus B difference?': the scaffold, no side
_SCAFFOLD = re.compile(
    r"\bhow\s+much\s+(?:higher|greater|more|bigger|larger|lower|less|smaller)\s+(?:was|is|were|are)?"
    # with the order said by a minus: 'how much colder were ... (standard care minus cooled)'
    r"|\bhow\s+much\s+[a-z]+er\s+(?:was|is|were|are)\b"
    r"|\b(?:the\s+)?difference\s+(?:in|of|between)\s+(?:the\s+)?(?:means?|medians?)?"
    r"|\bdifference\s+in\s+means\b|\b(?:the\s+)?difference\b"
    r"|\b(?:what(?:'s|\s+is|\s+was)\s+)?the\s+gap\b",  # '..., A minus B - what's the gap?'
    re.I,
)


def read_difference(read: ReadFn, question: str) -> Reading | None:
    """The difference the question asks for, or None when it asks for none (or not clearly)."""
    try:
        f = _FORMULA.match(question)
        if f:
            return _formula(read, question, f.group("a"), f.group("b"))
        sides = _sides(question)
        if sides is None:
            return None
        first, second, core = sides
        try:
            found = _combine(read, question, first, second, core)
        except (Abstain, AssertionError, ValueError):
            found = None
        bare = _ASIDE.sub(" ", question)
        # '... in severe than in moderate encephalopathy (severe minus moderate)': the aside
        # restates the order; the sides are read in full where the question says them
        if (
            found is None
            and bare != question
            and (again := _sides(bare)) is not None
            and _said_in(first, again[0])
            and _said_in(second, again[1])
        ):
            found = _combine(read, question, *again)
        if found is None and bare != question:
            found = _between_noun(read, question, bare, first, second)
        return found
    except (Abstain, AssertionError, ValueError):  # a part the reader cannot read
        return None


_ASIDE = re.compile(r"\(\s*[^()]*?\bminus\b[^()]*?\)", re.I)


def _between_noun(
    read: ReadFn, question: str, bare: str, first: str, second: str
) -> Reading | None:
    """'the difference in mean base excess between severe and moderate HIE (severe minus
    moderate)': the aside's sides are said before one noun they share ('HIE'), which each side
    takes; what is measured is the rest."""
    m = re.search(
        rf"\bbetween\s+(?:the\s+)?{_loose(first)}\s+and\s+(?:the\s+)?{_loose(second)}"
        r"\s+(?P<noun>[A-Za-z][\w-]*)(?=\s*(?:$|[,;:?.!()]))",
        bare,
        re.I,
    )
    if m is None:
        return None
    noun = m.group("noun")
    core = _drop_side_words(bare[: m.start()] + " " + bare[m.end() :], ())
    return _combine(read, question, f"{first} {noun}", f"{second} {noun}", core)


def _said_in(short: str, side: str) -> bool:
    return set(short.lower().split()) <= set(side.lower().split())


def _sides(question: str) -> tuple[str, str, str] | None:
    """(first side, second side, the question without them) as the question orders them."""
    minus = list(_MINUS.finditer(question))
    if len(minus) == 1:
        m = minus[0]
        # (a dash set apart parts a clause too: 'A minus B - what's the gap?')
        left_seg = _DASH.split(_CUT.split(question[: m.start()])[-1])[-1]
        right_seg = _DASH.split(_CUT.split(question[m.end() :])[0])[0]
        a, b = _trim(left_seg.split(), last=True), _trim(right_seg.split(), last=False)
        if not a or not b:
            return None
        start = m.start() - len(left_seg)
        end = m.end() + len(right_seg)
        core = question[:start] + " " + question[end:]
        core = re.sub(r"\(\s*\)", " ", core)
        # 'higher in the cooled arm than in the control arm (cooled minus control)': the sides
        # said again before the parenthesis are the same two
        t = _THAN.search(core)
        if t:
            core = _drop_than(core, t)
        return a, b, _drop_side_words(core, (a, b))
    if minus:
        return None
    t = _THAN.search(question)
    if not t:
        return None
    a = _trim(_CUT.split(t.group("mid"))[-1].split(), last=True)
    rest = question[t.end() :]
    b_seg = _CUT.split(rest)[0]
    b = _trim(b_seg.split(), last=False)
    if not a or not b:
        return None
    mid = t.group("mid")
    cut = mid.rfind(a)
    core = question[: t.start("mid")] + mid[:cut] + " " + rest[len(b_seg) :]
    if t.group("dir").lower() in _LOWER:
        a, b = b, a
    return a, b, _drop_side_words(core, (a, b))


def _drop_than(core: str, t: re.Match[str]) -> str:
    """The question without 'than in the B arm' (the side after 'than')."""
    rest = core[t.end() :]
    seg = _CUT.split(rest)[0]
    return core[: t.end() - len("than")] + " " + rest[len(seg) :]


def _trim(words: list[str], *, last: bool) -> str:
    """The side's own words: at most three, beside the 'minus' or 'than', without 'the', 'arm'."""
    kept = words[-4:] if last else words[:5]
    if last:  # 'the mean lactate in severe': the side is what follows its preposition
        at = [k for k, w in enumerate(kept) if w.lower() in {"in", "among", "for"}]
        kept = kept[at[-1] + 1 :] if at else kept
    kept = [w for w in kept if w.lower().strip(".") not in _SIDE_WORDS]
    # 'moderate encephalopathy at randomisation': a side may say when its code was recorded
    limit = 4 if not last and len(kept) == 4 and kept[2].lower() == "at" else 3
    if not kept or len(kept) > limit:
        return ""
    return " ".join(kept).strip(" .")


def _loose(side: str) -> str:
    """A side's words as a pattern that also meets them hyphenated ('standard-care arm')."""
    return r"[\s-]+".join(re.escape(w) for w in re.split(r"[\s-]+", side) if w)


def _drop_side_words(core: str, sides: tuple[str, ...]) -> str:
    for side in sides:
        core = re.sub(
            rf"(?:\b(?:in|among|for)\s+)?(?:the\s+)?{_loose(side)}(?:\s+(?:arm|group))?",
            " ",
            core,
            flags=re.I,
        )
    core = _SCAFFOLD.sub(" ", core)
    return re.sub(r"\s+", " ", core).strip(" ,;:")


def _side_filter(read: ReadFn, side: str) -> tuple[VariableFilter, Reading] | None:
    """The one code a side names ('NEOCOOL', 'the cooled arm'), read as a cohort."""
    try:
        r = read(f"number of infants in {side}")
    except Abstain:  # 'severe' alone names several variables' codes
        return None
    p = r.plan
    if p is None or p.aggregate.op != "count" or p.measure.of != "patients" or p.group_by:
        return None
    if len(p.filters) != 1 or not isinstance(p.filters[0], VariableFilter):
        return None
    f = p.filters[0]
    if f.op != "in" or len(f.codes) != 1:
        return None
    return f, r


def _measured(read: ReadFn, core: str, sides: str) -> Reading | None:
    """What is measured, read without the sides: one mean or median, no grouping — but by the
    sides' own variable ('difference in mean X between the arms (A minus B)': the arms are the
    sides), which the sides replace."""
    if not re.search(r"\b(mean|median|average|avg)\b", core, re.I):
        core = f"mean {core}"
    r = read(core)
    p = r.plan
    if p is None or p.aggregate.op not in _ONE or p.measure.of != "variable":
        return None
    if p.group_by:
        if [g.variable for g in p.group_by] != [sides]:
            return None
        r = r.model_copy(update={"plan": p.model_copy(update={"group_by": ()})})
        p = r.plan
        assert p is not None
    if p.patient_id or p.minus is not None:
        return None
    return r


def _combine(read: ReadFn, question: str, first: str, second: str, core: str) -> Reading | None:
    fa, fb = _side_filter(read, first), _side_filter(read, second)
    # 'severe than in moderate encephalopathy': a side said without its noun (alone it names
    # nothing, or another variable's code) takes the other's
    if fa is None or fb is None or fa[0].variable != fb[0].variable:
        if len(first.split()) == 1 and len(second.split()) > 1:
            fa = _side_filter(read, " ".join([first, *second.split()[1:]]))
        elif len(second.split()) == 1 and len(first.split()) > 1:
            fb = _side_filter(read, " ".join([second, *first.split()[1:]]))
    if fa is None or fb is None:
        return None
    (a, ra), (b, rb) = fa, fb
    if a.variable != b.variable or a.codes == b.codes:
        return None
    measured = _measured(read, core, a.variable)
    if measured is None or measured.plan is None:
        return None
    base = measured.plan
    if any(isinstance(f, VariableFilter) and f.variable == a.variable for f in base.filters):
        return None
    plan_a = base.model_copy(update={"filters": (*base.filters, a), "question": question})
    plan_b = base.model_copy(update={"filters": (*base.filters, b), "question": None})
    return _reading(question, plan_a, plan_b, (measured, ra, rb), f"{first} minus {second}")


def _formula(read: ReadFn, question: str, left: str, right: str) -> Reading | None:
    ra, rb = read(left), read(right)
    pa, pb = ra.plan, rb.plan
    if pa is None or pb is None:
        return None
    for p in (pa, pb):
        if p.aggregate.op not in _ONE or p.measure.of != "variable" or p.group_by:
            return None
    if pa.measure != pb.measure or pa.aggregate != pb.aggregate or pa.filters == pb.filters:
        return None
    plan_a = pa.model_copy(update={"question": question})
    return _reading(question, plan_a, pb, (ra, rb), f"{left} minus {right}")


def _reading(
    question: str, a: QueryPlan, b: QueryPlan, parts: tuple[Reading, ...], said: str
) -> Reading:
    groundings = [g for r in parts for g in r.groundings if g.kind != "aggregate"]
    groundings.append(
        Grounding(phrase=said, kind="aggregate", target="difference (first - second)")
    )
    return Reading(
        question=question,
        plan=a.model_copy(update={"minus": b}),
        confidence=0.85,
        groundings=tuple(groundings),
        notes=("difference: the first side's figure minus the second's",),
    )
