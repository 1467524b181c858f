from __future__ import annotations

import time
from collections.abc import Callable, Iterator
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


def demo_sections() -> list[Section]:
    from clinbridge.demo import sections

    return sections.SECTIONS


def run_demo(
    workdir: Path, echo: Echo, *, only: set[str] | None = None
) -> Iterator[tuple[Section, dict[str, Any], float]]:
    workdir.mkdir(parents=True, exist_ok=True)
    for section in demo_sections():
        if only and section.name not in only:
            continue
        echo("")
        echo(f"== {section.title} ==")
        start = time.perf_counter()
        result = section.run(workdir, echo)
        elapsed = time.perf_counter() - start
        echo(f"   ({elapsed:.1f} s)")
        yield section, result, elapsed
