from clinbridge.cli._lazy import lazy_group

synth_group = lazy_group(
    "synth",
    "Generate synthetic OMOP or FHIR data.",
    {
        "omop": "clinbridge.cli.omop:synth_omop",
        "fhir": "clinbridge.cli.fhir:synth_fhir",
    },
)
