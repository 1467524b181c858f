"""Score the SEALED trial holdout (bench/data/trial_holdout_sealed.py.gz) on an unseen workbook.

The holdout (53 questions: percentages with numerator and denominator, means/medians by arm,
severity, site and trial, values at a time point, changes between time points, comparisons,
multi-condition counts, and honest abstentions) was written and committed before it was run, on
a workbook the dev set never used (seed 913, 497 infants, 1,250 variables). Gold is computed in
pandas from the written .xlsx (``bench.trial_gold.Gold``); numeric answers are judged within
5 % and percentages must state the right denominator (``bench.trial_gold.score``).

Do not read the questions while working on the reader: run this only to report a figure.
``--set open777`` scores the OPEN dev set of bench/trial_open777.py (not sealed) the same way.

Usage::

    python bench/trial_holdout.py [--set 1|...|13] [--show]   # --show: every verdict, not only misses
    python bench/trial_holdout.py --set 8 --check   # build the workbook, compute every gold, verify; no reader
    python bench/trial_holdout.py --set 10 --figures  # a SEALED set: the figures line only
"""

from __future__ import annotations

import argparse
import gzip
import inspect
import sys
import tempfile
import time
import types
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

HOLDOUTS = {
    # set: (sealed questions, workbook seed, infants, variables)
    1: (ROOT / "bench" / "data" / "trial_holdout_sealed.py.gz", 913, 497, 1250),
    2: (ROOT / "bench" / "data" / "trial_holdout2_sealed.py.gz", 2718, 560, 1320),
    3: (ROOT / "bench" / "data" / "trial_holdout3_sealed.py.gz", 31337, 520, 1280),
    4: (ROOT / "bench" / "data" / "trial_holdout4_sealed.py.gz", 4242, 540, 1300),
    5: (ROOT / "bench" / "data" / "trial_holdout5_sealed.py.gz", 5151, 526, 1310),
    6: (ROOT / "bench" / "data" / "trial_holdout6_sealed.py.gz", 6262, 535, 1300),
    7: (ROOT / "bench" / "data" / "trial_holdout7_sealed.py.gz", 7373, 545, 1290),
    8: (ROOT / "bench" / "data" / "trial_holdout8_sealed.py.gz", 8088, 548, 1310),
    9: (ROOT / "bench" / "data" / "trial_holdout9_sealed.py.gz", 9191, 540, 1300),
    10: (ROOT / "bench" / "data" / "trial_holdout10_sealed.py.gz", 10101, 540, 1300),
    11: (ROOT / "bench" / "data" / "trial_holdout11_sealed.py.gz", 11111, 540, 1300),
    12: (ROOT / "bench" / "data" / "trial_holdout12_sealed.py.gz", 12121, 540, 1300),
    13: (ROOT / "bench" / "data" / "trial_holdout13_sealed.py.gz", 13131, 540, 1300),
    14: (ROOT / "bench" / "data" / "trial_holdout14_sealed.py.gz", 14141, 540, 1300),
    15: (ROOT / "bench" / "data" / "trial_holdout15_sealed.py.gz", 15151, 540, 1300),
}
"""Set 1 was written before the reader was read; set 2 after set 1's fixes, before it ran;
set 3 and set 4 by writers blind to the reader's code, each committed before its first run;
set 5 (61 questions, 12 abstentions; seed 5151, 526 x 1310) was written blind to the reader's code
and committed before its first run, every answered gold checked a second way from a long view;
set 6 (64 questions, 12 abstentions; seed 6262, 535 x 1300) likewise, written blind and committed
before its first run, its golds checked against a long view by label and time point and each
abstention's reason checked on the data (the module's ``verify``);
set 7 (64 questions, 12 abstentions; seed 7373, 545 x 1290) likewise, written blind to the reader's
code and committed before its first run, every answered gold checked a second way from a long view
by dictionary label and time point, each abstention's reason checked on the data (``verify``);
set 8 (81 questions, 14 abstentions; seed 8088, 548 x 1310) likewise, on a workbook from an
independent builder (``BOOKS``), not from our generator. Blind figures (2026-12-01, lead only):
set 7 71.9 % / 1 wrong before the evening's trial work, 76.6 % / 1 wrong after; set 8 77.8 % /
3 wrong on its first run (main 87b9d4c), 79.0 % / 3 wrong after. Both were opened as development
material on 2026-12-01 at 21:20 UTC (the next stop's start); set 9 is the new blind set:
set 9 (80 questions, 15 abstentions; seed 9191, 540 x 1300) was written blind to the
reader's code, on a workbook from a second independent builder (``BOOKS``), and committed before
its first run. Its golds are checked a second way from a long view (``verify``). Blind figures
(2026-12-01, lead only): on main 6fe5d5b the loader refused the workbook (its missing codes and
its site column's '(see Centres sheet)' were declared in ways it did not read; 0/80); after the
loader work and this stop's reader work (main 37f398b) 48/80 = 60.0 %, 32 abstained, 0 wrong. It
was then opened as development material (22:50 UTC).
set 10 (81 questions, 15 abstentions; seed 10101, 540 x 1300) was written blind to the reader's
code on 2026-12-02, on a workbook from a third independent builder (``BOOKS``) with conventions
of its own, and committed before its first run; its golds are checked a second way from a long
view (``verify``). Blind figures (lead only, ``--figures``): on main 4a65265's reader 43/81 =
53.1 %, 37 abstained, 1 wrong; after
that stop's reader work (main 9125844) 44/81 = 54.3 %, 36 abstained, 1 wrong. It was opened as
development material on 2026-12-03 (06:50 UTC, stop 23's start); after that stop's loader and
reader work 80/81 = 98.8 %, 1 abstained, 0 wrong (no longer a blind figure). Set 11 is the new
blind set:
set 11 (83 questions, 15 abstentions; seed 11111, 540 x 1300) was written blind to the reader's
code on 2026-12-03, on a workbook from a fourth independent builder (``BOOKS``), and committed
before its first run; its golds are checked a second way from a long view (``verify``). Blind
figures (lead only, ``--figures``): on main 4d9b648 the loader refused the workbook (its
dictionary's section-divider rows read as variables; 0/83). The writer's report named three of
the workbook's conventions to the lead (divider rows, a cover-sheet table of missing codes,
SAS-style special missing values): loader work on those is work on a convention the set shows,
and is said so wherever its figures are reported. After the stop's reader work (trial23, on
set 10) and that loader work (tload23: section rows, a scoped missing-code table, SAS special
missing values and formats, ISO 8601 time points), main a5eadd2: 21/83 = 25.3 %, 62 abstained,
0 wrong; again on main a61a7e4 (stop 24's start) 21/83, 62 abstained, 0 wrong. It was opened as
development material on 2026-12-03 (11:00 UTC, stop 24's start); after that stop's loader and
reader work 69/83 = 83.1 %, 14 abstained, 0 wrong (no longer a blind figure). Set 12 is the new
blind set:
set 12 (88 questions, 16 abstentions; seed 12121, 540 x 1300) was written blind to the reader's
code on 2026-12-03, on a workbook from a fifth independent builder (``BOOKS``) with conventions of
its own, and committed before its first run; its golds are checked a second way (``verify``,
``--check``: 0 disagreements). Blind figures (lead only, ``--figures``): on main 9bb5d0e the loader
refused the workbook (0/88: its data sheet's second row, under the names, holds labels — text in
coded columns). After the stop's loader work on the conventions that error named (tl24: a
labels or units row under the header; a categorical column the dictionary gives no codes) and on
opened set 11 (t24), main da96476: 17/88 = 19.3 %, 65 abstained, **6 wrong** — the first wrong
answers any trial holdout has accepted on its first loadable run. It was opened as development
material on 2026-12-03 (14:00 UTC, stop 25's start); after that stop's loader and reader work
83/88, 5 abstained, 0 wrong (set 11 then 74/83, 0 wrong). Set 13 is the new blind set:
set 13 (85 questions, 15 abstentions; seed 13131, 540 x 1300) was written blind to the reader's
code on 2026-12-03, on a workbook from a sixth independent builder (``BOOKS``) with conventions of
its own, and committed before its first run; its golds are checked a second way (``verify``,
``--check``: 0 disagreements). Blind figures (lead only, ``--figures``): on main c321def the loader
refused the workbook (0/85: merged banner cells above the header). After loader work on the
conventions its errors named (tl25: group banners above the header, incl. one-column forms beside
the blocks; tl25b: codes written label first, 'Hypothermia (A) / Normothermia (B)'), main e9cd7b9
still refuses it (0/85: a code 9 in coded columns the dictionary does not list). It was opened as
development material on 2026-12-04 (07:55 UTC, stop 26's start). Set 14 is the new blind set:
set 14 (88 questions, 15 abstentions; seed 14141, 540 x 1300) was written blind to the reader's
code on 2026-12-04, on a workbook from a seventh independent builder (``BOOKS``), and committed
before its first run; golds checked a second way (``--check``: 0 disagreements). Blind figures
(lead only, ``--figures``): on stop 27's starting main f7cac03, 18/88 = 20.5 %, 70 abstained,
0 wrong; after stop 27's loader work (tl27: missing codes declared in prose; set 13 opened
then 62/85, 0 wrong), main f209b98: unchanged, 18/88, 70 abstained, 0 wrong. It was opened as development material
on 2026-12-04 (19:55 UTC, stop 28's start); set 15 is the new blind set:
set 15 was written blind to the reader's code on 2026-12-04, on a workbook from an eighth
independent builder (``BOOKS``) with conventions of its own, and committed before its first run.
Blind figures (lead only, ``--figures``): on stop 28's starting main 65ad459 the loader refused the
workbook (0/88: a sheet of value = label pairs it did not read as format definitions); after stop
28's loader and reader work (tl28, tl28b: set 14 opened then 77/88, set 13 75/85, 0 wrong),
main 87ca5a1: still refused, the same error."""
BOOKS = {
    8: ROOT / "bench" / "data" / "trial8_book.py.gz",
    9: ROOT / "bench" / "data" / "trial9_book.py.gz",
    10: ROOT / "bench" / "data" / "trial10_book.py.gz",
    11: ROOT / "bench" / "data" / "trial11_book.py.gz",
    12: ROOT / "bench" / "data" / "trial12_book.py.gz",
    13: ROOT / "bench" / "data" / "trial13_book.py.gz",
    14: ROOT / "bench" / "data" / "trial14_book.py.gz",
    15: ROOT / "bench" / "data" / "trial15_book.py.gz",
}
"""Sets whose workbook is NOT made by clinbridge.synthetic.trial but by an independent builder (a
sealed module with ``build(seed, subjects, variables, path)`` and ``load_gold(path)``): set 8's
builder was written by its blind writer from the issue's description alone — its own sheet names,
codebook layout, code notation, missing codes and time-point notation; set 9's likewise, by
another blind writer with conventions of its own."""


