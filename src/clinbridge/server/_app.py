"""The FastAPI application: JSON API under ``/api``, the page at ``/``, static assets shipped here.

Safety: every source is opened read-only (``Database.open`` default) and every query runs behind
the guard; request bodies are capped (``max_body_bytes``) and requests time out
(``request_timeout_s``); an API token, when configured, is required on every ``/api`` call (and
``serve`` refuses a non-loopback bind without one). Every API request is written to the audit log.
Application logs carry the route template, status and timing only — never questions, ids or SQL.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
import threading
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, Literal

import anyio.to_thread
import orjson
from fastapi import APIRouter, Depends, FastAPI, HTTPException, Query, Request
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field, ValidationError

from clinbridge.errors import ClinbridgeError, QueryTimeoutError
from clinbridge.server import _data, _present, _svg
from clinbridge.server._audit import AuditLog
from clinbridge.server._pool import BusyError, SourcePool
from clinbridge.settings import Settings

__all__ = ["ServerConfig", "create_app"]

logger = logging.getLogger(__name__)

STATIC = Path(str(resources.files("clinbridge.server") / "static"))


@dataclass
class ServerConfig:
    """Everything ``create_app`` needs; built at the edge (CLI or tests)."""

    sources: list[str]
    """Database URLs, optionally ``name=URL``."""
    token: str | None = None
    audit_path: Path | None = None
    bank_path: Path | None = None
    settings: Settings = field(default_factory=Settings.from_env)
    pool_size: int = 2
    max_body_bytes: int = 1_000_000
    request_timeout_s: float = 60.0
    cache_dir: Path | None = None
    examples_k: int = 3
    threads: int = 200
    """Worker threads for the (synchronous) endpoints."""


# -- request bodies ---------------------------------------------------------------------------
_Text = Annotated[str, Field(min_length=1, max_length=2000)]
_Id = Annotated[str, Field(min_length=1, max_length=200)]


class AskRequest(BaseModel):
    question: _Text
    source: _Id | None = None
    patient_id: _Id | None = None
    now: Annotated[str, Field(max_length=40)] | None = None


class PlanRequest(BaseModel):
    plan: dict[str, Any]
    source: _Id | None = None
    question: _Text | None = None


class FeedbackRequest(BaseModel):
    question: _Text
    source: _Id | None = None
    plan: dict[str, Any] | None = None
    sql: Annotated[str, Field(min_length=1, max_length=20_000)] | None = None
    replaces: _Id | None = None


class CalcRequest(BaseModel):
    params: dict[str, Any]
    sources: dict[str, str] | None = None
    missing: Literal["spec", "absent"] = "spec"


class FromPatientRequest(BaseModel):
    patient_id: _Id
    source: _Id | None = None
    at: Annotated[str, Field(max_length=40)] | None = None


# -- application state ------------------------------------------------------------------------
class _State:
    def __init__(self, config: ServerConfig) -> None:
        from clinbridge.engine.examples import ExampleBank, default_bank_path

        self.config = config
        self.settings = config.settings
        self.pools: dict[str, SourcePool] = {}
        for spec in config.sources:
            name, url = _split_source(spec)
            pool = SourcePool(
                url,
                size=config.pool_size,
                settings=self.settings,
                cache_dir=config.cache_dir,
            )
            key = name or _default_name(url, pool.name)
            while key in self.pools:
                key += "_2"
            self.pools[key] = pool
        self.audit = AuditLog(config.audit_path)
        self.bank = ExampleBank(
            config.bank_path or default_bank_path(self.settings),
            embeddings=self.settings.embeddings,
        )
        self.bank_lock = threading.Lock()

    def pool(self, source: str | None) -> tuple[str, SourcePool]:
        if source is None:
            name = next(iter(self.pools))
            return name, self.pools[name]
        if source not in self.pools:
            raise HTTPException(
                404, f"no source {source!r}; available: {', '.join(self.pools) or 'none'}"
            )
        return source, self.pools[source]

    def close(self) -> None:
        for p in self.pools.values():
            p.close()
        self.audit.close()


def _split_source(spec: str) -> tuple[str | None, str]:
    head, sep, rest = spec.partition("=")
    if sep and "://" not in head and head.isidentifier():
        return head, rest
    return None, spec


def _default_name(url: str, source: str) -> str:
    if url.startswith(("duckdb:///", "sqlite:///")):
        stem = Path(url.split(":///", 1)[1]).stem
        if stem and stem.replace("-", "_").replace(".", "_").isidentifier():
            return stem
    return source


# -- middleware -------------------------------------------------------------------------------
class _BodyLimit:
    """Refuse request bodies over ``limit`` bytes (413), whether or not Content-Length is sent."""

    def __init__(self, app: Any, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", ()):
            if name == b"content-length" and value.isdigit() and int(value) > self.limit:
                await _too_large(self.limit, send)
                return
        seen = 0

        async def limited() -> Any:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    raise _TooLarge
            return message

        try:
            await self.app(scope, limited, send)
        except _TooLarge:
            await _too_large(self.limit, send)


class _TooLarge(Exception):
    pass


async def _too_large(limit: int, send: Any) -> None:
    body = orjson.dumps({"detail": f"request body over {limit} bytes"})
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [(b"content-type", b"application/json")],
        }
    )
    await send({"type": "http.response.body", "body": body})


def _user(request: Request) -> str:
    name = request.headers.get("x-clinbridge-user", "").strip()
    return name[:100] if name else "anonymous"


class ErrorBody(BaseModel):
    detail: Any
    code: str | None = None


_ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorBody, "description": "The body is not valid JSON"},
    401: {"model": ErrorBody, "description": "Missing or wrong API token"},
    404: {"model": ErrorBody, "description": "No such source, calculator or example"},
    413: {"model": ErrorBody, "description": "Request body too large"},
    422: {"model": ErrorBody, "description": "Invalid input, or the pair was not accepted"},
    503: {"model": ErrorBody, "description": "All connections busy"},
    504: {"model": ErrorBody, "description": "The request or a query ran out of time"},
}

_bearer = HTTPBearer(auto_error=False, description="The API token given to `clinbridge serve`.")


def _require_token(
    request: Request,
    creds: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> None:
    token = request.app.state.cb.config.token
    if token is None:
        return
    given = creds.credentials if creds else ""
    if not hmac.compare_digest(given.encode(), token.encode()):
        raise HTTPException(401, "missing or wrong API token", {"WWW-Authenticate": "Bearer"})


# -- the app ----------------------------------------------------------------------------------
def create_app(config: ServerConfig) -> FastAPI:
    """Build the application (opens every source read-only; call ``app.state.cb.close()``)."""
    state = _State(config)

    @contextlib.asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        # Requests waiting for a pooled connection hold a worker thread; give light requests
        # (catalog, audit, calculators) threads of their own instead of queueing behind them.
        limiter = anyio.to_thread.current_default_thread_limiter()
        limiter.total_tokens = max(limiter.total_tokens, config.threads)
        yield

    app = FastAPI(
        lifespan=lifespan,
        # FastAPI's /docs and /redoc pages load their scripts from a CDN: off (nothing leaves
        # the premises); the OpenAPI document itself is at /openapi.json.
        docs_url=None,
        redoc_url=None,
        title="clinbridge",
        version="1",
        description="Exact, auditable answers from clinical data: ask, inspect, approve, plot, "
        "calculate. Every request is written to an append-only audit log.",
    )
    app.state.cb = state
    # The security scheme appears in the OpenAPI document only when a token is required.
    guard = [Depends(_require_token)] if config.token is not None else []
    api = APIRouter(prefix="/api", dependencies=guard, responses=_ERROR_RESPONSES)

    @app.middleware("http")
    async def timing_audit_timeout(request: Request, call_next: Any) -> Response:
        rid = uuid.uuid4().hex[:16]
        request.state.rid = rid
        request.state.audit = {}
        start = time.perf_counter()
        try:
            response: Response = await asyncio.wait_for(
                call_next(request), timeout=config.request_timeout_s
            )
        except TimeoutError:
            response = JSONResponse(
                {"detail": f"request took over {config.request_timeout_s:g} s"}, status_code=504
            )
        ms = (time.perf_counter() - start) * 1000
        route = request.scope.get("route")
        template = getattr(route, "path", None) or "(unmatched)"
        path = request.url.path
        if not path.startswith("/static"):
            info: dict[str, Any] = request.state.audit
            state.audit.append(
                request_id=rid,
                user=_user(request),
                method=request.method,
                path=template,
                action=str(info.pop("action", template)),
                status=response.status_code,
                duration_ms=ms,
                **info,
            )
        # No patient data in application logs: the route template, never the path or body.
        logger.info("%s %s %d %.1f ms", request.method, template, response.status_code, ms)
        response.headers["X-Request-Id"] = rid
        return response

    @app.exception_handler(ClinbridgeError)
    async def _clinbridge_error(request: Request, exc: ClinbridgeError) -> JSONResponse:
        status = 504 if isinstance(exc, QueryTimeoutError) else 422
        request.state.audit.setdefault("reason", f"{exc.code}: {exc}"[:500])
        return JSONResponse({"detail": str(exc), "code": exc.code}, status_code=status)

    @app.exception_handler(BusyError)
    async def _busy(request: Request, exc: BusyError) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=503, headers={"Retry-After": "1"})

    @app.exception_handler(ValidationError)
    async def _invalid(request: Request, exc: ValidationError) -> JSONResponse:
        errs = [{"loc": [str(p) for p in e["loc"]], "msg": e["msg"]} for e in exc.errors()[:20]]
        return JSONResponse({"detail": errs}, status_code=422)

    @app.exception_handler(ValueError)
    async def _value(request: Request, exc: ValueError) -> JSONResponse:
        return JSONResponse({"detail": str(exc)[:1000]}, status_code=422)

    # -- page ----------------------------------------------------------------------------------
    @app.get("/", include_in_schema=False)
    def page() -> FileResponse:
        return FileResponse(STATIC / "index.html", media_type="text/html")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    # -- sources -------------------------------------------------------------------------------
    @api.get("/health", summary="Liveness")
    def health() -> dict[str, Any]:
        return {"ok": True, "sources": list(state.pools)}

    @api.get("/sources", summary="The sources this server answers from")
    def sources() -> list[dict[str, Any]]:
        out = []
        for name, pool in state.pools.items():
            cat = pool.catalog
            out.append(
                {
                    "name": name,
                    "source": cat.source,
                    "adapter": cat.adapter,
                    "dialect": cat.dialect,
                    "cdm_version": cat.cdm_version,
                    "has_patients": cat.patients is not None,
                    "streams": [s.name for s in cat.streams],
                    "value_streams": [s.name for s in _data.value_streams(cat)],
                    "data_start": cat.data_start,
                    "data_end": cat.data_end,
                }
            )
        return out

    @api.get("/sources/{source}/catalog", summary="A source's catalog (common metadata)")
    def catalog(source: str) -> dict[str, Any]:
        _, pool = state.pool(source)
        data: dict[str, Any] = pool.catalog.model_dump(mode="json")
        return data

    @api.get("/sources/{source}/patients", summary="Patient ids (prefix search)")
    def patients(
        request: Request,
        source: str,
        q: Annotated[str, Query(max_length=100)] = "",
        limit: Annotated[int, Query(ge=1, le=500)] = 50,
    ) -> list[dict[str, Any]]:
        name, pool = state.pool(source)
        request.state.audit.update(action="patients", source=name)
        with pool.connection(config.request_timeout_s) as conn:
            return _data.patients(conn.db, conn.catalog, state.settings, query=q, limit=limit)

    @api.get(
        "/sources/{source}/patients/{patient_id}/series",
        summary="A patient's numeric series (labs, vitals) with counts",
    )
    def patient_series(request: Request, source: str, patient_id: str) -> list[dict[str, Any]]:
        name, pool = state.pool(source)
        request.state.audit.update(action="series", source=name, patient_id=patient_id)
        with pool.connection(config.request_timeout_s) as conn:
            return _data.series(conn.db, conn.catalog, state.settings, patient_id)

    # -- ask -----------------------------------------------------------------------------------
    def _payload(name: str, conn: Any, answer: Any, question: str | None) -> dict[str, Any]:
        d = answer.to_dict()
        plan = d.get("plan")
        labeller = None
        try:
            from clinbridge.engine.examples import concept_labeller

            labeller = concept_labeller(conn.catalog, conn.db)
        except Exception:  # labels are a nicety; the plan's own labels remain
            labeller = None
        examples: list[dict[str, Any]] = []
        if question and len(state.bank):
            with state.bank_lock:
                hits = state.bank.search(question, k=config.examples_k, source=name)
            examples = [
                {
                    "id": h.example.id,
                    "question": h.example.question,
                    "score": round(float(h.score), 3),
                    "origin": h.example.origin,
                    "sql": h.example.sql,
                    "has_plan": h.example.plan is not None,
                }
                for h in hits
            ]
        details = d.get("details") or {}
        for key in ("examples", "retrieved_examples"):
            for ex in details.get(key) or ():
                if isinstance(ex, dict):
                    examples.append({"origin": "used by the reader", **ex})
        chart = None
        if d.get("decision") == "accept":
            chart = _patient_chart(conn, d)
        if d.get("decision") == "accept" and chart is None:
            chart = _present.answer_plot(
                d.get("columns") or [], d.get("rows") or [], title=question or "answer"
            )
        return {
            "source": name,
            "answer": d,
            "summary": answer.summary(),
            "plan_sentence": _present.plan_sentence(plan, labeller),
            "predicates": _present.plan_predicates(plan),
            "alternatives": _present.alternatives(answer),
            "examples": examples,
            "citations": _present.citations(details),
            "plot_svg": chart,
        }

    def _patient_chart(conn: Any, d: dict[str, Any]) -> str | None:
        """A patient-level value question: the whole series over time, encounters shaded."""
        plan = d.get("plan") or {}
        measure = plan.get("measure") or {}
        patient = plan.get("patient_id")
        if not patient or measure.get("of") != "value" or not measure.get("stream"):
            return None
        codes = [
            str(c["value"])
            for cs in d.get("concept_sets") or ()
            for c in cs.get("concepts") or ()
            if isinstance(c, dict) and c.get("value") is not None
        ]
        if not codes:
            return None
        try:
            label, unit, points = _data.trajectory(
                conn.db, conn.catalog, state.settings, str(patient), str(measure["stream"]), codes
            )
            bands = _data.encounters(conn.db, conn.catalog, state.settings, str(patient))
        except ClinbridgeError:
            return None
        if len(points) < 2:
            return None
        lo, hi = points[0][0], points[-1][0]
        return _svg.line_chart(
            points,
            title=f"{label} — patient {patient}",
            y_label=f"{label} ({unit})" if unit else label,
            bands=[b for b in bands if b[1] >= lo and b[0] <= hi],
        )

    def _record(request: Request, action: str, name: str, question: str | None, d: Any) -> None:
        a = d.to_dict() if hasattr(d, "to_dict") else d
        request.state.audit.update(
            action=action,
            source=name,
            question=question,
            plan=a.get("plan"),
            sql=a.get("sql"),
            decision=a.get("decision"),
            reason=a.get("reason"),
            timings=a.get("timings"),
        )

    @api.post("/ask", summary="Answer a question in plain language, or abstain with the reason")
    def ask(request: Request, body: AskRequest) -> dict[str, Any]:
        name, pool = state.pool(body.source)
        request.state.audit.update(patient_id=body.patient_id)
        with pool.connection(config.request_timeout_s) as conn:
            answer = conn.ask(body.question, patient_id=body.patient_id, now=body.now)
            _record(request, "ask", name, body.question, answer)
            return _payload(name, conn, answer, body.question)

    @api.post("/ask/plan", summary="Execute a QueryPlan (an alternative reading or an edit)")
    def ask_plan(request: Request, body: PlanRequest) -> dict[str, Any]:
        from clinbridge.engine.plan import QueryPlan

        name, pool = state.pool(body.source)
        plan = QueryPlan.model_validate(body.plan)
        if body.question:
            plan = plan.model_copy(update={"question": body.question})
        with pool.connection(config.request_timeout_s) as conn:
            answer = conn.ask_plan(plan)
            _record(request, "ask_plan", name, plan.question, answer)
            return _payload(name, conn, answer, plan.question)

    # -- feedback ------------------------------------------------------------------------------
    def _check(conn: Any, body: FeedbackRequest) -> tuple[Any, Any, Any]:
        """Re-run the pair through the guard and validator: (validated, plan, answer)."""
        from clinbridge.engine.plan import QueryPlan
        from clinbridge.engine.validate import SqlProposal, answer_with_validation

        if body.plan is None and not body.sql:
            raise HTTPException(422, "give a plan or SQL")
        plan = QueryPlan.model_validate(body.plan) if body.plan is not None else None
        proposal: Any = plan if plan is not None else SqlProposal(sql=body.sql or "")
        out = answer_with_validation(
            body.question,
            [proposal],
            catalog=conn.catalog,
            db=conn.db,
            settings=state.settings,
            max_repairs=0,
            understanding="feedback",
        )
        return out, plan, out.to_answer()

    def _feedback(request: Request, body: FeedbackRequest, kind: str) -> JSONResponse:
        name, pool = state.pool(body.source)
        with pool.connection(config.request_timeout_s) as conn:
            out, plan, answer = _check(conn, body)
            _record(request, f"feedback_{kind}", name, body.question, answer)
            payload = _payload(name, conn, answer, body.question)
        if out.decision != "accept":
            payload["stored"] = None
            payload["detail"] = f"not stored: it abstains ({answer.reason})"
            return JSONResponse(payload, status_code=422)
        sql = body.sql if plan is None else None
        with state.bank_lock:
            if kind == "edit":
                try:
                    ex = state.bank.edit(
                        body.question, plan, sql, source=name, replaces=body.replaces
                    )
                except KeyError as exc:
                    raise HTTPException(404, str(exc).strip("'\"")) from None
            else:
                ex = state.bank.approve(body.question, plan, sql, source=name)
            total = len(state.bank)
        payload["stored"] = ex.model_dump(mode="json", exclude_none=True)
        payload["bank_size"] = total
        return JSONResponse(payload)

    @api.post(
        "/feedback/approve",
        summary="Approve a question → plan/SQL pair; re-checked, then added to the example bank",
    )
    def approve(request: Request, body: FeedbackRequest) -> JSONResponse:
        return _feedback(request, body, "approve")

    @api.post(
        "/feedback/edit",
        summary="Correct the plan or SQL; re-run through guard and validator, stored if accepted",
    )
    def edit(request: Request, body: FeedbackRequest) -> JSONResponse:
        return _feedback(request, body, "edit")

    @api.get("/examples", summary="The example bank (newest last)")
    def examples(limit: Annotated[int, Query(ge=1, le=1000)] = 100) -> list[dict[str, Any]]:
        with state.bank_lock:
            items = list(state.bank)[-limit:]
        return [e.model_dump(mode="json", exclude_none=True) for e in items]

    # -- calculators ---------------------------------------------------------------------------
    def _calc(key: str) -> Any:
        from clinbridge import calculators
        from clinbridge.errors import CalculatorError

        try:
            return calculators.get(int(key) if key.isdigit() else key)
        except CalculatorError as exc:
            raise HTTPException(404, str(exc)) from None

    @api.get("/calc", summary="The calculators (MedCalc-Bench ids)")
    def calc_list() -> list[dict[str, Any]]:
        from clinbridge import calculators

        return [
            {"id": c.id, "slug": c.spec.slug, "name": c.name, "category": c.spec.category}
            for c in calculators.list_calculators()
        ]

    @api.get("/calc/{key}", summary="A calculator's spec: inputs, units, ranges, JSON schema")
    def calc_spec(key: str) -> dict[str, Any]:
        c = _calc(key)
        s = c.spec
        return {
            "id": c.id,
            "slug": s.slug,
            "name": c.name,
            "category": s.category,
            "description": s.description,
            "citation": s.citation,
            "inputs": [
                {
                    "name": i.name,
                    "label": i.label,
                    "type": i.type,
                    "unit": i.unit,
                    "units": [u for u in (i.unit, *i.units) if u],
                    "values": [v.value for v in i.values],
                    "range": list(i.range) if i.range else None,
                    "missing": i.missing,
                    "description": i.description,
                    "from_records": bool(i.records),
                }
                for i in s.inputs
            ],
            "schema": c.json_schema(),
        }

    @api.post("/calc/{key}/compute", summary="Compute a score from given inputs, with its steps")
    def calc_compute(request: Request, key: str, body: CalcRequest) -> dict[str, Any]:
        c = _calc(key)
        request.state.audit.update(action="calc_compute", question=c.name)
        r = c.compute(body.params, missing=body.missing, sources=body.sources)
        request.state.audit.update(decision="accept")
        return {
            "calculator": c.name,
            "value": r.value,
            "answer": r.answer,
            "unit": r.unit,
            "explanation": r.explanation(),
            "inputs": [i.model_dump(mode="json") for i in r.inputs],
            "notes": list(r.notes),
        }

    @api.post(
        "/calc/{key}/from_patient",
        summary="Gather a calculator's inputs from a patient's record (each with its source)",
    )
    def calc_from_patient(request: Request, key: str, body: FromPatientRequest) -> dict[str, Any]:
        from clinbridge.calculators.records import compute_from_records

        c = _calc(key)
        name, pool = state.pool(body.source)
        request.state.audit.update(
            action="calc_from_patient", source=name, question=c.name, patient_id=body.patient_id
        )
        with pool.connection(config.request_timeout_s) as conn:
            out = compute_from_records(
                c, conn.db, body.patient_id, at=body.at, catalog=conn.catalog
            )
        request.state.audit.update(decision=out.decision, reason=out.reason)
        prefill = {
            e.input: {"value": e.value, "unit": e.unit, "source": e.source}
            for e in out.evidence
            if e.found
        }
        missing = {e.input: e.source for e in out.evidence if not e.found}
        return {
            "outcome": out.to_json_dict(),
            "prefill": prefill,
            "missing": missing,
        }

    # -- plots ---------------------------------------------------------------------------------
    def _svg_response(text: str) -> Response:
        return Response(text, media_type="image/svg+xml")

    @api.get(
        "/plot/trajectory",
        summary="SVG: a patient's lab or vital values over time, encounters shaded",
        response_class=Response,
        responses={200: {"content": {"image/svg+xml": {}}}},
    )
    def plot_trajectory(
        request: Request,
        source: Annotated[str, Query(max_length=200)],
        patient_id: Annotated[str, Query(min_length=1, max_length=200)],
        stream: Annotated[str, Query(max_length=100)],
        code: Annotated[str, Query(min_length=1, max_length=100)],
    ) -> Response:
        name, pool = state.pool(source)
        request.state.audit.update(action="plot_trajectory", source=name, patient_id=patient_id)
        with pool.connection(config.request_timeout_s) as conn:
            label, unit, points = _data.trajectory(
                conn.db, conn.catalog, state.settings, patient_id, stream, code
            )
            bands = _data.encounters(conn.db, conn.catalog, state.settings, patient_id)
        if points:
            lo, hi = min(p[0] for p in points), max(p[0] for p in points)
            bands = [b for b in bands if b[1] >= lo and b[0] <= hi]
        return _svg_response(
            _svg.line_chart(
                points,
                title=f"{label} — patient {patient_id}",
                y_label=f"{label} ({unit})" if unit else label,
                bands=bands,
            )
        )

    @api.get(
        "/plot/counts",
        summary="SVG: counts of a stream's events (of one code) over calendar time",
        response_class=Response,
        responses={200: {"content": {"image/svg+xml": {}}}},
    )
    def plot_counts(
        request: Request,
        source: Annotated[str, Query(max_length=200)],
        stream: Annotated[str, Query(max_length=100)],
        code: Annotated[str | None, Query(max_length=100)] = None,
        interval: Literal["year", "month"] = "year",
    ) -> Response:
        name, pool = state.pool(source)
        request.state.audit.update(action="plot_counts", source=name)
        with pool.connection(config.request_timeout_s) as conn:
            label, counts = _data.event_counts(
                conn.db, conn.catalog, state.settings, stream, code or None, interval=interval
            )
        return _svg_response(
            _svg.bar_chart(
                [c[0] for c in counts],
                [float(c[1]) for c in counts],
                title=f"{label}: events per {interval}",
                y_label="events",
            )
        )

    @api.get(
        "/plot/groups",
        summary="SVG: box plots of each patient's mean value of one series, by sex or birth decade",
        response_class=Response,
        responses={200: {"content": {"image/svg+xml": {}}}},
    )
    def plot_groups(
        request: Request,
        source: Annotated[str, Query(max_length=200)],
        stream: Annotated[str, Query(max_length=100)],
        code: Annotated[str, Query(min_length=1, max_length=100)],
        by: Literal["sex", "birth_decade"] = "sex",
        kind: Literal["box", "bar"] = "box",
    ) -> Response:
        name, pool = state.pool(source)
        request.state.audit.update(action="plot_groups", source=name)
        with pool.connection(config.request_timeout_s) as conn:
            label, unit, groups = _data.group_values(
                conn.db, conn.catalog, state.settings, stream, code, by=by
            )
        y_label = f"{label} ({unit})" if unit else label
        title = f"{label} by {by.replace('_', ' ')} (each patient's mean)"
        if kind == "bar":
            names = list(groups)
            means = [sum(v) / len(v) for v in groups.values()]
            return _svg_response(_svg.bar_chart(names, means, title=title, y_label=y_label))
        return _svg_response(_svg.box_chart(groups, title=title, y_label=y_label))

    # -- audit ---------------------------------------------------------------------------------
    @api.get("/audit", summary="The audit log, newest first")
    def audit(
        limit: Annotated[int, Query(ge=1, le=1000)] = 100,
        offset: Annotated[int, Query(ge=0, le=10_000_000)] = 0,
        action: Annotated[str | None, Query(max_length=50)] = None,
    ) -> dict[str, Any]:
        return {
            "total": state.audit.count(),
            "entries": state.audit.entries(limit=limit, offset=offset, action=action),
        }

    app.include_router(api)
    return _wrap(app, config.max_body_bytes)


def _wrap(app: FastAPI, limit: int) -> FastAPI:
    """Put the body limit in front of everything (outermost ASGI middleware)."""
    app.add_middleware(_BodyLimit, limit=limit)
    return app
