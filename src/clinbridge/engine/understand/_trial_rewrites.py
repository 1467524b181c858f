"""Column names said in a trial question, written as their dictionary labels ('TEMP_72H',
'SEIZ_BL = 1', 'HIE_GRADE 2 or 3'), and 'survivors' as 'not dead'."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from clinbridge.engine.understand._trial_arms import arm_rewrites
from clinbridge.engine.understand._trial_change_sign import (
    FALL_RESTATED,
    RESTATED_ORDER,
    drop_restated_order,
    read_fall_restated,
)
from clinbridge.engine.understand._trial_column_change import column_change_rewrites
from clinbridge.engine.understand._trial_model import is_yes
from clinbridge.engine.understand._trial_none_code import none_code_rewrites
from clinbridge.engine.understand._trial_numbers import NUMBER_RUN, number_of
from clinbridge.engine.understand._trial_phrases import bound_rewrites, phrase_rewrites
from clinbridge.engine.understand._trial_time_gloss import time_gloss_rewrite
from clinbridge.engine.understand._trial_vocab import NEGATED_WORDS
from clinbridge.engine.understand._trial_words import EXTRA_FILLER
from clinbridge.timepoint import find_time_points

if TYPE_CHECKING:
    from clinbridge.catalog import Catalog, Variable

__all__ = ["SPREAD_SAID", "rewrites", "spread_asked"]


def rewrites(catalog: Catalog, vocabulary: set[str]) -> list[tuple[re.Pattern[str], _Sub]]:
    """Column names said in a question ('TEMP_72H', 'SEIZ_BL = 1') become their label, time point
    and code label, fenced by '|' (a clause break: the label's words never join the words beside
    it, as 'moderate or severe' of PRIM_OUT's label would join HIE_GRADE's 'moderate'); 'survivors'
    means not dead unless the dictionary has a survival variable; 'no of' is 'number of',
    'frequency table of X' the number by X."""
    # 'no of babies', 'no. of infants': the abbreviation of 'number', never a negation
    # and 'frequency table of X' is the count in each group of X
    out: list[tuple[re.Pattern[str], _Sub]] = [
        (re.compile(r"\bno\.?\s+of\b", re.I), "number of"),
        # a request's frame ('could you tell me', 'please give', 'I'd like to know') asks nothing
        (re.compile(_REQUEST, re.I), ""),
        # 'did not in fact receive': an emphasis, no condition
        (re.compile(r"\bin\s+fact\b", re.I), " "),
        # '37 completed weeks' (of gestation): 37 weeks, as gestations are counted
        (re.compile(r"\b(\d+)\s+completed\s+(?=weeks?\b)", re.I), r"\1 "),
        # 'what did the deaths die of?', 'what the infants died from': the cause of death asked
        # (a dictionary without one abstains on 'cause'; never a share of the deaths)
        (
            re.compile(
                r"\bwhat\s+(?:did\s+)?(?P<who>[^?.;]+?)\s+(?:die|died)\s+(?:of|from)\b",
                re.I,
            ),
            r"distribution of cause of death among \g<who>",
        ),
        # 'on postnatal day 3': day 3 of life, as the day columns count it
        (re.compile(r"\b(?:postnatal|post-natal)\s+(?=days?\s+\d)", re.I), ""),
        # '0h -> 24h', '0h → 24h': from one time to the other
        (re.compile(r"\s*(?:->|→|=>|⟶)\s*"), " to "),
        time_gloss_rewrite(vocabulary, EXTRA_FILLER),  # '84h (after rewarming)': the time
        *phrase_rewrites(catalog),  # 'typical (median)', 'pre randomisation', 'the start (0 hours)'
        *((re.compile(rf"\b{n}\b", re.I), w) for n, w in _ORDINALS.items()),
        # 'median (IQR) days', 'mean (SD) weight': the spread said beside the summary asked
        (re.compile(SPREAD_SAID, re.I), r"\1"),
        # a scale's range in brackets ('MRI injury score (0-12)') is no condition, as in labels
        (re.compile(r"(?<=[a-z])\s*\(\s*\d+(?:\.\d+)?\s*[-–]\s*\d+(?:\.\d+)?\s*\)", re.I), ""),
        # 'n where ...', 'n with ...': the count of infants (a data manager's 'n')
        (re.compile(r"^\s*n\b(?=\s+(?:where|with|in|among|of|by)\b)", re.I), "number of infants"),
        # a time said in words ('at eighteen hours', 'day one'): in figures, as labels write it
        (re.compile(rf"\b({_NUMBERS})(?=\s+(?:{_TIME_UNITS})\b)", re.I), _figure),
        (re.compile(rf"\b(day|hour|month|week|year)\s+({_NUMBERS})\b", re.I), _figure_after),
        # ... and an amount said in words after a bound or before a unit ('over four kilos')
        (re.compile(rf"\b({_BOUNDS})\s+({_NUMBERS})\b", re.I), _figure_after),
        (re.compile(rf"\b({_NUMBERS})(?=\s+(?:{_AMOUNT_UNITS})\b)", re.I), _figure),
        *bound_rewrites(),  # '40 weeks or later': 40 weeks or more
        # 'which sites took part in ICE-LITE', 'centres participating in': those in it
        (
            re.compile(
                r"\b(?:(?:took|take|takes|taking|(?:have|has)\s+taken)\s+part|participat(?:ed|es|e|ing))\s+in\b",
                re.I,
            ),
            "in",
        ),
        # 'when they were born': at birth
        (re.compile(r"\bwhen\s+(?:they|he|she|it)\s+(?:was|were)\s+born\b", re.I), "at birth"),
        (
            re.compile(
                r"\bfrequenc(?:y|ies)\s+(?:table|distribution|counts?)s?\s+(?:of|for)\b", re.I
            ),
            "number of infants by",
        ),
    ]
    out.append((FALL_RESTATED, read_fall_restated))  # 'fall ... (24h minus 0h)'
    out.append((RESTATED_ORDER, drop_restated_order))  # '(6-hour value minus baseline)'
    out += column_change_rewrites(catalog)  # 'mean(rSO2_48h - rSO2_24h)': the change between
    out += _death_in_hospital(catalog)  # 'died in hospital': before discharge
    out += _each_within(catalog)  # 'at each NEOCHILL centre': each centre in NEOCHILL
    out += _label_lists(catalog)  # '(none, mild, moderate, severe)': a code list restated
    shared: dict[str, int] = {}
    for v in catalog.variables:
        key = (v.description or v.name).lower()
        shared[key] = shared.get(key, 0) + 1
    for v in catalog.variables:
        if v.role == "subject":  # 'count SUBJ_ID where ...': the subjects themselves
            out.append((re.compile(rf"(?<![\w-]){re.escape(v.name)}(?![\w-])", re.I), "subjects"))
            continue
        if v.type in {"string", "date"}:
            continue
        # a range or count in brackets ('score (0-12)') is no word of the question
        # ... and its colon no clause break ('Neurological examination: tone')
        # ... and its comma neither ('Blood glucose, laboratory plasma' is one label)
        label = re.sub(r"\s*\([^()a-zA-Z]*\)", "", v.description or v.name)
        label = label.replace(":", " ").replace(",", " ")
        label = _SPAN_SAID.sub("", label)  # '(0-72 h)': the span, not a time point of its own
        # the time tells apart columns that share a label ('TEMP_24H'); a label of its own
        # needs none ('AGE_DEATH' is no 'age at death at discharge' beside 'died before
        # discharge', nor 'SARNAT_V0' a grouping at 0 h)
        if (
            v.time_point
            and not find_time_points(label.lower())
            and shared[(v.description or v.name).lower()] > 1
        ):
            label += f" at {v.time_point}"
        label = f" | {label} | "
        name = rf"(?<![\w-]){re.escape(v.name)}"
        if v.codes:  # 'SEX = 2': with the '=' any name is the column's
            out.append(
                (re.compile(name + rf"\s*(?:==?|:)\s*{_Q}{_CODES}{_Q}", re.I), _coded(v, label))
            )
            # 'SEX != 1', 'HIE_GRADE <> 3': every other code
            out.append(
                (re.compile(name + rf"\s*(?:!=|<>|≠)\s*{_CODES}", re.I), _coded(v, label, True))
            )
            if _ordinal(v):  # 'GMFCS_18 >= 3': the codes at or above 3
                out.append(
                    (
                        re.compile(name + r"\s*(>=|<=|>|<|≥|≤)\s*(-?\d+)(?!\w|\.\d)", re.I),
                        _bounded(v, label),
                    )
                )
            if re.search(r"[_\d]", v.name) or (v.name.isupper() and len(v.name) >= 3):
                # 'Rand_Arm 1', 'HIE_GRADE is 2 or 3': a column name spelled as the dictionary
                # does, then bare codes
                out.append((re.compile(name + rf"\s+(?:is\s+|of\s+)?{_CODES}"), _coded(v, label)))
                # 'DISAB_LEVEL in (2,3)': a set of codes
                out.append(
                    (re.compile(name + rf"\s+in\s*\(\s*{_CODES}\s*\)", re.I), _coded(v, label))
                )
        text_codes = [c for c in v.codes if not re.fullmatch(r"-?\d+", c)]
        if text_codes:  # 'STUDY = NEOCHILL', 'Centre == Leeds': a text code after its name
            said = "|".join(re.escape(c) for c in sorted(text_codes, key=len, reverse=True))
            out.append(
                (
                    re.compile(name + rf"\s*(?:==?|:)\s*{_Q}({said}){_Q}(?![\w-])", re.I),
                    _text_coded(v, label),
                )
            )
        if re.search(r"[_\d]", v.name) or re.search(r"[a-z][A-Z]", v.name):
            # a name no word looks like ('TEMP_72H', 'SarnatGrade', said 'sarnatgrade' too)
            out.append((re.compile(name + r"(?![\w-])", re.I), label))
    for w in sorted(vocabulary):  # 'inborn' is not 'outborn' (a yes/no item of the dictionary)
        if w.startswith("out") and len(w) > 5:
            out.append((re.compile(rf"\bin[- ]?{re.escape(w[3:])}\b", re.I), f"non {w}"))
        # ... nor 'outborn' 'inborn', where the dictionary says only 'inborn'
        if w.startswith("in") and len(w) > 5 and f"out{w[2:]}" not in vocabulary:
            out.append((re.compile(rf"\bout[- ]?{re.escape(w[2:])}\b", re.I), f"non {w}"))
    out += arm_rewrites(catalog)  # 'cooled babies': the ARM code whose label is Hypothermia
    out += none_code_rewrites(catalog)  # 'no disability': the grade labelled 'None'
    if not any(w.startswith("surviv") or w == "alive" for w in vocabulary):
        out += [(re.compile(rf"\b{w}\b", re.I), words) for w, words in NEGATED_WORDS.items()]
    return out


_ORDINALS = {"1st": "first", "2nd": "second", "3rd": "third"}
_SPAN_SAID = re.compile(
    r"\s*\(\s*\d+(?:\.\d+)?\s*[-–]\s*\d+(?:\.\d+)?\s*(?:h|hrs?|hours?|days?)\s*\)", re.I
)
"""A label's span in brackets ('seizures during the intervention (0-72 h)'), which would read as
a second time point beside the column's own."""
_REQUEST = (
    r"^\s*(?:(?:could|can|would|will)\s+(?:you|u)\s+(?:please\s+)?"
    r"(?:tell|give|show|get|find|pull|provide|report|calculate|compute|check|work\s+out|figure\s+out)(?:\s+(?:me|us))?"
    r"|please\s+(?:tell|give|show|get|find|pull|provide|report|calculate|compute|check|work\s+out|figure\s+out)"
    r"(?:\s+(?:me|us))?|(?:tell|give|show)\s+(?:me|us)"
    r"|i(?:\s+would|'d|\s+want|\s+need)(?:\s+like)?\s+(?:to\s+(?:know|see|get)|the)"
    r"|please)\b\s*(?:,\s*)?"
)
_SUMMARY = r"mean|median|average"
_SPREAD = r"iqr|sd|s\.d\.|range|interquartile range|standard deviation"
SPREAD_SAID = (
    rf"\b({_SUMMARY})\s*(?:\(\s*(?:{_SPREAD})\s*\)|\[\s*(?:{_SPREAD})\s*\]"
    rf"|(?:±|\+/-|\band\b|&|\bwith\b)\s*(?:the\s+|its\s+)?(?:{_SPREAD})(?![\w.]))"
)
"""'median (IQR)', 'mean ± SD', 'mean and SD', 'median [IQR]': the spread beside the summary."""


