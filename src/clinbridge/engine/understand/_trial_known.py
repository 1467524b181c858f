"""'with a known primary outcome', 'among non-missing Deaf_18 values', '(of those with it
recorded)', 'where both are non-missing', 'State the numerator and denominator': the default
about missing data, or the form every percentage answer already has, said in other words.

A figure never counts a missing code or a blank, so restricting it to the infants whose
measured variable is known restates what is done anyway: read, and said so in a grounding. The
variable named in such a clause ('known X') is left to be read, then checked: when it is a
variable the question measures or counts elsewhere the clause is the default and its mention is
dropped; when it names another variable the restriction is a condition of its own that no
figure here states, and the reading abstains rather than ignore it.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Protocol

from clinbridge.engine.understand._reading import Grounding
from clinbridge.engine.understand._trial_codes_out import check_codes_out, read_codes_out
from clinbridge.engine.understand._trial_model import Abstain, CodeSet, Family, Mention

if TYPE_CHECKING:
    from clinbridge.catalog import Variable

__all__ = ["drop_known_restated", "mark_missing_spans", "read_known_clauses"]

_KNOWN = (
    r"(?:known|recorded|available|documented|non\s+missing|nonmissing|not\s+missing|usable|valid)"
)
_END = r"(?=\s*(?:$|[,;:?.!]|\band\b|\bwhat\b|\bhow\b|\bwho\b))"
_NAMED = (
    # 'with a known primary outcome', 'having a recorded MRI grade'
    re.compile(
        rf"\b(?:with|having)\s+(?:an?\s+|the\s+|their\s+)?{_KNOWN}\s+(?P<x>[^,;:?.!]+?){_END}"
    ),
    # 'among non-missing Deaf_18 values', 'over the known X values'
    re.compile(
        rf"\b(?:among|over|of|across)\s+(?:the\s+|all\s+)?{_KNOWN}\s+(?P<x>[^,;:?!]+?)"
        r"\s+(?:values?|entries|records|results|data)\b"
    ),
    # 'among non-missing Deaf_18 where ...': a column's name (fenced by the rewrites) alone
    re.compile(rf"\b(?:among|over|of|across)\s+(?:the\s+|all\s+)?{_KNOWN}\s+(?P<x>\|[^|]+\|)"),
    # '(mode of delivery known)', '(sex recorded)': a variable and its being known, in brackets
    re.compile(rf"\(\s*(?P<x>[a-z][^()|]*?)\s+{_KNOWN}(?:\s+only)?\s*\)"),
    # 'rows where X is recorded', 'infants whose X was known'
    re.compile(
        r"\b(?:where|whose)\s+(?P<x>(?:\|[^|]+\||[a-z][a-z ]*?))\s+(?:is|was|are|were)\s+"
        rf"{_KNOWN}{_END}"
    ),
)
_PRONOUN = (
    # '(of those with it recorded)', 'among those with it known'
    re.compile(
        rf"\(?\s*\b(?:of|among|in)\s+(?:those|the\s+ones|infants|babies|rows|subjects)\s+"
        rf"(?:with|having)\s+(?:it|this|that|them|both)\s+{_KNOWN}\s*\)?"
    ),
    # 'over rows where both are non-missing', 'where both were recorded'
    re.compile(
        rf"\b(?:(?:over|among|in|across)\s+(?:the\s+)?(?:rows|infants|babies|subjects|cases)\s+)?"
        rf"(?:where|with)\s+both\s+(?:are|were|is)?\s*{_KNOWN}"
    ),
    # 'among its non-missing values', 'over their recorded values'
    re.compile(
        rf"\b(?:among|over|of|across)\s+(?:its|their)\s+{_KNOWN}\s+"
        r"(?:values?|entries|records|results|data|codes)\b"
    ),
    # 'infants with a known status were tube fed': the status of what is counted
    re.compile(rf"\b(?:with|having)\s+(?:an?\s+|their\s+)?{_KNOWN}\s+(?:status|values?)\b"),
    # '(known status only)', '(known values only)': of what is counted
    re.compile(rf"\(\s*{_KNOWN}\s+(?:status|values?|outcomes?|data|cases)\s+only\s*\)"),
    # 'among infants with both measured'
    re.compile(
        r"\b(?:among|in|of)\s+(?:the\s+)?(?:infants|babies|those|subjects|rows)\s+with\s+both\s+"
        r"(?:measured|recorded|known|available)"
    ),
    # 'State the numerator and denominator.': every percentage answer states both
    re.compile(
        r"\b(?:please\s+)?(?:state|give|show|report|include|with|and)\s+(?:the\s+|its\s+)?"
        r"numerators?\s+and\s+(?:the\s+)?denominators?\b"
    ),
)


_SCANNED = re.compile(
    r"\b(?:who|that)\s+(?:were|was|had\s+been)\s+(?:scanned|imaged)\b"
    r"|\b(?:who|that)\s+(?:had|underwent)\s+(?:an?\s+|the\s+)?(?:scan|mri|imaging)\b"
)
"""'infants who were scanned', 'who had a scan': an imaging result known (the default of a
figure over that result; any other figure abstains, see :func:`drop_known_restated`)."""
_IMAGING = re.compile(r"\b(?:mri|scan|imaging|ultrasound|spectroscopy|mrs|ct)\b", re.I)


class _Marks(Protocol):
    masked: str
    groundings: list[Grounding]

    def blank(self, a: int, b: int) -> None: ...


class _Read(_Marks, Protocol):
    text: str
    known: list[tuple[int, int]]
    mentions: list[Mention]
    codes_out: list[str]
    scanned: bool


def read_known_clauses(q: _Read) -> None:
    """Blank the clauses that restate the missing default; keep the span of each variable they
    name in ``q.known`` (checked by :func:`drop_known_restated` once mentions are read)."""
    spans: list[tuple[int, int]] = []
    for pattern in _PRONOUN:
        spans += [m.span() for m in pattern.finditer(q.masked)]
    for m in _SCANNED.finditer(q.masked):
        spans.append(m.span())
        q.scanned = True
    for pattern in _NAMED:
        for m in pattern.finditer(q.masked):
            if any(a < m.end() and m.start() < b for a, b in spans):
                continue  # '(of those with it recorded)': read already, naming no variable
            spans += [(m.start(), m.start("x")), (m.end("x"), m.end())]
            q.known.append(m.span("x"))
    mark_missing_spans(q, spans)
    # read: their words ('where ... is recorded') link nothing counted to a cohort either
    for a, b in spans:
        q.text = q.text[:a] + " " * (b - a) + q.text[b:]
    read_codes_out(q)  # '(8 and 9 excluded)': checked against the mentions' missing codes


def mark_missing_spans(q: _Marks, spans: list[tuple[int, int]]) -> None:
    """Ground (and blank) each span that says missing values are left out: the default of every
    figure, so it is accounted for and changes nothing."""
    for a, b in spans:
        if not q.masked[a:b].strip():
            continue
        q.groundings.append(
            Grounding(
                phrase=q.masked[a:b].strip(),
                kind="missing",
                target="missing codes and blanks are excluded (as in every figure)",
            )
        )
        q.blank(a, b)


def _names(mt: Mention) -> set[str]:
    if isinstance(mt.target, Family):
        return {v.name for vs in mt.target.members.values() for v in vs}
    var: Variable = mt.target.var
    return {var.name}


def _imaging(mt: Mention) -> bool:
    """Whether a mention names an imaging result (its label, name or form says so)."""
    members = (
        [v for vs in mt.target.members.values() for v in vs]
        if isinstance(mt.target, Family)
        else [mt.target.var]
    )
    return bool(members) and all(
        _IMAGING.search(" ".join(filter(None, (v.description, v.name, v.form)))) for v in members
    )


def _said_again(text: str, mt: Mention, known: list[tuple[int, int]]) -> bool:
    """Whether a yes/no item read across a 'known X' clause is said whole again after it
    ('(walking unaided known) were walking unaided'), not only joined to other words of its
    label ('with known primary outcome who died': the death is another variable)."""
    for a, b in known:
        if a <= mt.start < b < mt.end:
            said = set(re.findall(r"[a-z0-9]+", text[a:b]))
            return bool(said) and said <= set(re.findall(r"[a-z0-9]+", text[b : mt.end]))
    return False


def drop_known_restated(q: _Read) -> None:
    """Drop the mentions inside a 'known X' span whose variable the question reads elsewhere
    (their span is read: blanked); abstain when such a span names a variable read nowhere else.
    The codes said to be left out must be missing codes of what the question names."""
    check_codes_out(q.codes_out, q.mentions)
    if q.scanned and not any(_imaging(mt) for mt in q.mentions):
        raise Abstain(
            "'scanned' restricts to the infants with an imaging result, but the figure is of "
            "no imaging result; ask for it as a condition of its own"
        )
    if not q.known:
        return
    within = [mt for mt in q.mentions if any(a <= mt.start and mt.end <= b for a, b in q.known)]
    # 'with a known aEEG background showing burst suppression', '(mode of delivery known) ...
    # by emergency caesarean section': the variable and one of its codes read as one mention
    # (inside the clause or across it), a condition — the clause names what is counted
    coded = [
        mt
        for mt in q.mentions
        if any(mt.start < b and a < mt.end for a, b in q.known)
        and (
            (isinstance(mt.target, CodeSet) and mt.codes)
            or (
                isinstance(mt.target, Family)
                and mt.target.kind == "binary"
                and mt not in within
                and _said_again(q.text, mt, q.known)
            )
        )
    ]
    inside = [mt for mt in within if mt not in coded]
    within += [mt for mt in coded if mt not in within]
    outside = [mt for mt in q.mentions if mt not in inside]
    read = set().union(*(_names(mt) for mt in outside)) if outside else set()
    for mt in inside:
        if not _names(mt) & read:
            raise Abstain(
                f"'{mt.target.label}' known: a restriction to the infants with it recorded, "
                "on a variable the figure does not use; ask for it as a condition of its own"
            )
    for a, b in q.known:
        if not any(mt.start < b and a < mt.end for mt in within):
            raise Abstain("the clause about known values names no variable the reading could place")
        q.blank(a, b)
    for mt in coded:  # what is counted starts after the clause ('... known) were delivered by')
        for a, b in q.known:
            if a <= mt.start < b < mt.end:
                mt.start = b + len(q.text[b : mt.end]) - len(q.text[b : mt.end].lstrip())
    q.mentions = outside
