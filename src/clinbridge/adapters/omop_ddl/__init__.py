"""The OHDSI CDM field-level specifications the OMOP DDL is generated from."""
