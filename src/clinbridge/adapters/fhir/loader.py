"""Load FHIR R4 bundles and bulk NDJSON into flattened tables, losslessly and idempotently.

Every record read ends up either loaded (its rows in the flattened tables, and the resource
whole in ``fhir_resource``) or quarantined (``fhir_quarantine``, with the file, record, field
and reason). The :class:`LoadReport` reconciles both per resource type: read = loaded +
quarantined. Re-loading the same files replaces resources by (type, id): no duplicates.
"""

from __future__ import annotations

import datetime as _dt
import functools
import logging
import re
import time
import uuid
from collections import defaultdict, deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import orjson
from pydantic import BaseModel, ConfigDict

from clinbridge.adapters.fhir.codes import (
    RESOURCE_TYPES,
    SYSTEM_VOCABULARY,
    link_concepts,
    vocabulary_id,
)
from clinbridge.adapters.fhir.flatten import FLATTENERS, Context, FieldError, flatten
from clinbridge.adapters.fhir.reader import (
    DEFAULT_STREAM_THRESHOLD,
    Record,
    discover,
    file_kind,
    line_chunks,
    line_records,
    read_file,
)
from clinbridge.adapters.fhir.schema import (
    CODE_TABLE,
    LOAD_TABLE,
    QUARANTINE_TABLE,
    RESOURCE_TABLE,
    TABLES,
)
from clinbridge.adapters.fhir.writer import Writer
from clinbridge.db import Database
from clinbridge.errors import ClinbridgeError, ExecutionError, LoadError

__all__ = [
    "RESOURCE_TYPES",
    "SYSTEM_VOCABULARY",
    "FhirLoader",
    "LoadReport",
    "TypeCount",
    "link_concepts",
    "load_fhir",
    "vocabulary_id",
]

logger = logging.getLogger(__name__)

ProgressFn = Callable[[int, int, int], None]
"""progress(bytes_done, bytes_total, resources_read)."""

_ID_RE = re.compile(r"[A-Za-z0-9\-.]{1,64}$")
MAX_REPORTED_ERRORS = 200


class TypeCount(BaseModel):
    """How many resources of one type were read, loaded, merged and quarantined."""

    model_config = ConfigDict(frozen=True)
    read: int = 0
    loaded: int = 0
    quarantined: int = 0
    merged: int = 0
    """Records identical to one already loaded under the same type and id (Synthea writes the same
    Organization and Practitioner into many patients' bundles): the same resource, kept once."""


class LoadReport(BaseModel):
    """What one load did, reconciled per resource type."""

    model_config = ConfigDict(frozen=True)

    load_id: str
    files: tuple[str, ...]
    skipped_files: tuple[dict[str, str], ...] = ()
    resource_types: dict[str, TypeCount]
    read: int
    loaded: int
    quarantined: int
    reconciled: bool
    merged: int = 0
    errors: tuple[dict[str, Any], ...] = ()
    error_count: int = 0
    validated: bool = False
    elapsed_s: float = 0.0
    resources_per_s: float = 0.0
    codes: int = 0
    concepts_linked: int = 0

    def to_json(self) -> str:
        """The report as JSON."""
        return orjson.dumps(self.model_dump(mode="json"), option=orjson.OPT_INDENT_2).decode()

    def summary_lines(self) -> list[str]:
        """The report as short lines for the terminal."""
        width = max([len(t) for t in self.resource_types] + [13])
        head = f"{'resource type':<{width}}  {'read':>8}  {'loaded':>8}  {'merged':>8}"
        lines = [f"{head}  {'quarantined':>11}"]
        for rtype, c in sorted(self.resource_types.items()):
            lines.append(
                f"{rtype:<{width}}  {c.read:>8}  {c.loaded:>8}  {c.merged:>8}  {c.quarantined:>11}"
            )
        lines.append(
            f"{'TOTAL':<{width}}  {self.read:>8}  {self.loaded:>8}  {self.merged:>8}"
            f"  {self.quarantined:>11}"
        )
        ok = (
            "reconciled: read = loaded + merged + quarantined"
            if self.reconciled
            else "NOT RECONCILED"
        )
        lines.append(f"{ok}; {self.resources_per_s:,.0f} resources/s in {self.elapsed_s:.2f} s")
        for s in self.skipped_files:
            lines.append(f"skipped {s['file']}: {s['reason']}")
        return lines


