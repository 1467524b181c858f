"""FHIR tables (``clinbridge load fhir``) → OMOP CDM 5.4.

person, observation_period, visit_occurrence, condition_occurrence, drug_exposure
(MedicationRequest, MedicationAdministration, Immunization), measurement (numeric Observation
values and components), observation (other Observations, allergies), procedure_occurrence,
death and note. Concept ids come from an OMOP vocabulary (``concept`` and
``concept_relationship`` 'Maps to') when one is reachable, else 0; *_source_value always keeps
the FHIR code (and person_source_value / visit_source_value the FHIR ids), so a person is still
found by FHIR Patient.id. The export is a full refresh of the tables it writes.
Follows the table conventions of OHDSI's ETL-Synthea documentation (read, not copied).
"""

from __future__ import annotations

import datetime as _dt
import logging
import time
from collections.abc import Callable, Iterator
from typing import Any

from pydantic import BaseModel, ConfigDict

from clinbridge.adapters.fhir.codes import SYSTEM_VOCABULARY
from clinbridge.adapters.fhir.schema import Table
from clinbridge.adapters.fhir.writer import Writer
from clinbridge.db import Database, parse_url
from clinbridge.errors import ConfigError

__all__ = ["OMOP_TABLES", "VISIT_CONCEPTS", "ExportResult", "export_omop", "export_to_db"]

logger = logging.getLogger(__name__)

OMOP_TABLES = (
    "person",
    "observation_period",
    "visit_occurrence",
    "condition_occurrence",
    "drug_exposure",
    "measurement",
    "observation",
    "procedure_occurrence",
    "death",
    "note",
)

VISIT_CONCEPTS: dict[str, int] = {
    "AMB": 9202,
    "EMER": 9203,
    "IMP": 9201,
    "ACUTE": 9201,
    "NONAC": 9201,
    "SS": 9201,
    "OBSENC": 9202,
    "PRENC": 9202,
    "VR": 5083,
    "HH": 581476,
    "ICU": 32037,
    "ambulatory": 9202,
    "outpatient": 9202,
    "wellness": 9202,
    "emergency": 9203,
    "urgentcare": 9203,
    "inpatient": 9201,
    "icu": 32037,
    "home": 581476,
    "virtual": 5083,
}
GENDER = {"male": 8507, "female": 8532}
RACE = {"2106-3": 8527, "2054-5": 8516, "2028-9": 8515, "1002-5": 8657, "2076-8": 8557}
ETHNICITY = {"2135-2": 38003563, "2186-5": 38003564}
EHR = 32817  # Type Concept: EHR
EHR_PRESCRIPTION = 32838
EHR_ADMINISTRATION = 32818
EHR_ENCOUNTER = 32827
UTF8, ENGLISH = 32678, 4180186


class ExportResult(BaseModel):
    """What an export wrote: rows per OMOP table, codes seen and mapped, time taken."""

    model_config = ConfigDict(frozen=True)
    source: str
    target: str
    tables: dict[str, int]
    vocabulary: str | None
    codes: int
    codes_mapped: int
    elapsed_s: float

    def summary_lines(self) -> list[str]:
        """The result as short lines for the terminal."""
        lines = [f"OMOP CDM 5.4 export {self.source} → {self.target}"]
        lines += [f"  {t:<22} {n:>9}" for t, n in self.tables.items()]
        if self.vocabulary:
            lines.append(
                f"concepts: {self.codes_mapped} of {self.codes} codes mapped through the vocabulary "
                f"in {self.vocabulary}"
            )
        else:
            lines.append(
                "no OMOP vocabulary found: concept ids are 0; *_source_value keeps every code"
            )
        lines.append(f"done in {self.elapsed_s:.2f} s")
        return lines


def _rows(db: Database, sql: str, chunk: int = 50_000) -> Iterator[tuple[Any, ...]]:
    # A cursor of its own: the export reads and writes through the same connection when the
    # source is the target (DuckDB would drop a pending result on the next statement).
    cur = db.conn.cursor()
    try:
        cur.execute(sql)
        while True:
            got = cur.fetchmany(chunk)
            if not got:
                return
            yield from got
    finally:
        cur.close()


