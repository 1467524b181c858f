"""Parentheses that add nothing the reading must honour: counting conventions and a threshold
said again in another unit.

Careful askers pin a definition in parentheses. Two kinds say nothing the answer does not do
anyway, and are dropped before the rules read the question:

* **counting conventions** — '(all pts, count readings not pts)', '(every measurement of every
  patient pooled)', '(combo products too)', '(each counted once)': every word is a word *about*
  counting (who, what rows, how often, pooled or not), none names a concept, a value or a time.
  The words are a closed list of such words, not any question's; one word outside it keeps the
  whole parenthesis, to be grounded or named in the abstention.
  The same words as the question's closing clause (', counting results rather than
  patients?') are dropped alike.
* **examples of a class** — '(ankle, wrist etc)', '(e.g. pollen, dust mite)', '(knee,
  chest...)': they illustrate the class before them; the class is read from its own words.
* **a unit said again**: 'mEq/L (the same as mmol/L for potassium)': a unit named equal to
  the one just written, with no number of its own.
* **today's date said again** — 'as of today (22 March 2023)', 'now (2023-03-22)': the date
  in parentheses after 'today' or 'now' is the reading's own today; another date stays.
* **a threshold said again** — 'below 70 mg/dL (about 3.9 mmol/L)', 'under 125 g/L (that is,
  12.5 g/dL)': a number with a unit, in parentheses, right after a number the question already
  states. The first number is the asker's; the second restates it for the reader.
"""

from __future__ import annotations

import datetime as dt
import re

from clinbridge.engine.understand._rank_marks import is_ranking

__all__ = ["drop_meta_asides"]

_META = frozenset(
    """
    all every each any both either whole entire overall total in the a an of per to for and or
    not only also too as well just
    patients patient pts pt persons person people individuals subjects members
    woman women man men female females male males child children adult adults case cases
    count counts counting counted once one time times twice
    reading readings measurement measurements record records row rows value values result
    results event events entry entries observation observations test tests episodes
    pooled together combined across over throughout regardless distinct unique individual
    separate separately included including inclusive
    db database data dataset source table
    ever at point
    kinds kind types type forms form strengths strength products product combo combos
    combination combinations brands branded generic generics dose doses
    rather than instead but not
    visits encounters admissions stays prescriptions exposures procedures diagnoses sessions
    visit encounter admission stay prescription exposure procedure diagnosis session
    immunizations vaccinations shots
    whatever whichever its their outcome outcomes
    """.split()  # noqa: SIM905 (a word list reads better as words)
)
_PAREN = re.compile(r"\s*\((?P<body>[^()]{1,80})\)")
_WORD = re.compile(r"[a-z]+|\d")
# a measurement unit, never a time or a count ('(2 years)', '(3 visits)' are not restatements)
_NUMBER_UNIT = (
    r"\d+(?:\.\d+)?\s*(?!(?:years?|yrs?|months?|weeks?|days?|hours?|visits?|times?|patients?)\b)"
    r"[a-zµ%][a-zµ%/^0-9.]*"
)
_RESTATED = re.compile(
    r"(?P<pre>\d+(?:\.\d+)?\s*(?:[a-zµ%][a-zµ%/^0-9.]*)?"
    r"(?:\s*(?:or|and)\s+(?:higher|more|above|greater|over|lower|less|below|under)|\s*\+)?\s*)"
    r"\(\s*(?:(?:about|approx\.?|approximately|roughly|around|circa|~|≈|=|i\.e\.,?|that\s+is,?|"
    r"or|equivalently|equivalent\s+to)\s*)*"
    r"(?:(?:under|below|over|above|less\s+than|more\s+than|at\s+least|at\s+most|<=|>=|<|>|≥|≤)\s*)?"
    rf"{_NUMBER_UNIT}\s*\)",
    re.I,
)


_SAME_UNIT = re.compile(
    r"(?<=[a-zµ%/0-9])\s*\(\s*(?:(?:which\s+is\s+)?the\s+same\s+as|same\s+as|equivalent\s+to|identical\s+to|"
    r"equals?|=|i\.e\.,?)\s+[a-zµ%][a-zµ%^0-9.]*/[a-zµ%^0-9.]+(?:\s+for\s+[a-z][a-z -]{1,30})?\s*\)"
)
"""A unit said to equal another, with no number: 'mEq/L (the same as mmol/L for potassium)'."""

