"""Derive the learned reader's EHRSQL silver file from the EHRSQL-2024 TRAIN split (run once).

    python scripts/build_ehrsql_silver.py /path/to/ehrsql-2024-mimic-iv-demo/train

Reads ``data.json`` + ``label.json`` of the train split only (never valid or test), and writes
``src/clinbridge/engine/understand/data/reader/ehrsql_silver.jsonl.gz``: per question its text, the
spans found by aligning the gold SQL's literals with the question (item/drug names → CONCEPT,
``subject_id`` numbers → ID, other compared numbers → VALUE, plus the closed-class word rules) and
the intent read from the SQL's shape. The package never reads the original at run time.
"""

from __future__ import annotations

import gzip
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from clinbridge.engine.understand._learned_data import merge_spans, rule_spans  # noqa: E402

OUT = (
    ROOT
    / "src"
    / "clinbridge"
    / "engine"
    / "understand"
    / "data"
    / "reader"
    / "ehrsql_silver.jsonl.gz"
)
_NOT_CONCEPT = re.compile(
    r"^(%|start of|[-+]?\d+ (year|month|day|hour)|\d{4}(-\d\d)*$|\d{4}-\d\d|prescriptions$|diagnoses_icd$|procedures_icd$|labevents$|inputevents$|outputevents$|microbiologyevents$|[mf]$)"
)


def intent_of(sql: str) -> str | None:
    s = " ".join(sql.split()).lower()
    head = s[: s.find(" from ")] if " from " in s else s
    if sql == "null":
        return "unanswerable"
    if "count(" in head and (") > 0" in head or ">0" in head.replace(" ", "")):
        return "exists"
    if "strftime('%j'" in head:
        return "time_between"
    for fn, intent in (
        ("avg(", "mean"),
        ("min(", "min"),
        ("max(", "max"),
        ("sum(", "sum"),
        ("count(", "count"),
    ):
        if head.startswith((f"select {fn}", f"select distinct {fn}")):
            return intent
    if "dense_rank()" in s:
        return "list"
    time_cols = ("time", "date", "intime", "outtime", "admittime", "dischtime")
    if "limit 1" in s:
        col = head.replace("select ", "").replace("distinct ", "").split(",")[0].strip()
        if any(col.endswith(c) for c in time_cols):
            return "date"
        if "order by" in s and " desc limit 1" in s[-40:]:
            return "last"
        if "order by" in s and (" asc limit 1" in s[-40:] or s.rstrip().endswith("limit 1")):
            return "first"
    if head.startswith("select distinct"):
        return "list"
    return None


_KIND = {
    "prescriptions.drug": "drug",
    "d_labitems.label": "lab",
    "d_items.label": "lab",
    "d_icd_diagnoses.long_title": "cond",
    "d_icd_procedures.long_title": "proc",
}


def names_of(sql: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for col, lit in re.findall(r"(\w+\.\w+) = '([^']+)'", sql):
        if col in _KIND and not _NOT_CONCEPT.search(lit.lower()):
            out.setdefault(_KIND[col], []).append(lit)
    return out


def align(question: str, sql: str) -> list[tuple[int, int, str]]:
    low = question.lower()
    strong: list[tuple[int, int, str]] = []
    for lit in set(re.findall(r"'([^']+)'", sql)):
        if _NOT_CONCEPT.search(lit.lower()) or len(lit) < 3 or lit.replace(".", "").isdigit():
            continue
        i = low.find(lit.lower())
        if i >= 0:
            strong.append((i, i + len(lit), "CONCEPT"))
    for num in set(re.findall(r"subject_id = (\d+)", sql)):
        for m in re.finditer(rf"(?<!\d){num}(?!\d)", question):
            strong.append((m.start(), m.end(), "ID"))
    for num in set(
        re.findall(r"(?:valuenum|value|amount|age|cost)\s*[<>=]+\s*(\d+(?:\.\d+)?)", sql)
    ):
        for m in re.finditer(rf"(?<![\d.]){re.escape(num)}(?![\d.])", question):
            strong.append((m.start(), m.end(), "VALUE"))
    strong = merge_spans([], strong)  # overlapping literals: the longest wins
    return merge_spans(strong, rule_spans(question))


def main() -> None:
    train = Path(sys.argv[1])
    if train.name != "train":
        raise SystemExit("give the TRAIN split folder (only train is used)")
    data = json.loads((train / "data.json").read_text())["data"]
    labels = json.loads((train / "label.json").read_text())
    rows = []
    for item in data:
        sql = labels.get(item["id"], "null")
        q = item["question"].strip()
        spans = align(q, sql) if sql != "null" else merge_spans([], rule_spans(q))
        row = {"text": q, "spans": spans, "intent": intent_of(sql), "src": "ehrsql-train"}
        if sql != "null":
            row["names"] = names_of(sql)
        rows.append(row)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_bytes(gzip.compress("\n".join(json.dumps(r) for r in rows).encode(), mtime=0))
    intents: dict[str, int] = {}
    for r in rows:
        intents[str(r["intent"])] = intents.get(str(r["intent"]), 0) + 1
    print(f"wrote {len(rows)} questions to {OUT} ({OUT.stat().st_size} bytes); intents {intents}")


if __name__ == "__main__":
    main()
