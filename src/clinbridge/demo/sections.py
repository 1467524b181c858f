"""The demo's sections, in order. Each builds real data and prints real answers."""

from __future__ import annotations

import re
import shutil
import textwrap
from pathlib import Path
from typing import Any

from clinbridge.demo._section import Echo, Section, find_synthetic_data

EUNOMIA_PLANS: tuple[tuple[str, dict[str, Any]], ...] = (
    (
        "How many patients had a gastrointestinal hemorrhage within 30 days after their first celecoxib?",
        {
            "filters": [
                {
                    "kind": "event",
                    "stream": "condition",
                    "concepts": {"concepts": [{"name": "Gastrointestinal hemorrhage"}]},
                    "window": {
                        "kind": "relative",
                        "start_days": 0,
                        "end_days": 30,
                        "anchor": {
                            "kind": "event",
                            "stream": "drug",
                            "concepts": {"concepts": [{"name": "celecoxib"}]},
                        },
                    },
                }
            ],
            "aggregate": {"op": "count"},
        },
    ),
    (
        "What proportion of patients with a GI bleed are women?",
        {
            "filters": [
                {
                    "kind": "event",
                    "stream": "condition",
                    "concepts": {"concepts": [{"concept_id": 192671}]},
                }
            ],
            "aggregate": {"op": "proportion", "numerator": [{"kind": "sex", "sex": "female"}]},
        },
    ),
    (
        "What is the median age of patients who took diclofenac?",
        {
            "filters": [
                {
                    "kind": "event",
                    "stream": "drug",
                    "concepts": {"concepts": [{"name": "diclofenac"}]},
                }
            ],
            "measure": {"of": "age"},
            "aggregate": {"op": "median"},
        },
    ),
    (
        "Which conditions were recorded during patient 4153's last inpatient visit?",
        {
            "patient_id": "4153",
            "measure": {"of": "concept", "stream": "condition"},
            "aggregate": {"op": "list"},
            "scope": {"which": "last", "type": "inpatient"},
        },
    ),
    (
        "How many patients had a 'Dragon pox' diagnosis? (a concept the data does not hold)",
        {
            "filters": [
                {
                    "kind": "event",
                    "stream": "condition",
                    "concepts": {"concepts": [{"name": "Dragon pox"}]},
                }
            ]
        },
    ),
)


def _eunomia_db(workdir: Path, echo: Echo) -> str:
    from clinbridge.adapters.omop.loader import load_omop_csv

    path = workdir / "eunomia.duckdb"
    url = f"duckdb:///{path}"
    if not path.exists():
        tmp = workdir / "eunomia.building.duckdb"
        tmp.unlink(missing_ok=True)
        report = load_omop_csv(find_synthetic_data() / "eunomia-gibleed-5.3", f"duckdb:///{tmp}")
        shutil.move(tmp, path)
        echo(
            f"   loaded Eunomia GiBleed (OMOP CDM 5.3): {report.loaded:,} rows, "
            f"{report.rejected:,} rejected, reconciled={report.reconciles}"
        )
    else:
        echo(f"   using {path}")
    return url


_REPR = re.compile(r"^(\w+)\((.*)\)$", re.S)
_FIELD = re.compile(r"(\w+)=((?:datetime\.\w+\([^)]*\))|'[^']*'|[^,]+)")
_DATE = re.compile(r"datetime\.date\((\d+), (\d+), (\d+)\)")


def _readable(target: str) -> str:
    """A grounding target for people: an object's repr becomes its set fields."""
    m = _REPR.match(target)
    if not m:
        return target[:80]
    parts = []
    for name, raw in _FIELD.findall(m.group(2)):
        value = _DATE.sub(lambda d: f"{int(d[1]):04d}-{int(d[2]):02d}-{int(d[3]):02d}", raw)
        if value.strip() not in {"None", "()", "''"}:
            parts.append(f"{name} {value.strip(chr(39))}")
    return ", ".join(parts)


def _unit(answer: Any) -> str | None:
    """The answer's unit: from its details, else from the validator's unit check."""
    unit = answer.details.get("unit")
    if unit:
        return str(unit)
    for check in answer.checks:
        if (
            check.name == "units_consistent"
            and check.passed
            and check.detail.startswith("one unit: ")
        ):
            return str(check.detail).removeprefix("one unit: ")
    return None


