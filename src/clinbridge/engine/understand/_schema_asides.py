"""What a data manager writes beside a literal: its unit, and the name of the code it gives.

'value_as_number >= 110 (mg/dL)', 'value >= 150 mg/dL': a unit after a threshold is the unit of
that threshold, never a table or a field; it goes on the value condition, where the compiled plan
converts it or the validator checks it against the stored unit. 'condition code 19169002
(miscarriage in first trimester)', 'visit_concept_id 9201 (inpatient)', 'LOINC 72166-2 (Tobacco
smoking status)': the words in parentheses right after a code name what the code is; they are
not more conditions. They are taken out of the tokens and checked afterwards against what the
code grounds to (the concept's own name, the canonical encounter type, the sex): a code whose
name disagrees abstains, naming both.

The knowledge used is the unit spellings the general reader already knows (``_slots.UNITS``)
and the source's own names for its codes, never a question.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from clinbridge.engine.understand._slots import UNITS

if TYPE_CHECKING:
    from clinbridge.catalog import Catalog
    from clinbridge.engine.understand._lexicon import Lexicon

__all__ = ["code_names", "name_disagrees", "threshold_unit"]

# a unit after a number, bare or in parentheses: '>= 110 (mg/dL)', '150 mg/dL', 'over 90.72 kg'
_AFTER_NUMBER = re.compile(
    rf"(?<=\d)(?P<all>\s*\(\s*(?:degrees?\s+)?{UNITS}\s*\)|\s*{UNITS.replace('<unit>', '<unit2>')})"
    r"(?![\w/^])",
    re.I,
)
# the unit the answer is asked in, in parentheses after a name: 'measurement (pg/mL)'
_ALONE = re.compile(rf"(?<=[A-Za-z\]])\s*\(\s*{UNITS}\s*\)(?![\w/^])", re.I)
# a code's name in parentheses right after it: '19169002 (miscarriage in first trimester)'
_CODE_NAME = re.compile(
    r"(?<![\w.\-])(?P<code>\d{3,}(?:[.\-]\d+)*|\d+(?:[.\-]\d+)+)\s*"
    # a name, not a clause about the query ('(by measurement_date)', '(stored in cm)')
    r"\((?!\s*(?:by|in|from|per|for|with|as|stored|converted|excluding|including|i\.e|e\.g)\b)"
    r"(?P<name>[^()\d_=<>][^()_=<>]*)\)",
    re.I,
)


# the short names of the canonical encounter types ('visit_concept_id 9203 (ER)')
_ENC_WORDS = {
    "emergency": ("er", "ed", "emer"),
    "inpatient": ("ip", "imp", "admission", "hospitalization"),
    "outpatient": ("op", "amb", "ambulatory", "office", "clinic"),
    "icu": ("intensive",),
}


def threshold_unit(question: str) -> tuple[str, str | None]:
    """``question`` without the unit written after its (one) threshold, and that unit (a
    number inside a quoted string is the string's: "name contains 'norethindrone 0.35 MG'")."""
    quoted = [m.span() for m in re.finditer(r"'[^']*'|\"[^\"]*\"", question)]

    def free(m: re.Match[str]) -> bool:
        return not any(a <= m.start() < b for a, b in quoted)

    units = [m for m in _AFTER_NUMBER.finditer(question) if (m["unit"] or m["unit2"]) and free(m)]
    if not units and len(alone := [m for m in _ALONE.finditer(question) if free(m)]) == 1:
        m = alone[0]
        return question[: m.start()] + question[m.end() :], m["unit"].lower()
    if len(units) != 1:
        return question, None
    m = units[0]
    unit = (m["unit"] or m["unit2"]).lower()
    return question[: m.start("all")] + question[m.end("all") :], unit


def code_names(question: str) -> tuple[str, list[tuple[str, str]]]:
    """``question`` without the names written in parentheses after codes, and (code, name)."""
    found: list[tuple[str, str]] = []

    def strip(m: re.Match[str]) -> str:
        if _AFTER_OP.search(question[: m.start()]):  # '>= 38.0 (degree Celsius)': a value
            return m[0]
        found.append((m["code"], m["name"].strip()))
        return m["code"]

    return _CODE_NAME.sub(strip, question), found


_AFTER_OP = re.compile(
    r"(?:[<>=]|\b(?:over|above|under|below|than|least|most|exceeding))\s*$", re.I
)


def name_disagrees(
    code: str,
    name: str,
    *,
    entries: list[int] | None,
    enc_type: str | None,
    sex: str | None,
    lex: Lexicon,
    cat: Catalog,
) -> bool:
    """Whether the name written beside a code disagrees with what the code grounds to: the
    concept's name (``entries``), the canonical encounter type, or the sex. A code that grounds
    to none of these has nothing to agree with: it disagrees."""
    words = set(re.findall(r"[a-z]+", name.lower()))
    if enc_type is not None:
        return not words & {enc_type, *_ENC_WORDS.get(enc_type, ())}
    if sex is not None:
        return not words & {sex, "women" if sex == "female" else "men"}
    if not entries:
        return True
    from clinbridge.engine.understand._ground import Concept, ground_text

    if confirms(lex, name, set(entries)):
        return False
    # the general grounding of the name (shorthand: 'diastolic BP'): its best concept is the code's
    codes = {str(lex.entries[i].code) for i in entries}
    found = [c for c in ground_text(name, lex, embeddings=False) if isinstance(c, Concept)]
    return not (
        len(found) == 1
        and found[0].score >= 0.6
        and {str(lex.entries[i].code) for i in (found[0].primary or found[0].entries)} <= codes
    )


def confirms(lex: Lexicon, span: str, coded: set[int]) -> bool:
    """The words name the concept of a code named beside them (same code in a match)."""
    from clinbridge.engine.understand._shorthand import expand_words
    from clinbridge.engine.understand._text import normalize

    codes = {lex.entries[i].code for i in coded}
    matches = lex.match(expand_words(normalize(span)))
    best = max((m.score for m in matches), default=0.0)
    return any(
        m.score >= max(0.3, best) and any(lex.entries[i].code in codes for i in m.entries)
        for m in matches
    )