@functools.cache
def _resource_class(name: str) -> Any:
    """The R4B model class of a resource type (None when there is none; True without fhir.resources)."""
    try:
        from fhir.resources.R4B import get_fhir_model_class
        from fhir.resources.R4B.resource import Resource
    except ImportError:  # pragma: no cover - fhir.resources is a dependency
        return True
    try:
        cls = get_fhir_model_class(name)
    except (ValueError, KeyError, ImportError, AttributeError):
        return None
    if cls.__name__ != name or not issubclass(cls, Resource):
        return None
    return cls


_PATIENT_FIELD = {"Immunization": "patient", "AllergyIntolerance": "patient"}
_ENCOUNTER_FIELD = {"MedicationAdministration": "context", "DocumentReference": "context.encounter"}
_REF_INDEX: dict[str, tuple[int | None, int | None]] = {
    t.name: (
        t.column_names.index("patient_id") if "patient_id" in t.column_names else None,
        t.column_names.index("encounter_id") if "encounter_id" in t.column_names else None,
    )
    for t in TABLES.values()
}
_MAIN_ROW = {"fhir_observation": '"component" = 0', "fhir_note": '"seq" = 0'}


Outcome = tuple[
    bool,
    str,
    str,
    "str | None",
    bool,
    "str | None",
    "str | None",
    list[tuple[str, tuple[Any, ...]]],
    "str | None",
]
"""(ok, type counted as read, resource type, id, id usable, field, reason, rows, JSON text)."""


def examine(rec: Record, ctx: Context, validate: bool) -> Outcome:
    """Check and flatten one record; no loader state (runs in worker processes too).

    Duplicates are decided by the caller, which knows what was read before.
    """
    if rec.error is not None or rec.resource is None:
        t = "(unreadable)"
        return False, t, t, None, False, rec.field, rec.error or "no resource", [], rec.raw
    res = rec.resource

    def text() -> str:
        return rec.raw if rec.raw is not None else orjson.dumps(res).decode()

    rtype = res.get("resourceType")
    if not isinstance(rtype, str):
        t = "(no resourceType)"
        return (
            False,
            t,
            t,
            None,
            False,
            "resourceType",
            "missing or non-string resourceType",
            [],
            text(),
        )
    if rtype not in RESOURCE_TYPES:
        reason = f"unknown FHIR R4 resource type {rtype!r}"
        return False, rtype, rtype, None, False, "resourceType", reason, [], text()
    rid = res.get("id")
    if rid is None and rec.full_url and rec.full_url.startswith("urn:uuid:"):
        rid = res["id"] = rec.full_url[9:]
    if not isinstance(rid, str) or not _ID_RE.match(rid):
        bad = rid if isinstance(rid, str) else None
        return (
            False,
            rtype,
            rtype,
            bad,
            False,
            "id",
            f"missing or invalid resource id {rid!r}",
            [],
            text(),
        )
    if rec.full_url:
        ctx.refmap[rec.full_url] = f"{rtype}/{rid}"
    if validate:
        cls = _resource_class(rtype)
        if cls is None:
            reason = f"{rtype} has no R4B model to validate against"
            return False, rtype, rtype, rid, True, "resourceType", reason, [], text()
        if cls is not True:
            try:
                cls.model_validate(res)
            except Exception as exc:  # pydantic.ValidationError, or fhir.resources' own errors
                fld, msg = _validation_detail(exc)
                reason = f"invalid {rtype} (R4B model): {msg}"
                return False, rtype, rtype, rid, True, fld, reason, [], text()
    try:
        rows = flatten(res, ctx)
    except FieldError as exc:
        return False, rtype, rtype, rid, True, exc.field, exc.message, [], text()
    return True, rtype, rtype, rid, True, None, None, rows, text()


