"""Grounding: plain-text pieces of a question → concepts the source holds, or unresolved words.

Each text piece is segmented greedily, longest span first, into phrases that match a concept
label (exact name, synonym, same words, or contained words), with connector words ('and', 'or',
'who', 'had', ...) and stream hints ('diagnosed', 'prescribed', ...) kept in order. Misspelt
words are corrected against the source's own vocabulary; phrases nothing matches are tried by
embedding similarity, and otherwise reported as unresolved.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from clinbridge.engine.understand._categories import category_class
from clinbridge.engine.understand._ground_words import (
    BOUNDARY,
    CONNECTORS,
    DOSE_NOUNS,
    EVENT_NOUNS,
    GLUE,
    QUANTITY_WORDS,
    STREAM_NOUNS,
    SUBJECT,
    VALUE_KIND_NOUNS,
)
from clinbridge.engine.understand._kinds import only_kinds, widen_to_kinds
from clinbridge.engine.understand._shorthand import concept_shorthand, drug_class
from clinbridge.engine.understand._text import (
    FILLER,
    SOFT_WORDS,
    STOP_WORDS,
    STREAM_HINTS,
    stem,
    tokens,
)
from clinbridge.engine.understand._vaccines import class_words, vaccine_group_entries

if TYPE_CHECKING:
    from clinbridge.engine.understand._lexicon import Lexicon, Match

__all__ = ["Concept", "Word", "ground_text"]

_MAX_SPAN = 9
_ORDINALS = frozenset(
    "second third fourth fifth sixth seventh eighth ninth tenth 2nd 3rd 4th 5th".split()  # noqa: SIM905
)


@dataclass
class Concept:
    phrase: str
    label: str
    entries: list[int]
    score: float
    how: str
    hints: list[str] = field(default_factory=list)
    alternatives: list[Match] = field(default_factory=list)
    primary: list[int] = field(default_factory=list)
    """Entries of the best-matching label (a value is read from one of these first)."""
    tied: list[list[int]] = field(default_factory=list)
    """Entries of every label matching exactly as well as the best one ('blood pressure' →
    systolic and diastolic): when they hold different measurements, the phrase is ambiguous."""


@dataclass
class Word:
    text: str
    role: str
    """connector | boundary | hint | subject | stream_noun | event_noun | unresolved"""
    value: str = ""


GroundItem = Concept | Word


def _pick(options: tuple[str, ...], vocab: set[str], lex: Lexicon | None = None) -> str:
    """The first expansion the source names a concept by, whole; else the first whose words the
    source's vocabulary knows (else the first): 'cad' is coronary heart disease where that is
    the stored name, not the 'coronary artery' of a bypass graft."""
    if lex is not None and len(options) > 1:
        for option in options:
            if any(m.how in {"exact", "synonym", "same_words"} for m in lex.match(option)):
                return option
    for option in options:
        if all(stem(w) in vocab or w in STOP_WORDS for w in tokens(option)):
            return option
    return options[0]


def _expand(words: list[str], vocab: set[str], lex: Lexicon | None = None) -> list[str]:
    """Replace abbreviations and lay terms the source's vocabulary does not use itself (or uses
    only inside other names: 'LDL' in 'Cholesterol in LDL')."""
    shorthand = concept_shorthand()
    text = " ".join(words)
    for key in sorted((k for k in shorthand if " " in k), key=len, reverse=True):
        said = rf"\b{re.escape(key)}(?=s?\b)"  # 'dc cardioversions': the plural keeps its 's'
        if re.search(said, text) and not _inside_a_name(text, key, lex):
            text = re.sub(said, _pick(shorthand[key], vocab, lex), text)
    out: list[str] = []
    split = text.split()
    for i, w in enumerate(split):
        if (
            w not in shorthand
            and len(w) >= 4
            and w.endswith("s")
            and w[:-1] in shorthand
            and stem(w) not in vocab
            and w not in vocab
        ):  # 'eGFRs', 'PSAs', 'CABGs': the plural of an abbreviation
            w = split[i] = w[:-1]
        if (
            w in shorthand
            and not _in_exact_name(split, i, lex)
            and (
                stem(w) not in vocab
                or (
                    lex is not None
                    and not any(m.how in {"exact", "synonym", "same_words"} for m in lex.match(w))
                    and any(lex.match(x) for x in shorthand[w])
                )
            )
        ):
            out.extend(_pick(shorthand[w], vocab, lex).split())
        else:
            out.append(w)
    return out


def _inside_a_name(text: str, key: str, lex: Lexicon | None) -> bool:
    """A lay phrase said as part of one of the source's names ('streptococcal sore throat'):
    the name stays whole, its words are not spelled out."""
    if lex is None:
        return False
    k = re.escape(key)
    for m in re.finditer(rf"(?:\b(?P<l>[\w'-]+)\s+)?\b{k}\b(?:\s+(?P<r>[\w'-]+))?", text):
        for phrase in (f"{m['l']} {key}" if m["l"] else "", f"{key} {m['r']}" if m["r"] else ""):
            if phrase and any(x.how in {"exact", "same_words"} for x in lex.match(phrase)):
                return True
    return False


def _in_exact_name(words: list[str], i: int, lex: Lexicon | None) -> bool:
    """Whether ``words[i]`` ends or starts a phrase that is exactly one of the source's names
    ('cr' in 'nifedipine cr' stays: the drug is named so, it is no creatinine)."""
    if lex is None:
        return False
    for length in (2, 3):
        for start in (i - length + 1, i):
            seg = words[max(start, 0) : start + length]
            if start < 0 or len(seg) < length:
                continue
            if any(m.how in {"exact", "same_words"} for m in lex.match(" ".join(seg))):
                return True
    return False


# English adjective → noun derivations of clinical words ('prediabetic' → 'prediabetes',
# 'anemic' → 'anemia', 'cirrhotic' → 'cirrhosis', 'arthritic' → 'arthritis').
_DERIVATIONS = (
    ("etic", "etes"),
    ("emic", "emia"),
    ("aemic", "aemia"),
    ("otic", "osis"),
    ("itic", "itis"),
    ("tensive", "tension"),
    ("ic", "ia"),
    ("ic", "y"),
)


@functools.cache
def _english_words() -> frozenset[str]:
    """Whole words (4+ letters) of the packaged MiniLM's WordPiece vocabulary, i.e. common
    English: a word found there is spelt as meant and is never 'corrected' into a concept word
    ('table' is not 'tablet'); empty without the model package."""
    try:
        from clinbridge.embed import model_path

        text = (model_path() / "vocab.txt").read_text("utf-8")
    except (ImportError, OSError):
        return frozenset()
    return frozenset(w for w in text.split() if w.isalpha() and len(w) >= 4)


def _derived_noun(word: str, vocab: set[str]) -> str | None:
    if word.endswith("ics") and len(word) > 6:  # 'diabetics', 'prediabetics': the people
        word = word[:-1]
    for suffix, noun in _DERIVATIONS:
        if word.endswith(suffix) and len(word) > len(suffix) + 3:
            cand = word[: -len(suffix)] + noun
            if stem(cand) in vocab:
                return cand
    return None


def _ignorable(word: str) -> bool:
    return word in STOP_WORDS or word in GLUE or word in FILLER or word.isdigit() or len(word) == 1


def ground_text(text: str, lex: Lexicon, *, embeddings: bool = True) -> list[GroundItem]:
    """Segment one text piece into grounded concepts and structural words, in order."""
    vocab = lex.vocabulary
    words = _expand(tokens(text), vocab, lex)
    fixed: list[str] = []
    for w in words:
        if (
            w not in STOP_WORDS
            and w not in FILLER
            and w not in SOFT_WORDS
            and w not in GLUE
            and w not in BOUNDARY
            and w not in SUBJECT
            and w not in STREAM_NOUNS
            and stem(w) not in vocab
        ):
            near = _derived_noun(w, vocab) or (
                None
                if w in _english_words() or w in class_words()
                # 'otits': its stem ('otit') is too short to repair; the word itself is not
                else lex.nearest_token(stem(w)) or lex.nearest_token(w)
            )
            fixed.append(near if near else w)
        else:
            fixed.append(w)
    words = fixed
    n = len(words)
    spans: dict[int, tuple[int, Concept]] = {}
    covered = [False] * n
    for length in range(min(n, _MAX_SPAN), 0, -1):
        for i in range(n - length + 1):
            if any(covered[i : i + length]):
                continue
            seg = words[i : i + length]
            first, last = seg[0], seg[-1]
            if _edge_bad(first) or _edge_bad(last):
                continue
            if all(w.replace(".", "").isdigit() for w in seg):
                continue  # a bare number never names a concept
            if length == 1 and len(first) == 1:
                continue  # nor a single letter ('hepatitis a or b': the B of 'group B')
            phrase = " ".join(seg)
            # a vaccine or (where no label matches) a drug class stands for its members
            klass = _vaccine_class(phrase, lex) or _category_concept(phrase, lex)
            matches = lex.match(phrase) if klass is None else []
            if klass is None and not matches and length > 1 and first in _BLOOD:
                matches = _without_specimen(seg, lex)  # 'blood glucose' where 'Glucose' is stored
            if klass is None and not matches:
                klass = _drug_class(phrase, lex)
            if klass is not None:
                spans[i] = (length, klass)
                for k in range(i, i + length):
                    covered[k] = True
                continue
            if not matches:
                continue
            best = matches[0]
            soft_edge = (
                first in FILLER
                or last in FILLER
                or first in SOFT_WORDS
                or last in SOFT_WORDS
                or first in STREAM_NOUNS
                or last in STREAM_NOUNS
            )
            if soft_edge and best.score < 0.97:
                continue
            inner = {w for w in seg[1:-1] if w in {"and", "or"}}
            if inner and (
                best.score < 0.97 or _repeats(seg) or not inner <= set(tokens(best.label))
            ):
                # 'heart disease or ischemic heart disease', 'disease or ischemic heart': a
                # list of names, not one name (a name says its own 'and'/'or')
                continue
            if length == 1 and (
                first in SOFT_WORDS or first in STREAM_NOUNS or first in SUBJECT or first in FILLER
            ):
                continue
            if best.how == "contains" and all(w in QUANTITY_WORDS for w in seg):
                continue  # a unit of amount or time is not a concept
            if best.how == "contains" and all(w in _ORDINALS for w in seg):
                continue  # 'the second dose': an order, not 'Second degree burn'
            if best.how == "contains" and all(w in VALUE_KIND_NOUNS for w in seg):
                continue  # 'score', 'results': the kind of value, not which concept
            if length == 1 and best.how == "contains" and stem(first) in lex.stream_words:
                continue  # 'output' where a stream holds outputs: the stream, not 'ostomy (output)'
            if best.how == "contains" and _stream_and_act(seg, lex):
                continue  # 'vaccine doses': the stream's events, not the products named '... dose'
            if best.how == "contains":
                n_labels = sum(1 for m in matches if m.how == "contains")
                if _spread(matches, lex) > 40 or (best.score < 0.3 and n_labels > 12):
                    continue
            if best.how == "contains":
                # a general word ('fracture', 'bronchitis'): every concept it heads — all of
                # them, never a subset cut by label length (a class read loosely is a wrong count)
                chosen = only_kinds([m for m in matches if m.how == "contains"], lex, phrase)
                if not chosen:
                    continue
                best = best if best in chosen else chosen[0]
            else:
                chosen = [
                    m
                    for m in matches
                    if m.score >= best.score - 0.03 and (best.score < 1.0 or m.score >= 1.0)
                ]
                chosen = widen_to_kinds(chosen, matches, lex)
            entries = sorted({e for m in chosen for e in m.entries})
            concept = Concept(
                phrase,
                best.label,
                entries,
                best.score,
                best.how,
                primary=list(best.entries),
                alternatives=[m for m in matches if m not in chosen][:5],
                tied=[
                    list(m.entries)
                    for m in matches
                    if m.how == best.how and abs(m.score - best.score) < 0.005
                ],
            )
            spans[i] = (length, concept)
            for k in range(i, i + length):
                covered[k] = True
    items: list[GroundItem] = []
    run: list[str] = []

    def flush() -> None:
        if run:
            items.append(Word(" ".join(run), "unresolved"))
            run.clear()

    _relational(spans, words)
    _compound_units(spans, words)
    _class_heads(spans, words)
    i = 0
    while i < n:
        if i in spans:
            flush()
            length, concept = spans[i]
            items.append(
                Word(concept.phrase, "unresolved")
                if concept.how in {"relational", "compound"}
                else concept
            )
            i += length
            continue
        w = words[i]
        role = _role(w)
        if (role is None or role[0] == "hint") and stem(w) in lex.stream_words:
            # 'prescribed' where one stream of that kind says it holds prescriptions: that stream
            named = lex.stream_words[stem(w)]
            if role is None or _stream_kind(lex, named) == role[1]:
                role = ("stream_noun", named)
        if role is None:
            if _ignorable(w):
                if w.replace(".", "").isdigit():
                    # a number left over is content nothing took (a range, a date, a dose)
                    run.append(w)
                    i += 1
                    continue
                if not run and items and isinstance(items[-1], Concept):
                    items.append(Word(w, "gap"))
                i += 1
                continue
            run.append(w)
        else:
            flush()
            items.append(Word(w, role[0], role[1]))
        i += 1
    flush()
    items = [
        i for i in _merge_adjacent(items, lex) if not (isinstance(i, Word) and i.role == "gap")
    ]
    if embeddings:
        items = [
            _embed(item, lex) if isinstance(item, Word) and item.role == "unresolved" else item
            for item in items
        ]
    _attach_hints(items)
    return items


def _category_concept(phrase: str, lex: Lexicon) -> Concept | None:
    """'food allergy': the allergy codes the source records under that category."""
    found = category_class(phrase, lex)
    if found is None:
        return None
    label, entries = found
    return Concept(phrase, label, entries, 0.95, "category", primary=entries)


def _drug_class(phrase: str, lex: Lexicon) -> Concept | None:
    """'statins', 'any NSAID': a drug class the vocabulary holds no concept for, grounded to the
    drugs of its member ingredients (the built-in class list, ``data/drug_classes.tsv``)."""
    klass = drug_class(phrase) or drug_class(" ".join(stem(w) for w in phrase.split()))
    if klass is None or not getattr(lex, "class_list_allowed", True):
        return None
    entries: set[int] = set()
    found: list[str] = []
    for ingredient in klass.ingredients:
        hits = [
            m
            for m in lex.match(ingredient)
            if m.how in {"exact", "synonym", "same_words", "contains"}
            and any(lex.entries[e].stream == "drug" for e in m.entries)
        ]
        if hits:
            found.append(ingredient)
        entries |= {e for m in hits for e in m.entries if lex.entries[e].stream == "drug"}
    if not entries:
        return None
    label = f"{klass.name} ({', '.join(found)}; drug class from the built-in list)"
    return Concept(phrase, label, sorted(entries), 0.95, "drug_class", primary=sorted(entries))


def _stream_and_act(seg: list[str], lex: Lexicon) -> bool:
    """Words that only name a stream and its events or values ('vaccine doses', 'drug
    exposures', 'lab results'): no word of them says which concept."""
    streams = [w for w in seg if stem(w) in lex.stream_words or w in lex.stream_words]
    rest = [w for w in seg if w not in streams]
    return bool(streams) and all(
        w in DOSE_NOUNS
        or w in VALUE_KIND_NOUNS
        or w in EVENT_NOUNS
        or w in STREAM_NOUNS
        or w in STOP_WORDS
        or w in FILLER
        for w in rest
    )


def _vaccine_class(phrase: str, lex: Lexicon) -> Concept | None:
    """'flu shots', 'an HPV vaccine': the CVX-coded immunizations of a vaccine group, by code
    system (``data/cvx_vaccine_groups.tsv``); the label says which codes and why."""
    found = vaccine_group_entries(phrase, lex)
    if found is None:
        return None
    group, entries = found
    codes = ", ".join(sorted({str(lex.entries[e].code) for e in entries}))
    label = f"{group.name} vaccines (CVX {codes}; vaccine group by code system, built-in list)"
    return Concept(phrase, label, entries, 0.95, "vaccine_group", primary=entries)


RELATIONAL = frozenset({"to", "against", "for"})


def _relational(spans: dict[int, tuple[int, Concept]], words: list[str]) -> None:
    """'allergic to penicillin', 'celecoxib for osteoarthritis': two concepts tied by a preposition
    mean something neither names alone; the pair becomes one unresolved phrase."""
    starts = sorted(spans)
    for a, b in itertools.pairwise(starts):
        if a not in spans:  # already merged into the pair before it
            continue
        la, _ = spans[a]
        between = words[a + la : b]
        if not between or not all(
            w in RELATIONAL or w in {"the", "a", "an", "their", "his", "her"} for w in between
        ):
            continue
        if not any(w in RELATIONAL for w in between):
            continue
        lb, _ = spans[b]
        phrase = " ".join(words[a : b + lb])
        spans[a] = (b + lb - a, Concept(phrase, "", [], 0.0, "relational"))
        del spans[b]


_TIME_UNIT_WORDS = frozenset({"day", "days", "week", "weeks", "month", "months", "year", "years"})


def _compound_units(spans: dict[int, tuple[int, Concept]], words: list[str]) -> None:
    """'pack years', 'person-days': a concept word directly followed by a time unit (no number
    before the unit) is a compound unit the concept does not name; the pair is one unresolved
    phrase, never the concept alone."""
    for a in sorted(spans):
        la, concept = spans[a]
        end = a + la
        if concept.how == "relational" or end >= len(words) or end in spans:
            continue
        if words[end] in _TIME_UNIT_WORDS:
            phrase = " ".join(words[a : end + 1])
            spans[a] = (la + 1, Concept(phrase, "", [], 0.0, "compound"))


_CLASS_HEADS = frozenset({"disease", "diseases", "disorder", "disorders", "problem", "problems"})


def _class_heads(spans: dict[int, tuple[int, Concept]], words: list[str]) -> None:
    """'heart disease', 'lung problems': a word read only as contained in labels ('heart' in
    'Chronic congestive heart failure'), followed by a head that names a class of conditions, is
    a class of the organ the source does not name (where it does, the whole phrase matches a
    label first); the pair is one unresolved phrase, never the labels that mention the word."""
    for a in sorted(spans):
        la, concept = spans[a]
        end = a + la
        if concept.how != "contains" or la != 1 or end >= len(words) or end in spans:
            continue  # (several words read inside labels already narrow to those labels)
        if words[end] in _CLASS_HEADS:
            phrase = " ".join(words[a : end + 1])
            spans[a] = (la + 1, Concept(phrase, "", [], 0.0, "compound"))


def specific_streams(items: list[Any], lex: Lexicon) -> None:
    """'drugs ... prescribed': a kind of stream narrowed to the one stream of that kind the
    question also names (prescriptions, not every drug stream)."""
    named = [
        i.value
        for i in items
        if isinstance(i, Word) and i.role == "stream_noun" and i.value not in lex.kind_streams
    ]
    for i in items:
        if isinstance(i, Word) and i.role == "stream_noun" and i.value in lex.kind_streams:
            narrow = [n for n in named if _stream_kind(lex, n) == i.value]
            if len(set(narrow)) == 1:
                i.value = narrow[0]
                continue
            # 'lab tests' where labs and microbiology are both measurements: the one stream of
            # that kind whose name starts with the noun's first word (labevents)
            first = i.text.split()[0] if i.text.split() else ""
            by_name = [
                n for n in lex.kind_streams[i.value] if len(first) >= 3 and n.startswith(first)
            ]
            if len(lex.kind_streams[i.value]) > 1 and len(by_name) == 1:
                i.value = by_name[0]


def _stream_kind(lex: Lexicon, name: str) -> str | None:
    return next((k for k, names in lex.kind_streams.items() if name in names), None)


def _merge_adjacent(items: list[GroundItem], lex: Lexicon) -> list[GroundItem]:
    """'blood glucose', 'serum creatinine': two adjacent groundings of one noun phrase become the
    concepts they share."""
    out: list[GroundItem] = []
    for item in items:
        prev = out[-1] if out else None
        if isinstance(item, Concept) and isinstance(prev, Concept):
            shared = sorted(set(prev.entries) & set(item.entries))
            single_weak = [c for c in (prev, item) if c.how == "contains" and " " not in c.phrase]
            if not shared and single_weak:
                # 'acute GI bleed' with no such concept: a modifier the source cannot express
                out[-1] = Word(f"{prev.phrase} {item.phrase}", "unresolved")
                continue
            if shared:
                strong, weak = (item, prev) if item.score >= prev.score else (prev, item)
                out[-1] = Concept(
                    f"{prev.phrase} {item.phrase}",
                    strong.label,
                    shared,
                    round(min(strong.score, 0.95), 4),
                    strong.how,
                    alternatives=strong.alternatives,
                    primary=[e for e in strong.primary if e in shared] or shared,
                )
                del weak
                continue
        out.append(item)
    return out


_BLOOD = frozenset({"blood", "serum", "plasma", "venous", "capillary"})
_OTHER_SPECIMEN = re.compile(
    r"\b(?:urine|csf|cerebrospinal|stool|feces|saliva|sputum|fluid)\b", re.I
)


def _without_specimen(seg: list[str], lex: Lexicon) -> list[Match]:
    """The names matched by the words after a blood specimen word, exactly, when the name says
    no specimen at all: the blood is the default specimen of a lab test named so."""
    from clinbridge.engine.understand._lexicon import Match

    out = []
    for m in lex.match(" ".join(seg[1:])):
        named = m.how in {"exact", "synonym"} and not _OTHER_SPECIMEN.search(m.label)
        if named and not any(w in _BLOOD for w in tokens(m.label)):
            out.append(Match(m.label, m.entries, 0.95, "same_words"))
    return out


def _repeats(seg: list[str]) -> bool:
    """A content word said twice: a list of names sharing a word, never one name."""
    content = [stem(w) for w in seg if w not in STOP_WORDS and w not in CONNECTORS]
    return len(set(content)) < len(content)


def _edge_bad(word: str) -> bool:
    return (
        word in STOP_WORDS
        or word in GLUE
        or word in BOUNDARY
        or word in CONNECTORS
        or word in SUBJECT
    )


def _spread(matches: list[Match], lex: Lexicon) -> int:
    return len({e for m in matches for e in m.entries})


def _role(word: str) -> tuple[str, str] | None:
    found = _role_of(word)
    if found is None and stem(word) != word:
        found = _role_of(stem(word))
    return found


def _role_of(word: str) -> tuple[str, str] | None:
    if word in {"among", "amongst"}:
        return "among", ""
    if word in CONNECTORS:
        return "connector", CONNECTORS[word]
    if word in SUBJECT:
        return "subject", ""
    if word in STREAM_NOUNS:
        return ("event_noun" if word in EVENT_NOUNS else "stream_noun"), STREAM_NOUNS[word]
    if word in EVENT_NOUNS:
        return "event_noun", ""
    if word in BOUNDARY:
        hint = STREAM_HINTS.get(word, "")
        return "boundary", hint
    if word in STREAM_HINTS:
        return "hint", STREAM_HINTS[word]
    if word in SOFT_WORDS:
        return "hint", ""
    return None


def _embed(item: Word, lex: Lexicon) -> GroundItem:
    content = [w for w in item.text.split() if not _ignorable(w)]
    if not content or len(content) > 5:
        return item
    if len(content) > 1 and any(
        m.how in {"exact", "synonym", "same_words"} for w in content for m in lex.match(w)
    ):
        # a run holding a word that names a concept on its own is several things, not one
        return item
    try:
        found = lex.embed_search(" ".join(content), limit=8)
    except Exception:  # the model is optional: without it, the phrase stays unresolved
        return item
    if not found:
        return item
    best_i, best = found[0]
    label = lex.labels[best_i][0]
    rival = next(
        (
            s
            for i, s in found[1:]
            if lex.labels[i][0] != label and set(lex.labels[i][2]) != set(lex.labels[best_i][2])
        ),
        0.0,
    )
    if best >= 0.78 and best - rival >= 0.08:
        return Concept(
            item.text, label, list(lex.labels[best_i][2]), round(best * 0.9, 4), "embedding"
        )
    return item


def _attach_hints(items: list[GroundItem]) -> None:
    """Give each concept the stream hints next to it ('diagnosed with X', 'X prescriptions')."""
    for idx, item in enumerate(items):
        if not isinstance(item, Concept):
            continue
        hints: list[str] = []
        j = idx - 1
        while j >= 0 and not isinstance(items[j], Concept):
            w = items[j]
            assert isinstance(w, Word)
            if w.value and w.role in {"hint", "boundary", "stream_noun", "event_noun"}:
                hints.append(w.value)
                break
            j -= 1
        j = idx + 1
        while j < len(items) and not isinstance(items[j], Concept):
            w = items[j]
            assert isinstance(w, Word)
            if w.role in {"connector", "boundary"}:
                break
            if w.value and w.role in {"hint", "stream_noun", "event_noun"}:
                hints.append(w.value)
                break
            j += 1
        item.hints = hints


def stream_hint_counts(items: list[GroundItem]) -> Counter[str]:
    return Counter(
        w.value for w in items if isinstance(w, Word) and w.value and w.role != "connector"
    )