def spread_asked(question: str) -> str | None:
    """'sd' or 'iqr' when the question asks a spread beside its mean or median (else None)."""
    m = re.search(SPREAD_SAID, question, re.I)
    if m is None:
        return None
    said = m.group(0)[len(m.group(1)) :].lower()
    if re.search(r"\bsd\b|s\.d\.|standard deviation", said):
        return "sd" if m.group(1).lower() != "median" else None
    if re.search(r"iqr|interquartile", said):
        return "iqr" if m.group(1).lower() == "median" else None
    return None


# number words ('one' to 'ninety', 'hundred', 'thousand') as runs, in figures
_NUMBERS = NUMBER_RUN
_TIME_UNITS = r"hours?|hrs?|days?|months?|weeks?|minutes?|mins?|years?|yrs?"
_BOUNDS = (
    r"over|under|above|below|more than|less than|at least|at most|fewer than|greater than|"
    r"exceeding|heavier than|lighter than"
)
_AMOUNT_UNITS = r"kilos?|kilograms?|kg|grams?|g|degrees?|points?"


def _figure(m: re.Match[str]) -> str:
    """A number word in figures ('eighteen' → '18', 'four thousand' → '4000')."""
    n = number_of(m.group(1))
    return m.group(0) if n is None else str(n)