_EXAMPLES = re.compile(
    r"\s*\(\s*(?:(?:e\.\s?g\.?|eg|for\s+example|for\s+instance|such\s+as|like)\s*,?\s*[^()]{2,80}?"
    r"|[^()]{2,80}?(?:,?\s*(?:etc\.?|and\s+so\s+on|and\s+the\s+like|or\s+otherwise|and\s+others?|"
    r"or\s+others?|or\s+any\s+other|whatever)|\.\.\.|…))\s*\)"
)
"""Examples of a class, in parentheses: '(ankle, wrist etc)', '(e.g. pollen, dust mite)',
'(ankle, chest, knee...)': they illustrate the class named before them and restrict nothing."""

_TODAY = re.compile(
    r"\b(?P<w>today|now)\s*,?\s*\(\s*(?:i\.e\.,?\s*|that\s+is,?\s*)?(?P<d>[^()]{6,24}?)\s*\)"
)


_WINDOW_SAID = re.compile(
    r"\b(?P<w>(?:past|last|previous|prior|preceding)\s+(?P<n>\d+)\s*(?P<u>days?|d|weeks?|wks?|months?|mos?|years?|yrs?))"
    r"\s*\(\s*(?:i\.e\.,?\s*|that\s+is,?\s*)?(?:from\s+|since\s+)?(?P<d>[^()]{6,24}?)\s*"
    r"(?:up\s+)?(?:to|until|till|through|thru|-|–)\s*(?:today|now)\s*\)",
    re.I,
)
"""'past 90 days (from 2019-04-04 up to today)': the window's own start said again."""


def _window_start(n: int, unit: str, today: dt.date) -> dt.date:
    u = unit.lower()
    if u.startswith("d"):
        return today - dt.timedelta(days=n)
    if u.startswith("w"):
        return today - dt.timedelta(weeks=n)
    months = n * 12 if u.startswith("y") else n
    y, m = divmod(today.year * 12 + today.month - 1 - months, 12)
    day = min(today.day, 28 if m + 1 == 2 else 30 if m + 1 in {4, 6, 9, 11} else 31)
    return dt.date(y, m + 1, day)


def drop_meta_asides(text: str, today: dt.date | None = None) -> str:
    """``text`` (normalised) without the parentheses above (``today``: the reading's today)."""
    from clinbridge.engine.understand._time import iso_days, parse_date
    from clinbridge.engine.understand._universal import drop_restated_universal
    from clinbridge.engine.understand._until_now import drop_until_now

    def same_day(m: re.Match[str]) -> str:
        day = parse_date(iso_days(m["d"]))
        return m["w"] if today is not None and day == today else m[0]

    text = drop_restated_universal(text)  # 'never >= 130 (all readings under 130)'
    text = _TODAY.sub(same_day, text)
    text = drop_until_now(text, today)  # 'since 2018 (up to today)': the window's own end

    def same_window(m: re.Match[str]) -> str:
        day = parse_date(iso_days(m["d"]))
        if today is None or not isinstance(day, dt.date):
            return m[0]
        start = _window_start(int(m["n"]), m["u"], today)
        return m["w"] if abs((day - start).days) <= 1 else m[0]

    text = _WINDOW_SAID.sub(same_window, text)
    text = re.sub(r"\bas\s+(?:of|at)\s+(today|now)\b", r"\1", text)  # 'aged 65+ as of today'
    text = _RESTATED.sub(lambda m: m["pre"], text)
    text = _SAME_UNIT.sub(" ", text)
    text = _EXAMPLES.sub(" ", text)

    def meta(m: re.Match[str]) -> str:
        words = _WORD.findall(m["body"].lower())
        # 'one value per woman', '1 reading per patient': one of each, a counting word
        ones = {
            k
            for k, w in enumerate(words)
            if w in {"1", "one"} and words[k + 1 : k + 2] and words[k + 1] in _META
        }
        if not words or any(
            (w.isdigit() or w not in _META) and k not in ones for k, w in enumerate(words)
        ):
            return m[0]
        return " "

    if is_ranking(text):  # 'top 3 drugs (counting patients)': the ranking's unit, read there
        return text
    text = _PAREN.sub(meta, text)
    return _CLAUSE.sub(meta, text)


_CLAUSE = re.compile(
    r"\s*,\s*(?P<body>(?:counting|count|each|every)\b[^,()?;]{1,60}?)(?=\s*\??\s*$)"
)
"""The same convention as a closing clause: '..., counting doses rather than patients?'."""
