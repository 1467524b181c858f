"""Words and patterns of trial questions: aggregates, comparisons, groupings, units.

General English and general clinical phrasing only, never phrases of particular questions.
"""

from __future__ import annotations

import re

from clinbridge.engine.understand._trial_vocab import FILLER, SUBJECT_WORDS, canon

AGG_WORDS: dict[str, str] = {
    "mean": "mean",
    "average": "mean",
    "avg": "mean",
    "median": "median",
    "percentage": "proportion",
    "percent": "proportion",
    "proportion": "proportion",
    "fraction": "proportion",
    "share": "proportion",
    "risk": "proportion",
    "%": "proportion",
    "how many": "count",
    "number of": "count",
    "count": "count",
    "standard deviation": "stddev",
    "sd": "stddev",
    "minimum": "min",
    "lowest": "min",
    "maximum": "max",
    "max": "max",
    "min": "min",
    "highest": "max",
}
_PLURAL_AGGS = ("mean", "average", "median", "percentage", "proportion", "fraction", "share")
_OTHER_AGGS = [w for w in AGG_WORDS if w not in _PLURAL_AGGS and w not in {"min", "%"}]
AGG_RE = re.compile(
    rf"\b(?:({'|'.join(_PLURAL_AGGS)})s?|{'|'.join(sorted(_OTHER_AGGS, key=len, reverse=True))}"
    r"|(?<!\d)(?<!\d\s)min)\b|%"
)
"""An aggregate word, said once or in the plural ('report percentages by arm'); 'min' but not
the minutes of '5 min'."""
CHANGE_RE = re.compile(r"\b(change|difference|rise|fall|drop|increase|decrease|delta)\b")
EXTRA_FILLER = frozenset(
    [
        "before",
        "beforehand",  # 'passively cooled beforehand': the time its label says
        *("pls", "plz"),  # please
        *("select", "get", "fetch", "display"),  # a request ('select count(*) where ...')
        "stratified",
        "group",
        "groups",
        "stratify",
        "broken",
        "split",
        "according",
        *(w + s for w in ("hour", "day", "week", "month", "minute", "year") for s in ("", "s")),
        "hrs",  # (not 'hr': that is the heart rate)
        "h",
        "g",
        "gram",
        "grams",
        "kg",
        "c",
        "mmol",
        "l",
        "mmhg",
        "bpm",
        "unit",
        "units",
    ]
)
EXTRA_FILLER = EXTRA_FILLER | frozenset(canon(w) for w in EXTRA_FILLER | FILLER) | FILLER
NEGATORS = frozenset({"non", "not", "no", "without", "never"})
SUBJECT_NOUNS = frozenset(
    canon(w + s) for w in (*SUBJECT_WORDS, "boy", "girl", "group", "arm") for s in ("", "s")
) | frozenset(canon(w) for w in ("babies", "children"))
"""The subjects and their groups ('the girls', 'the cooled arm')."""
SUBJECT_ID = re.compile(
    r"\b(?:infant|subject|patient|baby|participant|child|record)\s*(?:id\s*|number\s*|no\.?\s*)?"
    r"#?\s*(?P<id>(?=[A-Za-z0-9_-]*\d)[A-Za-z0-9][A-Za-z0-9_-]*)\b"
    r"|\b(?P<id2>[A-Za-z]{1,5}-\d+(?:-\d+)+)\b",
    re.I,
)
LIST_RE = re.compile(
    r"^\s*(?:which|list(?:\s+(?:the|all))?|what)\s+(?:\|\s*)?(?P<w>[a-z]+(?:\s+[a-z]+)?)"
)
COMPARATIVE = re.compile(
    r"\b(higher|highest|lower|lowest|more|most|less|least|fewer|fewest|better|best|worse|worst|largest|smallest)\b"
)
DURATION_UNITS = frozenset({"days", "day", "hours", "hour", "h", "weeks", "minutes", "min"})
"""A variable measured in a unit of time is a duration ('how long', 'duration of ventilation')."""
GENERIC_FAMILIES = 4
"""A word in the labels of this many families or more is generic ('serum', 'dose')."""
DESIGN_PRIOR = 0.15
"""Conditions on the design variables (arm, trial, site) are the commonest in trial questions."""
SPLIT_VERBS = frozenset(
    [
        "who",
        "whose",
        "that",
        "which",
        "had",
        "has",
        "have",
        "were",
        "was",
        "died",
        "developed",
        "received",
        "experienced",
        "required",
        "needed",
        "got",
        "suffered",
        "reached",
        "met",
        "achieved",
        "attained",
        "fulfilled",
    ]
)
COHORT_MARKERS = frozenset({"among", "amongst", "in", "within", "for", "where"})
"""'percentage DEATH = 1 where HIE_GRADE = 3': what follows 'where' is the cohort."""
CLAUSE_BREAK = re.compile(
    r"[,;:?|]|\b(?:had|has|have)\b"
    r"|\b(?:infants?|bab(?:y|ies)|neonates?|newborns?|child(?:ren)?|patients?|subjects?|"
    r"participants?|among|amongst|where)\b"
)
"""What ends a phrase: one mention never spans 'dead infants, what proportion had a severe ...',
nor the subjects or 'among' ('dead infants with severe disability', 'severe disability among
survivors' are two conditions, not the composite 'death or severe disability')."""
LINK_VERBS = frozenset(
    {
        *("occurred", "occur", "occurring", "happened", "happen", "took"),
        *("were", "was", "are", "is", "that", "which", "who"),
    }
)
"""'proportion of deaths (that) occurred in the cooled arm': the head is the cohort only when a
verb links it to the rest; 'percentage of outborn babies in NEOCOOL' is a share within NEOCOOL."""
CROSSING = (
    r"(?:\b(?:dipped|dropped|fell|fallen|went|gone|rose|risen|climbed)\s+"
    r"(?=(?:below|under|above|over)\b))?"
)
"""A verb of crossing a bound ('dropped below 32', 'rose above 38'): the bound, said as a move."""
CMP = re.compile(
    CROSSING
    + r"(?P<op>less than or equal to|greater than or equal to|at least|at most|no more than|"
    r"no less than|more than|greater than|higher than|older than|younger than|above|over|"
    r"exceeding|less than|lower than|below|under|fewer than|equal to|equals|exactly|"
    r"<=|>=|≤|≥|<|>|==|=)\s*"
    r"(?P<num>-?\d+(?:\.\d+)?)\s*(?P<unit>°\s*c\b|°|g\b|kg\b|kilos?\b|kilograms?\b|grams?\b|weeks?\b|wks?\b|mmol/l\b|"
    r"mmhg\b|bpm\b|%|days?\b|years?\b|points?\b|hours?\b"
    r"|degrees?(?:\s+(?:c|celsius)\b)?(?!\w)|celsius\b)?"
)
CMP_AFTER = re.compile(
    r"(?P<num>-?\d+(?:\.\d+)?)\s*(?P<unit>°\s*c\b|°|g\b|kg\b|kilos?\b|kilograms?\b|grams?\b|weeks?\b|wks?\b|mmol/l\b|"
    r"mmhg\b|bpm\b|%|days?\b|years?\b|points?\b|hours?\b)?\s+or\s+"
    r"(?P<op>higher|more|above|greater|over|lower|less|below|fewer|under)\b"
)
"""'3 or higher', '2.5 kg or less': the bound is included."""
BEFORE_AFTER = re.compile(
    r"\b(?P<op>at or before|at or after|before|after|earlier than|later than|prior to|beyond)\s+"
    r"(?P<num>\d+(?:\.\d+)?)\s*(?:(?P<unit>weeks?|wks?)(?![\w])"
    r"|(?P<age>hours?|hrs?|h|days?|minutes?)(?=\s+(?:of\s+(?:age|life)|old)\b))"
)
"""'born before 37 weeks': a bound on a quantity in weeks (no time point is counted in weeks);
'randomised after 5 hours of age': a bound on an age."""
BEFORE_AFTER_OPS = {
    **dict.fromkeys(["before", "earlier than", "prior to"], "<"),
    **dict.fromkeys(["after", "later than", "beyond"], ">"),
    "at or before": "<=",
    "at or after": ">=",
}
VALUE_OF = re.compile(
    r"\b(?:score|level|value|count|number)\s+of\s+(?P<num>\d+)"
    r"(?:\s*(?P<sep>or|to|-)\s*(?P<num2>\d+))?(?![\w.%])"
)
"""'an Apgar score of 0', 'a GMFCS level of 4 or 5' (two adjacent), 'an MRI score of 4 to 6'."""
CMP_AFTER_OPS = {
    **dict.fromkeys(["higher", "more", "above", "greater", "over"], ">="),
    **dict.fromkeys(["lower", "less", "below", "fewer", "under"], "<="),
}
TIME_SUFFIX = re.compile(r"_?(?:\d+\s*(?:h|hr|hrs|min|m|mo)|[hd]\d+)$", re.I)
"""The time point at the end of a column name ('_24H', '_h72', '0h', '_D3')."""
BETWEEN = re.compile(
    r"\bbetween\s+(?P<a>-?\d+(?:\.\d+)?)\s*(?:°\s*c|g|kg|weeks?)?\s+and\s+(?P<b>-?\d+(?:\.\d+)?)"
    r"\s*(?P<unit>°\s*c\b|g\b|kg\b|kilos?\b|kilograms?\b|grams?\b|weeks?\b)?"
)
OPS = {
    "less than or equal to": "<=",
    "greater than or equal to": ">=",
    "at least": ">=",
    "no less than": ">=",
    "at most": "<=",
    "no more than": "<=",
    "more than": ">",
    "greater than": ">",
    "higher than": ">",
    "older than": ">",
    "above": ">",
    "over": ">",
    "exceeding": ">",
    "less than": "<",
    "lower than": "<",
    "younger than": "<",
    "below": "<",
    "under": "<",
    "fewer than": "<",
    "equal to": "=",
    "equals": "=",
    "exactly": "=",
    "==": "=",
    "=": "=",
    "<=": "<=",
    ">=": ">=",
    "≤": "<=",
    "≥": ">=",
    "<": "<",
    ">": ">",
}
GROUP_RE = re.compile(
    r"\b(?P<lead>by|per|(?:for|in) each (?:value|level|category) of|in each|for each|at each|"
    r"of each|within each|across|between|according to|in both|"
    r"in the two|for both|for the two)\s+(?:\|\s*)?(?:the\s+)?(?:two\s+|both\s+|different\s+|each\s+)?"
    r"(?P<rest>[a-z][a-z0-9\-]*(?:\s+[a-z][a-z0-9\-]*){0,3})"
)
BOTH_TRIALS = re.compile(
    r"(?<!combining )(?<!pooling )\b(both|two|each|the two|across|between)\s+(trials|studies)\b"
    r"(?!\s+(?:combined|pooled|together))"
)
"""Both trials, each on its own ('in both trials', 'across the two studies'); 'both trials
combined' or 'pooling the two trials' is one pooled cohort (``_trial_all_infants``)."""
TIME_RANGE = re.compile(
    r"(?<![\w.])(?P<a>\d+(?:\.\d+)?)\s*(?P<sep>to|-|vs\.?|versus)\s*(?P<b>\d+(?:\.\d+)?)\s*"
    r"(?P<unit>h|hrs?|hours?|days?|min|minutes?|months?)\b"
)
"""'0 to 24h', '0-72 h', '6 vs 24 hours': the unit written once, after the second time point."""
TIME_UNITS = re.compile(r"^(hours?|hrs?|h|days?|months?|mos?|minutes?|mins?|weeks?)\b")
PREPOSITIONS = re.compile(
    r"\b(of|at|during|before|after|in|on|from|to|for|with|by|per|since|until|within|between|given)\b"
)
UNIT_NAMES = {
    "g": "g",
    "gram": "g",
    "grams": "g",
    "kg": "kg",
    "kilogram": "kg",
    "kilograms": "kg",
    "kilo": "kg",
    "kilos": "kg",
    "°c": "°C",
    "° c": "°C",
    "°": "°C",
    "c": "°C",
    **dict.fromkeys(
        ["degree", "degrees", "degrees c", "degree c", "degrees celsius", "celsius"], "°C"
    ),
    "week": "weeks",
    "weeks": "weeks",
    "wk": "weeks",
    "wks": "weeks",
    "mmol/l": "mmol/L",
    "mmhg": "mmHg",
    "bpm": "beats/min",
    "beats/min": "beats/min",
    "%": "%",
    "day": "days",
    "days": "days",
    "year": "years",
    "years": "years",
    "hour": "hours",
    "hours": "hours",
    "h": "hours",
    "hr": "hours",
    "hrs": "hours",
}
IN_UNIT = re.compile(
    r"\bin\s+(kg|g|grams?|kilograms?|hours|days|weeks|months|minutes|°c|mmol/l|mg/dl|mmhg|%)(?:\s|\?|$|,|\.)"
)
CONVERT = {("kg", "g"): 1000.0, ("g", "kg"): 0.001}
CLARIFICATION = re.compile(
    r"\(\s*(?:i\.?\s?e\.?|that\s+is|namely|viz\.?)\s*,?\s*(?P<body>[^()]*)\)"
)
"""A parenthetical restatement: '(i.e. ...)', '(that is, ...)', '(namely ...)'."""
IMPLIED_SHARE = re.compile(r"\b(?:mortality|incidence|prevalence)\b")
"""Words that ask for a share when no aggregate is named ('the mortality in the cooled arm')."""

