"""The example bank (FD-NL2SQL): approved question → plan (+ SQL) pairs, retrieved as few-shots.

Experts approve answers (``clinbridge feedback approve``) or correct them (``feedback edit``); each
approved pair is appended to a JSON-lines file (default ``~/.clinbridge/examples.jsonl``; the
``examples`` setting, env ``CLINBRIDGE_EXAMPLES``, or ``path=`` chooses another). The LLM prompt gets
the pairs most similar to a new question (embedding similarity, lexical when embeddings are off),
and the built-in parser may use them as hints.

Mutation augmentation grows the bank: :func:`mutations` makes ONE atomic change to an approved
plan — a comparison operator, a threshold, a compatible concept from the same domain and
dictionary, the sex, an encounter type, or a window's length — and :func:`augment` keeps a
mutant only if it compiles, executes, passes the validator and returns a non-empty result; it is
then back-translated into a question (:func:`describe_plan`'s templates, or the LLM when one is
configured) and stored with ``origin="mutation"`` and its parent's id.

The file is append-only: an edit appends the corrected pair with ``replaces=<old id>``, and
loading keeps the latest version of each pair.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import orjson
from pydantic import BaseModel, ConfigDict, ValidationError

from clinbridge.engine._describe import describe_plan
from clinbridge.engine.plan import QueryPlan
from clinbridge.errors import LoadError

if TYPE_CHECKING:
    from clinbridge.catalog import Catalog
    from clinbridge.db import Database
    from clinbridge.embed import EmbeddingService
    from clinbridge.settings import Settings

__all__ = [
    "Example",
    "ExampleBank",
    "Hit",
    "Mutation",
    "augment",
    "concept_labeller",
    "default_bank_path",
    "describe_plan",
    "mutations",
]

logger = logging.getLogger(__name__)

Origin = Literal["approved", "edited", "mutation"]


class Example(BaseModel):
    """One approved question with its plan (and/or SQL)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    question: str
    plan: QueryPlan | None = None
    sql: str | None = None
    source: str | None = None
    """Name of the source it was approved on (examples transfer across sources; this is a hint)."""
    origin: Origin = "approved"
    parent: str | None = None
    """For mutations: the id of the example it was derived from."""
    change: str | None = None
    """For mutations: the one change made ("operator > → <", "concept aspirin → celecoxib")."""
    replaces: str | None = None
    """For edits: the id of the example this one corrects."""
    created: str = ""

    def to_json(self) -> str:
        """The example as JSON."""
        return orjson.dumps(self.model_dump(mode="json", exclude_none=True)).decode()


def _norm(question: str) -> str:
    return " ".join(question.lower().split()).rstrip("?. ")


def example_id(question: str, plan: QueryPlan | None, sql: str | None) -> str:
    plan_json = plan.model_copy(update={"question": None}).to_json() if plan else ""
    payload = _norm(question) + "\x00" + plan_json + "\x00" + (sql or "")
    return hashlib.sha1(payload.encode()).hexdigest()[:12]


def default_bank_path(settings: Settings | None = None) -> Path:
    """``settings.examples`` (env ``CLINBRIDGE_EXAMPLES``), else ``~/.clinbridge/examples.jsonl``."""
    if settings is None:
        from clinbridge.settings import Settings

        settings = Settings.from_env()
    if settings.examples:
        return Path(settings.examples).expanduser()
    return Path.home() / ".clinbridge" / "examples.jsonl"


@dataclass(frozen=True)
class Hit:
    """An example found for a question, with its similarity."""

    example: Example
    score: float


