"""``clinbridge export``: write one source's data in another model."""

from clinbridge.cli._lazy import lazy_group

export_group = lazy_group(
    "export",
    "Export a source to another data model.",
    {"omop": "clinbridge.cli.fhir:export_omop"},
)
