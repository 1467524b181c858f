from clinbridge.cli._lazy import lazy_group

load_group = lazy_group(
    "load",
    "Load OMOP CSVs, vocabularies, FHIR or MIMIC into a database.",
    {
        "omop": "clinbridge.cli.omop:load_omop",
        "vocab": "clinbridge.cli.omop:load_vocab",
        "fhir": "clinbridge.cli.fhir:load_fhir",
        "mimic": "clinbridge.cli.mimic:load_mimic_cmd",
    },
)
