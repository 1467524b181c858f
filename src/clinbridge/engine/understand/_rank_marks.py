"""Ranked lists, read: 'the five most common diagnoses', 'top 3 lab tests since 2100', 'top 3
drugs by number of patients', '3 patients with the most encounters'.

'top N' / 'N most common' / 'which N X ... most often' becomes a ``rank`` slot (how many
places); :mod:`._ranking` applies it to a reading. What each place is counted in is read from
a unit clause beside it and kept in the slot's ``by``: patients ('by number of patients', 'given
to the largest number of distinct patients', 'each patient counted once'), events ('by number
of times recorded', 'by number of doses', 'with the most diagnosis records', 'counting every
record, not patients'), or nothing said (events, the records of each concept). Patients ranked
('the 3 patients with the most encounters', ``of="patients"``) are followed by a count intent,
so that the reading of what they have most of is a count of it. A ranking by anything other
than a number of events or patients ('the highest mortality rate'), or two counting units that
disagree, becomes an ``unsupported`` slot instead.
"""

from __future__ import annotations

import re

from clinbridge.engine.understand._patient_ranks import ONE_RANKED
from clinbridge.engine.understand._pieces import Piece, Slot, split_pieces

__all__ = ["is_ranking", "mark_rank"]

_FREQ = r"(?:common(?:ly)?|frequent(?:ly)?|often|popular|prevalent|usual)"
_DONE_MOST = r"(?:ordered|prescribed|given|administered|performed|recorded|used|diagnosed)"
_RANK = re.compile(
    rf"\b(?:top[\s-]+(?P<n1>\d+)(?:\s+(?:most\s+)?{_FREQ}|\s+most\s+{_DONE_MOST})?"
    rf"|(?P<n2>\d+)\s+(?:most\s+|more\s+)?{_FREQ}"
    rf"|most\s+{_FREQ}\s+(?P<n3>\d+))\b"
)
# 'which three vaccines ... most often', 'the three conditions with the most ... records': a
# number after a question word or 'the', ranked by a frequency word or a unit clause after it
_RANK_LATE = re.compile(
    r"\b(?:(?:which|what)(?:\s+(?:are|were)\s+the)?|the)\s+(?P<n4>\d+)\b"
    r"(?!\s+(?:minutes?|hours?|days?|weeks?|months?|years?|times?|mg|g|kg|ml|l)\b)(?=\s+[a-z])"
)
# what licenses a late ranking: 'most often' (never 'how often'), or a unit clause
_MOST_FREQ = re.compile(rf"\bmost\s+{_FREQ}\b")
# a frequency word left beside the thing ranked: 'the top 5 diagnoses most frequently made'
_FREQ_WORD = re.compile(rf"\b(?:most\s+)?{_FREQ}\b")
# ranked by something other than how often: never read as a frequency rank
_OTHER_ORDER = re.compile(
    r"\b(?:highest|lowest|largest|smallest|greatest|least|biggest|best|worst|rates?|ratio)\b"
)