class FhirLoader:
    """Streams FHIR files into a database opened with ``read_only=False``."""

    def __init__(
        self,
        db: Database,
        *,
        validate: bool = False,
        fail_fast: bool = False,
        batch_size: int = 50_000,
        progress: ProgressFn | None = None,
        stream_threshold: int = DEFAULT_STREAM_THRESHOLD,
        workers: int = 1,
    ) -> None:
        self.db = db
        self.workers = max(1, workers)
        self.writer = Writer(db)
        self.validate = validate
        self.fail_fast = fail_fast
        self.batch_size = batch_size
        self.progress = progress
        self.stream_threshold = stream_threshold

    # -- public ------------------------------------------------------------------------------
    def load(self, paths: Sequence[str | Path]) -> LoadReport:
        """Load bundles and NDJSON files (or folders of them); the report of what happened."""
        start = time.perf_counter()
        started_at = _dt.datetime.now(_dt.UTC).isoformat()
        self.load_id = f"{time.strftime('%Y%m%dT%H%M%S')}-{uuid.uuid4().hex[:8]}"
        files = discover(list(paths))
        for f in files:
            if not f.exists():
                raise LoadError("no such file or directory", file=str(f))
        self.writer.ensure_schema()
        existing = dict(
            self.writer.query(
                'SELECT "resource_type", COUNT(*) FROM "fhir_resource" GROUP BY "resource_type"'
            )
        )
        self._existing_types = set(existing)
        self._reset_batch()
        self._seen: dict[int, int] = {}
        """hash((type, id)) -> hash of the record's JSON text, for telling identical duplicates."""
        self._refs: dict[str, set[str]] = {"Patient": set(), "Encounter": set()}
        self._loaded_ids: dict[str, set[str]] = {"Patient": set(), "Encounter": set()}
        self._counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
        self._errors: list[dict[str, Any]] = []
        self._error_count = 0
        self.ctx = Context()
        skipped: list[dict[str, str]] = []
        with self.writer.transaction():
            self.writer.delete_where_in(QUARANTINE_TABLE.name, "file", [str(f) for f in files])
        total = sum(f.stat().st_size for f in files) or 1
        done = 0
        position = [0]
        n_read = 0
        # Batches are written by one background thread while the next batch is parsed.
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="clinbridge-fhir-writer")
        self._inflight: Future[None] | None = None
        ok = False
        try:
            if self.workers > 1:
                files = self._skip_logs(files, skipped)
                for file, record, outcome, size in self._parallel_outcomes(files):
                    self._accept(file, record, outcome)
                    n_read += 1
                    if self._pending >= self.batch_size:
                        self._flush()
                    done += size
                    if self.progress is not None and (size or not n_read & 2047):
                        self.progress(done, total, n_read)
            for f in files if self.workers <= 1 else ():
                if file_kind(f) == "log":
                    skipped.append(
                        {"file": str(f), "reason": "bulk-data export log (not FHIR resources)"}
                    )
                    done += f.stat().st_size
                    continue
                self.ctx.refmap = {}
                position[0] = 0
                for rec in read_file(f, stream_threshold=self.stream_threshold, position=position):
                    self._process(rec)
                    n_read += 1
                    if self._pending >= self.batch_size:
                        self._flush()
                    if self.progress is not None and not n_read & 2047:
                        self.progress(done + position[0], total, n_read)
                done += f.stat().st_size
                if self.progress is not None:
                    self.progress(done, total, n_read)
            self._flush()
            ok = True
        finally:
            self._drain(raise_errors=ok)
            self._pool.shutdown(wait=True)
        self._resolve_medications()
        self._quarantine_dangling()
        n_codes = self._write_codes()
        linked = link_concepts(self.writer)
        elapsed = time.perf_counter() - start
        counts = {
            t: TypeCount(read=c[0], loaded=c[1], quarantined=c[2], merged=c[3])
            for t, c in self._counts.items()
        }
        read = sum(c.read for c in counts.values())
        report = LoadReport(
            load_id=self.load_id,
            files=tuple(str(f) for f in files),
            skipped_files=tuple(skipped),
            resource_types=counts,
            read=read,
            loaded=sum(c.loaded for c in counts.values()),
            quarantined=sum(c.quarantined for c in counts.values()),
            merged=sum(c.merged for c in counts.values()),
            reconciled=all(c.read == c.loaded + c.merged + c.quarantined for c in counts.values()),
            errors=tuple(self._errors),
            error_count=self._error_count,
            validated=self.validate,
            elapsed_s=round(elapsed, 4),
            resources_per_s=round(read / elapsed, 1) if elapsed > 0 else 0.0,
            codes=n_codes,
            concepts_linked=linked,
        )
        with self.writer.transaction():
            self.writer.insert(
                LOAD_TABLE,
                [
                    (
                        self.load_id,
                        started_at,
                        _dt.datetime.now(_dt.UTC).isoformat(),
                        report.model_dump_json(),
                    )
                ],
            )
        return report

    # -- per record --------------------------------------------------------------------------
    @staticmethod
    def _skip_logs(files: list[Path], skipped: list[dict[str, str]]) -> list[Path]:
        keep = []
        for f in files:
            if file_kind(f) == "log":
                skipped.append(
                    {"file": str(f), "reason": "bulk-data export log (not FHIR resources)"}
                )
            else:
                keep.append(f)
        return keep

    def _parallel_outcomes(self, files: list[Path]) -> Iterator[tuple[str, str, Outcome, int]]:
        """(file, record, outcome, bytes done) in input order, examined by worker processes.

        Bundles go whole to a worker (big ones are streamed here); NDJSON goes as chunks of raw
        lines. At most 2 x workers chunks are in flight, so memory stays bounded.
        """
        import multiprocessing

        ctx = multiprocessing.get_context("spawn")
        pending: deque[tuple[Future[Any], int]] = deque()
        limit = 2 * self.workers

        def ready(value: Any) -> Future[Any]:
            fut: Future[Any] = Future()
            fut.set_result(value)
            return fut

        def take() -> Iterator[tuple[str, str, Outcome, int]]:
            fut, size = pending.popleft()
            results, codes = fut.result()
            for key, display in codes.items():
                if display or key not in self.ctx.codes:
                    self.ctx.codes[key] = display
            for i, (file, record, outcome) in enumerate(results):
                yield file, record, outcome, size if i == len(results) - 1 else 0
            if not results:
                yield from ()

        with ProcessPoolExecutor(max_workers=self.workers, mp_context=ctx) as pool:
            for f in files:
                size = f.stat().st_size
                kind = file_kind(f)
                big = (
                    kind == "bundle"
                    and size * (8 if f.suffix == ".gz" else 1) >= self.stream_threshold
                )
                if big:  # streamed entry by entry here, in order
                    while pending:
                        yield from take()
                    self.ctx.refmap = {}
                    for r in read_file(f, stream_threshold=self.stream_threshold):
                        yield r.file, r.record, examine(r, self.ctx, self.validate), 0
                elif kind == "bundle":
                    pending.append(
                        (
                            pool.submit(_work_file, str(f), self.stream_threshold, self.validate),
                            size,
                        )
                    )
                else:
                    parts = list(_chunk_tasks(f))
                    for i, part in enumerate(parts):
                        weight = size if i == len(parts) - 1 else 0
                        if isinstance(part, Record):
                            out = [
                                (part.file, part.record, examine(part, Context(), self.validate))
                            ]
                            pending.append((ready((out, {})), weight))
                        else:
                            first, lines = part
                            task = pool.submit(_work_lines, str(f), first, lines, self.validate)
                            pending.append((task, weight))
                        while len(pending) > limit:
                            yield from take()
                while len(pending) > limit:
                    yield from take()
            while pending:
                yield from take()

    def _reset_batch(self) -> None:
        self._rows: dict[str, list[tuple[Any, ...]]] = defaultdict(list)
        self._resources: list[tuple[Any, ...]] = []
        self._quarantine: list[tuple[Any, ...]] = []
        self._batch_ids: dict[str, list[str]] = defaultdict(list)
        self._pending = 0

    def _reject(
        self,
        rec: Record,
        rtype: str,
        rid: str | None,
        fld: str | None,
        reason: str,
    ) -> None:
        self._counts[rtype][2] += 1
        self._error_count += 1
        err = {
            "file": rec.file,
            "record": rec.record,
            "resource_type": rtype,
            "id": rid,
            "field": fld,
            "reason": reason,
        }
        if len(self._errors) < MAX_REPORTED_ERRORS:
            self._errors.append(err)
        logger.debug("quarantined %s %s: %s", rec.file, rec.record, reason)
        if self.fail_fast:
            raise LoadError(
                f"{rtype} {rid or ''}: {reason}".replace("  ", " "),
                file=rec.file,
                record=rec.record,
                field=fld,
            )
        self._quarantine.append(
            (self.load_id, rec.file, rec.record, rtype, rid, fld, reason, rec.raw)
        )
        self._pending += 1

    def _process(self, rec: Record) -> None:
        self._accept(rec.file, rec.record, examine(rec, self.ctx, self.validate))

    def _accept(self, file: str, record: str, outcome: Outcome) -> None:
        """Book one examined record: duplicates, counts, rows to the batch or to quarantine."""
        ok, ctype, rtype, rid, id_ok, fld, reason, rows, text = outcome
        counts = self._counts
        counts[ctype][0] += 1
        key = hash((rtype, rid))
        if id_ok and key in self._seen:
            if ok and text is not None and self._seen[key] == hash(text):
                counts[ctype][3] += 1  # the same resource again: merged, not a conflict
                return
            self._reject(
                Record(file, record, raw=text),
                rtype,
                rid,
                "id",
                f"duplicate {rtype} id {rid!r}: an earlier record in this load has the same id"
                " and different content",
            )
            return
        if not ok or rid is None:
            self._reject(Record(file, record, raw=text), rtype, rid, fld, reason or "rejected")
            return
        self._seen[key] = hash(text)
        loaded = self._loaded_ids.get(rtype)
        if loaded is not None:
            loaded.add(rid)
        if rows:
            table, row = rows[0]
            pi, ei = _REF_INDEX[table]
            if pi is not None and row[pi] is not None:
                self._refs["Patient"].add(row[pi])
            if ei is not None and row[ei] is not None:
                self._refs["Encounter"].add(row[ei])
            batch = self._rows
            if len(rows) == 1:
                batch[table].append(row)
            else:
                for table, row in rows:
                    batch[table].append(row)
        self._resources.append((rtype, rid, rtype in FLATTENERS, file, record, self.load_id, text))
        self._batch_ids[rtype].append(rid)
        counts[rtype][1] += 1
        self._pending += len(rows) + 1

    def _flush(self) -> None:
        if not self._pending:
            return
        batch = (self._batch_ids, self._rows, self._resources, self._quarantine)
        self._reset_batch()
        self._drain(raise_errors=True)
        self._inflight = self._pool.submit(self._write, *batch)

    def _drain(self, *, raise_errors: bool) -> None:
        """Wait for the batch being written (re-raising its error unless another is under way)."""
        fut, self._inflight = self._inflight, None
        if fut is None:
            return
        try:
            fut.result()
        except Exception as exc:
            if not raise_errors:
                logger.exception("writing a FHIR batch failed while handling another error")
                return
            if isinstance(exc, ClinbridgeError):
                raise
            raise ExecutionError(
                f"writing a batch of FHIR rows to {self.db.backend} failed: {exc}"
            ) from exc

    def _write(
        self,
        batch_ids: dict[str, list[str]],
        rows: dict[str, list[tuple[Any, ...]]],
        resources: list[tuple[Any, ...]],
        quarantine: list[tuple[Any, ...]],
    ) -> None:
        w = self.writer
        with w.transaction():
            for rtype, ids in batch_ids.items():
                if rtype in self._existing_types:
                    w.delete_resources(rtype, ids)
            for table, table_rows in rows.items():
                w.insert(TABLES[table], table_rows)
            w.insert(RESOURCE_TABLE, resources)
            w.insert(QUARANTINE_TABLE, quarantine)

    # -- end of load -------------------------------------------------------------------------
    def _resolve_medications(self) -> None:
        """medicationReference → the Medication's code (when the Medication was loaded)."""
        w = self.writer
        with w.transaction():
            for table in ("fhir_medication_request", "fhir_medication_administration"):
                sets = ", ".join(
                    f'"{c}" = (SELECT m."{c}" FROM "fhir_medication" m WHERE m."id" = "{table}"."medication_reference")'
                    for c in ("code_system", "code", "display")
                )
                w.execute(
                    f'UPDATE "{table}" SET {sets} WHERE "code" IS NULL AND "medication_reference" IS NOT NULL '
                    f'AND EXISTS (SELECT 1 FROM "fhir_medication" m WHERE m."id" = "{table}"."medication_reference")'
                )

    def _dangling_possible(self) -> bool:
        """Whether some patient/encounter referenced in this load is neither loaded now nor stored."""
        w = self.writer
        for rtype, table in (("Patient", "fhir_patient"), ("Encounter", "fhir_encounter")):
            missing = sorted(self._refs[rtype] - self._loaded_ids[rtype])
            for i in range(0, len(missing), 500):
                part = missing[i : i + 500]
                marks = ", ".join("?" * len(part))
                found = w.query(
                    f'SELECT COUNT(DISTINCT "id") FROM "{table}" WHERE "id" IN ({marks})', part
                )
                if int(found[0][0]) < len(part):
                    return True
        return False

    def _quarantine_dangling(self) -> None:
        """Resources of this load whose patient or encounter is in no load: to quarantine."""
        w = self.writer
        if not self._dangling_possible():
            return
        for table in TABLES.values():
            names = table.column_names
            if table.owner_column != "id" or "patient_id" not in names:
                continue
            rtype = table.owner
            main = f" AND t.{_MAIN_ROW[table.name]}" if table.name in _MAIN_ROW else ""
            checks = [
                ("patient_id", "fhir_patient", _PATIENT_FIELD.get(rtype, "subject"), "Patient")
            ]
            if "encounter_id" in names:
                checks.append(
                    (
                        "encounter_id",
                        "fhir_encounter",
                        _ENCOUNTER_FIELD.get(rtype, "encounter"),
                        "Encounter",
                    )
                )
            for col, target, fld, ttype in checks:
                rows = w.query(
                    f'SELECT r."file", r."record", r."id", r."json", t."{col}" FROM "fhir_resource" r '
                    f'JOIN "{table.name}" t ON t."id" = r."id"{main} '
                    f'WHERE r."resource_type" = ? AND r."load_id" = ? AND t."{col}" IS NOT NULL '
                    f'AND NOT EXISTS (SELECT 1 FROM "{target}" x WHERE x."id" = t."{col}")',
                    (rtype, self.load_id),
                )
                if not rows:
                    continue
                for file, record, rid, text, ref in rows:
                    self._counts[rtype][1] -= 1
                    rec = Record(file, record, raw=text)
                    self._reject(
                        rec,
                        rtype,
                        rid,
                        fld,
                        f"dangling reference: {ttype}/{ref} is not in this load or the database",
                    )
                with w.transaction():
                    w.delete_resources(rtype, [r[2] for r in rows])
                    w.insert(QUARANTINE_TABLE, self._quarantine)
                self._quarantine = []
                self._pending = 0

    def _write_codes(self) -> int:
        w = self.writer
        have = {
            (s, c): d for s, c, d in w.query('SELECT "system", "code", "display" FROM "fhir_code"')
        }
        new = [
            (s, c, d)
            for (s, c), d in self.ctx.codes.items()
            if (s, c) not in have or (d and have[(s, c)] != d)
        ]
        if new:
            vocab = [(s, c, d, vocabulary_id(s), None, None) for s, c, d in new]
            with w.transaction():
                changed = [(s, c) for s, c, _ in new if (s, c) in have]
                for s, c in changed:
                    w.execute('DELETE FROM "fhir_code" WHERE "system" = ? AND "code" = ?', (s, c))
                w.insert(CODE_TABLE, vocab)
        return len(have) + sum(1 for s, c, _ in new if (s, c) not in have)