def _figure_after(m: re.Match[str]) -> str:
    """'day one' → 'day 1'."""
    n = number_of(m.group(2))
    return m.group(0) if n is None else f"{m.group(1)} {n}"


"""An ordinal said in figures ('seizures in the 1st 72h') is the word the labels use."""
_Sub = str | Callable[[re.Match[str]], str]
_CODES = r"(-?\d+(?:\s*(?:,|/|\bor\b)\s*-?\d+)*)(?!\w|\.\d)"
"""One code or several ('2 or 3', '2, 3', '2/3') after a column name (a full stop after it ends
the sentence: 'RandArm = 2.')."""
_Q = "['\"‘’“”]?"
"""A code quoted as SQL quotes it: RAND_ARM = 'C', SEX = '2'."""


def _ordinal(v: Variable) -> bool:
    """Codes that are consecutive whole numbers, not yes/no: a bound on them picks codes."""
    if any(is_yes(lab) for lab in v.codes.values() if lab) or len(v.codes) < 3:
        return False
    if not all(re.fullmatch(r"-?\d+", c) for c in v.codes):
        return False
    nums = sorted(int(c) for c in v.codes)
    return nums == list(range(nums[0], nums[0] + len(nums)))


def _bounded(v: Variable, label: str) -> Callable[[re.Match[str]], str]:
    """'GMFCS_18 >= 3' → the labels of the codes 3 and above, then the label."""
    tests = {">=": int.__ge__, "≥": int.__ge__, "<=": int.__le__, "≤": int.__le__}
    tests |= {">": int.__gt__, "<": int.__lt__}

    def sub(m: re.Match[str]) -> str:
        bound = int(m.group(2))
        said = [lab for c, lab in v.codes.items() if tests[m.group(1)](int(c), bound)]
        if not said or len(said) == len(v.codes) or not all(said):
            return m.group(0)  # every code or none: no condition the labels can say
        return " | " + " or ".join(said) + f" {label.lstrip(' |')}"

    return sub


