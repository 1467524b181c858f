"""Read how long an episode lasts — a summary over events' durations (end minus start).

'How long does whiplash last on avg (days)', 'avg length of an acute bronchitis episode, days',
'On average, how many days did an acute bronchitis episode last (end date minus start date,
over episodes with an end date)?', and the data manager's 'avg(condition_end_date -
condition_start_date) in days over condition_occurrence rows for X': a duration named
('duration', 'length', 'how long ... last', 'how many days ... last', a stream's own end column
minus its start column), one statistic ('average', 'median', 'longest', 'shortest', 'total'),
the definition the plan computes (the end date minus the start date, over the episodes with an
end) and words that only frame it. What is left names the events: it is asked on its own ('how
many patients had X') and must read as one plain event filter, the concepts and stream of the
measure. The plan is that statistic of ``Measure(of="duration")``. A stream that records no end
abstains; anything else left over, a patient, or a stream that is not the named columns', leaves
the question to the other readers (None).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from clinbridge.engine.plan import Aggregate, EventFilter, Measure, QueryPlan
from clinbridge.engine.understand._reading import Grounding, Reading
from clinbridge.engine.understand._stay_read import STAT_WORDS as _STATS
from clinbridge.engine.understand._text import normalize

__all__ = ["read_episode"]

_SQL = re.compile(
    r"\b(?P<op>avg|mean|median|max|min|sum)\s*\(\s*(?:[a-z_]+\.)?(?P<end>[a-z_]+)\s*-\s*"
    r"(?:[a-z_]+\.)?(?P<start>[a-z_]+)\s*\)"
)
_SQL_DIFF = re.compile(
    r"\b(?P<op>avg|mean|median|max|min|sum)\s*\(?\s*date_?diff\s*\(\s*'?days?'?\s*,\s*"
    r"(?:[a-z_]+\.)?(?P<start>[a-z_]+)\s*,\s*(?:[a-z_]+\.)?(?P<end>[a-z_]+)\s*\)\s*\)?"
)
""""avg date_diff('day', onset_time, abatement_time)": the same, said as a date difference."""
_CUE = re.compile(
    r"\b(?:duration|length)\b|\bhow\s+long\b.*\blast(?:s|ed)?\b"
    r"|\bhow\s+many\s+days\b.*\blast(?:s|ed)?\b"
)
_DEFINITIONS = (
    # '(end date minus start date, over episodes with an end date)', '(condition end date minus
    # start date)', 'from the condition 's start date to its end date'
    r"\(?\s*(?:the\s+)?(?:[a-z]+\s+)?end\s+date\s+minus\s+(?:the\s+)?(?:[a-z]+\s+)?start\s+date"
    r"(?:\s*,\s*over\s+(?:all\s+)?(?:the\s+)?episodes(?:\s+(?:with|that\s+have)\s+an\s+end\s+date)?)?\s*\)?",
    r"\bfrom\s+the\s+[a-z]+\s*'s\s+start\s+date\s+to\s+its\s+end\s+date\b",
    r"\bfrom\s+(?:its\s+|the\s+)?(?:onset|start)\s+to\s+(?:its\s+|the\s+)?(?:resolution|end|abatement)\b",
    r"\(\s*calendar\s+dates?(?:\s*,\s*over\s+(?:all\s+)?(?:the\s+)?episodes)?\s*\)",
    r"\(\s*episodes\s+without\s+an\s+end\s+date\s+excluded\s*\)",
    r"\b(?:over|across)\s+(?:all\s+)?(?:the\s+)?episodes(?:\s+(?:with|that\s+have)\s+an\s+end\s+date)?\b",
    r"\b(?:with|having)\s+(?:a\s+|an\s+)?non[-\s]?null\s+end\s+date\b",
    r"\b(?:with|and)\s+[a-z_]+_end_date\s+(?:is\s+)?not\s+null\b",
    r"\bwith\s+an\s+end\s+date\b",
)
_FRAME_TEXT = """how long many days day does do did is was were are what whats the a an of in on for
    episode episodes last lasts lasted duration length typical typically data this our we
    s rows row concept over across all with"""
_FRAME = frozenset(_FRAME_TEXT.split())


def read_episode(question: str, ctx: Any, ask: Callable[[str], list[Reading]]) -> Reading | None:
    """A reading of a how-long-does-it-last question; None when it is not one. ``ctx`` is the
    reader's ``UnderstandContext``; ``ask`` reads a sub-question whole."""
    catalog = ctx.catalog
    if catalog is None or ctx.patient_id is not None:
        return None
    text = normalize(question)
    named_stream = None
    sql = _SQL.search(text) or _SQL_DIFF.search(text)
    if sql is not None:
        named_stream = next(
            (
                s
                for s in catalog.streams
                if (s.end_time_column, s.time_column) == (sql["end"], sql["start"])
            ),
            None,
        )
        if named_stream is None:
            return None
        text = f"{text[: sql.start()]} {sql['op']} duration {text[sql.end() :]}"
        text = re.sub(rf"\b{re.escape(named_stream.table)}\b", " ", text)
    for definition in _DEFINITIONS:
        text = re.sub(definition, " ", text)
    if not _CUE.search(text):
        return None
    text = re.sub(r"\bon\s+(?:average|avg)\b", " mean ", text)
    text = re.sub(r"\b(?:in|as)\s+days\b|\(\s*days\s*\)|,\s*days\b", " ", text)
    words = re.findall(r"[a-z0-9_]+(?:[.'-][a-z0-9]+)*|\([^()]*\)|'[^']*'", text)
    ops = {_STATS[w] for w in words if w in _STATS}
    if len(ops) != 1:
        return None
    rest = [k for k, w in enumerate(words) if w not in _FRAME and w not in _STATS]
    if not rest or rest != list(range(rest[0], rest[-1] + 1)):
        return None  # the events' name is one run of words
    phrase = " ".join(words[k].strip("'") for k in rest)
    if re.search(r"\b(?:patient|pts?|era|eras|stays?|visits?|admissions?)\b", phrase):
        return None
    found = _events_named(phrase, ask)
    if found is None:
        return None
    stream_name, concepts = found
    stream = next((s for s in catalog.streams if s.name == stream_name), None)
    if stream is None:
        stream = next((s for s in catalog.streams if s.kind == stream_name), None)
    if stream is None or (named_stream is not None and stream.table != named_stream.table):
        return None
    if not stream.end_time_column:
        return Reading(
            question=question,
            abstain_reason=f"this source does not record when {stream_name} events end, "
            "so how long they last is unknown",
        )
    op = ops.pop()
    plan = QueryPlan(
        question=question,
        measure=Measure(of="duration", stream=stream_name, concepts=concepts),
        aggregate=Aggregate(op=op),  # type: ignore[arg-type]
        now=ctx.now,
    )
    said = f"the {op} of end minus start (days) over {concepts.describe()} episodes with an end"
    grounding = Grounding(phrase=phrase, kind="aggregate", target=said)
    return Reading(
        question=question,
        plan=plan,
        confidence=0.85,
        groundings=(grounding,),
        notes=("read as a summary of episode durations",),
    )


def _events_named(phrase: str, ask: Callable[[str], list[Reading]]) -> tuple[str, Any] | None:
    """(stream, concept set) of the events ``phrase`` names, read as 'how many patients had
    <phrase>': one plain event filter, else None."""
    readings = ask(f"how many patients had {phrase}")
    if not readings or readings[0].plan is None or readings[0].choices:
        return None
    plan = readings[0].plan
    if (
        len(plan.filters) != 1
        or plan.measure.of != "patients"
        or plan.aggregate.op != "count"
        or plan.group_by
        or plan.scope is not None
        or plan.window is not None
    ):
        return None
    flt = plan.filters[0]
    if (
        not isinstance(flt, EventFilter)
        or flt.concepts is None
        or flt.negate
        or flt.min_count != 1
        or flt.window is not None
        or flt.value is not None
        or flt.age_at_event is not None
        or flt.encounter_type is not None
        or flt.first_only
        or flt.status is not None
        or flt.matches
    ):
        return None
    return flt.stream, flt.concepts
