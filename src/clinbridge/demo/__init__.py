"""The demo: build small real databases from ``synthetic_data/`` and generated data, then show
answers with their provenance. Each capability adds its part as a :class:`Section`."""

from __future__ import annotations

from clinbridge.demo._run import demo_sections, run_demo
from clinbridge.demo._section import Section, find_synthetic_data

__all__ = ["Section", "demo_sections", "find_synthetic_data", "run_demo"]
