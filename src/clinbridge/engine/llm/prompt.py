"""What the LLM is told: catalog summary, retrieved tables and columns, sampled rows, candidate
concepts and retrieved examples (EHRNavigator's schema discovery + FD-NL2SQL's few-shots).

Tables and streams are ranked by embedding similarity between the question and their catalog
descriptions (top-k); a few rows of the best ones are sampled through the guard; candidate
concepts come from the source's dictionaries (fuzzy match on the question); examples come from
the example bank. The model answers with JSON: ``{"plan": QueryPlan}`` or, only when the plan
cannot express the question, ``{"sql": "SELECT ...", "shape": "number|list|date|boolean|rows"}``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import orjson

from clinbridge.engine.plan import QueryPlan

if TYPE_CHECKING:
    from clinbridge.catalog import Catalog
    from clinbridge.db import Database
    from clinbridge.embed import EmbeddingService
    from clinbridge.engine.examples import ExampleBank
    from clinbridge.engine.llm.backends import Message

__all__ = ["PromptContext", "build_context", "envelope_schema", "plan_messages"]

logger = logging.getLogger(__name__)

SHAPES = ["number", "list", "date", "boolean", "rows", "text"]

SYSTEM = """You translate clinical questions into a QueryPlan: a JSON description of the question \
that clinbridge compiles to SQL for the source described below. Use only streams, encounter types \
and concepts that exist in this source; name concepts exactly as the source's dictionary does \
(see the candidate concepts). A plan never names tables. Answer with one JSON object and nothing \
else: {"plan": {...}}.{sql_rule}"""

PLAN_SYNOPSIS = """QueryPlan fields: "patient_id" (a patient-level question), "filters" (the cohort: \
{"kind":"sex","sex":"female"}, {"kind":"age","op":">=","value":65}, {"kind":"event","stream":\
"condition|drug|measurement|procedure|observation","concepts":{"concepts":[{"name":"..."}]},"value":\
{"op":">","value":7},"window":...,"negate":false}, {"kind":"encounter","type":"inpatient"}), "measure" \
({"of":"patients|events|encounters|value|days_supply|length_of_stay|age|date|concept","stream":...,\
"concepts":...}), "aggregate" ({"op":"count|mean|median|min|max|sum|first|last|list|exists|proportion|\
series","numerator":[filters]}), "window" ({"kind":"calendar","start":"2019-01-01","end":\
"2019-12-31"} or {"kind":"relative","anchor":{"kind":"event","stream":"drug","concepts":...,\
"which":"first"},"start_days":0,"end_days":30}), "scope" ({"which":"last","type":"emergency"}), \
"group_by" ([{"key":"sex|year|age_group|concept|encounter_type"}]).
Example: "How many women had a GI bleed within 30 days after their first celecoxib?" → {"plan": \
{"filters": [{"kind": "sex", "sex": "female"}, {"kind": "event", "stream": "condition", "concepts": \
{"concepts": [{"name": "Gastrointestinal hemorrhage"}]}, "window": {"kind": "relative", "anchor": \
{"kind": "event", "stream": "drug", "concepts": {"concepts": [{"name": "celecoxib"}]}, "which": \
"first"}, "start_days": 0, "end_days": 30}}], "aggregate": {"op": "count"}}}"""

SQL_RULE = """ Only if no QueryPlan can express the question, answer {"sql": "SELECT ...", \
"shape": "number|list|date|boolean|rows"} with one read-only SELECT over the tables shown."""


@dataclass
class PromptContext:
    """Everything retrieved for one question."""

    summary: str
    tables: list[str] = field(default_factory=list)
    samples: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    concepts: list[str] = field(default_factory=list)
    examples: list[tuple[str, str]] = field(default_factory=list)
    """(question, answer JSON) pairs."""

    def render(self) -> str:
        """The context as prompt text."""
        parts = [f"Source:\n{self.summary}"]
        if self.tables:
            parts.append(
                "Most relevant tables and streams:\n" + "\n".join(f"- {t}" for t in self.tables)
            )
        for table, rows in self.samples.items():
            body = "\n".join(orjson.dumps(r, default=str).decode() for r in rows)
            parts.append(f"Sample rows of {table}:\n{body}")
        if self.concepts:
            parts.append(
                "Candidate concepts (dictionary, name, domain):\n"
                + "\n".join(f"- {c}" for c in self.concepts)
            )
        return "\n\n".join(parts)


def _table_texts(catalog: Catalog) -> list[tuple[str, str]]:
    """(table name, description text) for every stream, encounter, patient and catalogued table."""
    out: list[tuple[str, str]] = []
    seen: set[str] = set()
    for s in catalog.streams:
        cols = ", ".join(
            c
            for c in (
                s.code_column,
                s.value_column,
                s.unit_column,
                s.time_column,
                s.days_supply_column,
                s.text_column,
            )
            if c
        )
        out.append(
            (
                s.table,
                f"stream '{s.name}' (kind {s.kind}) in table {s.table}: {s.description or s.kind}; "
                f"columns {cols}",
            )
        )
        seen.add(s.table.lower())
    if catalog.encounters:
        e = catalog.encounters
        types = sorted(set(e.type_map.values()))
        out.append((e.table, f"encounters ({e.label}s) in table {e.table}, types {types}"))
        seen.add(e.table.lower())
    if catalog.patients:
        p = catalog.patients
        out.append((p.table, f"patients in table {p.table}: id {p.id_column}, sex, birth"))
        seen.add(p.table.lower())
    for t in catalog.tables:
        if t.name.lower() in seen:
            continue
        cols = ", ".join(c.name for c in t.columns[:12])
        out.append((t.name, f"table {t.name}: {t.description} columns {cols}".strip()))
    for v in catalog.variables:
        out.append(
            (
                v.table,
                f"variable {v.name} ({v.table}.{v.column}): {v.description} {v.unit or ''}".strip(),
            )
        )
    return out