def _validation_detail(exc: Exception) -> tuple[str | None, str]:
    errors = getattr(exc, "errors", None)
    if callable(errors):
        try:
            first = errors()[0]
            loc = ".".join(str(p) for p in first.get("loc", ()) if p != "__root__")
            return loc or None, f"{loc}: {first.get('msg')}" if loc else str(first.get("msg"))
        except (IndexError, TypeError, KeyError):
            pass
    return None, str(exc).splitlines()[0]


def _chunk_tasks(path: Path) -> Iterator[tuple[int, list[bytes]] | Record]:
    return line_chunks(path)


def _work_file(
    path: str, stream_threshold: int, validate: bool
) -> tuple[list[Any], dict[Any, Any]]:
    """Worker process: examine every record of one (bundle) file."""
    ctx = Context()
    out = [
        (r.file, r.record, examine(r, ctx, validate))
        for r in read_file(Path(path), stream_threshold=stream_threshold)
    ]
    return out, ctx.codes


def _work_lines(
    name: str, first: int, lines: list[bytes], validate: bool
) -> tuple[list[Any], dict[Any, Any]]:
    """Worker process: examine a chunk of NDJSON lines."""
    ctx = Context()
    out = []
    for i, line in enumerate(lines):
        if line.strip():
            for r in line_records(name, first + i, line):
                out.append((r.file, r.record, examine(r, ctx, validate)))
    return out, ctx.codes


