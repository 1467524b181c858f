"""Derive the EHRSQL-2024 term list the MIMIC generator draws from (run by hand; output committed).

Reads bench/data/ehrsql-2024/{train,valid}.jsonl.gz (CC BY 4.0) and writes
src/clinbridge/synthetic/data/ehrsql2024_terms.json: the string literals the gold SQL compares
columns with (drug names, routes, lab and item labels with their linksto, diagnosis and procedure
titles, care units, specimens, admission locations), the subject ids the questions name, and
those asked about their current stay (``dischtime IS NULL``), whom the generator keeps admitted,
and which terms each question asks of the patient it names (``planted``: subject id, kind, term),
which the generator records in every admission or ICU stay of that patient so the gold SQL of
patient-level questions has data to find.

    python bench/ehrsql_terms.py
"""

from __future__ import annotations

import collections
import gzip
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "bench" / "data" / "ehrsql-2024"
OUT = ROOT / "src" / "clinbridge" / "synthetic" / "data" / "ehrsql2024_terms.json"

_EQ = re.compile(r"(\w+)\.(\w+)\s*=\s*'([^']*)'")
_ITEM = re.compile(
    r"d_items\.label\s*=\s*'([^']*)'\s+AND\s+d_items\.linksto\s*=\s*'(\w+)'", re.IGNORECASE
)
_SUBJECT = re.compile(r"subject_id\s*=\s*(\d+)")
_WANTED = {
    ("prescriptions", "drug"): "drugs",
    ("prescriptions", "route"): "routes",
    ("d_labitems", "label"): "labs",
    ("d_icd_diagnoses", "long_title"): "diagnoses",
    ("d_icd_procedures", "long_title"): "procedures",
    ("transfers", "careunit"): "careunits",
    ("microbiologyevents", "spec_type_desc"): "specimens",
    ("microbiologyevents", "test_name"): "tests",
    ("microbiologyevents", "org_name"): "organisms",
    ("admissions", "admission_location"): "admission_locations",
}


def main() -> None:
    terms: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    items: collections.Counter[tuple[str, str]] = collections.Counter()
    subjects: collections.Counter[int] = collections.Counter()
    current: collections.Counter[int] = collections.Counter()
    planted: set[tuple[int, str, str]] = set()
    for split in ("train", "valid"):
        with gzip.open(DATA / f"{split}.jsonl.gz", "rt", encoding="utf-8") as f:
            for line in f:
                sql = json.loads(line)["sql"]
                if not sql:
                    continue
                for table, column, value in _EQ.findall(sql):
                    key = _WANTED.get((table.lower(), column.lower()))
                    if key:
                        terms[key][value] += 1
                for label, linksto in _ITEM.findall(sql):
                    items[(label, linksto.lower())] += 1
                named = {int(s) for s in _SUBJECT.findall(sql)}
                subjects.update(named)
                asked = [
                    (_WANTED[(t.lower(), c.lower())], v)
                    for t, c, v in _EQ.findall(sql)
                    if (t.lower(), c.lower()) in _WANTED
                ]
                asked += [(f"items:{links.lower()}", label) for label, links in _ITEM.findall(sql)]
                planted.update((sid, kind, term) for sid in named for kind, term in asked)
                if re.search(r"dischtime\s+IS\s+NULL", sql, re.IGNORECASE):
                    # asked about their current hospital stay: keep them admitted at 'now'
                    current.update(int(s) for s in _SUBJECT.findall(sql))
    out = {k: sorted(v) for k, v in sorted(terms.items())}
    out["items"] = sorted([label, linksto] for label, linksto in items)  # type: ignore[misc]
    out["subject_ids"] = sorted(subjects)  # type: ignore[assignment]
    out["current_subject_ids"] = sorted(current)  # type: ignore[assignment]
    out["planted"] = sorted([sid, kind, term] for sid, kind, term in planted)  # type: ignore[misc]
    out["_source"] = [  # type: ignore[assignment]
        "Derived from the EHRSQL 2024 shared task train+valid gold SQL "
        "(github.com/glee4810/ehrsql-2024, CC BY 4.0); see bench/data/ehrsql-2024/SOURCE.md"
    ]
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(out, indent=0, sort_keys=True) + "\n", encoding="utf-8")
    print({k: len(v) for k, v in out.items()})


if __name__ == "__main__":
    main()
