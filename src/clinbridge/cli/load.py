"""``clinbridge load``: create a database from source files."""

from clinbridge.cli._lazy import lazy_group

load_group = lazy_group(
    "load",
    "Load OMOP CSVs, vocabularies, FHIR, MIMIC or trial spreadsheets into a database.",
    {
        "omop": "clinbridge.cli.omop:load_omop",
        "vocab": "clinbridge.cli.omop:load_vocab",
        "fhir": "clinbridge.cli.fhir:load_fhir",
        "mimic": "clinbridge.cli.mimic:load_mimic_cmd",
        "trial": "clinbridge.cli.trial:load_trial_cmd",
    },
)
