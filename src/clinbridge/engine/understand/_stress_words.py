"""Words that stress what is asked without changing it, said the way the readers read it.

* 'the single highest systolic reading', 'any single weight measurement': 'single' stresses one
  record against a summary; the highest of the records is the highest record either way. Only
  after 'the' before a superlative, and after 'any' — never 'a single dose' (exactly one) nor
  'single (never married)';
* 'most recently diagnosed', 'most recently prescribed': the last time, said 'last'.
"""

from __future__ import annotations

import re

__all__ = ["stress_words"]

_SUPERLATIVE = (
    r"(?:highest|lowest|largest|smallest|longest|shortest|greatest|biggest|heaviest|lightest|"
    r"tallest|oldest|youngest|earliest|latest|maximum|minimum|most|least|top|best|worst)"
)
_THE_SINGLE = re.compile(rf"\b(?P<d>the)\s+single\s+(?={_SUPERLATIVE}\b)", re.I)
_ANY_SINGLE = re.compile(r"\b(?P<d>any)\s+single\s+(?=[a-z])(?!-)", re.I)
_MOST_RECENTLY = re.compile(r"\bmost\s+recently\b", re.I)


def stress_words(question: str) -> str:
    """``question`` with the stressing words of the module docstring said plainly."""
    question = _THE_SINGLE.sub(lambda m: f"{m['d']} ", question)
    question = _ANY_SINGLE.sub(lambda m: f"{m['d']} ", question)
    return _MOST_RECENTLY.sub("last", question)
