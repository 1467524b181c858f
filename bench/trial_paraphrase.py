"""Metamorphic check of the trial reader: the opened question sets, each question said again in
general paraphrases (register, synonyms of the subjects, of the summary, of the grouping, of
the time point), scored against the same gold. A paraphrase may abstain; it must never answer
differently. What it finds are classes of wording the reader is brittle to, not phrases.

Usage::

    python bench/trial_paraphrase.py [--set 1 2 ... open777] [--show]
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

_Sub = Callable[[str], str]


def _swap(pattern: str, repl: str) -> _Sub:
    rx = re.compile(pattern, re.I)
    return lambda text: rx.sub(repl, text)


PARAPHRASES: dict[str, _Sub] = {
    "lower": str.lower,
    "ask politely": lambda t: "Could you tell me " + t[:1].lower() + t[1:],
    "no punctuation": lambda t: re.sub(r"[?.!]+\s*$", "", t),
    "babies": _swap(r"\binfants\b", "babies"),
    "neonates": _swap(r"\b(?:infants|babies)\b", "neonates"),
    "average": _swap(r"\bmean\b", "average"),
    "proportion": _swap(r"\bpercentage\b", "proportion"),
    "in each": _swap(r"\bby (arm|trial|site)\b", r"in each \1"),
    "per": _swap(r"\bby (arm|trial|site)\b", r"per \1"),
    "hours": _swap(r"\b(\d+)\s*h\b", r"\1 hours"),
    "h glued": _swap(r"\b(\d+)\s*(?:hours|hrs|h)\b", r"\1h"),
    "the": _swap(r"\bin (cooled|hypothermia|standard care)\b", r"in the \1"),
    "hrs": _swap(r"\b(\d+)\s*(?:hours|h)\b", r"\1 hrs"),
    "on day": lambda t: re.sub(
        r"\b(?:at\s+)?(\d+)\s*(?:hours|h)\b",
        lambda m: (
            f"on day {int(m.group(1)) // 24}"
            if int(m.group(1)) % 24 == 0 and int(m.group(1))
            else m.group(0)
        ),
        t,
    ),
    "children": _swap(r"\b(?:infants|babies)\b", "children"),
    "% of": _swap(r"\bpercentage of\b", "% of"),
    "min": _swap(r"\b(\d+)\s*minutes\b", r"\1 min"),
    "mo": _swap(r"\b(\d+)\s*months\b", r"\1 mo"),
    "question mark": lambda t: t if t.rstrip().endswith("?") else t.rstrip(" .") + "?",
    "typo": lambda t: _typo(t),
}


def _typo(text: str) -> str:
    """Two letters of the question's longest plain word swapped ('temperature' → 'tempreature')."""
    words = re.findall(r"\b[a-z]{7,}\b", text)
    if not words:
        return text
    w = max(words, key=len)
    i = len(w) // 2
    return text.replace(w, w[:i] + w[i + 1] + w[i] + w[i + 2 :], 1)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--set", nargs="*", default=["1", "2", "3", "4", "5", "6", "open777"])
    parser.add_argument("--show", action="store_true")
    args = parser.parse_args()
    from bench.trial_gold import score
    from bench.trial_holdout import load_holdout, workbook_params, write_workbook

    import clinbridge.api as cb
    from clinbridge.adapters.trial import load_trial

    totals: Counter[str] = Counter()
    by_kind: Counter[tuple[str, str]] = Counter()
    for arg in args.set:
        which: int | str = int(arg) if arg.isdigit() else arg
        seed, subjects, variables = workbook_params(which)
        questions = load_holdout(which)
        with tempfile.TemporaryDirectory() as tmp:
            xlsx = Path(tmp) / "book.xlsx"
            url = f"duckdb:///{Path(tmp) / 'book.duckdb'}"
            # each set's own workbook: an independent builder's (BOOKS) or the generator's
            gold = write_workbook(which, xlsx, seed, subjects, variables)
            load_trial(xlsx, url)
            with cb.connect(url) as conn:
                for q in questions:
                    base, _ = score(q, conn.ask(q.text), gold)
                    if base != "correct":
                        continue
                    for name, sub in PARAPHRASES.items():
                        text = sub(q.text)
                        if text == q.text:
                            continue
                        verdict, why = score(
                            type(q)(q.id, q.voice, text, q.kind, q.gold), conn.ask(text), gold
                        )
                        totals[verdict] += 1
                        by_kind[(name, verdict)] += 1
                        if verdict == "wrong" or (args.show and verdict != "correct"):
                            print(f"set {which} q{q.id} [{name}] {verdict}: {text} — {why}")
    n = sum(totals.values())
    print(
        f"paraphrases: {n}; correct {totals['correct']}, abstained {totals['abstained']}, "
        f"wrong {totals['wrong']}"
    )
    for name in PARAPHRASES:
        row = {v: by_kind[(name, v)] for v in ("correct", "abstained", "wrong")}
        if any(row.values()):
            print(f"  {name:15s} {row}")


if __name__ == "__main__":
    main()
