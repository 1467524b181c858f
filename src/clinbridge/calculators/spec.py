"""The declarative calculator spec: frozen pydantic models, loaded from YAML.

A spec says what a calculator needs (inputs with type, unit, accepted units, allowed values,
valid range, missing-input policy, where to find the input in patient records), how it scores
(ordered formula steps, then a formula or a points table) and what it returns (output contract).
Nothing in a spec is executable Python: formulas are expressions checked against a whitelist by
:mod:`clinbridge.calculators.expr` when the spec is compiled.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from clinbridge.errors import CalculatorSpecError

__all__ = [
    "Case",
    "CategoricalValue",
    "Constraint",
    "ForeignEntity",
    "InputSpec",
    "NoteText",
    "OutputSpec",
    "PointsItem",
    "RecordQuery",
    "Spec",
    "Step",
    "UnitShorthand",
    "load_spec",
    "parse_spec",
]

InputType = Literal["number", "integer", "boolean", "categorical", "date"]
OutputType = Literal["decimal", "integer", "date", "weeks_days"]


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class CategoricalValue(_Model):
    """One allowed value of a categorical input, with the spellings that mean it."""

    value: str
    aliases: tuple[str, ...] = ()
    description: str = ""


class RecordQuery(_Model):
    """How to find an input in patient records (any catalogued source).

    ``kind`` picks the event streams (``measurement``/``vital`` for labs and vitals, ``condition``
    for diagnoses, ``drug`` for exposures); ``patient`` reads age or sex from the patients table.
    Codes are matched on the stream's code column (OMOP concept ids), on the dictionary's source
    code (LOINC, SNOMED, ICD10) or, failing both, on the concept name (case-insensitive substring).
    """

    kind: Literal[
        "measurement", "vital", "condition", "drug", "observation", "procedure", "patient"
    ]
    field: Literal["age", "sex"] | None = None
    """Only for ``kind: patient``."""
    concept_ids: tuple[int, ...] = ()
    codes: tuple[str, ...] = ()
    """Source codes (LOINC for labs/vitals, SNOMED/ICD10 for conditions, RxNorm for drugs)."""
    names: tuple[str, ...] = ()
    """Concept names (case-insensitive substring match), used when no code matches."""
    descendants: bool = True
    """Conditions and drugs: also match descendant concepts (needs an ancestor table)."""
    lookback_days: int | None = None
    """Only consider events this many days before the reference date (``None``: any time)."""
    unit: str | None = None
    """Unit assumed when a measurement row carries none."""


class UnitShorthand(_Model):
    """A unit spelling that MedCalc-Bench gold parameters use with another meaning.

    Applied ONLY when reading the benchmark's ``Relevant Entities`` (gold mode), where the
    spelling is known to be a shorthand (e.g. ``'m^3'`` for a count per mm³, copied from notes
    that write '/mm3'); the general API still reads the unit literally and refuses what cannot
    be right. Each use is reported in the row's output.
    """

    unit: str
    """The spelling as it appears in the gold parameters (compared exactly, after stripping)."""
    means: str
    """The unit it stands for (any unit the input accepts)."""
    why: str
    """The evidence (what the notes of the affected rows say)."""


class InputSpec(_Model):
    """One input of a calculator."""

    name: str
    """Identifier used in formulas (snake_case)."""
    label: str
    type: InputType
    unit: str | None = None
    """Canonical unit (pint syntax, plus the aliases in :mod:`.units`); values are converted to it."""
    units: tuple[str, ...] = ()
    """Other units accepted (converted with pint; ``molar_mass``/``valence`` bridge mass, mol, Eq)."""
    molar_mass: float | None = None
    """g/mol, to convert between mass and substance concentrations (e.g. creatinine 113.12)."""
    valence: int | None = None
    """Charge, to convert mEq to mmol (e.g. calcium 2)."""
    iu_amount: str | None = None
    """Amount of substance in one international unit of this analyte (e.g. insulin ``6 nmol``):
    bridges IU-based units (µIU/mL, mU/L, [iU]/L) and molar ones (pmol/L)."""
    values: tuple[CategoricalValue, ...] = ()
    """Allowed values of a categorical input."""
    range: tuple[float, float] | None = None
    """Valid range in the canonical unit (inclusive); values outside are rejected."""
    missing: Literal["required", "absent", "optional"] = "required"
    """``absent``: only where the score's own definition says an undocumented finding counts as
    absent (then ``absent_value`` is used and the explanation says so). ``optional``: the rules
    handle ``None`` themselves. ``required``: a missing value makes the calculator abstain."""
    absent_value: Any = None
    """Value meaning 'not present' (booleans: false). Used for ``missing: absent`` and when a caller
    explicitly asks for its own convention (e.g. MedCalc-Bench gold parameters omit absent findings)."""
    aliases: tuple[str, ...] = ()
    """Other names of this input, e.g. the keys of MedCalc-Bench ``Relevant Entities``
    (``key#name``/``key#dose`` pick parts of a ``[name, dose, unit]`` list)."""
    negated_aliases: tuple[str, ...] = ()
    """Names of the opposite finding (boolean inputs only): ``Cough`` for *cough absent*. A gold
    entity named so is read with its value inverted, and reported."""
    note_terms: tuple[str, ...] = ()
    """Extra words a patient note uses for this input (note extraction; the label, aliases and
    record names are used too)."""
    note_source: Literal["note", "question"] = "note"
    """Where a note extractor looks for it: ``question`` for what the user asks for (the target
    steroid of a conversion), otherwise the note."""
    note_suspected_counts: bool = False
    """A suspected/possible mention counts as present (note extraction): for inputs that are
    themselves a clinical judgement ('PE is the most likely diagnosis')."""
    note_recent_only: bool = False
    """A historical mention ('history of', 'past surgical history', 'years ago') does not count
    (note extraction): for criteria with a recency window ('surgery in the previous 4 weeks')."""
    note_implied_by: tuple[str, ...] = ()
    """Medications whose mention in a note implies this (boolean) finding — only where the
    score's definition allows it (e.g. 'treated with antihypertensives')."""
    records: tuple[RecordQuery, ...] = ()
    medcalc_units: tuple[UnitShorthand, ...] = ()
    """MedCalc-Bench gold-parameter unit shorthands of this input (gold mode only)."""
    description: str = ""

    @model_validator(mode="after")
    def _check(self) -> InputSpec:
        if self.type == "categorical" and not self.values:
            raise ValueError(f"categorical input {self.name!r} needs 'values'")
        if self.type != "categorical" and self.values:
            raise ValueError(f"input {self.name!r}: 'values' only for categorical inputs")
        if self.units and not self.unit:
            raise ValueError(f"input {self.name!r}: 'units' given without a canonical 'unit'")
        if self.missing == "absent" and self.absent_value is None and self.type != "boolean":
            raise ValueError(f"input {self.name!r}: missing 'absent' needs 'absent_value'")
        if self.range is not None and self.range[0] > self.range[1]:
            raise ValueError(f"input {self.name!r}: range low > high")
        if self.negated_aliases and self.type != "boolean":
            raise ValueError(f"input {self.name!r}: 'negated_aliases' only for boolean inputs")
        if self.medcalc_units and not self.unit:
            raise ValueError(f"input {self.name!r}: 'medcalc_units' needs a canonical 'unit'")
        return self

    def absent(self) -> Any:
        """The value meaning 'absent', or ``None`` when the input has none."""
        if self.absent_value is not None:
            return self.absent_value
        return False if self.type == "boolean" else None


class Step(_Model):
    """A named intermediate value, computed in order and shown in the explanation.

    Either ``formula`` (an expression) or ``input`` + ``map`` (a lookup table from a
    categorical input's values to numbers, e.g. steroid equivalent doses).
    """

    name: str
    formula: str | None = None
    input: str | None = None
    map: dict[str, float] = Field(default_factory=dict)
    label: str = ""
    unit: str | None = None

    @model_validator(mode="after")
    def _check(self) -> Step:
        if (self.formula is None) == (self.input is None):
            raise ValueError(f"step {self.name!r}: give exactly one of formula, input + map")
        if self.input is not None and not self.map:
            raise ValueError(f"step {self.name!r}: 'input' needs 'map'")
        return self


class Case(_Model):
    """One branch of a points item: the first case whose condition holds gives the points."""

    when: str
    points: float | str
    """A number or an expression."""
    label: str = ""


class PointsItem(_Model):
    """One criterion of a points table.

    Three forms: ``when`` + ``points`` (one condition), ``cases`` (first match wins, else
    ``otherwise``), or ``input`` + ``map`` (categorical value → points).
    """

    label: str
    name: str | None = None
    """Identifier under which the item's points can be used by later formulas."""
    when: str | None = None
    points: float | str | None = None
    cases: tuple[Case, ...] = ()
    otherwise: float | str = 0
    input: str | None = None
    map: dict[str, float] = Field(default_factory=dict)
    aliases: tuple[str, ...] = ()
    """Other wordings of this criterion (e.g. the calculator's published criteria text). A
    MedCalc-Bench gold entity named like this fills the inputs the criterion reads (a criterion
    that is an ``or`` of boolean inputs is read as 'at least one of them', and reported)."""

    @model_validator(mode="after")
    def _check(self) -> PointsItem:
        forms = [self.when is not None, bool(self.cases), self.input is not None]
        if sum(forms) != 1:
            raise ValueError(f"points item {self.label!r}: give exactly one of when, cases, input")
        if self.when is not None and self.points is None:
            raise ValueError(f"points item {self.label!r}: 'when' needs 'points'")
        if self.input is not None and not self.map:
            raise ValueError(f"points item {self.label!r}: 'input' needs 'map'")
        return self


class OutputSpec(_Model):
    """The output contract."""

    name: str
    label: str
    type: OutputType
    unit: str | None = None
    decimals: int | None = None
    """Rounding of decimal outputs (half away from zero); ``None`` keeps full precision."""


class Constraint(_Model):
    """A check across inputs, evaluated after each input is validated and before any step.

    ``expr`` is an expression over the inputs (same whitelist as formulas); when it is false the
    calculator refuses the inputs with ``message``. Inputs that are ``None`` (optional, not
    given) make the constraint not apply.
    """

    expr: str
    message: str


class ForeignEntity(_Model):
    """A MedCalc-Bench gold-parameter key that belongs to another calculator.

    Gold mode refuses any key that matches no input, except these: they are dropped and reported
    as ignored in the row's output (never silently). Other callers still get an error.
    """

    key: str
    """The key exactly as it appears in ``Relevant Entities``."""
    why: str


class NoteText(_Model):
    """A documented disagreement or caveat (e.g. a known label error in a benchmark row)."""

    topic: str
    text: str
    rows: tuple[str, ...] = ()
    """Affected examples, e.g. ``train:1234`` (dataset: Row Number)."""


class Spec(_Model):
    """A calculator, declared."""

    id: int
    slug: str
    name: str
    version: int = 1
    category: str = ""
    aliases: tuple[str, ...] = ()
    description: str = ""
    citation: str
    inputs: tuple[InputSpec, ...]
    steps: tuple[Step, ...] = ()
    """Intermediate values, in order; each may use the inputs and earlier steps."""
    points: tuple[PointsItem, ...] = ()
    """Points table; the score is the sum of item points unless ``result`` says otherwise."""
    result: str | None = None
    """Expression for the output (may use inputs, steps, items' names and ``total``)."""
    output: OutputSpec
    constraints: tuple[Constraint, ...] = ()
    """Cross-input checks (e.g. ``current_date >= lmp``), evaluated before the rules."""
    medcalc_foreign: tuple[ForeignEntity, ...] = ()
    """Gold-parameter keys of other calculators that gold mode ignores (and reports)."""
    notes: tuple[NoteText, ...] = ()

    @model_validator(mode="after")
    def _check(self) -> Spec:
        if self.result is None and not self.points:
            raise ValueError("a spec needs 'result' (a formula) or 'points' (a points table)")
        names = [i.name for i in self.inputs] + [s.name for s in self.steps]
        names += [p.name for p in self.points if p.name]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise ValueError(f"names defined twice: {dup}")
        return self

    def input(self, name: str) -> InputSpec:
        """The input called ``name``."""
        for i in self.inputs:
            if i.name == name:
                return i
        raise KeyError(name)


def parse_spec(data: dict[str, Any] | str, *, source: str = "<spec>") -> Spec:
    """Validate a spec given as a dict or YAML text.

    Raises:
        CalculatorSpecError: the YAML or the spec is invalid (``details['errors']`` lists why).
    """
    if isinstance(data, str):
        try:
            data = yaml.safe_load(data)
        except yaml.YAMLError as exc:
            raise CalculatorSpecError(f"{source}: invalid YAML: {exc}", file=source) from exc
    if not isinstance(data, dict):
        raise CalculatorSpecError(f"{source}: a spec must be a mapping", file=source)
    try:
        return Spec.model_validate(data)
    except ValidationError as exc:
        errors = [
            {"loc": ".".join(str(p) for p in e["loc"]), "msg": e["msg"]} for e in exc.errors()
        ]
        text = "; ".join(f"{e['loc']}: {e['msg']}" for e in errors)
        raise CalculatorSpecError(
            f"{source}: invalid spec: {text}", file=source, errors=errors
        ) from exc


def load_spec(path: str | Path) -> Spec:
    """Read and validate one YAML spec file."""
    p = Path(path)
    return parse_spec(p.read_text(encoding="utf-8"), source=str(p))
