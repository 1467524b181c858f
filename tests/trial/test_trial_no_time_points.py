"""A 'difference in mean X between A and B' whose X has no second time point abstains, naming
it — it used to stop the reader with an AssertionError (issue 10: bad input, a clear answer)."""

from __future__ import annotations

from pathlib import Path

import clinbridge.api as cb
from clinbridge.adapters.trial import load_trial
from clinbridge.synthetic.trial import generate_trial


def test_a_difference_between_arms_of_a_one_time_variable_abstains(tmp_path: Path) -> None:
    xlsx = tmp_path / "trial.xlsx"
    generate_trial(7, subjects=120, variables=200).write_xlsx(xlsx)
    url = f"duckdb:///{tmp_path / 'trial.duckdb'}"
    load_trial(xlsx, url)
    with cb.connect(url) as conn:
        a = conn.ask(
            "difference in mean birth weight between the hypothermia and the standard care arm"
        )
    assert a.decision == "abstain"
    assert "birth weight" in (a.reason or "").lower()