_PEOPLE = r"(?:distinct\s+|unique\s+|different\s+|individual\s+)?(?:patients|people|persons|individuals|subjects)"
_EVENTS = (
    r"(?:times|records|rows|doses|orders|prescriptions|requests|events|occurrences|exposures|"
    r"administrations|entries|instances|cases)"
)
_DONE = r"(?:\s+(?:recorded|done|given|administered|ordered|prescribed|performed|made|on\s+file))?"
_MOST = (
    r"(?:most|(?:largest|highest|greatest|biggest)\s+(?:number|count|total)s?\s+of"
    r"|(?:largest|highest|greatest|biggest)\s+numbers\s+of)"
)
_ONCE = r"(?:\s*\(\s*(?:with\s+)?each\s+(?:patient|person)\s+counted\s+once[^)]*\))?"
_UNIT = re.compile(
    # 'by number of patients', 'by # of times recorded', 'by count of doses'
    rf"\bby\s+(?:the\s+)?(?:number|count|total)\s+of\s+(?:(?P<p1>{_PEOPLE}){_ONCE}"
    rf"|(?P<e1>(?:[a-z]+\s+)?{_EVENTS}){_DONE})"
    # 'given to the largest number of distinct patients', 'for the most patients'
    rf"|\b(?:(?:given|prescribed|performed|recorded|administered|diagnosed|done|ordered)\s+)?"
    rf"(?:to|for|in|on|among)\s+the\s+{_MOST}\s+(?P<p2>{_PEOPLE}){_ONCE}"
    # 'with the most diagnosis records', 'account for the most doses administered'
    rf"|\b(?:with|have|has|had|having|account\s+for|accounting\s+for)\s+the\s+{_MOST}\s+"
    rf"(?P<e2>(?:[a-z]+\s+){{0,2}}?{_EVENTS}){_DONE}"
)
# 'counting doses (exposure records) rather than patients', '(counting every procedure record
# (not patients))', 'counting patients, not visits'
_COUNTING = re.compile(r"[(,]?\s*\bcounting\s+(?P<body>[^()]*(?:\([^()]*\)[^()]*)*)\)?\s*$")
_REC = re.compile(rf"\b(?:{_EVENTS}|record|row|dose|time|each\s+time)\b")
_NOT_PEOPLE = re.compile(
    r"\b(?:not|rather\s+than|instead\s+of)\s+(?:distinct\s+)?(?:patients|people|persons)\b"
)
_PEOPLE_WORD = re.compile(r"\b(?:patients|people|persons|patient|person)\b")

# 'the 3 patients with the most encounters', '3 patients (ids) who have the most visits'
_PATIENTS_RANKED = re.compile(
    r"\b(?:(?:which|what)(?:\s+(?:are|were)\s+the)?\s+|the\s+|top\s+)?(?P<n>\d+)\s+"
    r"(?:patients|people|persons|individuals|subjects)(?:\s*\(\s*(?:patient\s+)?ids?\s*\))?\s+"
    rf"(?:with|who\s+(?:have|had)|that\s+(?:have|had)|having|have|has|had)\s+the\s+{_MOST}\b"
)


def _places(m: re.Match[str]) -> int:
    """The places of a patients' ranking: its number, or one ('which patient ...')."""
    n = m.groupdict().get("n")
    return int(n) if n else 1


def _unit_of(m: re.Match[str]) -> str:
    return "patients" if m["p1"] or m["p2"] else "events"


# a patient named only as whose records repeat: 'so repeat diagnoses of one patient count'
_ONE_OF = re.compile(
    r"\b(?:of|per|for|by|from)\s+(?:one|1|a|each|the\s+same|any)\s+(?:number\s+of\s+)?(?:patients?|persons?)\b"
)


# the words a counting clause may hold: what is counted and how, never a concept, a sex, an age
# or a time ('counting records, women only' is not only a unit)
_COUNT_WORDS = frozenset(
    """
    all every each any the a an of per to for and or not only also as well just by so
    patients patient persons person people individuals subjects distinct unique individual once
    one 1 number count counts counting counted time times repeat repeated repeats separately
    record records row rows entry entries event events occurrence occurrences instance instances
    dose doses order orders request requests prescription prescriptions exposure exposures
    administration administrations visit visits encounter encounters diagnosis diagnoses
    condition conditions procedure procedures drug drugs medication medications product products
    vaccine vaccines immunization immunizations test tests result results measurement
    measurements rather than instead
    """.split()  # noqa: SIM905 (a word list reads better as words)
)


def _counting(body: str) -> str | None:
    """What a 'counting ...' clause counts: events, patients, or None when it does not say."""
    if any(w not in _COUNT_WORDS for w in re.findall(r"[a-z0-9]+", body)):
        return None
    records = bool(_REC.search(body))
    people = bool(_PEOPLE_WORD.search(_ONE_OF.sub(" ", body) if records else body))
    if records and (not people or _NOT_PEOPLE.search(body)):
        return "events"
    if people and not records:
        return "patients"
    return None


