"""Flatten FHIR R4 resources (parsed JSON dicts) into rows of the tables in :mod:`.schema`.

The fast path does not build pydantic models; instead every value that is flattened is
type-checked (see :mod:`.values`: strings are strings, quantities are numbers, dateTimes match the
FHIR grammar, references resolve), and a violation raises :class:`FieldError` naming the field.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable
from typing import Any

from clinbridge.adapters.fhir.schema import TABLES
from clinbridge.adapters.fhir.values import (
    Context,
    FieldError,
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


# -- resources ---------------------------------------------------------------------------


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
    race: tuple[str | None, str | None, str | None] = (None, None, None)
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
        (
            "fhir_patient",
            (
                r["id"],
                gender,
                birth,
                birth_text,
                deceased,
                dts,
                dtext,
                dts[:10] if dts else None,
                _s(name.get("family"), "name.family"),
                " ".join(g for g in given if isinstance(g, str)) or None,
                mrn,
                race[1],
                race[2],
                eth[1],
                eth[2],
                birth_sex,
                marital,
                _s(address.get("city"), "address.city"),
                _s(address.get("state"), "address.state"),
                _s(address.get("postalCode"), "address.postalCode"),
                _s(address.get("country"), "address.country"),
            ),
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
        (
            "fhir_encounter",
            (
                r["id"],
                _patient(r, ctx),
                _s(r.get("status"), "status"),
                ks,
                kc,
                ts,
                tc,
                td,
                start,
                start_t,
                end,
                end_t,
                rs,
                rc,
                rd,
                dd,
                _ref_text(r.get("serviceProvider"), "serviceProvider"),
                _ref_text(part.get("individual"), "participant[0].individual"),
            ),
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
    kind = "panel" if comps and value[0] is None else "value"
    rid = r["id"]
    rows: Rows = [
        (
            "fhir_observation",
            (
                rid,
                0,
                kind,
                pid,
                eid,
                status,
                category,
                s,
                c,
                d,
                None,
                eff,
                eff_t,
                issued,
                *value,
                interp,
                dar,
            ),
        )
    ]
    for i, comp in enumerate(comps, start=1):
        comp = _obj(comp, f"component[{i - 1}]")
        cs, cc, cd = _cc(comp.get("code"), f"component[{i - 1}].code", ctx)
        cv = _value(comp, f"component[{i - 1}].", ctx)
        cdar = _cc_code(comp.get("dataAbsentReason"), f"component[{i - 1}].dataAbsentReason", ctx)
        rows.append(
            (
                "fhir_observation",
                (
                    rid,
                    i,
                    "component",
                    pid,
                    eid,
                    status,
                    category,
                    cs,
                    cc,
                    cd,
                    c,
                    eff,
                    eff_t,
                    issued,
                    *cv,
                    None,
                    cdar,
                ),
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
        (
            "fhir_condition",
            (
                r["id"],
                _patient(r, ctx),
                _encounter(r, ctx),
                _cc_code(r.get("clinicalStatus"), "clinicalStatus", ctx),
                _cc_code(r.get("verificationStatus"), "verificationStatus", ctx),
                _cc_code(_first(r.get("category"), "category"), "category[0]", ctx),
                s,
                c,
                d,
                onset or rec,
                onset_t or rec_t,
                ab,
                ab_t,
                rec,
                rec_t,
            ),
        )
    ]


def _medication_rows(r: dict[str, Any], ctx: Context) -> Rows:
    s, c, d = _cc(r.get("code"), "code", ctx)
    return [("fhir_medication", (r["id"], s, c, d, _cc_code(r.get("form"), "form", ctx)))]


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
        (
            "fhir_medication_request",
            (
                r["id"],
                _patient(r, ctx),
                _encounter(r, ctx),
                _s(r.get("status"), "status"),
                _s(r.get("intent"), "intent"),
                s,
                c,
                d,
                mref,
                auth,
                auth_t,
                _s(dose.get("text"), "dosageInstruction[0].text"),
                dq[0],
                dq[2] or dq[3],
                _num(rep.get("frequency"), "timing.repeat.frequency"),
                _num(rep.get("period"), "timing.repeat.period"),
                _s(rep.get("periodUnit"), "timing.repeat.periodUnit"),
                _bool(dose.get("asNeededBoolean"), "dosageInstruction[0].asNeededBoolean"),
                _cc(dose.get("route"), "dosageInstruction[0].route", ctx)[2],
                _cc_code(_first(r.get("reasonCode"), "reasonCode"), "reasonCode[0]", ctx),
                _ref_text(
                    _first(r.get("reasonReference"), "reasonReference"), "reasonReference[0]"
                ),
                _ref_text(r.get("requester"), "requester"),
                supply[0],
                qty[0],
            ),
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
    enc = _encounter(r, ctx, "context")
    return [
        (
            "fhir_medication_administration",
            (
                r["id"],
                _patient(r, ctx),
                enc,
                _s(r.get("status"), "status"),
                s,
                c,
                d,
                mref,
                st,
                st_t,
                en,
                en_t,
                dq[0],
                dq[2] or dq[3],
                _cc(dosage.get("route"), "dosage.route", ctx)[2],
                _cc_code(_first(r.get("reasonCode"), "reasonCode"), "reasonCode[0]", ctx),
            ),
        )
    ]


def _procedure_rows(r: dict[str, Any], ctx: Context) -> Rows:
    st, st_t = parse_datetime(r.get("performedDateTime"), "performedDateTime")
    en = en_t = None
    if st is None:
        st, st_t, en, en_t = _period(r.get("performedPeriod"), "performedPeriod")
    s, c, d = _cc(r.get("code"), "code", ctx)
    return [
        (
            "fhir_procedure",
            (
                r["id"],
                _patient(r, ctx),
                _encounter(r, ctx),
                _s(r.get("status"), "status"),
                s,
                c,
                d,
                st,
                st_t,
                en,
                en_t,
                _cc_code(_first(r.get("reasonCode"), "reasonCode"), "reasonCode[0]", ctx),
                _ref_text(
                    _first(r.get("reasonReference"), "reasonReference"), "reasonReference[0]"
                ),
                _cc_code(_first(r.get("bodySite"), "bodySite"), "bodySite[0]", ctx),
            ),
        )
    ]


def _immunization_rows(r: dict[str, Any], ctx: Context) -> Rows:
    occ, occ_t = parse_datetime(r.get("occurrenceDateTime"), "occurrenceDateTime")
    s, c, d = _cc(r.get("vaccineCode"), "vaccineCode", ctx)
    return [
        (
            "fhir_immunization",
            (
                r["id"],
                _patient(r, ctx, "patient"),
                _encounter(r, ctx),
                _s(r.get("status"), "status"),
                s,
                c,
                d,
                occ,
                occ_t,
                _bool(r.get("primarySource"), "primarySource"),
                _s(r.get("lotNumber"), "lotNumber"),
            ),
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
        (
            "fhir_allergy",
            (
                r["id"],
                _patient(r, ctx, "patient"),
                _encounter(r, ctx),
                _cc_code(r.get("clinicalStatus"), "clinicalStatus", ctx),
                _cc_code(r.get("verificationStatus"), "verificationStatus", ctx),
                _s(r.get("type"), "type"),
                ",".join(cats) or None,
                _s(r.get("criticality"), "criticality"),
                s,
                c,
                d,
                onset,
                onset_t,
                rec,
                rec_t,
                manif[2],
                _s(reaction.get("severity"), "reaction[0].severity"),
            ),
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
        (
            "fhir_diagnostic_report",
            (
                rid,
                _patient(r, ctx),
                _encounter(r, ctx),
                _s(r.get("status"), "status"),
                _cc_code(_first(r.get("category"), "category"), "category[0]", ctx),
                s,
                c,
                d,
                eff,
                eff_t,
                _s(r.get("issued"), "issued"),
                _s(r.get("conclusion"), "conclusion"),
                len(results),
            ),
        )
    ]
    for i, res in enumerate(results):
        oid = _ref(res, f"result[{i}]", ctx, "Observation")
        rows.append(
            (
                "fhir_diagnostic_report_result",
                (
                    rid,
                    i,
                    oid,
                    clean_display(_s(_obj(res, "result").get("display"), f"result[{i}].display")),
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
        if c is None or (got[0] == _SNOMED and s != _SNOMED):
            s, c, d = got
    st, st_t, en, en_t = _period(r.get("period"), "period")
    addresses = ",".join(
        x
        for i, a in enumerate(_list(r.get("addresses"), "addresses"))
        if (x := _ref(a, f"addresses[{i}]", ctx, "Condition"))
    )
    rid = r["id"]
    rows: Rows = [
        (
            "fhir_care_plan",
            (
                rid,
                _patient(r, ctx),
                _encounter(r, ctx),
                _s(r.get("status"), "status"),
                _s(r.get("intent"), "intent"),
                s,
                c,
                d,
                st,
                st_t,
                en,
                en_t,
                addresses or None,
            ),
        )
    ]
    for i, act in enumerate(_list(r.get("activity"), "activity")):
        det = _obj(_obj(act, f"activity[{i}]").get("detail"), f"activity[{i}].detail")
        a = _cc(det.get("code"), f"activity[{i}].detail.code", ctx)
        rows.append(
            (
                "fhir_care_plan_activity",
                (rid, i, _s(det.get("status"), f"activity[{i}].detail.status"), *a),
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
            (
                "fhir_note",
                (
                    r["id"],
                    i,
                    pid,
                    eid,
                    _s(r.get("status"), "status"),
                    category,
                    s,
                    c,
                    d,
                    ts,
                    ts_t,
                    title or d,
                    author,
                    ctype,
                    text,
                ),
            )
        )
    if not rows:
        rows.append(
            (
                "fhir_note",
                (
                    r["id"],
                    0,
                    pid,
                    eid,
                    _s(r.get("status"), "status"),
                    category,
                    s,
                    c,
                    d,
                    ts,
                    ts_t,
                    d,
                    author,
                    None,
                    None,
                ),
            )
        )
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


_WIDTH = {name: len(t.columns) for name, t in TABLES.items()}


def flatten(resource: dict[str, Any], ctx: Context) -> Rows:
    """Rows for one resource (empty for types that are only kept whole)."""
    fn = FLATTENERS.get(resource["resourceType"])
    if fn is None:
        return []
    rows = fn(resource, ctx)
    if __debug__:
        for table, row in rows:
            assert len(row) == _WIDTH[table], (table, len(row))
    return rows
