"""Two-event cohort questions: 'how many patients were diagnosed with Y within 2 months after X',
'the top three drugs prescribed in the same hospital visit after a diagnosis of X'.

The concepts are the source's own dictionary names, spotted word for word in the question
(longest first). Around them the reader expects one relation between the two events (within N
days / weeks / months after, later in the same encounter, later in the same calendar month), at
most one calendar time (in 2100, since 2100, since 1 year ago, this year, last year) that holds
for both events, and what is asked: a count of the patients with a Y that followed an X, or the
top N concepts of a kind (diagnoses, procedures, drugs, lab tests, specimens) recorded after an
X, each counted once per X it followed. Every other word must be a word of the frame (verbs of
recording, articles, 'patients', 'previously', ...); anything else — a first/last, a negation,
a cohort condition, an event before X — leaves the question to the general reader (None).
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from collections.abc import Callable
from typing import Any

from clinbridge.catalog import Catalog
from clinbridge.engine.plan import (
    Aggregate,
    CalendarWindow,
    ConceptRef,
    ConceptSet,
    EncounterScope,
    EventAnchor,
    EventFilter,
    Measure,
    QueryPlan,
    RelativeWindow,
)
from clinbridge.engine.understand._age_group import age_group
from clinbridge.engine.understand._lexicon import Lexicon
from clinbridge.engine.understand._reading import Grounding, Reading
from clinbridge.engine.understand._text import NUMBER_WORDS, tokens
from clinbridge.errors import UnderstandingError

__all__ = [
    "GLUE",
    "RANK",
    "TIME",
    "NotRead",
    "calendar_window",
    "concept_of",
    "one_match",
    "one_name",
    "or_none",
    "question_words",
    "read_follow",
    "spot_names",
    "target_stream",
]

_NUM = r"(?P<{0}>\d+|" + "|".join(NUMBER_WORDS) + ")"
_ENC = r"(?:hospital\s+|icu\s+)?(?:visit|encounter|stay|admission|hospitalization)"
_RELATION = re.compile(
    rf"\b(?:(?:with)?in|during|on|at)\s+the\s+same\s+(?:(?P<enc>{_ENC})|(?P<month>month))\b"
    rf"|\bwithin\s+(?:the\s+(?:next|following)\s+)?{_NUM.format('n')}\s+(?P<u>day|week|month)s?\b"
)
TIME = re.compile(
    r"\b(?:(?:in|during|throughout|of|for)\s+(?:the\s+)?(?:year\s+)?(?P<y>\d{4})"
    rf"|since\s+(?:the\s+year\s+)?(?P<since>\d{{4}})|since\s+{_NUM.format('ago')}\s+years?\s+ago"
    r"|(?:(?:in|during|throughout|of|for)\s+)?(?:the\s+)?(?P<rel>this|current|last|previous|past)\s+year)\b"
)
RANK = re.compile(
    rf"\b(?:(?:the\s+)?top\s+{_NUM.format('n1')}|{_NUM.format('n2')})\s+"
    r"(?:(?:most|more)\s+)?(?:(?:common|frequent|regular|usual|popular|often|typical|recurrent|routine|prevalent)(?:ly)?\s+)?"
    r"(?:(?:given|ordered|prescribed|performed|diagnosed|tested|taken|received|administered|"
    r"conducted|done|recorded|occurring|used)\s+)?"
    r"(?P<noun>diagnoses|conditions|procedures|treatments|surgeries|operations|drugs|"
    r"medications|medicines|prescriptions|lab(?:oratory)?\s+tests|labs|specimens|"
    r"output\s+events|outputs)\b"
)
_COUNT = re.compile(
    r"\b(?:how\s+many(?:\s+@\d+)?|(?:count|calculate|tell\s+me|what\s+is|what's|give\s+me)\s+the\s+"
    r"(?:total\s+)?number\s+of|number\s+of)\s+(?:(?:the\s+)?(?:patients|people|individuals|subjects))\b"
)
_NOUN_KINDS = {
    "diagnoses": "condition",
    "conditions": "condition",
    "procedures": "procedure",
    "treatments": "procedure",
    "surgeries": "procedure",
    "operations": "procedure",
    "drugs": "drug",
    "medications": "drug",
    "medicines": "drug",
    "prescriptions": "drug",
    "lab tests": "measurement",
    "laboratory tests": "measurement",
    "labs": "measurement",
    "specimens": "measurement",
    "output events": "observation",
    "outputs": "observation",
}
# the words of the frame: asking, recording an event, its order, the people it happened to
_GLUE_WORDS = """what which were was are is be been being the a an of for to in on with who that they
    their them those these there patients patient people individuals subjects person persons
    had have has having got get getting gets after following followed follow afterward
    afterwards later subsequently subsequent previously already also then once when
    diagnosed diagnosis diagnose received receiving receive receives underwent undergoing
    undergone undergo undertook undertaken given giving administered prescribed prescription
    ordered performed done conducted tested taken took take made occurred found treated
    treatment procedure procedures tell me show list give retrieve name provide can could you
    please among most top frequent frequently common commonly often regularly usual usually
    popular how many number count calculate total what's s diagnostic diagnosed did do does
    and or all any by as at during within since ago year into from fetch find delivered
    assigned place took afterward"""
GLUE = frozenset(_GLUE_WORDS.split())
_BEFORE = frozenset({"before", "prior", "preceding"})


def _index(lex: Lexicon) -> dict[tuple[str, ...], list[int]]:
    """Each dictionary name's words → its entries (built once per lexicon)."""
    cached = getattr(lex, "_follow_names", None)
    if cached is not None:
        return cached  # type: ignore[no-any-return]
    out: dict[tuple[str, ...], list[int]] = {}
    for text, _toks, entries, how in lex.labels:
        if how != "name":
            continue
        key = tuple(tokens(text))
        if key:
            out.setdefault(key, []).extend(entries)
    object.__setattr__(lex, "_follow_names", out)
    return out


