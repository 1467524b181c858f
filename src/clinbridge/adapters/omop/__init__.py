"""OMOP CDM adapter."""
