"""Flatten FHIR R4 resources (parsed JSON dicts) into rows of the tables in :mod:`.schema`.

The fast path does not build pydantic models; instead every value that is flattened is
type-checked (see :mod:`.values`: strings are strings, quantities are numbers, dateTimes match the
FHIR grammar, references resolve), and a violation raises :class:`FieldError` naming the field.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable
from operator import itemgetter
from typing import Any

from clinbridge.adapters.fhir.schema import TABLES
from clinbridge.adapters.fhir.values import (
    Coded,
    Context,
    FieldError,
    Row,
    Rows,
    _bool,
    _cc,
    _cc_code,
    _coding,
    _date,
    _encounter,
    _ext,
    _first,
    _list,
    _num,
    _obj,
    _patient,
    _period,
    _quantity,
    _ref,
    _ref_text,
    _s,
    _value,
    clean_display,
    parse_datetime,
)

__all__ = ["FLATTENERS", "Context", "FieldError", "clean_display", "flatten", "parse_datetime"]


_COLUMNS = {name: table.column_names for name, table in TABLES.items()}
_IN_ORDER = {name: itemgetter(*columns) for name, columns in _COLUMNS.items()}


def _row(table: str, **columns: Any) -> tuple[str, Row]:
    """One row of ``table``, each value named by its column (every column, no other)."""
    if len(columns) != len(_COLUMNS[table]) or not columns.keys() <= set(_COLUMNS[table]):
        wrong = sorted(set(columns) ^ set(_COLUMNS[table]))
        raise TypeError(f"{table}: missing or unknown columns {wrong}")
    return table, _IN_ORDER[table](columns)


# -- resources ---------------------------------------------------------------------------


def _event(
    r: dict[str, Any],
    ctx: Context,
    code: tuple[str | None, str | None, str | None],
    *,
    patient: str = "subject",
    encounter: str = "encounter",
) -> dict[str, Any]:
    """The columns an event table starts with: id, patient, encounter, status and the code."""
    s, c, d = code
    return {
        "id": r["id"],
        "patient_id": _patient(r, ctx, patient),
        "encounter_id": _encounter(r, ctx, encounter),
        "status": _s(r.get("status"), "status"),
        "code_system": s,
        "code": c,
        "display": d,
    }


def _span(
    start: str | None, start_t: str | None, end: str | None, end_t: str | None
) -> dict[str, Any]:
    """The ``start_time``/``end_time`` columns (each with its verbatim text) of a period."""
    return {
        "start_time": start,
        "start_time_text": start_t,
        "end_time": end,
        "end_time_text": end_t,
    }


def _patient_rows(r: dict[str, Any], ctx: Context) -> Rows:
    birth, birth_text = _date(r.get("birthDate"), "birthDate")
    deceased = _bool(r.get("deceasedBoolean"), "deceasedBoolean")
    dts, dtext = parse_datetime(r.get("deceasedDateTime"), "deceasedDateTime")
    if dts is not None:
        deceased = True
    gender = _s(r.get("gender"), "gender")
    name: dict[str, Any] = {}
    for i, n in enumerate(_list(r.get("name"), "name")):
        n = _obj(n, f"name[{i}]")
        if not name or n.get("use") == "official":
            name = n
            if n.get("use") == "official":
                break
    given = _list(name.get("given"), "name.given")
    mrn = None
    for i, ident in enumerate(_list(r.get("identifier"), "identifier")):
        ident = _obj(ident, f"identifier[{i}]")
        codes = [
            c.get("code")
            for c in _obj(ident.get("type"), "type").get("coding", [])
            if isinstance(c, dict)
        ]
        if "MR" in codes:
            mrn = _s(ident.get("value"), f"identifier[{i}].value")
    race = Coded(None, None, None)
    eth = race
    for which in ("us-core-race", "us-core-ethnicity"):
        e = _ext(r, which)
        if e:
            for sub in _list(e.get("extension"), f"extension({which}).extension"):
                if isinstance(sub, dict) and sub.get("url") == "ombCategory":
                    got = _coding(sub.get("valueCoding"), f"extension({which}).valueCoding", ctx)
                    if which == "us-core-race":
                        race = got
                    else:
                        eth = got
                    break
    bs = _ext(r, "us-core-birthsex")
    birth_sex = _s(bs.get("valueCode"), "extension(us-core-birthsex).valueCode") if bs else None
    address = _first(r.get("address"), "address")
    marital = _cc_code(r.get("maritalStatus"), "maritalStatus", ctx)
    return [
        _row(
            "fhir_patient",
            id=r["id"],
            gender=gender,
            birth_date=birth,
            birth_date_text=birth_text,
            deceased=deceased,
            deceased_time=dts,
            deceased_time_text=dtext,
            death_date=dts[:10] if dts else None,
            family_name=_s(name.get("family"), "name.family"),
            given_name=" ".join(g for g in given if isinstance(g, str)) or None,
            mrn=mrn,
            race_code=race.code,
            race=race.display,
            ethnicity_code=eth.code,
            ethnicity=eth.display,
            birth_sex=birth_sex,
            marital_status=marital,
            city=_s(address.get("city"), "address.city"),
            state=_s(address.get("state"), "address.state"),
            postal_code=_s(address.get("postalCode"), "address.postalCode"),
            country=_s(address.get("country"), "address.country"),
        )
    ]


def _encounter_rows(r: dict[str, Any], ctx: Context) -> Rows:
    klass = r.get("class")
    if isinstance(klass, list):  # R5 shape: a list of CodeableConcepts
        ks, kc, _ = _cc(klass[0] if klass else None, "class[0]", ctx)
    else:
        ks, kc, _ = _coding(klass, "class", ctx)
    ts, tc, td = _cc(_first(r.get("type"), "type"), "type[0]", ctx)
    start, start_t, end, end_t = _period(r.get("period"), "period")
    rs, rc, rd = _cc(_first(r.get("reasonCode"), "reasonCode"), "reasonCode[0]", ctx)
    hosp = _obj(r.get("hospitalization"), "hospitalization")
    dd = _cc_code(hosp.get("dischargeDisposition"), "hospitalization.dischargeDisposition", ctx)
    part = _first(r.get("participant"), "participant")
    return [
        _row(
            "fhir_encounter",
            id=r["id"],
            patient_id=_patient(r, ctx),
            status=_s(r.get("status"), "status"),
            class_system=ks,
            class_code=kc,
            type_system=ts,
            type_code=tc,
            type_display=td,
            **_span(start, start_t, end, end_t),
            reason_system=rs,
            reason_code=rc,
            reason_display=rd,
            discharge_disposition=dd,
            service_provider=_ref_text(r.get("serviceProvider"), "serviceProvider"),
            participant=_ref_text(part.get("individual"), "participant[0].individual"),
        )
    ]


def _observation_rows(r: dict[str, Any], ctx: Context) -> Rows:
    pid = _patient(r, ctx)
    eid = _encounter(r, ctx)
    status = _s(r.get("status"), "status")
    category = _cc_code(_first(r.get("category"), "category"), "category[0]", ctx)
    s, c, d = _cc(r.get("code"), "code", ctx)
    if c is None and d is None:
        raise FieldError("code", "Observation has no code")
    eff, eff_t = parse_datetime(
        r.get("effectiveDateTime") or r.get("effectiveInstant"), "effectiveDateTime"
    )
    if eff is None and "effectivePeriod" in r:
        eff, eff_t, _, _ = _period(r.get("effectivePeriod"), "effectivePeriod")
    issued = _s(r.get("issued"), "issued")
    interp = _cc_code(_first(r.get("interpretation"), "interpretation"), "interpretation[0]", ctx)
    dar = _cc_code(r.get("dataAbsentReason"), "dataAbsentReason", ctx)
    comps = _list(r.get("component"), "component")
    value = _value(r, "", ctx)
    kind = "panel" if comps and value.value_type is None else "value"
    rid = r["id"]
    rows: Rows = [
        _row(
            "fhir_observation",
            id=rid,
            component=0,
            row_kind=kind,
            patient_id=pid,
            encounter_id=eid,
            status=status,
            category=category,
            code_system=s,
            code=c,
            display=d,
            panel_code=None,
            effective_time=eff,
            effective_time_text=eff_t,
            issued_text=issued,
            **value._asdict(),
            interpretation=interp,
            data_absent_reason=dar,
        )
    ]
    for i, comp in enumerate(comps, start=1):
        comp = _obj(comp, f"component[{i - 1}]")
        cs, cc, cd = _cc(comp.get("code"), f"component[{i - 1}].code", ctx)
        cv = _value(comp, f"component[{i - 1}].", ctx)
        cdar = _cc_code(comp.get("dataAbsentReason"), f"component[{i - 1}].dataAbsentReason", ctx)
        rows.append(
            _row(
                "fhir_observation",
                id=rid,
                component=i,
                row_kind="component",
                patient_id=pid,
                encounter_id=eid,
                status=status,
                category=category,
                code_system=cs,
                code=cc,
                display=cd,
                panel_code=c,
                effective_time=eff,
                effective_time_text=eff_t,
                issued_text=issued,
                **cv._asdict(),
                interpretation=None,
                data_absent_reason=cdar,
            )
        )
    return rows


def _condition_rows(r: dict[str, Any], ctx: Context) -> Rows:
    onset, onset_t = parse_datetime(r.get("onsetDateTime"), "onsetDateTime")
    if onset is None and "onsetPeriod" in r:
        onset, onset_t, _, _ = _period(r.get("onsetPeriod"), "onsetPeriod")
    ab, ab_t = parse_datetime(r.get("abatementDateTime"), "abatementDateTime")
    if ab is None and "abatementPeriod" in r:
        _, _, ab, ab_t = _period(r.get("abatementPeriod"), "abatementPeriod")
    rec, rec_t = parse_datetime(r.get("recordedDate"), "recordedDate")
    s, c, d = _cc(r.get("code"), "code", ctx)
    return [
        _row(
            "fhir_condition",
            id=r["id"],
            patient_id=_patient(r, ctx),
            encounter_id=_encounter(r, ctx),
            clinical_status=_cc_code(r.get("clinicalStatus"), "clinicalStatus", ctx),
            verification_status=_cc_code(r.get("verificationStatus"), "verificationStatus", ctx),
            category=_cc_code(_first(r.get("category"), "category"), "category[0]", ctx),
            code_system=s,
            code=c,
            display=d,
            onset_time=onset or rec,
            onset_time_text=onset_t or rec_t,
            abatement_time=ab,
            abatement_time_text=ab_t,
            recorded_time=rec,
            recorded_time_text=rec_t,
        )
    ]


def _medication_rows(r: dict[str, Any], ctx: Context) -> Rows:
    s, c, d = _cc(r.get("code"), "code", ctx)
    return [
        _row(
            "fhir_medication",
            id=r["id"],
            code_system=s,
            code=c,
            display=d,
            form=_cc_code(r.get("form"), "form", ctx),
        )
    ]


def _med(r: dict[str, Any], ctx: Context) -> tuple[str | None, str | None, str | None, str | None]:
    s, c, d = _cc(r.get("medicationCodeableConcept"), "medicationCodeableConcept", ctx)
    mref = _ref(r.get("medicationReference"), "medicationReference", ctx, "Medication")
    if c is None and mref is None:
        raise FieldError(
            "medication[x]", "neither medicationCodeableConcept nor medicationReference"
        )
    return s, c, d, mref


def _medication_request_rows(r: dict[str, Any], ctx: Context) -> Rows:
    s, c, d, mref = _med(r, ctx)
    auth, auth_t = parse_datetime(r.get("authoredOn"), "authoredOn")
    dose = _first(r.get("dosageInstruction"), "dosageInstruction")
    rep = _obj(
        _obj(dose.get("timing"), "dosageInstruction[0].timing").get("repeat"), "timing.repeat"
    )
    dr = _first(dose.get("doseAndRate"), "dosageInstruction[0].doseAndRate")
    dq = _quantity(dr.get("doseQuantity"), "dosageInstruction[0].doseAndRate[0].doseQuantity")
    disp = _obj(r.get("dispenseRequest"), "dispenseRequest")
    supply = _quantity(disp.get("expectedSupplyDuration"), "dispenseRequest.expectedSupplyDuration")
    qty = _quantity(disp.get("quantity"), "dispenseRequest.quantity")
    return [
        _row(
            "fhir_medication_request",
            **_event(r, ctx, (s, c, d)),
            intent=_s(r.get("intent"), "intent"),
            medication_reference=mref,
            authored_on=auth,
            authored_on_text=auth_t,
            dosage_text=_s(dose.get("text"), "dosageInstruction[0].text"),
            dose_value=dq.value,
            dose_unit=dq.unit or dq.code,
            frequency=_num(rep.get("frequency"), "timing.repeat.frequency"),
            period=_num(rep.get("period"), "timing.repeat.period"),
            period_unit=_s(rep.get("periodUnit"), "timing.repeat.periodUnit"),
            as_needed=_bool(dose.get("asNeededBoolean"), "dosageInstruction[0].asNeededBoolean"),
            route=_cc(dose.get("route"), "dosageInstruction[0].route", ctx).display,
            reason_code=_cc_code(_first(r.get("reasonCode"), "reasonCode"), "reasonCode[0]", ctx),
            reason_reference=_ref_text(
                _first(r.get("reasonReference"), "reasonReference"), "reasonReference[0]"
            ),
            requester=_ref_text(r.get("requester"), "requester"),
            days_supply=supply.value,
            quantity=qty.value,
        )
    ]


def _medication_administration_rows(r: dict[str, Any], ctx: Context) -> Rows:
    s, c, d, mref = _med(r, ctx)
    st, st_t = parse_datetime(r.get("effectiveDateTime"), "effectiveDateTime")
    en = en_t = None
    if st is None:
        st, st_t, en, en_t = _period(r.get("effectivePeriod"), "effectivePeriod")
    dosage = _obj(r.get("dosage"), "dosage")
    dq = _quantity(dosage.get("dose"), "dosage.dose")
    return [
        _row(
            "fhir_medication_administration",
            **_event(r, ctx, (s, c, d), encounter="context"),
            medication_reference=mref,
            **_span(st, st_t, en, en_t),
            dose_value=dq.value,
            dose_unit=dq.unit or dq.code,
            route=_cc(dosage.get("route"), "dosage.route", ctx).display,
            reason_code=_cc_code(_first(r.get("reasonCode"), "reasonCode"), "reasonCode[0]", ctx),
        )
    ]


def _procedure_rows(r: dict[str, Any], ctx: Context) -> Rows:
    st, st_t = parse_datetime(r.get("performedDateTime"), "performedDateTime")
    en = en_t = None
    if st is None:
        st, st_t, en, en_t = _period(r.get("performedPeriod"), "performedPeriod")
    s, c, d = _cc(r.get("code"), "code", ctx)
    return [
        _row(
            "fhir_procedure",
            **_event(r, ctx, (s, c, d)),
            **_span(st, st_t, en, en_t),
            reason_code=_cc_code(_first(r.get("reasonCode"), "reasonCode"), "reasonCode[0]", ctx),
            reason_reference=_ref_text(
                _first(r.get("reasonReference"), "reasonReference"), "reasonReference[0]"
            ),
            body_site=_cc_code(_first(r.get("bodySite"), "bodySite"), "bodySite[0]", ctx),
        )
    ]


def _immunization_rows(r: dict[str, Any], ctx: Context) -> Rows:
    occ, occ_t = parse_datetime(r.get("occurrenceDateTime"), "occurrenceDateTime")
    s, c, d = _cc(r.get("vaccineCode"), "vaccineCode", ctx)
    return [
        _row(
            "fhir_immunization",
            **_event(r, ctx, (s, c, d), patient="patient"),
            occurrence_time=occ,
            occurrence_time_text=occ_t,
            primary_source=_bool(r.get("primarySource"), "primarySource"),
            lot_number=_s(r.get("lotNumber"), "lotNumber"),
        )
    ]


def _allergy_rows(r: dict[str, Any], ctx: Context) -> Rows:
    onset, onset_t = parse_datetime(r.get("onsetDateTime"), "onsetDateTime")
    rec, rec_t = parse_datetime(r.get("recordedDate"), "recordedDate")
    s, c, d = _cc(r.get("code"), "code", ctx)
    cats = [x for x in _list(r.get("category"), "category") if isinstance(x, str)]
    reaction = _first(r.get("reaction"), "reaction")
    manif = _cc(
        _first(reaction.get("manifestation"), "reaction[0].manifestation"),
        "reaction[0].manifestation[0]",
        ctx,
    )
    return [
        _row(
            "fhir_allergy",
            id=r["id"],
            patient_id=_patient(r, ctx, "patient"),
            encounter_id=_encounter(r, ctx),
            clinical_status=_cc_code(r.get("clinicalStatus"), "clinicalStatus", ctx),
            verification_status=_cc_code(r.get("verificationStatus"), "verificationStatus", ctx),
            allergy_type=_s(r.get("type"), "type"),
            category=",".join(cats) or None,
            criticality=_s(r.get("criticality"), "criticality"),
            code_system=s,
            code=c,
            display=d,
            onset_time=onset,
            onset_time_text=onset_t,
            recorded_time=rec,
            recorded_time_text=rec_t,
            reaction=manif.display,
            severity=_s(reaction.get("severity"), "reaction[0].severity"),
        )
    ]


def _diagnostic_report_rows(r: dict[str, Any], ctx: Context) -> Rows:
    eff, eff_t = parse_datetime(r.get("effectiveDateTime"), "effectiveDateTime")
    if eff is None and "effectivePeriod" in r:
        eff, eff_t, _, _ = _period(r.get("effectivePeriod"), "effectivePeriod")
    s, c, d = _cc(r.get("code"), "code", ctx)
    results = _list(r.get("result"), "result")
    rid = r["id"]
    rows: Rows = [
        _row(
            "fhir_diagnostic_report",
            **_event(r, ctx, (s, c, d)),
            category=_cc_code(_first(r.get("category"), "category"), "category[0]", ctx),
            effective_time=eff,
            effective_time_text=eff_t,
            issued_text=_s(r.get("issued"), "issued"),
            conclusion=_s(r.get("conclusion"), "conclusion"),
            result_count=len(results),
        )
    ]
    for i, res in enumerate(results):
        oid = _ref(res, f"result[{i}]", ctx, "Observation")
        rows.append(
            _row(
                "fhir_diagnostic_report_result",
                report_id=rid,
                seq=i,
                observation_id=oid,
                display=clean_display(
                    _s(_obj(res, "result").get("display"), f"result[{i}].display")
                ),
            )
        )
    return rows


_SNOMED = "http://snomed.info/sct"


def _care_plan_rows(r: dict[str, Any], ctx: Context) -> Rows:
    cats = _list(r.get("category"), "category")
    s = c = d = None
    for i, cat in enumerate(cats):
        got = _cc(cat, f"category[{i}]", ctx)
        if c is None or (got.code_system == _SNOMED and s != _SNOMED):
            s, c, d = got
    st, st_t, en, en_t = _period(r.get("period"), "period")
    addresses = ",".join(
        x
        for i, a in enumerate(_list(r.get("addresses"), "addresses"))
        if (x := _ref(a, f"addresses[{i}]", ctx, "Condition"))
    )
    rid = r["id"]
    rows: Rows = [
        _row(
            "fhir_care_plan",
            **_event(r, ctx, (s, c, d)),
            intent=_s(r.get("intent"), "intent"),
            **_span(st, st_t, en, en_t),
            addresses=addresses or None,
        )
    ]
    for i, act in enumerate(_list(r.get("activity"), "activity")):
        det = _obj(_obj(act, f"activity[{i}]").get("detail"), f"activity[{i}].detail")
        a = _cc(det.get("code"), f"activity[{i}].detail.code", ctx)
        rows.append(
            _row(
                "fhir_care_plan_activity",
                care_plan_id=rid,
                seq=i,
                status=_s(det.get("status"), f"activity[{i}].detail.status"),
                **a._asdict(),
            )
        )
    return rows


def _document_rows(r: dict[str, Any], ctx: Context) -> Rows:
    pid = _patient(r, ctx)
    context = _obj(r.get("context"), "context")
    eid = _ref(
        _first(context.get("encounter"), "context.encounter"),
        "context.encounter[0]",
        ctx,
        "Encounter",
    )
    ts, ts_t = parse_datetime(r.get("date"), "date")
    if ts is None:
        ts, ts_t, _, _ = _period(context.get("period"), "context.period")
    s, c, d = _cc(r.get("type"), "type", ctx)
    category = _cc_code(_first(r.get("category"), "category"), "category[0]", ctx)
    author = _ref_text(_first(r.get("author"), "author"), "author[0]")
    if author and "?" in author:
        author = (
            clean_display(_s(_first(r.get("author"), "author").get("display"), "author[0].display"))
            or author
        )
    note = {
        "id": r["id"],
        "patient_id": pid,
        "encounter_id": eid,
        "status": _s(r.get("status"), "status"),
        "category": category,
        "code_system": s,
        "code": c,
        "display": d,
        "note_time": ts,
        "note_time_text": ts_t,
        "author": author,
    }
    rows: Rows = []
    for i, content in enumerate(_list(r.get("content"), "content")):
        att = _obj(_obj(content, f"content[{i}]").get("attachment"), f"content[{i}].attachment")
        ctype = _s(att.get("contentType"), f"content[{i}].attachment.contentType")
        data = _s(att.get("data"), f"content[{i}].attachment.data")
        text = None
        if data is not None:
            try:
                raw = base64.b64decode(data, validate=True)
            except (binascii.Error, ValueError):
                raise FieldError(f"content[{i}].attachment.data", "invalid base64") from None
            if ctype is None or ctype.startswith("text/") or "json" in ctype or "xml" in ctype:
                charset = "utf-8"
                if ctype and "charset=" in ctype:
                    charset = ctype.split("charset=", 1)[1].split(";")[0].strip() or "utf-8"
                try:
                    text = raw.decode(charset)
                except (LookupError, UnicodeDecodeError):
                    raise FieldError(
                        f"content[{i}].attachment.data", f"not {charset} text"
                    ) from None
        title = _s(att.get("title"), f"content[{i}].attachment.title") or _s(
            r.get("description"), "description"
        )
        rows.append(
            _row("fhir_note", **note, seq=i, title=title or d, content_type=ctype, text=text)
        )
    if not rows:
        rows.append(_row("fhir_note", **note, seq=0, title=d, content_type=None, text=None))
    return rows


FLATTENERS: dict[str, Callable[[dict[str, Any], Context], Rows]] = {
    "Patient": _patient_rows,
    "Encounter": _encounter_rows,
    "Observation": _observation_rows,
    "Condition": _condition_rows,
    "Medication": _medication_rows,
    "MedicationRequest": _medication_request_rows,
    "MedicationAdministration": _medication_administration_rows,
    "Procedure": _procedure_rows,
    "Immunization": _immunization_rows,
    "AllergyIntolerance": _allergy_rows,
    "DiagnosticReport": _diagnostic_report_rows,
    "CarePlan": _care_plan_rows,
    "DocumentReference": _document_rows,
}


def flatten(resource: dict[str, Any], ctx: Context) -> Rows:
    """Rows for one resource (empty for types that are only kept whole)."""
    fn = FLATTENERS.get(resource["resourceType"])
    if fn is None:
        return []
    return fn(resource, ctx)
