"""A variable the dictionary calls categorical (or coded) but lists no codes for: a
data-management status column, a flag whose codes the builder never wrote down.

No code list is no disagreement with the data: the column's values are kept as they are, numbers
as numbers (there is no code to check them against) and a few repeated texts as categories, each
its own label; the catalog says that its codes are not declared.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from clinbridge.adapters.trial._codes import MISSING_TEXT, is_number, is_special_missing
from clinbridge.adapters.trial._dictionary import _MISSING_GUESSES, code_key
from clinbridge.adapters.trial._listed_elsewhere import MAX_CATEGORIES, MIN_ROWS_EACH

if TYPE_CHECKING:
    from clinbridge.adapters.trial._dictionary import Entry

__all__ = ["NOT_DECLARED", "codes_not_declared"]

NOT_DECLARED = "codes not declared"
"""What ``trial_variables.source`` adds for such a variable (the catalog says it)."""


def _absent(v: Any, entry: Entry) -> bool:
    if v is None or (isinstance(v, float) and v != v):
        return True
    if not isinstance(v, str):
        return False
    s = v.strip()
    return not s or s.lower() in MISSING_TEXT or s in entry.missing or is_special_missing(s)


def codes_not_declared(entry: Entry, values: list[Any]) -> bool:
    """Keep a categorical ``entry`` without codes as its values are; return whether it is one.

    Numbers stay numbers (a categorical column with no codes to check them against); texts that
    are few and repeated become its categories, each its own label; other texts leave it a text
    column.
    """
    if entry.type != "categorical" or entry.codes or entry.source != "dictionary":
        return False
    entry.codes_declared = False
    present = [v for v in values if not _absent(v, entry)]
    if all(
        not isinstance(v, bool) and (isinstance(v, int | float) or is_number(str(v).strip()))
        for v in present
    ):
        # a few whole numbers are its codes, unlabelled, as for a column with no dictionary
        # entry ('1', '2', '3' answer as themselves); a usual missing code is none of them
        nums = {float(str(v).strip()) for v in present}
        nums -= {float(c) for c in entry.missing if is_number(c)}
        usual = nums & set(_MISSING_GUESSES)
        real = nums - usual if min(nums - usual, default=0.0) >= 0 else nums
        if real and len(real) <= MAX_CATEGORIES and all(x.is_integer() for x in real):
            entry.codes = {code_key(x): "" for x in sorted(real)}
        return True
    counts = Counter(str(v).strip() for v in present)
    if 2 <= len(counts) <= MAX_CATEGORIES and len(present) >= MIN_ROWS_EACH * len(counts):
        entry.codes = {v: v for v in sorted(counts)}
    else:
        entry.type = "string"
    return True
