"""The open dev set on workbook seed 777 (bench/trial_open777.py): no wrong answer, >= 90 %.

The workbook is generated narrower than the bench's (600 variables, not 1,290): only the
data-management padding differs; every clinical column, subject and value is the same."""

from __future__ import annotations

from pathlib import Path

from bench.trial_gold import load_gold_frame, score
from bench.trial_open777 import QUESTIONS, SEED, SUBJECTS

import clinbridge.api as cb
from clinbridge.adapters.trial import load_trial
from clinbridge.synthetic.trial import generate_trial


def test_open777(tmp_path: Path) -> None:
    xlsx = generate_trial(SEED, subjects=SUBJECTS, variables=600).write_xlsx(tmp_path / "o.xlsx")
    url = f"duckdb:///{tmp_path / 'o.duckdb'}"
    load_trial(xlsx, url)
    gold = load_gold_frame(xlsx)
    verdicts, wrong = [], []
    with cb.connect(url) as conn:
        for q in QUESTIONS:
            verdict, why = score(q, conn.ask(q.text), gold)
            verdicts.append(verdict)
            if verdict == "wrong":
                wrong.append((q.id, q.text, why))
    assert not wrong, wrong
    assert verdicts.count("correct") / len(verdicts) >= 0.9