_EXCLUDE = (
    r"(?:exclud(?:e|es|ed|ing)|omit(?:s|ted|ting)?|ignor(?:e|es|ed|ing)|drop(?:s|ped|ping)?|"
    r"remov(?:e|es|ed|ing)|leav(?:e|es|ing)\s+out|left\s+out|not\s+counting|without)"
)
_EXCLUDED = r"(?:(?:are|were|being|is)\s+)?(?:excluded|omitted|ignored|dropped|removed|left\s+out)"
_DATA = r"(?:\s+(?:values?|codes?|data|entries|cases|outcomes?|results?|status))?"
WHO = r"(?:(?:infants|babies|subjects|patients|children|neonates)\s+)?"
CLAUSE_END = r"(?=\s*(?:$|[,;:?.!()]|and\b))"
"""Such a clause ends where its clause does: 'with known primary outcome' names a variable."""


MISSING_OF = re.compile(
    rf"\b(?:unknown|missing)\s+(?P<x>[a-z]+(?:\s+[a-z]+)?)\s+{_EXCLUDED}{CLAUSE_END}"
)
"""'unknown sex excluded': the missing default, said of a variable whose name (x) is left to be
read — beside a code of it ('male') it is that code's variable; alone it asks which value."""
WHOSE_KNOWN = re.compile(
    r"\b(?:counting|including|keeping|using|taking)\s+only\s+(?:those|the\s+ones|"
    r"(?:the\s+)?(?:infants|babies|subjects|patients|children|neonates))\s+whose\s+"
    r"(?P<x>[a-z]+(?:\s+[a-z]+){0,2}?)\s+(?:was|were|is|are|had\s+been|has\s+been)\s+"
    rf"(?:actually\s+|really\s+)?(?:recorded|known|available|measured|assessed|documented)"
    rf"{CLAUSE_END}"
)
"""'counting only those whose disability level was actually recorded': the missing default
again, the variable's name (x) left to be read as in ``MISSING_OF``."""


