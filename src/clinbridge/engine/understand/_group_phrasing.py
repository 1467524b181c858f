"""Ways of asking for one answer per sex that the grouping rules do not read as written.

* 'broken down by patient sex', 'by the person's gender': whose sex is said, but a patient's
  sex is the only sex a record has — it is 'by sex';
* 'for male patients and how many for female patients', 'for male and for female patients',
  'to men and to women': one answer for each sex — 'by sex';
* 'inpatient admissions split by sex', 'give me flu shots given, broken down by sex': records
  named and split with no aggregate word — what a split of records gives is their number
  (the aggregate is said by the split itself; a value to average would have been named).

Each is a whole-text rewrite applied with the other asides (``_asides.py``), before the rules read
the question, so every word of the phrase is accounted for by the grouping it becomes.
"""

from __future__ import annotations

import re

__all__ = ["rewrite_group_phrasing"]

_MALE = r"(?:the\s+)?(?:males?|men)(?:\s+(?:patients|persons|people|subjects))?"
_FEMALE = r"(?:the\s+)?(?:females?|women)(?:\s+(?:patients|persons|people|subjects))?"
_TO = r"(?:for|to|in|among|by)"
_SPLIT = r"(?:split|broken\s+down|grouped|stratified|separated|tabulated)"
_RECORDS = (
    r"(?:admissions|visits|encounters|stays|doses|vaccinations|immuni[sz]ations|shots|"
    r"prescriptions|exposures|diagnoses|procedures|deaths|measurements|tests)"
)

_FORMS: tuple[tuple[re.Pattern[str], str], ...] = (
    # 'by patient sex', 'by the person's gender', 'by patients' sex'
    (
        re.compile(
            r"\bby\s+(?:the\s+)?(?:patients?|persons?|people|subjects?)(?:'s|s'|')?\s+(?:sex|gender)\b"
        ),
        "by sex",
    ),
    # 'for male patients and how many for female patients', 'to male and to female patients'
    (
        re.compile(
            rf"\b{_TO}\s+{_MALE}\s*,?\s*and\s+(?:how\s+many\s+)?(?:{_TO}\s+)?{_FEMALE}\b"
            rf"|\b{_TO}\s+{_FEMALE}\s*,?\s*and\s+(?:how\s+many\s+)?(?:{_TO}\s+)?{_MALE}\b"
        ),
        " by sex ",
    ),
    # 'give me inpatient admissions split by sex', 'flu shots given, broken down by sex':
    # records split with no aggregate word are counted
    (
        re.compile(
            r"^(?!.*\b(?:how|number|count|total|average|mean|median|what|which|proportion|"
            r"percent|percentage|fraction|rate|share|sum|maximum|minimum|when)\b)"
            r"(?:(?:please\s+)?(?:give\s+me|show(?:\s+me)?|list|get(?:\s+me)?)\s+)?(?:the\s+|all\s+)?"
            rf"(?=(?:[a-z0-9-]+\s+){{0,4}}?{_RECORDS}(?:\s+(?:given|administered|recorded|made|done))?"
            rf"\s*,?\s*{_SPLIT}\s+by\b)"
        ),
        "number of ",
    ),
)


def rewrite_group_phrasing(text: str) -> str:
    """``text`` with per-sex phrasings the grouping rules miss said as 'by sex' (see module)."""
    for pattern, repl in _FORMS:
        text = pattern.sub(repl, text)
    return text
