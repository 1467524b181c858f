"""Synthetic data generators (OMOP CDM, FHIR, ...) for demos, tests and benchmarks."""
