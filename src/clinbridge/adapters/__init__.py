"""Source adapters: OMOP CDM, FHIR (Synthea), and third-party plugins."""

from clinbridge.adapters.base import (
    SourceAdapter,
    adapter_names,
    describe,
    detect_adapter,
    get_adapter,
)

__all__ = ["SourceAdapter", "adapter_names", "describe", "detect_adapter", "get_adapter"]
