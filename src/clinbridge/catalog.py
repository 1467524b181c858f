"""The common metadata layer: a serialisable description of one clinical source.

A :class:`Catalog` says which table holds patients, which holds encounters (and how its types map
to the canonical encounter types), and, for each event stream (measurements, drugs, conditions,
procedures, observations, notes, visit details), which columns hold the patient, the encounter,
the time, the code, the value and the unit. Wide tables (trial spreadsheets) are described
variable by variable. Codes are explained by :class:`Dictionary` entries (OMOP's CONCEPT table,
MIMIC's d_items, a FHIR code table built at load time, a trial data dictionary).

The engine compiles plans against this description only; it never names a source's tables itself.
"""

from __future__ import annotations

import datetime as dt
from typing import Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "CANONICAL_ENCOUNTER_TYPES",
    "Catalog",
    "ColumnInfo",
    "CostTable",
    "Dictionary",
    "EncounterTable",
    "EventStream",
    "PatientAttribute",
    "PatientTable",
    "StreamKind",
    "TableInfo",
    "Variable",
]

EncounterType = Literal["inpatient", "emergency", "icu", "outpatient", "other"]
CANONICAL_ENCOUNTER_TYPES: tuple[EncounterType, ...] = (
    "inpatient",
    "emergency",
    "icu",
    "outpatient",
    "other",
)

StreamKind = Literal[
    "measurement",
    "drug",
    "condition",
    "procedure",
    "observation",
    "note",
    "visit_detail",
    "vital",
    "device",
]


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ColumnInfo(_Model):
    """One column of a table: its name and portable type."""

    name: str
    type: str = "unknown"
    """Portable type: integer, float, string, date, timestamp, boolean, unknown."""
    description: str = ""


class TableInfo(_Model):
    """One table of the source with its columns."""

    name: str
    columns: tuple[ColumnInfo, ...] = ()
    description: str = ""
    row_count: int | None = None

    def column(self, name: str) -> ColumnInfo | None:
        """The column called ``name`` (any case), or None."""
        lname = name.lower()
        return next((c for c in self.columns if c.name.lower() == lname), None)


class Dictionary(_Model):
    """Where the codes of a stream are explained (a concept table or a source dictionary)."""

    name: str
    table: str
    code_column: str
    """Value stored in the stream's code column (OMOP: concept_id)."""
    label_column: str
    system_column: str | None = None
    source_code_column: str | None = None
    """The code as the source vocabulary writes it (OMOP: concept_code), if different."""
    standard_column: str | None = None
    domain_column: str | None = None
    synonym_table: str | None = None
    synonym_code_column: str | None = None
    synonym_label_column: str | None = None
    ancestor_table: str | None = None
    ancestor_column: str | None = None
    descendant_column: str | None = None
    relationship_table: str | None = None
    """OMOP CONCEPT_RELATIONSHIP-like table for 'Maps to'."""


class PatientAttribute(_Model):
    """A demographic fact recorded once per patient on its table: race, ethnicity, city, state.

    A patient's value is the name of the stored code (``labels``), else the source's own text
    when there is a ``source_column`` (none: no value), else the stored value itself; ``values`` are the distinct values so read
    (all of them unless ``complete`` is False), against which a question's words are grounded.
    """

    name: Literal["race", "ethnicity", "city", "state"]
    column: str
    """The patient table's column holding the code or the text."""
    labels: dict[str, str] = Field(default_factory=dict)
    """Stored code (as text) → its name (OMOP race_concept_id 8515 → 'Asian')."""
    source_column: str | None = None
    """The source's own text for a code without a name (OMOP race_source_value)."""
    values: tuple[str, ...] = ()
    complete: bool = True


class PatientTable(_Model):
    """Where the source keeps its patients: table, id, sex and birth columns."""

    table: str
    id_column: str
    birth_date_column: str | None = None
    birth_year_column: str | None = None
    sex_column: str | None = None
    sex_values: dict[str, Literal["male", "female", "other", "unknown"]] = Field(
        default_factory=dict
    )
    """Stored sex code (as text) → canonical sex."""
    death_table: str | None = None
    death_patient_column: str | None = None
    death_date_column: str | None = None
    observation_table: str | None = None
    """Observation periods (OMOP observation_period); used for 'first year of observation'."""
    observation_patient_column: str | None = None
    observation_start_column: str | None = None
    observation_end_column: str | None = None
    external_id_column: str | None = None
    """Column holding the id a user types (FHIR Patient.id, MIMIC subject_id), if not id_column."""
    given_name_column: str | None = None
    """Given name(s) of the patient (FHIR Patient.name.given), when the source stores names."""
    family_name_column: str | None = None
    """Family name of the patient (FHIR Patient.name.family)."""
    attributes: tuple[PatientAttribute, ...] = ()
    """The demographic facts recorded per patient besides sex and birth (race, ethnicity...)."""

    def attribute(self, name: str) -> PatientAttribute | None:
        """The recorded attribute called ``name``, or None when the source has none."""
        return next((a for a in self.attributes if a.name == name), None)


