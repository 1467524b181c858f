"""The whole clinbridge exception tree.

Every error carries a stable ``code`` (used by the repair prompt and by abstention reasons)
and keyword fields with the details (file, record, field, table, ...)::

    ClinbridgeError
    ├── ConfigError
    ├── AdapterError
    │   ├── UnknownAdapterError
    │   └── LoadError                (bad input file / record / field)
    │       ├── UnreadableFileError  (a file as a whole cannot be read: its header)
    │       └── FieldError           (a FHIR value of the wrong type or form)
    ├── VocabularyError
    │   └── ConceptNotFoundError
    ├── PlanError
    │   ├── UnsupportedOperationError
    │   └── SchemaMismatchError
    ├── SQLSafetyError               (the guard refused a statement)
    ├── ExecutionError
    │   └── QueryTimeoutError
    ├── UnderstandingError
    ├── LLMError
    │   └── ReplyError               (engine.llm.propose: the model's reply is not valid)
    └── CalculatorError
        ├── ExtractionError          (calculators.extract: no parameters from a note)
        ├── CalculatorSpecError
        └── CalculatorInputError
            └── MissingInputError    (a required input is missing: abstain)

Each error's text ends with its documentation link (``docs/errors.md#<code>``). Abstention reasons
(:data:`AbstainReason`) are the error codes, the validator's check codes (:data:`CheckCode`) and
the readers' own verdicts; ``Answer.reason_code`` is typed by it.
"""

from __future__ import annotations

from typing import Any, Literal

ErrorCode = Literal[
    "error",
    "config",
    "adapter",
    "adapter_unknown",
    "load",
    "vocabulary",
    "concept_not_found",
    "plan",
    "plan_unsupported",
    "schema_mismatch",
    "sql_unsafe",
    "execution",
    "timeout",
    "understanding",
    "llm",
    "calculator",
    "calculator_spec",
    "calculator_input",
    "calculator_missing_input",
]

CheckCode = Literal[
    "concept_not_in_data",
    "unit_mixed",
    "value_implausible",
    "numerator_gt_denominator",
    "shape_mismatch",
    "window_empty",
    "window_outside_data",
    "window_outside_observation",
    "patient_not_found",
    "no_data",
    "not_stored",
    "no_proposal",
    "question_not_covered",
    "readings_disagree",
    "truncated",
    "scope_empty",
]
"""Codes of the validator's and the runner's deterministic checks (reported when one fails)."""

ReaderCode = Literal["ambiguous", "readers_disagree"]
"""Verdicts of the question readers: the question has several readings / the readers disagree."""

AbstainReason = Literal[ErrorCode, CheckCode, ReaderCode]
"""Every reason an answer may abstain with (``Answer.reason_code``)."""

DOCS_URL = "https://github.com/clinbridge/clinbridge/blob/main/docs/errors.md"

__all__ = [
    "AbstainReason",
    "AdapterError",
    "CalculatorError",
    "CalculatorInputError",
    "CalculatorSpecError",
    "CheckCode",
    "ClinbridgeError",
    "ConceptNotFoundError",
    "ConfigError",
    "ErrorCode",
    "ExecutionError",
    "FieldError",
    "LLMError",
    "LoadError",
    "MissingInputError",
    "PlanError",
    "QueryTimeoutError",
    "ReaderCode",
    "SQLSafetyError",
    "SchemaMismatchError",
    "UnderstandingError",
    "UnknownAdapterError",
    "UnreadableFileError",
    "UnsupportedOperationError",
    "VocabularyError",
]


class ClinbridgeError(Exception):
    """Root of every error clinbridge raises on purpose."""

    code: ErrorCode = "error"

    def __init__(self, message: str, **details: Any) -> None:
        super().__init__(message)
        self.message = message
        self.details: dict[str, Any] = details

    @property
    def docs_url(self) -> str:
        """Where this error's code is explained (an anchor of docs/errors.md)."""
        return f"{DOCS_URL}#{self.code}"

    def __str__(self) -> str:
        text = self.args[0] if self.args else self.message
        return f"{text} (see {self.docs_url})"

    def to_dict(self) -> dict[str, Any]:
        """The error as plain JSON types (code, message and fields)."""
        return {
            "code": self.code,
            "message": self.message,
            **{k: _jsonable(v) for k, v in self.details.items()},
        }


def _jsonable(value: Any) -> Any:
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    return str(value)


class ConfigError(ClinbridgeError, ValueError):
    """A setting or an argument has a bad value."""

    code: ErrorCode = "config"


class AdapterError(ClinbridgeError):
    """A source adapter cannot serve this database."""

    code: ErrorCode = "adapter"


class UnknownAdapterError(AdapterError, LookupError):
    """No adapter has this name."""

    code: ErrorCode = "adapter_unknown"


class LoadError(AdapterError, ValueError):
    """Bad input: names the file, the record (line / entry / row) and the field."""

    code: ErrorCode = "load"

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        record: str | int | None = None,
        field: str | None = None,
        **details: Any,
    ) -> None:
        where = ", ".join(
            f"{k} {v}"
            for k, v in (("file", file), ("record", record), ("field", field))
            if v is not None
        )
        super().__init__(
            f"{message} ({where})" if where else message,
            file=file,
            record=record,
            field=field,
            **details,
        )
        self.file, self.record, self.field = file, record, field


class UnreadableFileError(LoadError):
    """A file that cannot be read at all (its header): a loader sets it aside and goes on."""


class FieldError(LoadError):
    """A flattened FHIR value has the wrong type or form; ``field`` names it."""

    def __init__(self, field: str, message: str) -> None:
        ClinbridgeError.__init__(self, f"{field}: {message}", field=field)
        self.file, self.record, self.field = None, None, field
        self.message = message


class VocabularyError(ClinbridgeError):
    """A vocabulary cannot be read or queried."""

    code: ErrorCode = "vocabulary"


class ConceptNotFoundError(VocabularyError, LookupError):
    """No concept matches."""

    code: ErrorCode = "concept_not_found"


class PlanError(ClinbridgeError, ValueError):
    """A plan is not valid for this source."""

    code: ErrorCode = "plan"


class UnsupportedOperationError(PlanError):
    """The plan asks for something the compiler has no rule for."""

    code: ErrorCode = "plan_unsupported"


class SchemaMismatchError(PlanError):
    """The plan needs a table or column the source does not have."""

    code: ErrorCode = "schema_mismatch"


class SQLSafetyError(ClinbridgeError):
    """The SQL is not a safe read-only query."""

    code: ErrorCode = "sql_unsafe"


class ExecutionError(ClinbridgeError):
    """A query failed on the database."""

    code: ErrorCode = "execution"


class QueryTimeoutError(ExecutionError, TimeoutError):
    """A query ran past its time limit."""

    code: ErrorCode = "timeout"


class UnderstandingError(ClinbridgeError):
    """The question could not be read."""

    code: ErrorCode = "understanding"


class LLMError(ClinbridgeError):
    """An LLM backend failed or gave no usable reply."""

    code: ErrorCode = "llm"


class CalculatorError(ClinbridgeError):
    """A calculator cannot compute."""

    code: ErrorCode = "calculator"


class CalculatorSpecError(CalculatorError):
    """A calculator spec is invalid."""

    code: ErrorCode = "calculator_spec"


class CalculatorInputError(CalculatorError, ValueError):
    """A calculator input is missing or out of range."""

    code: ErrorCode = "calculator_input"


class MissingInputError(CalculatorInputError):
    """Required calculator inputs are missing; ``details['missing']`` names them."""

    code: ErrorCode = "calculator_missing_input"