def load_fhir(
    paths: Sequence[str | Path],
    url: str,
    *,
    validate: bool = False,
    fail_fast: bool = False,
    progress: ProgressFn | None = None,
    batch_size: int = 50_000,
    stream_threshold: int = DEFAULT_STREAM_THRESHOLD,
    workers: int = 1,
) -> LoadReport:
    """Load FHIR bundles / NDJSON files or directories into the database at ``url``.

    Args:
        paths: files (.json, .json.gz, .ndjson, .ndjson.gz) or directories holding them.
        url: target database URL (duckdb:///, sqlite:///, postgresql://...?schema=...).
        validate: also check every resource against the fhir.resources R4B models.
        fail_fast: raise :class:`LoadError` at the first bad record instead of quarantining it.
        progress: called as progress(bytes_done, bytes_total, resources_read).
        batch_size: rows buffered between writes.
        stream_threshold: bundles bigger than this many bytes are parsed entry by entry.
        workers: processes that parse and flatten in parallel (1: all in this process).

    Returns:
        The reconciliation report (also stored in ``fhir_load``).
    """
    db = Database.open(url, read_only=False)
    try:
        loader = FhirLoader(
            db,
            validate=validate,
            fail_fast=fail_fast,
            progress=progress,
            batch_size=batch_size,
            stream_threshold=stream_threshold,
            workers=workers,
        )
        return loader.load(paths)
    finally:
        db.close()