def _show(question: str, answer: Any, echo: Echo) -> None:
    echo(f"Q: {question}")
    hidden = {"groundings", "confidence", "unresolved", "validation", "unit"}
    shown = {k: v for k, v in answer.details.items() if k not in hidden}
    if (answer.details.get("validation") or {}).get("repaired"):
        shown["repaired"] = True
    unit = _unit(answer) if answer.accepted else None
    echo(
        f"   answer: {answer.summary()}"
        + (f" {unit}" if unit else "")
        + (f"  {shown}" if shown else "")
    )
    groundings = answer.details.get("groundings") or []
    if groundings:
        echo(
            "   read as: "
            + "; ".join(
                f"'{g['phrase']}' → {_readable(str(g['target']))} ({g['how']})" for g in groundings
            )
        )
    for cs in answer.concept_sets[:2]:
        names = ", ".join(f"{c['name']} [{c['how']}]" for c in cs["concepts"][:3])
        more = f" (+{cs['count'] - 3} more)" if cs["count"] > 3 else ""
        echo(f"   concepts '{cs['label']}': {names}{more}")
    passed = sum(c.passed for c in answer.checks)
    source = " ".join(p for p in (answer.provenance.adapter, answer.provenance.cdm_version) if p)
    where = " on ".join(p for p in (source, answer.dialect) if p)
    echo(
        f"   checks {passed}/{len(answer.checks)} passed"
        + (f" · {where}" if where else "")
        + f" · {answer.timings.total_ms:.0f} ms"
    )
    if answer.sql:
        lines = textwrap.wrap(
            answer.sql, width=100, initial_indent="   sql: ", subsequent_indent="        "
        )
        for line in lines:
            echo(line)


def eunomia_plans(workdir: Path, echo: Echo) -> dict[str, Any]:
    """Eunomia GiBleed: hand-written plans compiled, run and validated."""
    from clinbridge.adapters import describe
    from clinbridge.db import Database
    from clinbridge.engine.plan import QueryPlan
    from clinbridge.engine.run import run_plan
    from clinbridge.settings import Settings

    url = _eunomia_db(workdir, echo)
    answers = []
    with Database.open(url) as db:
        catalog = describe(db)
        for question, plan_dict in EUNOMIA_PLANS:
            plan = QueryPlan.model_validate({**plan_dict, "question": question})
            answer = run_plan(db, catalog, plan, settings=Settings.from_env())
            _show(question, answer, echo)
            answers.append(answer.to_dict())
    return {"url": url, "answers": answers}


QUESTIONS: tuple[tuple[str, str, str | None], ...] = (
    ("eunomia", "How many patients had a gastrointestinal hemorrhage?", None),
    ("eunomia", "What proportion of patients with a GI bleed are women?", None),
    ("eunomia", "Has this patient ever had a gastrointestinal hemorrhage?", "4153"),
    ("eunomia", "What is the average insurance copay?", None),
    ("synthetic", "What is the mean hemoglobin?", None),
    ("synthetic", "What was the patient's last creatinine?", "151"),
    ("synthetic", "How many patients had an emergency visit in 2020?", None),
    ("synthetic", "What is the average length of stay of ICU stays?", None),
    ("synthetic", "How many patients aged 65 or older have atrial fibrillation?", None),
)


def _synthetic_db(workdir: Path, echo: Echo) -> str:
    from clinbridge.synthetic.omop import generate_omop

    path = workdir / "synthetic.duckdb"
    if not path.exists():
        tmp = workdir / "synthetic.building.duckdb"
        tmp.unlink(missing_ok=True)
        generate_omop(f"duckdb:///{tmp}", patients=300, seed=1)
        shutil.move(tmp, path)
        echo(
            "   generated a synthetic OMOP CDM: 300 patients (labs with units, ER/inpatient/ICU visits)"
        )
    return f"duckdb:///{path}"


def questions(workdir: Path, echo: Echo) -> dict[str, Any]:
    """Questions in plain language answered on Eunomia."""
    from clinbridge.api import connect

    urls = {"eunomia": _eunomia_db(workdir, echo), "synthetic": _synthetic_db(workdir, echo)}
    answers = []
    for source, url in urls.items():
        with connect(url) as conn:
            for where, question, patient in QUESTIONS:
                if where != source:
                    continue
                answer = conn.ask(question, patient_id=patient)
                label = f"{question}" + (f"  [patient {patient}]" if patient else "")
                _show(f"{label}  ({source})", answer, echo)
                answers.append(answer.to_dict())
    return {"answers": answers}


