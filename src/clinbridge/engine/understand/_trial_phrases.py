"""General phrasings of trial questions written in the words the reader reads.

* 'the typical (median) number of days': the summary named in brackets is the one asked;
* 'with apgar 0 at 10 min': a value of the measure at that time;
* 'splitting them by whether they were A or B': A vs B;
* 'how many % of babies': a percentage; 'both trials combined': all infants, pooled;
* 'for each of the three grades of encephalopathy': by the encephalopathy grade;
* 'seizures pre randomisation', 'pre-cooling': 'pre' is 'before'; 'post-randomisation seizures'
  the seizures after randomisation;
* 'from the start (0 hours) to 24 hours': a moment restated by its time point is that time point;
* 'looking only at NEOCOOL', 'restricted to HYPOTHERM': the cohort ('in NEOCOOL');
* 'born at 40 weeks or later': a gestational age, bounded as '40 weeks or more'.
General English only; each rewrite leaves words the dictionary must still explain.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from clinbridge.catalog import Catalog

__all__ = ["bound_rewrites", "phrase_rewrites"]

_VERB = r"(?:were|was|had|received|got|underwent)"


def _counted_values(catalog: Catalog | None) -> list[tuple[re.Pattern[str], str]]:
    """'with apgar 0 at 10 min': a whole-number value of a counted measure (a score, an integer
    variable's label word) at its time point is 'a score of 0'; a float measure ('lactate 5')
    is left as said (exactly 5 is rarely what is meant)."""
    if catalog is None:
        return []
    words = {
        w
        for v in catalog.variables
        if v.type == "integer" and not v.role
        for w in re.findall(r"[a-z]{3,}", (v.description or "").lower())
    }
    if not words:
        return []
    said = "|".join(sorted(map(re.escape, words), key=len, reverse=True))
    pattern = rf"\b(with|had|having)\s+(?:an?\s+)?({said})\s+(\d+)(?=\s+(?:at|on)\s+(?:day\s+)?\d)"
    return [(re.compile(pattern, re.I), r"\1 \2 score of \3")]


def phrase_rewrites(catalog: Catalog | None = None) -> list[tuple[re.Pattern[str], str]]:
    """(pattern, replacement) pairs, applied in order to the question as said."""
    return [
        *_counted_values(catalog),
        (re.compile(r"\btypical\s*\(\s*(median|mean|average)\s*\)", re.I), r"\1"),
        # 'for each of the three grades of encephalopathy': by what is graded
        (
            re.compile(
                r"\bfor\s+each\s+of\s+the\s+(?:[a-z]+\s+)?(?:grades?|stages?|levels?|"
                r"categories|category)\s+of\s+",
                re.I,
            ),
            "by ",
        ),
        # '..., I need the mean ...': a request's frame after a clause, as at the start
        (
            re.compile(
                r"(?<=[,;:])\s*i\s+(?:need|want|would\s+like|'d\s+like)\s+(?:to\s+(?:know|see)\s+)?"
                r"(?=the\b)",
                re.I,
            ),
            " ",
        ),
        # 'across both trials combined', 'pooling the two studies': all the infants, pooled
        (
            re.compile(
                r"\b(?:(?:across|in|for|over|from)\s+)?(?:both|the\s+two|two)\s+(?:trials|studies)"
                r"\s+(?:combined|pooled|together)\b|\b(?:combining|pooling)\s+(?:both|the\s+two|"
                r"the)\s+(?:trials|studies)\b",
                re.I,
            ),
            "in all infants",
        ),
        # 'splitting the children by whether they were cooled or received standard care': the
        # two sides set against each other (a 'vs' whose sides must both be read as codes of
        # one variable, ``_trial_versus``); 'or not' is left unread
        (
            re.compile(
                r"\b(?:split(?:ting)?|divid(?:e|ing)|separat(?:e|ing))\s+(?:the\s+[a-z]+\s+|them\s+)?"
                rf"by\s+whether\s+(?:they|he|she)\s+{_VERB}\s+(?P<a>[a-z][a-z\s-]*?)\s+or\s+"
                rf"(?:{_VERB}\s+)?(?!not\b|no\b|none\b)(?P<b>[a-z][a-z\s-]*?)(?=\s*(?:[,;?.]|$))",
                re.I,
            ),
            r"\g<a> vs \g<b>",
        ),
        # 'how often was the probe oesophageal?': in what share of the infants
        (
            re.compile(r"\bhow\s+often(?=\s+(?:was|were|did|is|are|had|has)\b)", re.I),
            "what percentage",
        ),
        # 'how many % of babies ...': a percentage, not a count
        (re.compile(r"\bhow\s+many\s*(?:%|percent\b|per\s*cent\b)", re.I), "what percentage"),
        (
            re.compile(r"\bpre[\s-]?(randomi[sz]ation|randomi[sz]ed|cooling|treatment)\b", re.I),
            r"before \1",
        ),
        # 'with known vital status' of a share that died: whether the infant died is known,
        # the default of that share's denominator
        (
            re.compile(
                r"\b(?:with\s+(?:a\s+)?)?known\s+vital\s+status\b"
                r"(?=.*\b(?:died|die|dying|dead|death|deaths|mortality)\b)",
                re.I,
            ),
            " ",
        ),
        # 'post-randomisation seizures': the seizures after it, said as labels say it
        (
            re.compile(
                r"\bpost[\s-]?(randomi[sz]ation|cooling|treatment|rewarming)\s+(?!and\b|or\b)([a-z]+)",
                re.I,
            ),
            r"\2 after \1",
        ),
        (
            re.compile(
                r"\b(?:the\s+)?(?:start|beginning|outset)\s*\(\s*(0\s*(?:h|hrs?|hours?))\s*\)",
                re.I,
            ),
            r"\1",
        ),
        (
            re.compile(
                r"\b(?:looking\s+only\s+at|looking\s+at\s+only|restrict(?:ed|ing)\s+to|"
                r"limit(?:ed|ing)\s+to)\b",
                re.I,
            ),
            "in",
        ),
    ]


def bound_rewrites() -> list[tuple[re.Pattern[str], str]]:
    """'40 weeks or later' → '40 weeks or more' (after the number words are figures); 'born at
    40 weeks': a gestational age (weeks at birth are the gestation)."""
    return [
        # "37 weeks' gestation or later": the bound beside its number, the gestation after it
        (
            re.compile(
                r"(\d+(?:\.\d+)?\s*(?:weeks|wks))['’]?\s+(?:of\s+)?(gestation)\s+or\s+(later|earlier)\b",
                re.I,
            ),
            r"\1 or \3 \2",
        ),
        (
            re.compile(r"\bborn\s+(?:at\s+)?(?=\d+(?:\.\d+)?\s*(?:weeks?|wks?)\b)", re.I),
            "born at gestational age ",
        ),
        (
            re.compile(r"(\d+(?:\.\d+)?\s*(?:weeks?|wks?|days?|hours?|months?)?)\s+or\s+later\b"),
            r"\1 or more",
        ),
        (
            re.compile(r"(\d+(?:\.\d+)?\s*(?:weeks?|wks?|days?|hours?|months?)?)\s+or\s+earlier\b"),
            r"\1 or less",
        ),
    ]
