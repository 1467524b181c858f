"""Two readings that give one pooled or borrowed number where the question asked for another.

* Values of one coded variable joined by 'and' ('boys and girls', 'site 4 and site 5', 'mild and
  moderate HIE'): an infant has one value, so 'and' lists the groups asked about, not one pooled
  cohort. The answer is per value (a grouping restricted to those values); where the values are
  what is counted ('percentage who were boys and girls') the reading abstains.
* A plural counted noun that only a label's aside names ('how many causes of death' against 'Death
  before 18 months (any cause)'): the table counts infants with the item, not the things its
  qualifier mentions, so the reading abstains rather than count the infants.
"""

from __future__ import annotations

import re

from clinbridge.engine.understand._trial_model import Abstain, CodeSet, Family, Mention, Parse
from clinbridge.engine.understand._trial_words import SUBJECT_NOUNS

AND = re.compile(r"\b(?:and|plus|both)\b|&")
OR = re.compile(r"\b(?:or|either|any)\b|/")
COUNTED = re.compile(
    r"\b(?:how\s+many|number\s+of|count\s+of|total\s+of|numbers\s+of)\s+(?:the\s+)?"
)


def joined_by_and(mt: Mention, text: str) -> bool:
    """Whether the mention names two or more codes of one variable joined by 'and' (not 'or')."""
    if not isinstance(mt.target, CodeSet) or len(set(mt.codes)) < 2:
        return False
    said = text[mt.start : mt.end]
    return bool(AND.search(said)) and not OR.search(said)


def check_and_counted(mt: Mention, text: str) -> None:
    """Values joined by 'and' as what is counted: no infant has both, and a pooled share is not
    what 'and' asks — abstain and say how to ask."""
    if mt.zone == "numerator" and joined_by_and(mt, text):
        assert isinstance(mt.target, CodeSet)
        var = mt.target.var
        raise Abstain(
            f"{text[mt.start : mt.end]!r} are {len(set(mt.codes))} values of {var.name} "
            f"({var.description}); an infant has one — ask 'by {var.description.lower()}' "
            "or name one value"
        )


def check_aside_counted(text: str, parse: Parse, mentions: list[Mention]) -> None:
    """'how many <noun>s' where the noun grounds a variable only through its label's aside."""
    for m in COUNTED.finditer(text):
        k = next((i for i, t in enumerate(parse.content) if t.start >= m.end()), None)
        if k is None or parse.content[k].start != m.end():
            continue
        word = parse.content[k].norm
        said = parse.content[k].text.lower()
        if said == word or not said.endswith("s"):
            continue  # 'how many outborn infants': a word describing what is counted
        if k + 1 < len(parse.content) and parse.content[k + 1].norm in SUBJECT_NOUNS:
            continue
        for mt in mentions:
            fam = mt.target
            if not isinstance(fam, Family) or k not in mt.positions:
                continue
            if word in fam.qual and word not in fam.head | fam.names | fam.key:
                raise Abstain(
                    f"{parse.content[k].text!r} is named only in an aside of {fam.label!r}; "
                    "the table records that item per infant, not a count of "
                    f"{parse.content[k].text!r}",
                    unresolved=[parse.content[k].text],
                )
