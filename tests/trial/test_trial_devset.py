"""The trial dev set (bench/trial_devset.py): gold from pandas, numeric answers within 5 %.

No wrong answer may be accepted; open and sealed questions are reported separately."""

from __future__ import annotations

from bench.trial_devset import QUESTIONS, load_gold_frame, score

import clinbridge.api as cb


def test_devset(trial_xlsx, trial_db) -> None:  # type: ignore[no-untyped-def]
    gold = load_gold_frame(trial_xlsx)
    results: dict[bool, list[str]] = {False: [], True: []}
    wrong = []
    with cb.connect(trial_db) as conn:
        for q in QUESTIONS:
            verdict, why = score(q, conn.ask(q.text), gold)
            results[q.sealed].append(verdict)
            if verdict == "wrong":
                wrong.append((q.id, q.text, why))
    for sealed, verdicts in results.items():
        print(
            "sealed" if sealed else "open",
            f"{verdicts.count('correct')}/{len(verdicts)} correct,",
            f"{verdicts.count('abstained')} abstained, {verdicts.count('wrong')} wrong",
        )
    assert len(QUESTIONS) >= 40
    assert not wrong, wrong
    opened = results[False]
    assert opened.count("correct") / len(opened) >= 0.9