def _sealed_module(sealed: Path) -> types.ModuleType:
    module = types.ModuleType(sealed.name.split(".")[0])
    code = gzip.decompress(sealed.read_bytes()).decode("utf-8")
    exec(compile(code, str(sealed), "exec"), module.__dict__)  # our own sealed file
    return module


def load_holdout(which: int | str = 1) -> tuple[Any, ...]:
    """The sealed questions (a gzip-compressed Python module of ``Question`` objects)."""
    if which == "open777":
        from bench.trial_open777 import QUESTIONS

        return QUESTIONS
    return tuple(_sealed_module(HOLDOUTS[int(which)][0]).QUESTIONS)


def workbook_params(which: int | str) -> tuple[int, int, int]:
    """The set's workbook seed, subjects and variables (``open777``: the open set's)."""
    if which == "open777":
        from bench.trial_open777 import SEED, SUBJECTS, VARIABLES

        return SEED, SUBJECTS, VARIABLES
    _, seed, subjects, variables = HOLDOUTS[int(which)]
    return seed, subjects, variables


def write_workbook(which: int | str, xlsx: Path, seed: int, subjects: int, variables: int) -> Any:
    """Write the set's workbook; return its gold frame (read back with pandas)."""
    from bench.trial_gold import load_gold_frame

    if which in BOOKS:
        book = _sealed_module(BOOKS[int(which)])
        book.build(seed, subjects, variables, xlsx)
        return book.load_gold(xlsx)
    from clinbridge.synthetic.trial import generate_trial

    generate_trial(seed, subjects=subjects, variables=variables).write_xlsx(xlsx)
    return load_gold_frame(xlsx)