_AFTER_CODE = r"(?<!\d and )(?<!\d or )(?<!\d, )(?<!\d,)(?<!\d & )(?<!\d/)"
"""Not the end of a list of codes ('999 and NK excluded': the codes' clause reads it whole)."""


def missing_clause(missing_words: list[str]) -> re.Pattern[str]:
    """A clause that restates the default about missing data: 'unknowns excluded', 'excluding
    missing values', 'complete cases only', 'where known' (the dictionary's missing-code labels,
    such as 'not done', count as missing words too). Including them is no default: never read."""
    nouns = "|".join(
        [r"unknowns?", r"missing", r"blanks?", r"nas?"]
        + [r"not\s+(?:assessed|measured|recorded|known|available|done|tested|examined|applicable)"]
        + [
            r"[\s-]+".join(map(re.escape, re.split(r"[\s-]+", w))) + "s?"
            for w in sorted(missing_words, key=len, reverse=True)
        ]
    )
    # 'excluding those not assessed', 'excluding infants with missing data'
    # ... 'leaving out anyone whose status was not known', 'any that were not done'
    those = (
        r"(?:(?:those|infants|babies|subjects|patients|children|neonates|anyone|any)\s+"
        r"(?:(?:who|that)\s+(?:were|are|was|is)\s+|with\s+"
        r"|whose\s+(?:status|data|value|result|outcome)s?\s+(?:was|were|is|are)\s+)?)?"
    )
    # 'not-done and unknown codes left out': several missing words at once
    noun = rf"{those}(?:the\s+)?(?:{nouns})(?:\s*(?:,|and|or|/)\s*(?:{nouns}))*{_DATA}"
    known = rf"{WHO}with\s+(?:known|available|non\s+missing){_DATA}"
    return re.compile(
        rf"\b(?:{_EXCLUDE}\s+{noun}|{_AFTER_CODE}{noun}\s+{_EXCLUDED}|complete\s+cases?"
        rf"|(?:denominators?\s*[:=]?\s*)?{known}"
        rf"|(?:known|available|non\s+missing|observed)\s+(?:values?|data|cases|outcomes?)"
        rf"|where\s+known|if\s+known)(?:\s+only)?{CLAUSE_END}"
    )
