"""Run the demo's sections in order, timing each."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from clinbridge.demo._section import Echo, Section
from clinbridge.demo.sections import SECTIONS


def demo_sections() -> list[Section]:
    """The demo's sections, in the order they run."""
    return SECTIONS


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