def is_ranking(text: str) -> bool:
    """Whether the (normalised) text ranks: its counting asides are then the ranking's unit,
    read here, never dropped as conventions the answer follows anyway."""
    late = _RANK_LATE.search(text) and (_UNIT.search(text) or _MOST_FREQ.search(text))
    people = _PATIENTS_RANKED.search(text) or ONE_RANKED.search(text)
    return bool(_RANK.search(text) or people or late)


def mark_rank(pieces: list[Piece]) -> list[Piece]:
    """Mark 'top N' / 'N most common' as a ``rank`` slot (``{"top": N, "by": unit}``) and the
    frequency words and unit clauses that go with it; a ranking by anything else becomes an
    ``unsupported`` slot."""
    joined = " ".join(p.text if isinstance(p, Slot) else p for p in pieces)
    people = _PATIENTS_RANKED.search(joined)
    ranked_people = _PATIENTS_RANKED
    if people is None and (people := ONE_RANKED.search(joined)) is not None:
        ranked_people = ONE_RANKED  # 'which patient has the most visits': one place
    units = [_unit_of(m) for m in _UNIT.finditer(joined)]
    counting = _COUNTING.search(joined)
    if counting is not None:
        said = _counting(counting["body"])
        units.append(said or "?")
    late = _RANK_LATE.search(joined) if (units or _MOST_FREQ.search(joined)) else None
    if not (people or _RANK.search(joined) or late):
        return pieces
    rest = _COUNTING.sub(" ", _UNIT.sub(" ", joined))
    if people is None and _OTHER_ORDER.search(_PATIENTS_RANKED.sub(" ", rest)):
        return split_pieces(
            pieces,
            _RANK if _RANK.search(joined) else _RANK_LATE,
            lambda m: Slot(
                "unsupported", {"what": "a ranking by something other than how often"}, m[0]
            ),
        )
    if len(set(units)) > 1 or "?" in units:
        unclear = {"what": "a ranking whose counting unit (patients or records) is unclear"}
        pieces = split_pieces(
            pieces, _COUNTING if "?" in units else _UNIT, lambda m: Slot("unsupported", unclear)
        )
        return split_pieces(pieces, _RANK, lambda m: Slot("rank_word", {}, m[0]))
    by = units[0] if units else None
    if people is not None:
        if by == "patients":
            return split_pieces(
                pieces,
                _UNIT,
                lambda m: Slot("unsupported", {"what": "patients ranked by patients"}, m[0]),
            )

        def ranked(m: re.Match[str]) -> list[Piece]:
            return [
                Slot("rank", {"top": _places(m), "of": "patients", "by": by}, m[0]),
                Slot("intent", {"op": "count"}, ""),
            ]

        pieces = split_pieces(pieces, ranked_people, ranked)
        return split_pieces(pieces, _UNIT, lambda m: Slot("rank_word", {}, m[0]))

    def rank(m: re.Match[str]) -> Slot:
        n = int(m["n1"] or m["n2"] or m["n3"])
        return Slot("rank", {"top": n, "by": by}, m[0])

    if _RANK.search(joined):
        pieces = split_pieces(pieces, _RANK, rank)
    else:
        done = [False]

        def first_late(m: re.Match[str]) -> Slot | None:
            if done[0]:
                return None
            done[0] = True
            return Slot("rank", {"top": int(m["n4"]), "by": by}, m[0])

        pieces = split_pieces(pieces, _RANK_LATE, first_late)
    pieces = split_pieces(pieces, _UNIT, lambda m: Slot("rank_word", {}, m[0]))
    pieces = split_pieces(pieces, _COUNTING, lambda m: Slot("rank_word", {}, m[0]))
    return split_pieces(pieces, _FREQ_WORD, lambda m: Slot("rank_word", {}, m[0]))
