"""Asides rewritten before the rules read a question: words that restate a convention the
answer follows anyway ('(in completed years)', 'length of stay in days', '(strictly greater)'),
widen a class ('Y included'), or say a structure another way ('M vs F' is by sex, 'at least one
dose of X' is X, 'total X doses given' is a number of records). Each is a whole-text rewrite,
so the rules after it see one sentence (a piece split here would hide words from them).
"""

from __future__ import annotations

import re

from clinbridge.engine.understand._group_phrasing import rewrite_group_phrasing

__all__ = ["rewrite_asides"]

_ASIDES: tuple[tuple[re.Pattern[str], str], ...] = (
    # '(in completed years)', ', in whole years,': how ages are counted anyway
    (
        re.compile(
            r",?\s*\(?\s*(?:in|as|expressed\s+in)?\s*(?:completed|whole|full)\s+years"
            r"(?:\s+of\s+age)?\s*\)?\s*,?"
        ),
        " ",
    ),
    # 'length of stay in days of ...': days are the unit a length of stay is counted in
    (re.compile(r"\b(length\s+of\s+stay|los)\s*,?\s*\(?\s*in\s+days\s*\)?\s*,?"), r"\1 "),
    # 'median time (days) from X to Y': the time asked in that unit
    (
        re.compile(
            r"\b(?:time|interval|duration|delay|gap|lag)\s*\(\s*(?:in\s+)?(days|weeks|months|years)\s*\)"
        ),
        r"\1",
    ),
    # '(calendar dates)', '(visit start dates)': days are counted between dates anyway
    (re.compile(r"\(\s*(?:calendar|visit\s+start|start|event)?\s*dates?\s*\)"), " "),
    # 'M vs F', 'men versus women': a comparison by sex
    (
        re.compile(
            r"\b(?:m|males?|men)\s*(?:vs\.?|versus|v\.|/)\s*(?:f|females?|women)\b"
            r"|\b(?:f|females?|women)\s*(?:vs\.?|versus|v\.|/)\s*(?:m|males?|men)\b"
        ),
        " by sex ",
    ),
    # 'currently at least 70 years old': ages are taken now anyway
    (
        re.compile(
            r"\b(?:currently|presently|now)\s+(?=(?:aged?\s+)?(?:at\s+least|at\s+most|over|under|"
            r"older|younger|above|below|\d{1,3}\s*(?:\+|years|yo\b|or\b)))"
        ),
        "",
    ),
    # 'above 150 mg/dL (strictly greater)', 'at least 30 (inclusive)': the comparison said twice
    (
        re.compile(
            r"(\b(?:above|over|greater\s+than|more\s+than|higher\s+than|exceeding|>)\s*[\d.]+\s*[^\s()]*\s*)"
            r"\(\s*strictly(?:\s+(?:greater|more|higher|above))?(?:\s+than)?\s*\)"
        ),
        r"\1",
    ),
    (
        re.compile(
            r"(\b(?:below|under|less\s+than|lower\s+than|<)\s*[\d.]+\s*[^\s()]*\s*)"
            r"\(\s*strictly(?:\s+(?:less|lower|below))?(?:\s+than)?\s*\)"
        ),
        r"\1",
    ),
    (
        re.compile(
            r"(\b(?:or\s+(?:more|higher|greater|above|over|less|lower|below)|at\s+least|at\s+most)\s*)"
            r"\(\s*inclusive\s*\)"
        ),
        r"\1",
    ),
    # 'received at least one dose of X': received X
    (re.compile(r"\bat\s+least\s+(?:one|1|a\s+single)\s+(?:dose|shot|injection)s?\s+of\s+"), ""),
    # 'total HPV vaccine doses given': the number of such records
    (
        re.compile(
            r"^(?:the\s+)?total\s+(?!(?:number|count|no)\b)(?=(?:[a-z0-9-]+\s+){0,4}(?:doses|records|visits|encounters|"
            r"admissions|prescriptions|exposures|events|measurements|tests|procedures|diagnoses)\b)"
        ),
        "number of ",
    ),
    # 'dx made in the ER', 'drugs given in the ICU': events inside such encounters (the place
    # after a verb of recording, not 'patients seen in the ER', who are a cohort)
    (
        re.compile(
            r"\b(diagnosed|made|recorded|given|prescribed|administered|performed|done|ordered|coded|"
            r"documented|noted)\s+(?:in|at)\s+(?:the\s+|an?\s+)?"
            r"(er|ed|a&e|emergency\s+(?:room|department)|icu|intensive\s+care(?:\s+unit)?)\b"
            r"(?!\s+(?:visits?|encounters?|stays?|admissions?))"
        ),
        r"\1 during \2 visits",
    ),
    # 'pts weighing 100 kg+': a body weight
    (re.compile(r"\bweighing\b"), "with body weight"),
    # 'taller than 6 ft', 'heavier than 100 kg': a body measure compared
    (re.compile(r"\btaller\s+than\b"), "with body height above"),
    (re.compile(r"\bshorter\s+than\b"), "with body height below"),
    (re.compile(r"\bheavier\s+than\b"), "with body weight above"),
    (re.compile(r"\blighter\s+than\b"), "with body weight below"),
    # 'ambulatory/outpatient encounters': two names of one encounter type
    (
        re.compile(
            r"\b(?:ambulatory|outpatient|outpt)\s*(?:/|or)\s*(?:ambulatory|outpatient|outpt)\b"
        ),
        "outpatient",
    ),
    # 'admitted inpatient', 'admitted as an inpatient': admitted says it
    (re.compile(r"\badmitted\s+(?:as\s+(?:an?\s+)?)?(?:inpatients?|inpt)\b"), "admitted"),
    # 'of any kind, Y included': Y joins the class named before it ('including Y')
    (re.compile(r",\s*([a-z][^,()?;]{0,40}?)\s+included\b"), r", including \1 "),
    # '(admissions, not patients)', '(visits, not persons)': the unit the count is in, said
    # again beside the noun that already names it
    (
        re.compile(
            r"\s*\(\s*(?:admissions|visits|encounters|stays|records|rows|events|episodes|"
            r"prescriptions|exposures|procedures|measurements|diagnoses|sessions|doses|tests)\s*,?\s*not\s+"
            r"(?:distinct\s+|unique\s+)?(?:patients|persons|people|individuals|subjects|days|dates)\s*\)"
        ),
        " ",
    ),
    # 'made by male patients and how many by female patients', 'are male, and how many
    # female': one count per sex
    (
        re.compile(
            r"\b(?:are|were|(?:made|had|recorded)\s+(?:by|for))\s+(?:males?|men)(?:\s+patients)?\s*,?\s*"
            r"and\s+how\s+many\s+(?:(?:by|for|are|were)\s+)?(?:females?|women)(?:\s+patients)?\b"
            r"|\b(?:are|were|(?:made|had|recorded)\s+(?:by|for))\s+(?:females?|women)(?:\s+patients)?\s*,?\s*"
            r"and\s+how\s+many\s+(?:(?:by|for|are|were)\s+)?(?:males?|men)(?:\s+patients)?\b"
        ),
        " by sex ",
    ),
    # 'the Asthma concept or its descendants', 'any descendant of the ingredient X': a
    # concept's descendants are always included
    (
        re.compile(
            r"\b(?:the\s+)?([a-z][a-z0-9 ,'-]{1,60}?)\s+concept\s+or\s+(?:any\s+of\s+)?its\s+descendants\b"
        ),
        r"\1",
    ),
    (
        re.compile(
            r"\bor\s+(?:any\s+of\s+)?its\s+descendants\b|\(\s*(?:and|with|plus)\s+(?:its\s+)?descendants\s*\)"
        ),
        " ",
    ),
    (
        re.compile(
            r"\b(?:any\s+|a\s+)?descendants?\s+(?:concepts?\s+)?of\s+the\s+(?:ingredient|concept|class)\s+"
        ),
        "any ",
    ),
    # 'women (gender_concept_id 8532)', 'men (sex = M)': the sex said again as its code
    (
        re.compile(
            r"\b(women|females?|men|males?)\s*\(\s*(?:gender|sex)(?:_concept_id)?\s*(?:=\s*)?"
            r"(?:\d+|[mf])\s*\)"
        ),
        r"\1",
    ),
    # '(blood or serum)', '(serum/plasma)': the specimens a lab test is measured in, which the
    # test's own name already carries
    (
        re.compile(
            r"\s*\(\s*(?:any\s+)?(?:whole\s+)?(?:blood|serum|plasma)(?:\s*(?:/|or|and|,)\s*"
            r"(?:whole\s+)?(?:blood|serum|plasma))*\s*\)"
        ),
        " ",
    ),
    # '100.4 °F or more (38.0 °C; the source records Celsius)', 'above 6 feet (182.88 cm)':
    # the same value restated in another unit, in parentheses after the first
    (
        re.compile(
            r"(\d(?:\.\d+)?\s*(?:°\s*[cf]|[a-z/%\[\]^0-9*]{1,8})(?:\s+or\s+(?:more|higher|above|over|less|lower|below|under))?\s*)"
            r"\(\s*\d+(?:[.,]\d+)?\s*(?:°\s*[cf]|[a-z/%\[\]^0-9*]{1,12})\s*(?:[;,][^()]{0,60})?\)"
        ),
        r"\1 ",
    ),
    # 'condition_start_date >= 2000-01-01': a comparison with a date is a bound in time
    (re.compile(r"(?:>=|≥|=>)\s*(?=\d{4}-\d{2}-\d{2}\b)"), " on or after "),
    (re.compile(r"(?:<=|≤|=<)\s*(?=\d{4}-\d{2}-\d{2}\b)"), " on or before "),
    (re.compile(r"(?<![<>=])>\s*(?=\d{4}-\d{2}-\d{2}\b)"), " after "),
    (re.compile(r"(?<![<>=])<\s*(?=\d{4}-\d{2}-\d{2}\b)"), " before "),
    # 'from 2015 onwards', 'from March 2015 on': since then
    (
        re.compile(
            r"\bfrom\s+((?:[a-z]+\s+)?\d{4}(?:-\d{2}(?:-\d{2})?)?)\s+(?:onwards?|on|forward)\b"
        ),
        r"since \1",
    ),
    # 'latest weight converted from kg to lb': the value asked in a unit
    (
        re.compile(r"\bconverted\s+(?:from\s+(?:degrees?\s+)?[a-z°/\[\]]+\s+)?(?:in)?to\s+(?=\S)"),
        "in ",
    ),
    # '(pills, patches and rings all count)', '(any result counts)': the class said again
    (
        re.compile(
            r"\s*\(\s*[^()]{0,60}?\b(?:all|any|each|every|both)\b[^()]{0,20}?\s+"
            r"(?:counts?|count\s+too|qualif(?:y|ies))\s*\.?\s*\)"
        ),
        " ",
    ),
    # 'any form of X (Y included)', 'X (including Y)': the same, said in parentheses
    (re.compile(r"\s*\(\s*([a-z][^,()?;]{0,40}?)\s+included\s*\)"), r", including \1 "),
    (re.compile(r"\s*\(\s*including\s+([a-z][^,()?;]{0,40}?)\s*\)"), r", including \1 "),
)


def rewrite_asides(text: str) -> str:
    """Rewrite asides that restate a convention or widen a class, before the rules read it."""
    for pattern, repl in _ASIDES:
        text = pattern.sub(repl, text)
    return rewrite_group_phrasing(text)