def check(which: int, xlsx: Path, gold: Any) -> None:
    """Every gold computed, and the set's own second-way ``verify`` where it has one; no reader."""
    module = _sealed_module(HOLDOUTS[which][0])
    kinds: dict[str, int] = {}
    for q in module.QUESTIONS:
        if q.gold is not None:
            q.gold(gold)
        kinds[q.kind] = kinds.get(q.kind, 0) + 1
    verify = getattr(module, "verify", None)
    if verify is None or len(inspect.signature(verify).parameters) != 2:
        print(f"set {which}: {len(module.QUESTIONS)} questions {kinds}; golds computed")
        return
    bad = verify(xlsx, gold)
    print(
        f"set {which}: {len(module.QUESTIONS)} questions {kinds}; golds computed; "
        f"{len(bad)} disagreement(s) with the second way"
    )
    for line in bad:
        print("  " + line)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--show", action="store_true")
    parser.add_argument(
        "--figures",
        action="store_true",
        help="a sealed set's figures only: no question, no verdict line",
    )
    parser.add_argument("--set", default="1", choices=[*map(str, sorted(HOLDOUTS)), "open777"])
    parser.add_argument("--check", action="store_true", help="golds and verify only, no reader")
    args = parser.parse_args()
    from bench.trial_gold import score

    which: int | str = int(args.set) if args.set.isdigit() else args.set
    if args.check:
        if which == "open777":
            parser.error("--check needs a numbered set")
        seed, subjects, variables = workbook_params(which)
        with tempfile.TemporaryDirectory() as tmp:
            xlsx = Path(tmp) / "holdout.xlsx"
            check(int(which), xlsx, write_workbook(which, xlsx, seed, subjects, variables))
        return
    import clinbridge.api as cb
    from clinbridge.adapters.trial import load_trial

    questions = load_holdout(which)
    seed, subjects, variables = workbook_params(which)
    with tempfile.TemporaryDirectory() as tmp:
        xlsx = Path(tmp) / "holdout.xlsx"
        gold = write_workbook(which, xlsx, seed, subjects, variables)
        url = f"duckdb:///{Path(tmp) / 'holdout.duckdb'}"
        load_trial(xlsx, url)
        verdicts: list[str] = []
        times = []
        with cb.connect(url) as conn:
            for q in questions:
                t = time.perf_counter()
                answer = conn.ask(q.text)
                times.append(time.perf_counter() - t)
                verdict, why = score(q, answer, gold)
                verdicts.append(verdict)
                if not args.figures and (args.show or verdict != "correct"):
                    print(f"q{q.id} [{q.voice}] {verdict}: {q.text} — {why}")
    n = len(verdicts)
    print(
        f"holdout {args.set} (seed {seed}, {subjects} x {variables}): "
        f"{verdicts.count('correct')}/{n} correct "
        f"({100 * verdicts.count('correct') / n:.1f} %), {verdicts.count('abstained')} abstained, "
        f"{verdicts.count('wrong')} wrong; mean {1000 * sum(times) / n:.1f} ms per question"
    )


if __name__ == "__main__":
    main()