def _label_lists(catalog: Catalog) -> list[tuple[re.Pattern[str], _Sub]]:
    """A bracketed list of every code label of one variable ('(none, mild, moderate, severe)')
    restates that variable's categories: it is dropped (the question names the variable)."""
    sets = {
        frozenset(lab.strip().lower() for lab in v.codes.values())
        for v in catalog.variables
        if v.type == "categorical" and len(v.codes) >= 3 and all(v.codes.values())
    }

    def sub(m: re.Match[str]) -> str:
        items = frozenset(
            w.strip().lower()
            for w in re.split(r"\s*(?:,|/|;|\bor\b|\band\b)\s*", m.group(1))
            if w.strip()
        )
        return " " if items in sets else m.group(0)

    return [(re.compile(r"\(\s*([A-Za-z][\w /,;-]*?)\s*\)"), sub)]


def _death_in_hospital(catalog: Catalog) -> list[tuple[re.Pattern[str], _Sub]]:
    """'died in hospital', 'in-hospital death': a death before discharge, where the dictionary
    records one (the hospital is not then the site that recruited the infant)."""
    if not any(
        re.search(r"\b(?:death|died|mortality)\b", v.description or "", re.I)
        and re.search(r"\bdischarge\b", v.description or "", re.I)
        for v in catalog.variables
    ):
        return []
    return [
        (
            re.compile(r"\b(died|deaths?|dying|mortality)\s+in(?:\s+the)?\s+hospital\b", re.I),
            r"\1 before discharge",
        ),
        (re.compile(r"\bin[\s-]hospital\s+(deaths?|mortality)\b", re.I), r"\1 before discharge"),
    ]