class EncounterTable(_Model):
    """Where the source keeps its encounters: table, ids, times and type."""

    table: str
    id_column: str
    patient_column: str
    start_column: str
    end_column: str | None = None
    type_column: str | None = None
    type_map: dict[str, EncounterType] = Field(default_factory=dict)
    """Stored type code (as text) → canonical encounter type; unmapped codes are 'other'."""
    label: str = "visit"
    fixed_type: EncounterType | None = None
    """Every row is an encounter of this type (a table of ICU stays), instead of a type column."""
    attributes: dict[str, str] = Field(default_factory=dict)
    """Facts recorded per encounter, by name ('insurance', 'admission type') → column."""
    age_column: str | None = None
    """The patient's age in whole years as recorded at the encounter (it can differ from the
    age computed from a date of birth, which some sources shift)."""
    detail_column: str | None = None
    """A finer kind stored per encounter beside the type column's class (FHIR Encounter.type's
    display under Encounter.class): 'Emergency room admission' or 'Obstetric emergency
    hospital admission' under the class EMER."""


class CostTable(_Model):
    """Charges recorded per event (MIMIC / EHRSQL ``cost``): each row charges one event of a
    stream, named by the stream's stored event type and the event's row id."""

    table: str
    amount_column: str
    event_type_column: str
    event_id_column: str
    event_types: dict[str, str] = Field(default_factory=dict)
    """Stream name → the event type the cost table stores for that stream's rows."""
    encounter_column: str | None = None
    """The encounter each charge belongs to (for totals per encounter)."""
    time_column: str | None = None
    """When the charge was made."""


class EventStream(_Model):
    """One stream of time-stamped coded events."""

    name: str
    kind: StreamKind
    table: str
    patient_column: str
    time_column: str
    code_column: str | None = None
    code_system: str | None = None
    """Vocabulary of the code column when fixed (e.g. 'omop' concept ids, 'LOINC', 'itemid')."""
    system_column: str | None = None
    """Column holding the code system when it varies by row (FHIR)."""
    encounter_column: str | None = None
    end_time_column: str | None = None
    value_column: str | None = None
    value_text_column: str | None = None
    unit_column: str | None = None
    unit_label_column: str | None = None
    text_column: str | None = None
    """Free text (notes)."""
    title_column: str | None = None
    days_supply_column: str | None = None
    quantity_column: str | None = None
    row_id_column: str | None = None
    """The column that identifies one event row (what a :class:`CostTable` points at)."""
    nested_encounter_column: str | None = None
    """The nested encounter (:attr:`Catalog.nested_encounters`, e.g. the ICU stay) of the event."""
    status_column: str | None = None
    """The record's own status (FHIR Condition.clinicalStatus, MedicationRequest.status), when
    the source records one: it decides whether an event is active (``engine/_status.py``)."""
    status_active: tuple[str, ...] = ()
    """Stored status values meaning the event is still going on ('active', 'relapse')."""
    status_ended: tuple[str, ...] = ()
    """Stored status values meaning the event is over ('resolved', 'stopped'); values in neither
    list (a cancelled or erroneous record) are neither active nor ended."""
    route_column: str | None = None
    """Route of administration (MIMIC prescriptions.route), when the source records it."""
    source_value_column: str | None = None
    label_column: str | None = None
    """The record's own display text of its code (FHIR ``display``), when each record keeps one:
    answers that print a concept name print the records' text, not a dictionary's one name for
    the code (a code may be displayed differently across records)."""
    dictionary: str | None = None
    """Name of the :class:`Dictionary` that explains ``code_column``."""
    unit_dictionary: str | None = None
    description: str = ""


class Variable(_Model):
    """One column of a wide table (trial spreadsheets): a variable with its meaning."""

    name: str
    table: str
    column: str
    description: str = ""
    type: Literal["integer", "float", "string", "date", "boolean", "categorical"] = "string"
    unit: str | None = None
    codes: dict[str, str] = Field(default_factory=dict)
    """Stored value → label, for categorical variables."""
    missing_codes: tuple[str, ...] = ()
    time_point: str | None = None
    patient_column: str | None = None
    missing_labels: dict[str, str] = Field(default_factory=dict)
    """Missing code → its meaning ('-99' → 'Not done'); these never enter an aggregate."""
    trials: tuple[str, ...] = ()
    """Trials that collected the variable (empty: all of them)."""
    form: str | None = None
    role: Literal["subject", "trial", "site", "arm"] | None = None
    """The variable's part in the design: the subject id, or a grouping (trial, site, arm)."""


