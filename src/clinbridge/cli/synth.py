"""``clinbridge synth``: generate synthetic data."""

from clinbridge.cli._lazy import lazy_group

synth_group = lazy_group(
    "synth",
    "Generate synthetic OMOP, FHIR, MIMIC-IV or trial data.",
    {
        "omop": "clinbridge.cli.omop:synth_omop",
        "fhir": "clinbridge.cli.fhir:synth_fhir",
        "mimic": "clinbridge.cli.mimic:synth_mimic_cmd",
        "trial": "clinbridge.cli.trial:synth_trial",
    },
)