def spot_names(words: list[str], lex: Lexicon) -> list[tuple[int, int, list[int]]]:
    """The dictionary names written word for word in ``words``: (start, end, entries), longest
    first, not overlapping, in order."""
    index = _index(lex)
    longest = max((len(k) for k in index), default=0)
    found: list[tuple[int, int, list[int]]] = []
    for i in range(len(words)):
        for j in range(min(len(words), i + longest), i, -1):
            entries = index.get(tuple(words[i:j]))
            if entries:
                found.append((i, j, entries))
                break
    found.sort(key=lambda s: (-(s[1] - s[0]), s[0]))
    taken: list[tuple[int, int, list[int]]] = []
    for s in found:
        if all(s[1] <= t[0] or s[0] >= t[1] for t in taken):
            taken.append(s)
    return sorted(taken)


def or_none(read: Callable[..., Reading | None]) -> Callable[..., Reading | None]:
    """The reader, answering None where its question turns out not to be of its shape."""

    @functools.wraps(read)
    def reading(*args: Any, **kwargs: Any) -> Reading | None:
        try:
            return read(*args, **kwargs)
        except NotRead:
            return None

    return reading


def question_words(question: str) -> list[str]:
    """The question's words, lower case ("X's" is 'x', "'s")."""
    return tokens(re.sub(r"'s\b", " 's", question.lower().replace("’", "'")))


def one_name(
    words: list[str], lex: Lexicon
) -> tuple[str, re.Match[str] | None, tuple[int, int, list[int]]] | None:
    """The words with their one spotted name as '@0' and their one calendar time taken out, the
    time, and the name's span; None unless exactly one name is spotted."""
    spans = spot_names(words, lex)
    if len(spans) != 1:
        return None
    i, j, _e = spans[0]
    text = " ".join([*words[:i], "@0", *words[j:]])
    when = one_match(TIME, text)
    if when is not None:
        text = text[: when.start()] + " " + text[when.end() :]
    return text, when, spans[0]


def _number(text: str) -> int:
    return int(text) if text.isdigit() else NUMBER_WORDS[text]


