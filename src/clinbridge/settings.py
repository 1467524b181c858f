"""Settings: one frozen object built at the edge (CLI, API) and handed down.

Every setting has a name, a default and help text (see ``SETTINGS``); environment variables
``CLINBRIDGE_<NAME>`` override defaults.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields, replace
from typing import Any

__all__ = ["SETTINGS", "Setting", "Settings"]


@dataclass(frozen=True)
class Setting:
    name: str
    default: Any
    help: str


SETTINGS: tuple[Setting, ...] = (
    Setting("max_rows", 10_000, "Most rows a query may return; more are cut and flagged."),
    Setting("sql_timeout_ms", 30_000, "Statement timeout on every backend, in milliseconds."),
    Setting("max_repair_attempts", 1, "How many repairs the validator may try before abstaining."),
    Setting("llm", "none", "LLM backend: none, openai, transformers."),
    Setting("llm_url", "http://127.0.0.1:8080/v1", "Base URL of an OpenAI-compatible server."),
    Setting("llm_model", "", "Model name (openai backend) or local path (transformers backend)."),
    Setting("llm_timeout_s", 120.0, "Timeout for one LLM call, in seconds."),
    Setting("embeddings", "auto", "Embedding similarity for grounding: auto, on, off."),
    Setting(
        "cache_dir",
        "",
        "Cache folder (lexicons, embedding vectors); empty means ~/.cache/clinbridge.",
    ),
    Setting(
        "learned_reader",
        "on",
        "Dual-reader check: the learned reader must agree with the plan (on, off).",
    ),
    Setting(
        "learned_reader_path",
        "",
        "Learned-reader checkpoint folder; empty means the one shipped in the package.",
    ),
    Setting("now", "", "What 'today' means (ISO timestamp); empty means the clock or the data."),
    Setting(
        "examples", "", "Example bank file (JSON lines); empty means ~/.clinbridge/examples.jsonl."
    ),
)


def _coerce(value: str, default: Any) -> Any:
    if isinstance(default, bool):
        return value.strip().lower() in {"1", "true", "yes", "on"}
    if isinstance(default, int):
        return int(value)
    if isinstance(default, float):
        return float(value)
    return value


@dataclass(frozen=True)
class Settings:
    max_rows: int = 10_000
    sql_timeout_ms: int = 30_000
    max_repair_attempts: int = 1
    llm: str = "none"
    llm_url: str = "http://127.0.0.1:8080/v1"
    llm_model: str = ""
    llm_timeout_s: float = 120.0
    embeddings: str = "auto"
    cache_dir: str = ""
    learned_reader: str = "on"
    learned_reader_path: str = ""
    now: str = ""
    examples: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None, **overrides: Any) -> Settings:
        env = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        for s in SETTINGS:
            raw = env.get(f"CLINBRIDGE_{s.name.upper()}")
            if raw is not None:
                values[s.name] = _coerce(raw, s.default)
        # CLINBRIDGE_LLM is the documented short form of the backend choice.
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)

    def replace(self, **changes: Any) -> Settings:
        return replace(self, **changes)

    @staticmethod
    def names() -> list[str]:
        return [f.name for f in fields(Settings) if f.name != "extra"]
