"""What a demo section is, and where the demo finds its data: the layer below the sections and the runner."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from clinbridge.errors import ConfigError

Echo = Callable[[str], None]


@dataclass(frozen=True)
class Section:
    """One part of the demo: builds what it needs under ``workdir`` and prints results."""

    name: str
    title: str
    run: Callable[[Path, Echo], dict[str, Any]]


def find_synthetic_data() -> Path:
    """The repository's ``synthetic_data/`` folder (the demo runs from a source checkout)."""
    here = Path(__file__).resolve()
    for parent in here.parents:
        candidate = parent / "synthetic_data"
        if (candidate / "eunomia-gibleed-5.3").is_dir():
            return candidate
    raise ConfigError(
        "synthetic_data/ was not found next to the package; run the demo from a source checkout "
        "(pip install -e .)"
    )
