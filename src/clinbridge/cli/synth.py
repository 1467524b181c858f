from clinbridge.cli._lazy import lazy_group

synth_group = lazy_group(
    "synth",
    "Generate synthetic OMOP, FHIR or trial data.",
    {
        "omop": "clinbridge.cli.omop:synth_omop",
        "fhir": "clinbridge.cli.fhir:synth_fhir",
        "trial": "clinbridge.cli.trial:synth_trial",
    },
)
