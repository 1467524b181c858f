"""Settings: one frozen, hashable object built at the edge (CLI, API) and handed down.

Each setting is declared once, as a field of :class:`Settings` (its default, its type and its help
text); ``SETTINGS`` is derived from those fields. Environment variables ``CLINBRIDGE_<NAME>``
override defaults, and every ``CLINBRIDGE_*`` variable is read here, through
:meth:`Settings.from_env`. Bad values raise :class:`~clinbridge.errors.ConfigError`::

    >>> Settings.from_env({"CLINBRIDGE_MAX_ROWS": "5"}).max_rows
    5
    >>> Settings(max_rows=0)
    Traceback (most recent call last):
    ...
    clinbridge.errors.ConfigError: setting max_rows: 0 is out of range (1 to 100000000) ...
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Mapping
from dataclasses import MISSING, dataclass, field, fields, replace
from typing import Any, Literal, get_args

from clinbridge.errors import ConfigError

__all__ = [
    "SETTINGS",
    "EmbeddingsMode",
    "LLMBackendName",
    "NotesUnmentioned",
    "Setting",
    "Settings",
]

LLMBackendName = Literal["none", "openai", "transformers"]
EmbeddingsMode = Literal["auto", "on", "off"]
NotesUnmentioned = Literal["abstain", "complete", "always"]
DrugClasses = Literal["vocabulary", "builtin"]
"""What ``ask`` answers from the notes for a yes/no finding no note mentions."""


def _meta(help: str, *, lo: float | None = None, hi: float | None = None) -> dict[str, Any]:
    return {"help": help, "lo": lo, "hi": hi}


@dataclass(frozen=True)
class Settings:
    """Every knob clinbridge has; see docs/settings.md (generated from the same fields)."""

    max_rows: int = field(
        default=10_000,
        metadata=_meta(
            "Most rows a query may return; more are cut and flagged.", lo=1, hi=100_000_000
        ),
    )
    sql_timeout_ms: int = field(
        default=30_000,
        metadata=_meta("Statement timeout on every backend, in milliseconds.", lo=1, hi=86_400_000),
    )
    max_repair_attempts: int = field(
        default=1,
        metadata=_meta("How many repairs the validator may try before abstaining.", lo=0, hi=10),
    )
    llm: LLMBackendName = field(
        default="none", metadata=_meta("LLM backend: none, openai, transformers.")
    )
    llm_url: str = field(
        default="http://127.0.0.1:8080/v1",
        metadata=_meta("Base URL of an OpenAI-compatible server."),
    )
    llm_model: str = field(
        default="",
        metadata=_meta("Model name (openai backend) or local path (transformers backend)."),
    )
    llm_timeout_s: float = field(
        default=120.0, metadata=_meta("Timeout for one LLM call, in seconds.", lo=0.001)
    )
    llm_api_key: str = field(
        default="",
        repr=False,
        metadata={"help": "Bearer token for the OpenAI-compatible server (optional)."},
    )
    embeddings: EmbeddingsMode = field(
        default="auto", metadata=_meta("Embedding similarity for grounding: auto, on, off.")
    )
    now: str = field(
        default="",
        metadata=_meta("What 'today' means (ISO timestamp); empty means the clock or the data."),
    )
    examples: str = field(
        default="",
        metadata=_meta("Example bank file (JSON lines); empty means ~/.clinbridge/examples.jsonl."),
    )
    learned_reader: Literal["on", "off"] = field(
        default="off",
        metadata=_meta(
            "Dual-reader check: the learned reader must agree with the plan (on, off; off by "
            "default: measured on devset2 it cost more right answers than wrong ones it stopped)."
        ),
    )
    drug_classes: DrugClasses = field(
        default="vocabulary",
        metadata=_meta(
            "Where a drug class ('any statin') is grounded: vocabulary (only the source's own "
            "class concepts and hierarchy; otherwise abstain), builtin (also the built-in "
            "ingredient lists, on sources with a concept hierarchy — an answer from outside "
            "the data)."
        ),
    )
    learned_reader_path: str = field(
        default="",
        metadata=_meta(
            "Learned-reader checkpoint folder; empty means the one shipped in the package."
        ),
    )
    extractor_checkpoint: str = field(
        default="",
        metadata=_meta(
            "Note-extractor checkpoint folder; empty means the one shipped in the package."
        ),
    )
    notes_unmentioned: NotesUnmentioned = field(
        default="abstain",
        metadata=_meta(
            "A yes/no finding no note mentions: abstain; complete (answer 'not documented', "
            "False, only when the notes hold a history and a presentation section that would "
            "record it); always (the chart-review convention MedCalc-Bench labels follow)."
        ),
    )
    api_token: str = field(
        default="",
        repr=False,
        metadata={
            "help": "Token `clinbridge serve` requires from clients (Authorization: Bearer)."
        },
    )
    cache_dir: str = field(
        default="",
        metadata=_meta("Cache directory (parser lexicon, ...); empty means ~/.cache/clinbridge."),
    )

    def __post_init__(self) -> None:
        for f in fields(self):
            _check(f.name, getattr(self, f.name), f.type, f.metadata)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides: Any) -> Settings:
        """Defaults, then ``CLINBRIDGE_<NAME>`` variables, then non-None ``overrides``."""
        env = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        for s in SETTINGS:
            raw = env.get(f"CLINBRIDGE_{s.name.upper()}")
            if raw is not None:
                values[s.name] = _coerce(s.name, raw, s.default)
        values.update({k: v for k, v in overrides.items() if v is not None})
        unknown = set(values) - set(cls.names())
        if unknown:
            raise ConfigError(f"unknown setting(s): {', '.join(sorted(unknown))}")
        return cls(**values)

    def replace(self, **changes: Any) -> Settings:
        """A copy with ``changes`` applied (validated again)."""
        return replace(self, **changes)

    @property
    def cache_path(self) -> str:
        """``cache_dir``, or ``~/.cache/clinbridge`` when empty."""
        return self.cache_dir or os.path.join(os.path.expanduser("~"), ".cache", "clinbridge")

    @staticmethod
    def names() -> list[str]:
        """The setting names, in declaration order."""
        return [f.name for f in fields(Settings)]


@dataclass(frozen=True)
class Setting:
    """One setting as documented: name, default and help text."""

    name: str
    default: Any
    help: str


SETTINGS: tuple[Setting, ...] = tuple(
    Setting(f.name, f.default, f.metadata["help"])
    for f in fields(Settings)
    if f.default is not MISSING
)

_TYPES: dict[str, Any] = {
    "int": int,
    "float": float,
    "str": str,
    "LLMBackendName": LLMBackendName,
    "EmbeddingsMode": EmbeddingsMode,
    "NotesUnmentioned": NotesUnmentioned,
    "DrugClasses": DrugClasses,
}


def _coerce(name: str, value: str, default: Any) -> Any:
    try:
        if isinstance(default, bool):
            return value.strip().lower() in {"1", "true", "yes", "on"}
        if isinstance(default, int):
            return int(value)
        if isinstance(default, float):
            return float(value)
    except ValueError:
        raise ConfigError(
            f"setting {name}: CLINBRIDGE_{name.upper()}={value!r} is not a number",
            setting=name,
        ) from None
    return value


def _check(name: str, value: Any, type_name: Any, meta: Mapping[str, Any]) -> None:
    kind = _TYPES.get(str(type_name), str)
    choices = get_args(kind)
    if choices:
        if value not in choices:
            raise ConfigError(
                f"setting {name}: {value!r} is not one of {', '.join(choices)}", setting=name
            )
        return
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if not isinstance(value, kind) or isinstance(value, bool):
        raise ConfigError(
            f"setting {name}: {value!r} is not a {kind.__name__}", setting=name, value=value
        )
    lo, hi = meta.get("lo"), meta.get("hi")
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        span = f"{lo} to {hi}" if hi is not None else f"at least {lo}"
        raise ConfigError(f"setting {name}: {value!r} is out of range ({span})", setting=name)
    if name == "now" and value:
        try:
            dt.datetime.fromisoformat(value)
        except ValueError:
            raise ConfigError(
                f"setting now: {value!r} is not an ISO date or timestamp", setting=name
            ) from None