def _sample(db: Database, catalog: Catalog, table: str, n: int) -> list[dict[str, Any]]:
    from clinbridge.engine.guard import guard

    info = catalog.table(table)
    cols = [c.name for c in info.columns[:10]] if info and info.columns else None
    select = ", ".join(f'"{c}"' for c in cols) if cols else "*"
    g = guard(
        f'SELECT {select} FROM "{table}"',
        dialect=db.dialect,
        allowed_tables=catalog.table_names() or None,
        max_rows=n,
    )
    res = db.execute(g.sql, max_rows=n)
    rows = []
    for r in res.rows:
        rows.append(
            {
                c: (str(v)[:40] if isinstance(v, str) else v)
                for c, v in zip(res.columns, r, strict=True)
            }
        )
    return rows


def _concepts(db: Database, catalog: Catalog, question: str, k: int) -> list[str]:
    from clinbridge.vocab import ConceptIndex

    out: list[str] = []
    for d in catalog.dictionaries:
        try:
            matches = ConceptIndex(db, catalog, d.name).fuzzy(question, limit=k, min_score=70)
        except Exception as exc:  # a dictionary the index cannot read: skip it
            logger.debug("no concept hints from %s: %s", d.name, exc)
            continue
        for m in matches:
            out.append(f"{d.name}: {m.name!r} ({m.domain or '?'}, id {m.concept_id})")
    return out[:k]


def build_context(
    question: str,
    *,
    catalog: Catalog,
    db: Database | None = None,
    bank: ExampleBank | None = None,
    embeddings: str = "auto",
    k_tables: int = 4,
    n_rows: int = 3,
    k_examples: int = 3,
    k_concepts: int = 8,
    embedder: EmbeddingService | None = None,
) -> PromptContext:
    """Retrieve the context for a question (each part is optional and fails soft)."""
    from clinbridge.embed import service_for

    embedder = embedder or service_for(mode=embeddings)
    ctx = PromptContext(summary=catalog.summary())
    texts = _table_texts(catalog)
    if texts:
        ranked = embedder.similar(question, [t for _, t in texts], k=k_tables)
        ctx.tables = [texts[i][1] for i, _ in ranked]
        if db is not None and n_rows > 0:
            for i, _ in ranked[:2]:
                table = texts[i][0]
                if table in ctx.samples:
                    continue
                try:
                    ctx.samples[table] = _sample(db, catalog, table, n_rows)
                except Exception as exc:  # sampling is a hint; never fatal
                    logger.debug("could not sample %s: %s", table, exc)
    if db is not None and k_concepts > 0:
        ctx.concepts = _concepts(db, catalog, question, k_concepts)
    if bank is not None and k_examples > 0:
        for hit in bank.search(question, k=k_examples, source=catalog.source):
            ex = hit.example
            if ex.plan is not None:
                plan = ex.plan.model_copy(update={"question": None})
                ctx.examples.append((ex.question, orjson.dumps({"plan": plan.to_dict()}).decode()))
            elif ex.sql:
                ctx.examples.append((ex.question, orjson.dumps({"sql": ex.sql}).decode()))
    return ctx


def envelope_schema(*, allow_sql: bool = True) -> dict[str, Any]:
    """The JSON schema of the model's answer: ``{"plan": QueryPlan}`` (or ``{"sql", "shape"}``)."""
    plan = QueryPlan.json_schema()
    defs = plan.pop("$defs", {})
    props: dict[str, Any] = {"plan": plan}
    if allow_sql:
        props["sql"] = {"type": "string"}
        props["shape"] = {"type": "string", "enum": SHAPES}
    schema: dict[str, Any] = {"type": "object", "properties": props, "additionalProperties": False}
    if not allow_sql:
        schema["required"] = ["plan"]
    if defs:
        schema["$defs"] = defs
    return schema


def plan_messages(
    question: str,
    ctx: PromptContext,
    *,
    patient_id: str | None = None,
    now: str | None = None,
    allow_sql: bool = True,
) -> list[Message]:
    """The chat: system rules + context, few-shot examples, then the question."""
    system = (
        SYSTEM.replace("{sql_rule}", SQL_RULE if allow_sql else "")
        + "\n\n"
        + PLAN_SYNOPSIS
        + "\n\n"
        + ctx.render()
    )
    messages: list[Message] = [{"role": "system", "content": system}]
    for q, a in ctx.examples:
        messages.append({"role": "user", "content": q})
        messages.append({"role": "assistant", "content": a})
    extra = []
    if patient_id is not None:
        extra.append(
            f'The question is about patient {patient_id} (set "patient_id": "{patient_id}").'
        )
    if now:
        extra.append(f"'Now' / 'today' is {now}.")
    messages.append(
        {"role": "user", "content": question + ("\n" + " ".join(extra) if extra else "")}
    )
    return messages