class Catalog(_Model):
    """Everything the engine needs to know about one source."""

    source: str
    adapter: str
    adapter_version: str = ""
    dialect: str
    schema_name: str | None = None
    cdm_version: str | None = None
    vocabulary_version: str | None = None
    patients: PatientTable | None = None
    encounters: EncounterTable | None = None
    nested_encounters: tuple[EncounterTable, ...] = ()
    """Encounters inside the main ones, each table of one ``fixed_type`` (MIMIC's ICU stays);
    events name theirs in :attr:`EventStream.nested_encounter_column`."""
    streams: tuple[EventStream, ...] = ()
    costs: CostTable | None = None
    """The charges per event, when the source records them."""
    dictionaries: tuple[Dictionary, ...] = ()
    variables: tuple[Variable, ...] = ()
    tables: tuple[TableInfo, ...] = ()
    data_start: str | None = None
    data_end: str | None = None
    """Earliest and latest event dates (ISO), used as 'now' when the clock would be wrong."""
    description: str = ""

    # -- lookups -----------------------------------------------------------------------------
    def stream(self, name: str) -> EventStream:
        """The event stream called ``name``."""
        for s in self.streams:
            if s.name == name:
                return s
        from clinbridge.errors import SchemaMismatchError

        raise SchemaMismatchError(
            f"source {self.source!r} has no event stream {name!r}",
            available=[s.name for s in self.streams],
        )

    def nested_encounter(self, etype: str | None) -> EncounterTable | None:
        """The nested encounter table of canonical type ``etype``, when the main encounters
        have no such type (ICU stays kept in their own table), else None."""
        if etype is None:
            return None
        main = self.encounters
        if main is not None and etype in set(main.type_map.values()):
            return None
        return next((n for n in self.nested_encounters if n.fixed_type == etype), None)

    def streams_of(self, kind: str) -> tuple[EventStream, ...]:
        """The event streams of one kind (condition, drug, measurement...)."""
        return tuple(s for s in self.streams if s.kind == kind)

    def dictionary(self, name: str) -> Dictionary:
        """The dictionary called ``name``."""
        for d in self.dictionaries:
            if d.name == name:
                return d
        from clinbridge.errors import SchemaMismatchError

        raise SchemaMismatchError(f"source {self.source!r} has no dictionary {name!r}")

    def table(self, name: str) -> TableInfo | None:
        """The table called ``name`` (any case), or None."""
        lname = name.lower()
        return next((t for t in self.tables if t.name.lower() == lname), None)

    def data_end_date(self) -> dt.date | None:
        """The last day the source has data for (``data_end``), or None when unknown or unreadable.

        Used as 'now' when neither the caller nor the settings say otherwise, so that 'last year'
        means the last year of the data rather than of the clock.
        """
        if not self.data_end:
            return None
        try:
            return dt.date.fromisoformat(self.data_end[:10])
        except ValueError:
            return None

    def table_names(self) -> set[str]:
        """The names of every table of the source."""
        return {t.name.lower() for t in self.tables}

    # -- serialisation -----------------------------------------------------------------------
    def to_json(self, *, indent: bool = True) -> str:
        """The catalog as JSON."""
        option = orjson.OPT_INDENT_2 if indent else 0
        return orjson.dumps(self.model_dump(mode="json"), option=option).decode()

    @classmethod
    def from_json(cls, text: str | bytes) -> Catalog:
        """A catalog from its JSON."""
        return cls.model_validate(orjson.loads(text))

    def summary(self, *, max_columns: int = 12) -> str:
        """A compact text description (for prompts and for people)."""
        lines = [f"source {self.source} ({self.adapter}, {self.dialect})"]
        if self.patients:
            lines.append(f"patients: {self.patients.table}.{self.patients.id_column}")
        if self.encounters:
            types = sorted(set(self.encounters.type_map.values()))
            lines.append(f"encounters: {self.encounters.table} types={types}")
        for s in self.streams:
            cols = [c for c in (s.code_column, s.value_column, s.unit_column, s.text_column) if c]
            lines.append(
                f"stream {s.name} [{s.kind}]: {s.table} time={s.time_column} {cols[:max_columns]}"
            )
        for v in self.variables:
            lines.append(
                f"variable {v.name}: {v.description} ({v.type}{', ' + v.unit if v.unit else ''})"
            )
        return "\n".join(lines)
