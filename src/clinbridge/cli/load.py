from clinbridge.cli._lazy import lazy_group

load_group = lazy_group(
    "load",
    "Load OMOP CSVs, vocabularies, FHIR or trial spreadsheets into a database.",
    {
        "omop": "clinbridge.cli.omop:load_omop",
        "vocab": "clinbridge.cli.omop:load_vocab",
        "fhir": "clinbridge.cli.fhir:load_fhir",
        "trial": "clinbridge.cli.trial:load_trial_cmd",
    },
)