class ExampleBank:
    """The approved pairs in one JSON-lines file."""

    def __init__(
        self,
        path: str | Path | None = None,
        *,
        embeddings: str = "auto",
        embedder: EmbeddingService | None = None,
    ) -> None:
        self.path = Path(path) if path is not None else default_bank_path()
        self.embeddings = embeddings
        self.embedder = embedder
        self._examples: dict[str, Example] = {}
        self._load()

    # -- storage -------------------------------------------------------------------------------
    def _load(self) -> None:
        self._examples.clear()
        if not self.path.exists():
            return
        with self.path.open("rb") as fh:
            for lineno, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    data = orjson.loads(line)
                    ex = Example.model_validate(data)
                except orjson.JSONDecodeError as exc:
                    raise LoadError(f"not JSON: {exc}", file=str(self.path), record=lineno) from exc
                except ValidationError as exc:
                    err = exc.errors()[0]
                    field = ".".join(str(p) for p in err["loc"])
                    raise LoadError(
                        f"invalid example: {err['msg']}",
                        file=str(self.path),
                        record=lineno,
                        field=field,
                    ) from exc
                if ex.replaces:
                    self._examples.pop(ex.replaces, None)
                self._examples[ex.id] = ex

    def _append(self, ex: Example) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write(ex.to_json() + "\n")

    def __len__(self) -> int:
        return len(self._examples)

    def __iter__(self) -> Iterator[Example]:
        return iter(self._examples.values())

    def get(self, example_id_: str) -> Example | None:
        """The example with this id, or None."""
        return self._examples.get(example_id_)

    def find(self, question: str) -> Example | None:
        """The stored example with this exact question (case and spacing ignored)."""
        n = _norm(question)
        return next((e for e in reversed(self._examples.values()) if _norm(e.question) == n), None)

    def add(
        self,
        question: str,
        plan: QueryPlan | None = None,
        sql: str | None = None,
        *,
        origin: Origin = "approved",
        source: str | None = None,
        parent: str | None = None,
        change: str | None = None,
        replaces: str | None = None,
    ) -> Example:
        """Store a pair (idempotent: the same question, plan and SQL are stored once)."""
        if plan is None and not sql:
            raise ValueError("an example needs a plan or SQL")
        if plan is not None and plan.question != question:
            plan = plan.model_copy(update={"question": question})
        eid = example_id(question, plan, sql)
        if eid in self._examples and replaces is None:
            return self._examples[eid]
        ex = Example(
            id=eid,
            question=question.strip(),
            plan=plan,
            sql=sql,
            source=source,
            origin=origin,
            parent=parent,
            change=change,
            replaces=replaces,
            created=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        )
        self._append(ex)
        if replaces:
            self._examples.pop(replaces, None)
        self._examples[eid] = ex
        return ex

    def approve(
        self,
        question: str,
        plan: QueryPlan | None = None,
        sql: str | None = None,
        *,
        source: str | None = None,
    ) -> Example:
        """Add an answered question (its plan or SQL) to the bank as approved; the example."""
        return self.add(question, plan, sql, source=source, origin="approved")

    def edit(
        self,
        question: str,
        plan: QueryPlan | None = None,
        sql: str | None = None,
        *,
        replaces: str | None = None,
        source: str | None = None,
    ) -> Example:
        """Correct a stored pair: by id (``replaces``) or the pair with the same question."""
        old = self.get(replaces) if replaces else self.find(question)
        if replaces and old is None:
            raise KeyError(f"no example with id {replaces!r} in {self.path}")
        return self.add(
            question,
            plan,
            sql,
            source=source or (old.source if old else None),
            origin="edited",
            replaces=old.id if old else None,
        )

    # -- retrieval -----------------------------------------------------------------------------
    def search(
        self, question: str, k: int = 3, *, source: str | None = None, min_score: float = 0.0
    ) -> list[Hit]:
        """The ``k`` stored pairs most similar to ``question`` (same source first on ties)."""
        pool = list(self._examples.values())
        if not pool:
            return []
        from clinbridge.embed import service_for

        embedder = self.embedder or service_for(mode=self.embeddings)
        scores = embedder.scores(question, [e.question for e in pool])
        ranked = sorted(
            zip(pool, scores, strict=True),
            key=lambda p: (-(p[1] + (0.01 if source and p[0].source == source else 0.0)), p[0].id),
        )
        return [Hit(e, s) for e, s in ranked[:k] if s >= min_score]


