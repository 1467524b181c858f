"""Documentation checks for the specs of MedCalc ids 28-69: every label error or refused row in
tests/calculators/<id>.yaml is also explained in the spec's own notes, and every spec cites its
source."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from clinbridge import calculators

HERE = Path(__file__).parent
IDS = [28, 29, 30, 31, 32, 33, 36, 38, 39, 40, 43, 44, 45, 46, 48, 49, 51]
IDS += [56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69]


@pytest.mark.parametrize("cid", IDS)
def test_label_errors_are_explained_in_the_spec(cid: int) -> None:
    spec = calculators.get(cid).spec
    golden = yaml.safe_load((HERE / f"{cid}.yaml").read_text())
    documented = {e["row"] for e in golden.get("label_errors") or []}
    in_notes = {row for note in spec.notes for row in note.rows}
    assert documented <= in_notes, f"rows without a note in the spec: {documented - in_notes}"
    assert in_notes <= documented, (
        f"notes name rows the golden file does not: {in_notes - documented}"
    )
    assert spec.citation.strip()