def _date(v: Any) -> str | None:
    return None if v is None else str(v)[:10]


def _ts(v: Any) -> str | None:
    if v is None:
        return None
    s = str(v).replace("T", " ")
    return s[:19] if len(s) >= 19 else (s[:10] + " 00:00:00")


class _Vocab:
    """(system, code) → (source concept id, standard concept id) from an OMOP vocabulary."""

    def __init__(self, db: Database | None, codes: list[tuple[str, str]]) -> None:
        self.map: dict[tuple[str, str], tuple[int, int]] = {}
        self.units: dict[str, int] = {}
        if db is None:
            return
        by_vocab: dict[str, list[str]] = {}
        for system, code in codes:
            v = SYSTEM_VOCABULARY.get(system)
            if v:
                by_vocab.setdefault(v, []).append(code)
        concept: dict[tuple[str, str], tuple[int, str | None]] = {}
        for vocab, cs in by_vocab.items():
            for i in range(0, len(cs), 500):
                part = cs[i : i + 500]
                marks = ", ".join("'" + c.replace("'", "''") + "'" for c in part)
                sql = (
                    f"SELECT concept_id, concept_code, standard_concept FROM concept WHERE vocabulary_id = "
                    f"'{vocab}' AND concept_code IN ({marks})"
                )
                for cid, code, std in _rows(db, sql):
                    concept[(vocab, str(code))] = (int(cid), std)
        maps: dict[int, int] = {}
        ids = [cid for cid, std in concept.values() if std != "S"]
        tables = {t.lower() for t in db.table_names()}
        if ids and "concept_relationship" in tables:
            for i in range(0, len(ids), 500):
                id_list = ", ".join(str(x) for x in ids[i : i + 500])
                sql = (
                    f"SELECT concept_id_1, MIN(concept_id_2) FROM concept_relationship WHERE relationship_id = "
                    f"'Maps to' AND concept_id_1 IN ({id_list}) GROUP BY concept_id_1"
                )
                maps.update({int(a): int(b) for a, b in _rows(db, sql)})
        for system, code in codes:
            v = SYSTEM_VOCABULARY.get(system)
            got = concept.get((v, code)) if v else None
            if got is None:
                continue
            cid, std = got
            self.map[(system, code)] = (cid, cid if std == "S" else maps.get(cid, 0))
        self.units = {
            code: cid
            for (system, code), (cid, _) in self.map.items()
            if system == "http://unitsofmeasure.org"
        }

    def get(self, system: Any, code: Any) -> tuple[int, int]:
        if code is None:
            return 0, 0
        return self.map.get((system or "", str(code)), (0, 0))


def _has_vocab(db: Database) -> bool:
    try:
        if "concept" not in {t.lower() for t in db.table_names()}:
            return False
        return bool(db.execute("SELECT COUNT(*) FROM concept", max_rows=1).rows[0][0])
    except Exception:
        return False


def export_omop(source_url: str, target_url: str, *, vocab_url: str | None = None) -> ExportResult:
    """Export the FHIR tables at ``source_url`` to OMOP CDM 5.4 tables at ``target_url``."""
    same = _same_database(source_url, target_url)
    target = Database.open(target_url, read_only=False)
    source = target if same else Database.open(source_url, read_only=True)
    vocab: Database | None = None
    try:
        if vocab_url:
            vocab = Database.open(vocab_url, read_only=True)
        return export_to_db(
            source, target, vocab=vocab, source_label=source_url, target_label=target_url
        )
    finally:
        if vocab is not None:
            vocab.close()
        if not same:
            source.close()
        target.close()


def _same_database(a: str, b: str) -> bool:
    pa, pb = parse_url(a), parse_url(b)
    if pa.backend != pb.backend:
        return False
    if pa.backend == "postgres":
        return pa.dsn == pb.dsn
    return pa.path is not None and pa.path == pb.path and pa.path != ":memory:"