def _each_within(catalog: Catalog) -> list[tuple[re.Pattern[str], _Sub]]:
    """'each NEOCHILL centre', 'every ICE-LITE site': each of the noun within that trial."""
    trial = next((v for v in catalog.variables if v.role == "trial" and v.codes), None)
    if trial is None:
        return []
    said = "|".join(
        re.escape(lab or c)
        for c, lab in sorted(trial.codes.items(), key=lambda kv: -len(kv[1] or kv[0]))
    )
    return [(re.compile(rf"\b(each|every)\s+({said})\s+([a-z]+)\b", re.I), r"\1 \3 in \2")]


def _text_coded(v: Variable, label: str) -> Callable[[re.Match[str]], str]:
    """'STUDY = NEOCHILL' → the code's label and the variable's label; a yes/no item's code
    ('ADREN_V0 = 'Y'', 'SEIZ = FALSE') → the label, or 'not' the label, as :func:`_coded`."""
    by_lower = {c.lower(): lab or c for c, lab in v.codes.items()}
    yes_no = any(is_yes(lab) for lab in v.codes.values() if lab)

    def sub(m: re.Match[str]) -> str:
        said = by_lower[m.group(1).lower()]
        if yes_no and is_yes(said):  # 'ADREN = 'Y'' (Y=Yes): the item itself
            return label
        if yes_no and said.strip().lower() in {"no", "n", "false", "absent"}:
            return f" not{label}"
        return f" | {said} {label.lstrip(' |')}"

    return sub


def _coded(v: Variable, label: str, other: bool = False) -> Callable[[re.Match[str]], str]:
    """'SEIZ_BL = 1' → the label (yes), 'not' the label (no), or the code's label and the label;
    ``other`` ('SEX != 1'): the codes not said."""
    yes_no = any(is_yes(lab) for lab in v.codes.values() if lab)

    def sub(m: re.Match[str]) -> str:
        said = [v.codes.get(c) for c in re.findall(r"-?\d+", m.group(1))]
        if None in said or not said or not all(said) or (yes_no and len(said) > 1):
            # a number that is no code stays, and is left unread; so does a code the
            # dictionary gives no label (its words would name the variable alone: a grouping)
            return m.group(0)
        if other:
            said = [lab for lab in v.codes.values() if lab not in said]
            if not said or not all(said):
                return m.group(0)
        if yes_no:
            return label if is_yes(said[0] or "") else f" not{label}"
        return " | " + " or ".join(str(lab) for lab in said) + f" {label.lstrip(' |')}"

    return sub
