"""Lists of codes and the asides beside them, for the schema reader.

'CVX 207, 208 or 212', 'CVX 207/208/212', 'condition code 19169002 or 156073000', 'SNOMED codes
283371005, 283385000, 284549007': codes joined by commas, slashes or a final 'or' are one list,
read as any of them (the union of their concepts), each code grounded exactly in the system the
list names. Codes joined by 'and' stay unread (all of them, or any?), as before.

'where the display contains lisinopril', 'concept_name like metformin': the label column of the
source's code dictionary (or a stream's own display column), read from the catalog, compared
with a word: every concept of the named table whose label contains that word, exactly those.

The asides of ``_schema_asides`` are settled here once the question is read: the unit goes on
the value condition (a unit with no threshold is not read here), and each name written beside a
code must agree with what the code grounds to.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from clinbridge.engine.understand._schema_asides import name_disagrees
from clinbridge.engine.understand._schema_plan import Abstain, State, code_entries

if TYPE_CHECKING:
    from clinbridge.catalog import Catalog
    from clinbridge.engine.understand._lexicon import Lexicon
    from clinbridge.engine.understand._schema_words import Tok

__all__ = [
    "CONTAINS",
    "check_asides",
    "code_list_joins",
    "continue_code_list",
    "label_contains",
    "label_field",
]

CONTAINS = {"contains", "containing", "like", "includes", "including", "mentions"}

_CODE_KINDS = {"code", "syscode"}


def _listed(tok: Tok, st: State) -> tuple[str, str, str] | None:
    """The code entry of a literal already read into the list, if ``tok`` is one."""
    if not tok.used or tok.kind not in _CODE_KINDS | {"word", "ident"}:
        return None
    return next((c for c in reversed(st.codes) if c[0] == tok.text), None)


def code_list_joins(toks: list[Tok], k: int, st: State) -> bool:
    """``toks[k]`` is the 'or' of a code list: a code read before it, a code after it."""
    nxt = toks[k + 1] if k + 1 < len(toks) else None
    after = toks[k + 2] if k + 2 < len(toks) else None
    if (  # 'CVX 33 or CVX 133': the system said again before the next code
        nxt is not None
        and after is not None
        and after.kind in _CODE_KINDS
        and _listed(toks[k - 1], st) is not None
        and nxt.text.lower() == next((c[1] for c in reversed(st.codes) if c[0]), "")
    ):
        st.or_codes = True
        return True
    return nxt is not None and nxt.kind in _CODE_KINDS and _listed(toks[k - 1], st) is not None


def continue_code_list(toks: list[Tok], k: int, st: State) -> str:
    """The pending role of a code that continues a list (the list's system or field), or ''."""
    if k == 0:
        return ""
    prev = toks[k - 1]
    joined_by = prev.text.lower() if prev.kind == "word" else ""
    before = toks[k - 2] if joined_by and k >= 2 else prev
    entry = _listed(before, st)
    if entry is None:
        return ""
    if joined_by == "and":
        raise Abstain("codes joined by 'and' (all of them, or any?)", prev.text, final=False)
    if joined_by != "or" and not any(ch in toks[k].gap for ch in ",/;"):
        return ""
    st.or_codes = True
    via = entry[2]
    if via.startswith("system:"):
        return via
    if entry[1]:
        return "system:" + entry[1]
    return via if via in {"code", "code_id"} else ""


def check_asides(
    st: State,
    asides: tuple[str | None, list[tuple[str, str]]],
    lex: Lexicon,
    cat: Catalog,
) -> None:
    """Put the threshold's unit on the value condition; check each name beside a code."""
    unit, named = asides
    if unit is not None and st.value is not None:  # (the unit of an answer: ``read_schema``)
        st.value = st.value.model_copy(update={"unit": unit})
    listed = [c for c in st.codes if c[0]]
    for code, name in named:
        entry = next((c for c in listed if c[0] == code), None)
        entries: list[int] | None = None
        if entry is not None:
            entries = code_entries(lex, entry[0], entry[1], st, cat, entry[2])
            if (
                st.or_codes
                and entry is listed[-1]
                and name_disagrees(
                    code, name, entries=entries, enc_type=None, sex=None, lex=lex, cat=cat
                )
            ):  # 'CVX 207, 208 or 212 (SARS-COV-2 vaccines)': the name of the whole list
                entries = [i for c in listed for i in code_entries(lex, c[0], c[1], st, cat, c[2])]
        enc = cat.encounters
        enc_type = (
            enc.type_map.get(code)
            if entry is None and enc is not None and code == st.enc_code
            else None
        )
        pt = cat.patients
        sex = pt.sex_values.get(code) if entry is None and pt and code == st.sex_code else None
        if name_disagrees(
            code, name, entries=entries, enc_type=enc_type, sex=sex, lex=lex, cat=cat
        ):
            raise Abstain(f"code {code} is not {name!r} in this source", name)


def label_field(cat: Catalog, name: str) -> bool:
    """Whether ``name`` is the label column of a code dictionary or a stream ('display')."""
    n = name.lower().split(".")[-1]
    cols = {d.label_column for d in cat.dictionaries} | {s.label_column for s in cat.streams}
    return n in {c.lower() for c in cols if c} | {"name", "display"}


def _known_drug(word: str) -> bool:
    """A member ingredient of a built-in drug class ('metoprolol'): a name that exists, so its
    absence from a list of fragments is the data's, never a misspelling."""
    from clinbridge.engine.understand._shorthand import drug_classes

    return any(word == i for c in drug_classes() for i in c.ingredients)


def label_contains(st: State, lex: Lexicon, toks: list[Tok], k: int) -> int:
    """Read '<label field> contains <word>' at ``toks[k]`` into a concept of the named table;
    the tokens read. A list of words ('contains fentanyl, codeine or tramadol', "containing
    'ibuprofen' or 'naproxen'") is any of them: each word must be in some concept's label,
    else the reading abstains naming it — unless the word is a known drug (a built-in class
    member) and another word of the list matches: a class listed whole whose other members
    this source does not record ('carvedilol, metoprolol or atenolol')."""
    listed = [toks[k + 2]]
    j = k + 3
    while j < len(toks):
        t = toks[j]
        if t.text.lower() == "or" and j + 1 < len(toks) and toks[j + 1].kind in {"word", "str"}:
            listed.append(toks[j + 1])
            j += 2
        elif t.kind in {"word", "str"} and ("," in t.gap or "/" in t.gap):
            listed.append(t)
            j += 1
        else:
            break
    names = {s.name for s in st.streams} if st.streams else None
    entries: list[int] = []
    absent: list[str] = []
    for word in listed:
        if word.kind not in {"word", "str"}:
            raise Abstain(f"{toks[k].text} {toks[k + 1].text} needs a word", toks[k].text)
        text = word.text.lower()
        found = [
            i
            for i, e in enumerate(lex.entries)
            if e.direct and (names is None or e.stream_name in names) and text in e.name.lower()
        ]
        if not found:
            if len(listed) > 1 and _known_drug(text):
                absent.append(word.text)  # a real drug this source never recorded, not a slip
                continue
            raise Abstain(f"no concept whose {toks[k].text} contains {word.text!r}", word.text)
        entries += [i for i in found if i not in entries]
    if not entries:
        raise Abstain(f"no concept whose {toks[k].text} contains {absent[0]!r}", absent[0])
    said = " or ".join(repr(w.text) for w in listed)
    st.names.append((f"{toks[k].text} contains {said}", entries))
    st.exact_names = True
    for t in toks[k:j]:
        t.used = True
    return j - k