# -- mutation augmentation ------------------------------------------------------------------------


@dataclass(frozen=True)
class Mutation:
    """A variant of an example's plan, with the question it asks."""

    plan: QueryPlan
    change: str
    kind: Literal["operator", "threshold", "concept", "sex", "encounter_type", "window"]


_FLIP = {">": "<", ">=": "<=", "<": ">", "<=": ">="}


def _walk(
    node: Any, path: tuple[Any, ...] = ()
) -> Iterator[tuple[tuple[Any, ...], dict[str, Any]]]:
    if isinstance(node, dict):
        yield path, node
        for k, v in node.items():
            yield from _walk(v, (*path, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _walk(v, (*path, i))


def _replace(root: dict[str, Any], path: tuple[Any, ...], new: dict[str, Any]) -> dict[str, Any]:
    data = orjson.loads(orjson.dumps(root))
    if not path:
        return new
    node = data
    for p in path[:-1]:
        node = node[p]
    node[path[-1]] = new
    return data  # type: ignore[no-any-return]


def _nice(x: float, was_int: bool) -> float | int:
    if was_int:
        return round(x)
    return float(f"{x:.3g}")


def mutations(
    plan: QueryPlan,
    *,
    catalog: Catalog | None = None,
    db: Database | None = None,
    concepts_per_set: int = 2,
) -> list[Mutation]:
    """Every one-change variant of ``plan`` (not yet executed; see :func:`augment`)."""
    base = plan.model_dump(mode="json", exclude_none=True)
    base.pop("question", None)
    out: list[Mutation] = []

    def emit(path: tuple[Any, ...], new: dict[str, Any], change: str, kind: Any) -> None:
        try:
            mutant = QueryPlan.model_validate(_replace(base, path, new))
        except ValidationError:
            return
        if mutant != plan.model_copy(update={"question": None}):
            out.append(Mutation(mutant, change, kind))

    for path, node in _walk(base):
        op = node.get("op")
        if op in _FLIP and "value" in node and isinstance(node["value"], int | float):
            emit(path, {**node, "op": _FLIP[op]}, f"operator {op} → {_FLIP[op]}", "operator")
            was_int = isinstance(node["value"], int)
            step = 10 if node.get("kind") == "age" else None
            for factor in (1.25, 0.8):
                value = (
                    node["value"] + (step if factor > 1 else -step)
                    if step
                    else node["value"] * factor
                )
                value = _nice(value, was_int)
                if value != node["value"] and value >= 0:
                    emit(
                        path,
                        {**node, "value": value},
                        f"threshold {node['value']} → {value}",
                        "threshold",
                    )
        if node.get("kind") == "sex":
            other = "male" if node["sex"] == "female" else "female"
            emit(path, {**node, "sex": other}, f"sex {node['sex']} → {other}", "sex")
        if node.get("kind") == "relative":
            s, e = node.get("start_days"), node.get("end_days")
            if isinstance(e, int) and e > 0 and (s is None or s >= 0):
                for new_e in (e * 2, max(1, e // 2)):
                    if new_e != e:
                        emit(
                            path,
                            {**node, "end_days": new_e},
                            f"window end {e} → {new_e} days",
                            "window",
                        )
            elif isinstance(s, int) and s < 0 and (e is None or e <= 0):
                for new_s in (s * 2, min(-1, s // 2 if s % 2 == 0 else -((-s) // 2))):
                    if new_s != s:
                        emit(
                            path,
                            {**node, "start_days": new_s},
                            f"window start {s} → {new_s} days",
                            "window",
                        )
        if node.get("kind") == "calendar":
            for years in (-1, 1):
                new = dict(node)
                for key in ("start", "end"):
                    if node.get(key):
                        d = dt.date.fromisoformat(node[key])
                        new[key] = _shift_years(d, years).isoformat()
                emit(path, new, f"window shifted {years:+d} year", "window")
    if catalog is not None and catalog.encounters is not None:
        present = sorted(set(catalog.encounters.type_map.values()))
        for path, node in _walk(base):
            for key in ("type", "encounter_type"):
                etype = node.get(key)
                if etype in present and (
                    key == "encounter_type" or node.get("kind") == "encounter" or "which" in node
                ):
                    for other in present:
                        if other != etype:
                            emit(
                                path,
                                {**node, key: other},
                                f"encounter type {etype} → {other}",
                                "encounter_type",
                            )
    if catalog is not None and db is not None:
        _concept_mutations(plan, base, catalog, db, concepts_per_set, emit)
    return out


def _shift_years(d: dt.date, years: int) -> dt.date:
    try:
        return d.replace(year=d.year + years)
    except ValueError:  # 29 February
        return d.replace(year=d.year + years, day=28)


def _concept_path(path: str) -> tuple[Any, ...]:
    """'filters[0].window.anchor' → ('filters', 0, 'window', 'anchor')."""
    out: list[Any] = []
    for part in path.split("."):
        name, _, rest = part.partition("[")
        out.append(name)
        if rest:
            out.append(int(rest.rstrip("]")))
    if out[-1] == "age_at_event":
        out.append("at")
    return tuple(out)


def _concept_mutations(
    plan: QueryPlan,
    base: dict[str, Any],
    catalog: Catalog,
    db: Database,
    k: int,
    emit: Callable[..., None],
) -> None:
    from clinbridge.engine._checks import concept_sets_of
    from clinbridge.engine.resolve import Resolver, streams_for
    from clinbridge.errors import ClinbridgeError

    resolver = Resolver(db, catalog)
    for pcs in concept_sets_of(plan):
        try:
            stream = streams_for(catalog, pcs.stream)[0]
            resolved = resolver.resolve(pcs.concepts, stream)
        except ClinbridgeError:
            continue
        path = _concept_path(pcs.path)
        node: Any = base
        for p in path:
            node = node[p]
        for cid, name in _siblings(catalog, db, stream, [c.value for c in resolved.concepts], k):
            new_cs = {**node["concepts"], "concepts": [{"concept_id": cid, "name": name}]}
            new_cs.pop("label", None)
            emit(
                path,
                {**node, "concepts": new_cs},
                f"concept {pcs.concepts.describe()} → {name}",
                "concept",
            )


def _siblings(
    catalog: Catalog, db: Database, stream: Any, current: list[Any], k: int
) -> list[tuple[Any, str]]:
    """Concepts of the same dictionary, domain and system that occur in the stream, most frequent first."""
    from sqlglot import exp

    if stream.code_column is None or stream.dictionary is None or not current:
        return []
    d = catalog.dictionary(stream.dictionary)
    code = exp.column(d.code_column, table="d")
    same: list[exp.Expression] = []
    probe_cols = [c for c in (d.domain_column, d.system_column) if c]
    if probe_cols:
        probe = (
            exp.select(*[exp.column(c) for c in probe_cols])
            .from_(d.table)
            .where(exp.column(d.code_column).isin(*[exp.convert(v) for v in current[:50]]))
            .limit(1)
        )
        rows = db.execute(probe.sql(db.dialect), max_rows=1).rows
        if rows:
            same = [
                exp.column(c, table="d").eq(exp.convert(v))
                for c, v in zip(probe_cols, rows[0], strict=True)
                if v is not None
            ]
    q = (
        exp.select(
            code, exp.column(d.label_column, table="d"), exp.func("COUNT", exp.Star()).as_("n")
        )
        .from_(exp.to_table(stream.table).as_("s"))
        .join(exp.to_table(d.table).as_("d"), on=exp.column(stream.code_column, table="s").eq(code))
        .where(exp.and_(exp.not_(code.isin(*[exp.convert(v) for v in current[:500]])), *same))
        .group_by(code, exp.column(d.label_column, table="d"))
        .order_by(exp.column("n").desc(), code)
        .limit(k)
    )
    return [(r[0], str(r[1])) for r in db.execute(q.sql(db.dialect), max_rows=k).rows]


def concept_labeller(catalog: Catalog, db: Database) -> Callable[[Any], str | None]:
    """A ``describe_plan`` label function naming concept sets given by id from the dictionaries."""
    from sqlglot import exp

    cache: dict[str, str | None] = {}

    def name_of(ref: Any) -> str | None:
        if ref.name:
            return str(ref.name)
        key = str(ref.concept_id if ref.concept_id is not None else ref.code)
        if key not in cache:
            cache[key] = None
            by_id = ref.concept_id is not None
            for d in catalog.dictionaries:
                q = (
                    exp.select(exp.column(d.label_column))
                    .from_(d.table)
                    .where(
                        exp.cast(
                            exp.column(
                                d.code_column if by_id else (d.source_code_column or d.code_column)
                            ),
                            "TEXT",
                        ).eq(exp.Literal.string(key))
                    )
                    .limit(1)
                )
                try:
                    rows = db.execute(q.sql(db.dialect), max_rows=1).rows
                except Exception:  # a dictionary this backend cannot read: try the next
                    continue
                if rows:
                    cache[key] = str(rows[0][0])
                    break
        return cache[key]

    def label(cs: Any) -> str | None:
        if cs.label:
            return str(cs.label)
        names = [name_of(r) for r in cs.concepts]
        return " or ".join(n for n in names if n) or None

    return label


def _non_empty(value: Any, plan: QueryPlan) -> bool:
    if value is None or value == [] or value == {}:
        return False
    return not (plan.aggregate.op in {"count", "count_distinct"} and value == 0)


def augment(
    example: Example,
    *,
    catalog: Catalog,
    db: Database,
    bank: ExampleBank | None = None,
    settings: Settings | None = None,
    back_translate: Callable[[QueryPlan], str] | None = None,
    limit: int = 10,
    run_plan: Callable[[QueryPlan], Any] | None = None,
) -> list[Example]:
    """Make one-change variants of an approved example and keep the ones that hold up.

    A variant is kept only if it compiles, executes, passes every validator check and returns a
    non-empty result; it is back-translated into a question and added to ``bank`` (if given).

    Returns:
        The kept variants as examples (``origin="mutation"``, ``parent=example.id``).
    """
    from clinbridge.engine.validate import validate_once

    if example.plan is None:
        return []
    kept: list[Example] = []
    seen: set[str] = set()
    label = concept_labeller(catalog, db)
    for m in mutations(example.plan, catalog=catalog, db=db):
        if len(kept) >= limit:
            break
        question = describe_plan(m.plan, label=label)
        if back_translate is not None:
            try:
                question = back_translate(m.plan) or question
            except Exception as exc:  # an LLM failure falls back to the template
                logger.warning("back-translation failed (%s); using the template", exc)
        plan = m.plan.model_copy(update={"question": question})
        out = validate_once(
            question,
            plan,
            catalog=catalog,
            db=db,
            settings=settings,
            how="mutation",
            run_plan=run_plan,
        )
        if out.decision != "accept" or not _non_empty(out.value, plan):
            logger.debug("mutation %r dropped: %s %s", m.change, out.reason, out.detail)
            continue
        eid = example_id(question, plan, None)
        if eid in seen:
            continue
        seen.add(eid)
        if bank is not None:
            ex = bank.add(
                question,
                plan,
                out.sql,
                source=catalog.source,
                origin="mutation",
                parent=example.id,
                change=m.change,
            )
        else:
            ex = Example(
                id=eid,
                question=question,
                plan=plan,
                sql=out.sql,
                source=catalog.source,
                origin="mutation",
                parent=example.id,
                change=m.change,
            )
        kept.append(ex)
    return kept
