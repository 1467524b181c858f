"""'(8 and 9 excluded)', '999 and NK excluded', 'codes 8 and 9 left out', 'excluding code 9':
the missing codes of what the question reads, named and set aside — the default of every figure.

The codes are read with their clause, then checked once the mentions are known: each must be a
declared missing code of a variable the question names (any of a family's columns). A code that
is an ordinary value ('excluding code 3' of a grade) is a condition no figure here states, so
the reading abstains rather than ignore it.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Protocol

from clinbridge.engine.understand._reading import Grounding
from clinbridge.engine.understand._trial_model import Abstain, Family, Mention

if TYPE_CHECKING:
    from clinbridge.catalog import Variable

__all__ = ["check_codes_out", "read_codes_out"]

_CODE = r"(?:-?\d+(?:\.\d+)?|[a-z]{1,3})"
_CODES = rf"(?P<codes>{_CODE}(?:\s*(?:,|and|or|/|&)\s*{_CODE})*)"
_LEAD = r"(?:(?:the\s+)?(?:missing\s+)?(?:codes?|values?)\s+)?"
_OUT = r"(?:(?:are|is|were|being)\s+)?(?:excluded|omitted|ignored|dropped|removed|left\s+out|set\s+aside)"
_END = r"(?=\s*(?:$|[,;:?.!()]|\band\b))"
CODES_OUT = (
    # ... with the code's meaning in brackets and the rows it marks ('the -9 (unknown) rows
    # left out')
    re.compile(
        rf"(?<![\w.-]){_LEAD}{_CODES}(?:\s*\([a-z][a-z /'-]{{0,30}}\))?"
        rf"\s+(?:codes?\s+|(?:rows?|records?|entries|cells?)\s+)?{_OUT}{_END}"
    ),
    re.compile(
        rf"\b(?:excluding|except|omitting|dropping|ignoring|without)\s+{_LEAD}{_CODES}"
        rf"(?:\s+codes?)?{_END}"
    ),
)
"""The codes said to be left out, after ('8 and 9 excluded') or before ('excluding code 9')."""


class _Read(Protocol):
    masked: str
    groundings: list[Grounding]
    codes_out: list[str]

    def blank(self, a: int, b: int) -> None: ...


def read_codes_out(q: _Read) -> None:
    """Blank each clause naming codes as left out; keep the codes for :func:`check_codes_out`."""
    for pattern in CODES_OUT:
        for m in pattern.finditer(q.masked):
            codes = re.findall(_CODE, m.group("codes"))
            if not any(c[0].isdigit() or c[0] == "-" for c in codes) and not re.search(
                r"\bcodes?\b", m.group(0)
            ):
                continue  # 'nk excluded' alone, 'or' ...: only numbers, or words said as codes
            q.codes_out += [c for c in codes if c not in {"and", "or"}]
            q.groundings.append(
                Grounding(
                    phrase=m.group(0).strip(),
                    kind="missing",
                    target="declared missing codes, excluded (as in every figure)",
                )
            )
            q.blank(*m.span())


def _variables(mt: Mention) -> list[Variable]:
    if isinstance(mt.target, Family):
        return [v for vs in mt.target.members.values() for v in vs]
    return [mt.target.var]


def check_codes_out(codes: list[str], mentions: list[Mention]) -> None:
    """Each code said to be left out must be a missing code of a variable the question names."""
    declared = {
        _norm(c)
        for mt in mentions
        for v in _variables(mt)
        for c in (*v.missing_codes, *v.missing_labels)  # (text codes: 'NK', 'ND')
    }
    stray = [c for c in codes if _norm(c) not in declared]
    if stray:
        raise Abstain(
            f"{', '.join(repr(c) for c in stray)}: not a missing code of any variable the question "
            "names; leaving out an ordinary value is a condition — ask for it as one",
            unresolved=stray,
        )


def _norm(code: str) -> str:
    try:
        return f"{float(code):g}"
    except ValueError:
        return code.strip().lower()