def export_to_db(
    source: Database,
    target: Database,
    *,
    vocab: Database | None = None,
    source_label: str = "",
    target_label: str = "",
) -> ExportResult:
    """The export between two open databases (they may be the same one)."""
    from clinbridge.adapters.omop.loader import create_cdm_tables

    start = time.perf_counter()
    names = {t.lower() for t in source.table_names()}
    if "fhir_patient" not in names:
        raise ConfigError(
            f"{source_label or source.url} holds no FHIR tables (run 'clinbridge load fhir' first)"
        )
    if vocab is None:
        vocab = next((cand for cand in (target, source) if _has_vocab(cand)), None)
    codes = [(str(s or ""), str(c)) for s, c in _rows(source, "SELECT system, code FROM fhir_code")]
    voc = _Vocab(vocab, codes)
    create_cdm_tables(target, "5.4", schema=target.schema)
    writer = Writer(target)
    records = _Records(source, voc)
    out = {table: _put(writer, table, rows()) for table, rows in records.tables()}
    if vocab is not None and vocab is not target:
        _copy_vocabulary(vocab, target, writer, voc)
    return ExportResult(
        source=source_label or source.url,
        target=target_label or target.url,
        tables=out,
        vocabulary=(vocab.url if vocab is not None else None),
        codes=len(codes),
        codes_mapped=sum(1 for v in voc.map.values() if v[1]),
        elapsed_s=round(time.perf_counter() - start, 3),
    )


_BATCH = 50_000


def _put(writer: Writer, table: str, rows: Iterator[dict[str, Any]]) -> int:
    """Replace ``table``'s rows with ``rows`` (by column name), in batches; the row count."""
    from clinbridge.adapters.omop.ddl import table_spec

    spec = table_spec(table, "5.4")
    assert spec is not None
    cols = spec.column_names
    t = Table(table, "", "", tuple((c, "text") for c in cols))
    with writer.transaction():
        writer.execute(f'DELETE FROM "{table}"')
    n = 0
    batch: list[tuple[Any, ...]] = []
    for r in rows:
        batch.append(tuple(r.get(c) for c in cols))
        if len(batch) >= _BATCH:
            with writer.transaction():
                writer.insert(t, batch)
            n += len(batch)
            batch = []
    with writer.transaction():
        writer.insert(t, batch)
    return n + len(batch)