def calendar_window(m: re.Match[str] | None, now: dt.datetime | None) -> CalendarWindow | None:
    if m is None:
        return None
    if m["y"]:
        y = int(m["y"])
        return CalendarWindow(start=dt.date(y, 1, 1), end=dt.date(y, 12, 31))
    if m["since"]:
        return CalendarWindow(start=dt.date(int(m["since"]), 1, 1))
    if now is None:
        raise NotRead
    today = now.date()
    if m["ago"]:
        return CalendarWindow(start=today.replace(year=today.year - _number(m["ago"])))
    y = today.year - (1 if m["rel"] in {"last", "previous", "past"} else 0)
    return CalendarWindow(start=dt.date(y, 1, 1), end=dt.date(y, 12, 31))


class NotRead(UnderstandingError):
    """The question is not of this shape (the general reader takes it)."""

    def __init__(self, message: str = "the question is not of this shape") -> None:
        super().__init__(message)


def one_match(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    found = list(pattern.finditer(text))
    if len(found) > 1:
        raise NotRead
    return found[0] if found else None


def read_follow(
    question: str, lex: Lexicon, catalog: Catalog | None, now: dt.datetime | None
) -> Reading | None:
    """The reading of a two-event cohort question; None when the question is not one."""
    if catalog is None or not _RELATION.search(question.lower()):
        return None
    try:
        return _read(question, lex, now)
    except NotRead:
        return None


def _read(question: str, lex: Lexicon, now: dt.datetime | None) -> Reading | None:
    words = question_words(question)
    spans = spot_names(words, lex)
    seq = list(words)
    for k, (i, j, _e) in enumerate(spans):
        seq[i:j] = [f"@{k}"] + [""] * (j - i - 1)
    # an age group ('patients in their 40s') is said of the later events' encounters
    age, text, said = age_group(" ".join(w for w in seq if w))
    if said == "*":
        return None
    rel = one_match(_RELATION, text)
    if rel is None:
        return None
    text = text[: rel.start()] + " " + text[rel.end() :]
    when = one_match(TIME, text)
    if when is not None:
        text = text[: when.start()] + " " + text[when.end() :]
    rank, count = one_match(RANK, text), one_match(_COUNT, text)
    if (rank is None) == (count is None) or (age is not None and rank is None):
        return None
    asked = rank or count
    assert asked is not None
    before, after = text[: asked.start()], text[asked.end() :]
    rest = (before + " " + after).split()
    marks = re.findall(r"@\d+", text)
    if any(w not in GLUE and not w.startswith("@") and w not in _BEFORE for w in rest):
        return None
    if len(marks) != (1 if rank else 2) or len(set(marks)) != len(marks):
        return None
    # the anchor X: the one name (top N), or the name written after 'after'/'following'
    order = [w for w in text.split() if w.startswith("@") or w in {"after", "following"} | _BEFORE]
    if rank:
        x = int(marks[0][1:])
        if any(w in _BEFORE for w in order[: order.index(marks[0])]):
            return None  # 'before X', 'prior to X': the other direction
    else:
        if any(w in _BEFORE for w in order):
            return None
        cue = next((k for k, w in enumerate(order) if w in {"after", "following"}), None)
        after_names = [w for w in order[cue:] if w.startswith("@")] if cue is not None else []
        if not after_names:
            return None
        x = int(after_names[0][1:])
    anchor = concept_of(spans[x], lex)
    cal = calendar_window(when, now)
    n = _number(rel["n"]) if rel["n"] else None
    unit = rel["u"] or "day"
    anchor_node = EventAnchor(
        stream=anchor[0],
        concepts=anchor[1],
        which="each",
        same="encounter" if rel["enc"] else "month" if rel["month"] else None,
        dates=cal,
    )
    window = RelativeWindow(
        anchor=anchor_node,
        start_days=0,
        end_days=None if n is None else n * 7 if unit == "week" else n,
        unit="month" if unit == "month" else "day",
        dates=cal,
        per_anchor=rank is not None,
    )
    groundings = [
        Grounding(phrase=anchor[1].label or "", kind="concept", target=f"{anchor[0]}: anchor"),
        Grounding(phrase=rel[0], kind="window", target="after each anchor event"),
    ]
    if rank is not None:
        stream = target_stream(rank["noun"], words, lex)
        top = _number(rank["n1"] or rank["n2"])
        plan = QueryPlan(
            question=question,
            measure=Measure(of="concept", stream=stream),
            aggregate=Aggregate(op="list", top=top),
            window=window,
            scope=EncounterScope(age=age) if age is not None else None,
            now=now,
        )
        if age is not None:
            groundings.append(
                Grounding(phrase=said.strip(), kind="age", target="age recorded at each visit")
            )
    else:
        y = concept_of(spans[1 - x if x in (0, 1) else 0], lex)
        plan = QueryPlan(
            question=question,
            filters=(EventFilter(stream=y[0], concepts=y[1], window=window),),
            now=now,
        )
        groundings.append(Grounding(phrase=y[1].label or "", kind="concept", target=y[0]))
    return Reading(
        question=question,
        plan=plan,
        confidence=0.9,
        groundings=tuple(groundings),
        notes=("read as two events of a patient, one after the other",),
    )


def concept_of(
    span: tuple[int, int, list[int]], lex: Lexicon, *, kinds_read: bool = False
) -> tuple[str, ConceptSet]:
    """The stream and concept set of one spotted name (one stream, one code).

    On a source without a hierarchy a name may have kinds of its own ('hypertension' beside
    'essential hypertension'): its one code is then one reading of two, so it is not read here
    unless the caller offers both readings (``kinds_read``, as the count reader does).
    """
    entries = [lex.entries[e] for e in span[2]]
    streams = {e.stream_name for e in entries}
    if len(streams) != 1 or len({str(e.code) for e in entries}) != 1:
        raise NotRead  # a name in two streams, or two codes under one name
    if not kinds_read and kinds_of(span, lex) is not None:
        raise NotRead  # the name exactly, or with its kinds? the caller cannot ask
    e = entries[0]
    ref = ConceptRef(concept_id=e.code)  # the code only: a name would also match look-alikes
    # with its descendants where the source has a hierarchy, as the general reader reads names
    return e.stream_name, ConceptSet(concepts=(ref,), label=e.name)


def kinds_of(span: tuple[int, int, list[int]], lex: Lexicon) -> ConceptSet | None:
    """On a source without a hierarchy, the name with the other condition labels that are kinds
    of it ('Hypertension' and 'Essential hypertension', as :func:`._kinds.widen_to_kinds` reads
    them); None when there are none."""
    from clinbridge.engine.understand._kinds import widen_to_kinds

    if getattr(lex, "has_hierarchy", True):
        return None
    e = lex.entries[span[2][0]]
    matches = lex.match(e.name)
    chosen = [m for m in matches if set(m.entries) & set(span[2])][:1]
    wide = widen_to_kinds(chosen, matches, lex)
    if len(wide) <= len(chosen):
        return None
    codes = sorted({str(lex.entries[i].code) for m in wide for i in m.entries})
    label = f"{e.name} and its kinds ({len(codes)} codes)"
    return ConceptSet(concepts=tuple(ConceptRef(concept_id=c) for c in codes), label=label)


def target_stream(noun: str, words: list[str], lex: Lexicon) -> str:
    """The one stream of the kind the ranked noun names: the source's only stream of that kind,
    or the one the question's words name ('drugs' prescribed: the prescriptions)."""
    from clinbridge.engine.understand._ground import Word, ground_text, specific_streams

    noun = re.sub(r"\s+", " ", noun)
    names: list[Any] = list(lex.kind_streams.get(_NOUN_KINDS[noun], ()))
    if len(names) > 1:
        said = " ".join(w for w in words if w.startswith("prescri") and w != noun)
        phrase = "prescribed drugs" if noun == "prescriptions" else f"{said} {noun}".strip()
        items = ground_text(phrase, lex, embeddings=False)
        specific_streams(items, lex)
        names = sorted({i.value for i in items if isinstance(i, Word) and i.value in names})
    if len(names) != 1:
        raise NotRead
    return str(names[0])
