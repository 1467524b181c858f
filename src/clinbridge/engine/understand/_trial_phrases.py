"""General phrasings of trial questions written in the words the reader reads.

* 'the typical (median) number of days': the summary named in brackets is the one asked;
* 'how many % of babies': a percentage; 'both trials combined': all infants, pooled;
* 'for each of the three grades of encephalopathy': by the encephalopathy grade;
* 'seizures pre randomisation', 'pre-cooling': 'pre' is 'before';
* 'from the start (0 hours) to 24 hours': a moment restated by its time point is that time point;
* 'looking only at NEOCOOL', 'restricted to HYPOTHERM': the cohort ('in NEOCOOL');
* 'born at 40 weeks or later': a gestational age, bounded as '40 weeks or more'.
General English only; each rewrite leaves words the dictionary must still explain.
"""

from __future__ import annotations

import re

__all__ = ["bound_rewrites", "phrase_rewrites"]

def phrase_rewrites() -> list[tuple[re.Pattern[str], str]]:
    """(pattern, replacement) pairs, applied in order to the question as said."""
    return [
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
        # 'how many % of babies ...': a percentage, not a count
        (re.compile(r"\bhow\s+many\s*(?:%|percent\b|per\s*cent\b)", re.I), "what percentage"),
        (
            re.compile(r"\bpre[\s-]?(randomi[sz]ation|randomi[sz]ed|cooling|treatment)\b", re.I),
            r"before \1",
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