def _numbered(key: str, rows: Iterator[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """``rows`` with ids 1, 2, ... in ``key``."""
    for n, row in enumerate(rows, start=1):
        yield {key: n, **row}


_OBS_SQL = (
    "SELECT patient_id, encounter_id, code_system, code, effective_time, value_num, value_comparator, "
    "unit_code, unit, value_code_system, value_code, value_text, value_type FROM fhir_observation "
    "WHERE row_kind <> 'panel' ORDER BY id, component"
)


class _Records:
    """The OMOP records of one FHIR database, table by table.

    Patients are numbered up front; visits as they are written, so the tables after
    ``visit_occurrence`` find their visit ids (:meth:`tables` gives them in that order).
    """

    def __init__(self, source: Database, voc: _Vocab) -> None:
        self.source = source
        self.voc = voc
        self.people = list(
            _rows(
                source,
                "SELECT id, gender, birth_date, race_code, ethnicity_code, death_date, "
                "deceased_time, race, ethnicity FROM fhir_patient ORDER BY id",
            )
        )
        self.person: dict[str, int] = {row[0]: i for i, row in enumerate(self.people, start=1)}
        self.visit: dict[str, int] = {}

    def tables(self) -> list[tuple[str, Callable[[], Iterator[dict[str, Any]]]]]:
        """(OMOP table, its rows) in the order they must be written."""
        return [
            ("person", self.persons),
            ("death", self.deaths),
            ("observation_period", self.observation_periods),
            ("visit_occurrence", self.visits),
            (
                "condition_occurrence",
                lambda: _numbered("condition_occurrence_id", self.conditions()),
            ),
            ("drug_exposure", lambda: _numbered("drug_exposure_id", self.drugs())),
            ("measurement", lambda: _numbered("measurement_id", self.measurements())),
            ("observation", lambda: _numbered("observation_id", self.observations())),
            (
                "procedure_occurrence",
                lambda: _numbered("procedure_occurrence_id", self.procedures()),
            ),
            ("note", lambda: _numbered("note_id", self.notes())),
        ]

    def ids(self, pid: Any, eid: Any) -> tuple[int | None, int | None]:
        """The OMOP person and visit ids of a FHIR patient and encounter."""
        return self.person.get(pid), self.visit.get(eid) if eid is not None else None

    def _event(
        self,
        domain: str,
        ids: tuple[int, int | None],
        coded: tuple[Any, Any],
        when: Any,
        *,
        date: str = "date",
        type_id: int = EHR,
    ) -> dict[str, Any]:
        """The columns an OMOP event table names after its domain: person, concept, date and
        time (``{domain}_{date}``, ``{domain}_{date}time``), type, visit and source code."""
        src, std = self.voc.get(*coded)
        return {
            "person_id": ids[0],
            f"{domain}_concept_id": std,
            f"{domain}_{date}": _date(when),
            f"{domain}_{date}time": _ts(when),
            f"{domain}_type_concept_id": type_id,
            "visit_occurrence_id": ids[1],
            f"{domain}_source_value": coded[1],
            f"{domain}_source_concept_id": src,
        }

    def persons(self) -> Iterator[dict[str, Any]]:
        for pid, gender, birth, race, eth, _, _, race_label, eth_label in self.people:
            b = _date(birth)
            yield {
                "person_id": self.person[pid],
                "gender_concept_id": GENDER.get(gender or "", 0),
                "year_of_birth": int(b[:4]) if b else 0,
                "month_of_birth": int(b[5:7]) if b else None,
                "day_of_birth": int(b[8:10]) if b else None,
                "birth_datetime": f"{b} 00:00:00" if b else None,
                "race_concept_id": RACE.get(race or "", 0),
                "ethnicity_concept_id": ETHNICITY.get(eth or "", 0),
                "person_source_value": pid,
                "gender_source_value": gender,
                "gender_source_concept_id": 0,
                "race_source_value": race_label or race,
                "race_source_concept_id": 0,
                "ethnicity_source_value": eth_label or eth,
                "ethnicity_source_concept_id": 0,
            }

    def visits(self) -> Iterator[dict[str, Any]]:
        sql = "SELECT id, patient_id, class_code, start_time, end_time, type_code FROM fhir_encounter ORDER BY id"
        for i, (eid, pid, klass, st, en, _) in enumerate(_rows(self.source, sql), start=1):
            if pid not in self.person:
                continue
            self.visit[eid] = i
            yield {
                "visit_occurrence_id": i,
                "person_id": self.person[pid],
                "visit_concept_id": VISIT_CONCEPTS.get(klass or "", 0),
                "visit_start_date": _date(st),
                "visit_start_datetime": _ts(st),
                "visit_end_date": _date(en or st),
                "visit_end_datetime": _ts(en or st),
                "visit_type_concept_id": EHR_ENCOUNTER,
                "visit_source_value": eid,
                "visit_source_concept_id": 0,
                "admitted_from_concept_id": 0,
                "discharged_to_concept_id": 0,
            }

    def conditions(self) -> Iterator[dict[str, Any]]:
        sql = (
            "SELECT patient_id, encounter_id, code_system, code, onset_time, abatement_time, clinical_status "
            "FROM fhir_condition ORDER BY id"
        )
        for pid, eid, system, code, onset, ab, status in _rows(self.source, sql):
            p, v = self.ids(pid, eid)
            if p is None or onset is None:
                continue
            yield {
                **self._event("condition", (p, v), (system, code), onset, date="start_date"),
                "condition_end_date": _date(ab),
                "condition_end_datetime": _ts(ab),
                "condition_status_concept_id": 0,
                "condition_status_source_value": status,
            }

    def drugs(self) -> Iterator[dict[str, Any]]:
        queries = (
            (
                "SELECT patient_id, encounter_id, code_system, code, authored_on, NULL, days_supply, quantity, "
                "dose_unit, route FROM fhir_medication_request ORDER BY id",
                EHR_PRESCRIPTION,
            ),
            (
                "SELECT patient_id, encounter_id, code_system, code, start_time, end_time, NULL, dose_value, "
                "dose_unit, route FROM fhir_medication_administration ORDER BY id",
                EHR_ADMINISTRATION,
            ),
            (
                "SELECT patient_id, encounter_id, code_system, code, occurrence_time, NULL, NULL, NULL, NULL, NULL "
                "FROM fhir_immunization ORDER BY id",
                EHR_ENCOUNTER,
            ),
        )
        for sql, type_id in queries:
            for pid, eid, system, code, st, en, supply, qty, unit, route in _rows(self.source, sql):
                p, v = self.ids(pid, eid)
                if p is None or st is None:
                    continue
                end = en
                if end is None and supply:
                    end = _dt.datetime.fromisoformat(_ts(st) or "") + _dt.timedelta(
                        days=float(supply)
                    )
                yield {
                    **self._event(
                        "drug",
                        (p, v),
                        (system, code),
                        st,
                        date="exposure_start_date",
                        type_id=type_id,
                    ),
                    "drug_exposure_end_date": _date(end or st),
                    "drug_exposure_end_datetime": _ts(end or st),
                    "quantity": qty,
                    "days_supply": int(supply) if supply is not None else None,
                    "route_concept_id": 0,
                    "route_source_value": route,
                    "dose_unit_source_value": unit,
                }

    def measurements(self) -> Iterator[dict[str, Any]]:
        for pid, eid, system, code, eff, num, comp, ucode, unit, vsys, vcode, _, _ in _rows(
            self.source, _OBS_SQL
        ):
            p, v = self.ids(pid, eid)
            if p is None or eff is None or num is None:
                continue
            yield {
                **self._event("measurement", (p, v), (system, code), eff),
                "operator_concept_id": 0,
                "value_as_number": num,
                "value_as_concept_id": self.voc.get(vsys, vcode)[1],
                "unit_concept_id": self.voc.units.get(ucode or "", 0),
                "unit_source_value": ucode or unit,
                "value_source_value": str(num) if comp is None else f"{comp}{num}",
            }

    def _observation_values(self) -> Iterator[dict[str, Any]]:
        for pid, eid, system, code, eff, num, _, ucode, unit, vsys, vcode, text, _ in _rows(
            self.source, _OBS_SQL
        ):
            p, v = self.ids(pid, eid)
            if p is None or eff is None or num is not None:
                continue
            yield {
                **self._event("observation", (p, v), (system, code), eff),
                "value_as_string": text,
                "value_as_concept_id": self.voc.get(vsys, vcode)[1],
                "unit_concept_id": 0,
                "unit_source_value": ucode or unit,
                "value_source_value": vcode or text,
            }

    def _allergies(self) -> Iterator[dict[str, Any]]:
        sql = (
            "SELECT patient_id, encounter_id, code_system, code, COALESCE(onset_time, recorded_time), reaction "
            "FROM fhir_allergy ORDER BY id"
        )
        for pid, eid, system, code, when, reaction in _rows(self.source, sql):
            p, v = self.ids(pid, eid)
            if p is None or when is None:
                continue
            yield {
                **self._event("observation", (p, v), (system, code), when),
                "value_as_string": reaction,
                "unit_concept_id": 0,
            }

    def procedures(self) -> Iterator[dict[str, Any]]:
        sql = "SELECT patient_id, encounter_id, code_system, code, start_time, end_time FROM fhir_procedure ORDER BY id"
        for pid, eid, system, code, st, en in _rows(self.source, sql):
            p, v = self.ids(pid, eid)
            if p is None or st is None:
                continue
            yield {
                **self._event("procedure", (p, v), (system, code), st),
                "procedure_end_date": _date(en),
                "procedure_end_datetime": _ts(en),
                "modifier_concept_id": 0,
            }

    def notes(self) -> Iterator[dict[str, Any]]:
        sql = (
            "SELECT patient_id, encounter_id, code_system, code, note_time, title, text, id, display "
            "FROM fhir_note ORDER BY id, seq"
        )
        for pid, eid, system, code, when, title, text, nid, display in _rows(self.source, sql):
            p, v = self.ids(pid, eid)
            if p is None or when is None:
                continue
            yield {
                "person_id": p,
                "note_date": _date(when),
                "note_datetime": _ts(when),
                "note_type_concept_id": EHR,
                "note_class_concept_id": self.voc.get(system, code)[1],
                "note_title": title or display,
                "note_text": text or "",
                "encoding_concept_id": UTF8,
                "language_concept_id": ENGLISH,
                "visit_occurrence_id": v,
                "note_source_value": nid,
            }

    def deaths(self) -> Iterator[dict[str, Any]]:
        for pid, _, _, _, _, dd, dt_, _, _ in self.people:
            if dd is not None:
                yield {
                    "person_id": self.person[pid],
                    "death_date": _date(dd),
                    "death_datetime": _ts(dt_),
                    "death_type_concept_id": EHR,
                    "cause_concept_id": 0,
                    "cause_source_concept_id": 0,
                }

    def observation_periods(self) -> Iterator[dict[str, Any]]:
        sql = (
            "SELECT patient_id, start_time, end_time FROM fhir_observation_period "
            "ORDER BY patient_id"
        )
        known = (r for r in _rows(self.source, sql) if r[0] in self.person)
        for i, (pid, s, e) in enumerate(known, start=1):
            yield {
                "observation_period_id": i,
                "person_id": self.person[pid],
                "observation_period_start_date": _date(s),
                "observation_period_end_date": _date(e),
                "period_type_concept_id": EHR,
            }

    def observations(self) -> Iterator[dict[str, Any]]:
        """Observations without a number, then allergies."""
        yield from self._observation_values()
        yield from self._allergies()


_VOCAB_COPY = ("concept", "concept_relationship", "concept_ancestor", "concept_synonym")


def _copy_vocabulary(vocab: Database, target: Database, writer: Writer, voc: _Vocab) -> None:
    """Give the export the vocabulary subset it uses (as Eunomia ships one), when the target has none."""
    from clinbridge.adapters.omop.ddl import table_spec

    if _has_vocab(target):
        return
    used = {i for pair in voc.map.values() for i in pair if i}
    used |= {
        *VISIT_CONCEPTS.values(),
        *GENDER.values(),
        *RACE.values(),
        *ETHNICITY.values(),
        EHR,
        EHR_PRESCRIPTION,
        EHR_ADMINISTRATION,
        EHR_ENCOUNTER,
        UTF8,
        ENGLISH,
    }
    ids = ", ".join(str(i) for i in sorted(used))
    present = {t.lower() for t in vocab.table_names()}
    wheres = {
        "concept": f"concept_id IN ({ids})",
        "concept_relationship": f"concept_id_1 IN ({ids}) AND concept_id_2 IN ({ids})",
        "concept_ancestor": f"ancestor_concept_id IN ({ids}) AND descendant_concept_id IN ({ids})",
        "concept_synonym": f"concept_id IN ({ids})",
    }
    for table in _VOCAB_COPY:
        spec = table_spec(table, "5.4")
        if table not in present or spec is None:
            continue
        cols = [c for c in spec.column_names if c in {n.lower() for n, _ in vocab.columns(table)}]
        got = list(_rows(vocab, f"SELECT {', '.join(cols)} FROM {table} WHERE {wheres[table]}"))
        t = Table(table, "", "", tuple((c, "text") for c in cols))
        with writer.transaction():
            writer.execute(f'DELETE FROM "{table}"')
            writer.insert(t, [tuple(None if v is None else _plain(v) for v in r) for r in got])


def _plain(v: Any) -> Any:
    return str(v) if isinstance(v, _dt.date) else v