def fhir(workdir: Path, echo: Echo) -> dict[str, Any]:
    """Synthea FHIR bundles loaded, asked, and exported to OMOP."""
    from clinbridge.adapters import describe
    from clinbridge.adapters.fhir.loader import load_fhir
    from clinbridge.db import Database
    from clinbridge.engine.plan import QueryPlan
    from clinbridge.engine.run import run_plan
    from clinbridge.synthetic.fhir import generate_fhir

    source = workdir / "fhir-ndjson"
    path = workdir / "fhir.duckdb"
    if not path.exists():
        counts = generate_fhir(source, patients=50, seed=7)
        echo(
            f"   generated synthetic FHIR R4 NDJSON for 50 patients: {sum(counts.values()):,} resources"
        )
        report = load_fhir([source], f"duckdb:///{path}")
        echo(
            f"   loaded: read {report.read:,} = loaded {report.loaded:,} + merged {report.merged:,}"
            f" + quarantined {report.quarantined:,} "
            f"({report.resources_per_s:,.0f} resources/s)"
        )
    answers = []
    with Database.open(f"duckdb:///{path}") as db:
        catalog = describe(db)
        for question, plan in (
            (
                "How many patients had an emergency encounter?",
                QueryPlan.model_validate({"filters": [{"kind": "encounter", "type": "emergency"}]}),
            ),
            (
                "What is the mean length of an inpatient stay, in days?",
                QueryPlan.model_validate(
                    {
                        "measure": {"of": "length_of_stay", "encounter_type": "inpatient"},
                        "aggregate": {"op": "mean", "round_to": 2},
                    }
                ),
            ),
        ):
            answer = run_plan(db, catalog, plan.model_copy(update={"question": question}))
            _show(question, answer, echo)
            answers.append(answer.to_dict())
    return {"answers": answers}


def calculators(workdir: Path, echo: Echo) -> dict[str, Any]:
    """Clinical calculators from values and from a patient's records."""
    from clinbridge import calculators as calc
    from clinbridge.errors import CalculatorError

    examples = (
        (
            "CHA2DS2-VASc",
            {
                "age": [78, "years"],
                "sex": "Female",
                "chf": True,
                "hypertension": True,
                "stroke": False,
                "tia": False,
                "thromboembolism": False,
                "vascular": False,
                "diabetes": True,
            },
        ),
        ("BMI", {"weight": [180, "lbs"], "height": [70, "in"]}),
        ("CHA2DS2-VASc", {"age": [78, "years"], "sex": "Female"}),
    )
    out = []
    for name, params in examples:
        try:
            result = calc.compute(name, params)
        except CalculatorError as exc:  # a missing input is reported, never assumed absent
            echo(f"{name} with {params}: cannot compute — {exc}")
            continue
        echo(f"{name}: {result.value}")
        for line in result.explanation().splitlines()[1:]:
            echo(f"   {line}")
        out.append({"calculator": name, "value": result.value})
    return {"results": out}


TRIAL_QUESTIONS: tuple[str, ...] = (
    "What was the mean core temperature at 24 hours in each treatment arm?",
    "What percentage of infants in the hypothermia arm died?",
    "Compare the proportion with death or moderate or severe disability at 18 months between the two arms",
    "What was the mean change in core temperature between 0 h and 24 h in the cooled arm?",
    "How many boys with moderate HIE were randomised to standard care?",
    "Mean Bayley cognitive score at 18 months in each trial",
    "Mean lactate at 12 hours in NEOCOOL",
    "What was the mean serum cortisol at 24 hours?",
)


def trial(workdir: Path, echo: Echo) -> dict[str, Any]:
    """A clinical-trial spreadsheet loaded and asked."""
    from clinbridge.adapters.trial import load_trial
    from clinbridge.api import connect
    from clinbridge.synthetic.trial import generate_trial

    path = workdir / "trial.duckdb"
    if not path.exists():
        xlsx = workdir / "hie_trials.xlsx"
        generate_trial(42, variables=600).write_xlsx(xlsx)
        tmp = workdir / "trial.building.duckdb"
        tmp.unlink(missing_ok=True)
        report = load_trial(xlsx, f"duckdb:///{tmp}")
        shutil.move(tmp, path)
        for line in report.summary_lines():
            echo(f"   {line}")
    else:
        echo(f"   using {path}")
    answers = []
    with connect(f"duckdb:///{path}") as conn:
        for question in TRIAL_QUESTIONS:
            answer = conn.ask(question)
            _show(question, answer, echo)
            answers.append(answer.to_dict())
    return {"answers": answers}


SECTIONS: list[Section] = [
    Section("omop", "OMOP CDM (Eunomia GiBleed) — plans executed with provenance", eunomia_plans),
    Section(
        "ask",
        "Questions in plain language — built-in understanding, no LLM, checked before answering",
        questions,
    ),
    Section(
        "fhir",
        "FHIR R4 (synthetic, bulk NDJSON) — loaded, reconciled and queried through the same engine",
        fhir,
    ),
    Section("calc", "Medical calculators (declarative specs)", calculators),
    Section(
        "trial",
        "Harmonised trial spreadsheet (synthetic HIE cooling trials: 532 infants, 2 trials, "
        "21 sites) — dictionary found, missing codes set aside, denominators stated",
        trial,
    ),
]
